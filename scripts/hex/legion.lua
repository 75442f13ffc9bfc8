-- arena: hex
-- A hex bot that plays whole sides (play_side: one call per half-turn, commands one at a
-- time, each answered with its verdict, side.ctx read again after each): the Lua twin of
-- plugins/hex-legion (and scripts/hex/py-legion.py), the same decisions to the tie (a
-- test checks it). The plan is told in full in plugins/hex-legion/src/lib.rs:
-- humans fort up around a free centre, call ammo onto it, share ammo, focus their fire
-- (each zombie shot until the sight shows it dead, no shot wasted) and wall the ring two
-- steps out; zombies share their sightings, spawn nearest the first one, and act
-- front-liners first: eat to heal, bite the weakest human in reach, else turn towards
-- the nearest sighting and break the wall in front or step.

local DIRS = { {1, 0}, {0, 1}, {-1, 1}, {-1, 0}, {0, -1}, {1, -1} }
local SEQ = { 13, 14, 12, 15, 11, 16, 10, 17, 9, 18, 8, 19, 7, 20, 6, 21, 5, 22, 4, 23, 3, 24, 2, 25, 1, 26, 0 }
local INWARD = { 0, 4, 3, 1 }
local PISTOL, SHOTGUN, GRENADE, MEDKIT, CHAINSAW = 5, 1, 2, 0, 4
local RANGE = { [0] = 1, 3, 4, 1, 1, 5, 1 }
local AMMO = { [0] = 5, 2, 12, 0, 0, 1, 3 }
local DELAY = { [0] = 2.0, 1.0, 3.0, 1.0, 1.0, 0.5, 0.33 }

local centre = nil          -- humans: {x, y}
local sightings = {}        -- zombies: {x, y}, oldest first
local zone_count = { 0, 0, 0, 0 }
local next_zone = 0

local function distance(x1, y1, x2, y2)
  local dx, dy = x2 - x1, y2 - y1
  if (dx > 0 and dy > 0) or (dx < 0 and dy < 0) then return math.abs(dx) + math.abs(dy) end
  return math.max(math.abs(dx), math.abs(dy))
end

local function step(x, y, d) local v = DIRS[d % 6 + 1]; return x + v[1], y + v[2] end
local function in_bounds(x, y) return math.abs(x) <= 13 and math.abs(y) <= 13 end

local function zone_hex(k, m)  -- zone 6 + k, its hex m
  if k == 1 then return -13, -13 + m elseif k == 2 then return -13 + m, 13
  elseif k == 3 then return 13, 13 - m else return 13 - m, -13 end
end

-- The facing whose front hex is closest to (tx, ty): `prefer` unless another is closer.
local function facing_towards(x, y, tx, ty, prefer)
  local function cost(d) local fx, fy = step(x, y, d); return distance(fx, fy, tx, ty) end
  local best = prefer
  for d = 0, 5 do if cost(d) < cost(best) then best = d end end
  return best
end

local function find(list, id)
  for _, o in ipairs(list) do if o.id == id then return o end end
  return nil
end

local function wall_at(ctx, x, y)
  for _, w in ipairs(ctx.walls) do if w.x == x and w.y == y then return w end end
  return nil
end

local function place(side)
  local ctx = side.ctx
  local walls = {}
  for _, w in ipairs(ctx.walls) do walls[w.x .. "," .. w.y] = true end
  local function wall(x, y) return walls[x .. "," .. y] == true end
  local best, score = nil, nil
  for x = -8, 8 do
    for y = -8, 8 do
      local ok = not wall(x, y)
      for d = 0, 5 do local nx, ny = step(x, y, d); if wall(nx, ny) then ok = false end end
      if ok then
        local ring = 0
        for d = 0, 5 do
          local ax, ay = step(x, y, d)
          local bx, by = step(ax, ay, d)
          local cx, cy = step(ax, ay, d + 1)
          if wall(bx, by) then ring = ring + 1 end
          if wall(cx, cy) then ring = ring + 1 end
        end
        local s = 4 * ring - distance(0, 0, x, y)
        if score == nil or s > score then best, score = { x, y }, s end
      end
    end
  end
  centre = best or { 2, 2 }
  local arms = { PISTOL, SHOTGUN, PISTOL, SHOTGUN, PISTOL, PISTOL }
  for d = 0, 5 do
    local x, y = step(centre[1], centre[2], d)
    side:command{ cmd = "spawn", x = x, y = y, weapon = arms[d + 1] }
  end
end

local function can_fire(ctx, h, z)
  local w = h.weapon
  if w == MEDKIT or RANGE[w] == nil then return false end
  local d = distance(h.x, h.y, z.x, z.y)
  if d < 1 or d > RANGE[w] or h.ammo < AMMO[w] or DELAY[w] >= h.idle then return false end
  if w == GRENADE then
    for _, o in ipairs(ctx.humans) do if distance(o.x, o.y, z.x, z.y) <= 1 then return false end end
  end
  return true
end

local function humans(side)
  local ctx = side.ctx
  if ctx.t == 1 then place(side) return end
  if #ctx.humans == 0 then return end
  centre = centre or { ctx.humans[1].x, ctx.humans[1].y }
  local cx, cy = centre[1], centre[2]
  local ids = {}
  for i, h in ipairs(ctx.humans) do ids[i] = h.id end
  -- An ammo airdrop onto the empty centre.
  if ctx.airdrops_held >= 1 then
    local taken = false
    for _, h in ipairs(ctx.humans) do if h.x == cx and h.y == cy then taken = true end end
    if not taken then side:command{ cmd = "call_drop", x = cx, y = cy, contents = "ammo" } end
  end
  -- Crates within reach.
  for _, id in ipairs(ids) do
    local h = find(side.ctx.humans, id)
    if h then
      local grabs = {}
      for _, k in ipairs(side.ctx.crates) do
        if distance(h.x, h.y, k.x, k.y) <= 1 and (k.contents == "ammo" or h.weapon == CHAINSAW) then
          grabs[#grabs + 1] = k.id
        end
      end
      for _, k in ipairs(grabs) do
        if side:command{ cmd = "grab", unit = id, id = k }.verdict == "cap" then return end
      end
    end
  end
  -- Out of ammo next to the centre: the Chainsaw.
  for _, id in ipairs(ids) do
    local h = find(side.ctx.humans, id)
    if h and h.ammo <= 0 and h.weapon ~= CHAINSAW and distance(h.x, h.y, cx, cy) <= 1 then
      side:command{ cmd = "throw_weapon", unit = id, x = cx, y = cy }
    end
  end
  -- Ammo for whoever runs low, from the neighbour with the most.
  for _, id in ipairs(ids) do
    local h = find(side.ctx.humans, id)
    if h and h.ammo < 15 then
      local donor = nil
      for _, o in ipairs(side.ctx.humans) do
        if o.id ~= id and o.ammo > 40 and distance(o.x, o.y, h.x, h.y) <= 1 and (donor == nil or o.ammo > donor.ammo) then
          donor = o
        end
      end
      if donor then side:command{ cmd = "give", unit = donor.id, id = id, amount = 20 } end
    end
  end
  -- Focus fire.
  local targets = {}
  for _, z in ipairs(side.ctx.zombies) do
    targets[#targets + 1] = { d = distance(z.x, z.y, cx, cy), hp = z.hp, id = z.id }
  end
  table.sort(targets, function(a, b)
    if a.d ~= b.d then return a.d < b.d end
    if a.hp ~= b.hp then return a.hp < b.hp end
    return a.id < b.id
  end)
  for _, t in ipairs(targets) do
    local refused = {}
    while true do
      local c = side.ctx
      local z = find(c.zombies, t.id)
      if not z then break end
      local shooter = nil
      for _, h in ipairs(c.humans) do
        if not refused[h.id] and can_fire(c, h, z) then shooter = h.id break end
      end
      if not shooter then break end
      local v = side:command{ cmd = "attack", unit = shooter, id = t.id }
      if v.verdict == "cap" then return end
      if not v.ok then refused[shooter] = true end
    end
  end
  -- Walls on the ring two steps from the centre, the weakest first.
  for _, id in ipairs(ids) do
    while true do
      local c = side.ctx
      local h = find(c.humans, id)
      if not h or h.moves < 1 then break end
      local best, bhp = nil, nil
      for d = 0, 5 do
        local px, py = step(h.x, h.y, d)
        local taken = false
        for _, o in ipairs(c.humans) do if o.x == px and o.y == py then taken = true end end
        for _, z in ipairs(c.zombies) do if z.x == px and z.y == py then taken = true end end
        if in_bounds(px, py) and distance(cx, cy, px, py) == 2 and not taken then
          local hp = 0
          for _, w in ipairs(c.walls) do if w.x == px and w.y == py then hp = hp + w.hp end end
          if bhp == nil or hp < bhp then best, bhp = { px, py }, hp end
        end
      end
      if not best then break end
      if not side:command{ cmd = "build", unit = id, x = best[1], y = best[2] }.ok then break end
    end
  end
end

local function remember(ctx)
  local kept = {}
  for _, p in ipairs(sightings) do
    local watched, there = false, false
    for _, z in ipairs(ctx.zombies) do
      if distance(z.x, z.y, p[1], p[2]) <= 2 then watched = true break end
    end
    for _, h in ipairs(ctx.humans) do if h.x == p[1] and h.y == p[2] then there = true end end
    if not watched or there then kept[#kept + 1] = p end
  end
  sightings = kept
  for _, h in ipairs(ctx.humans) do
    local known = false
    for _, p in ipairs(sightings) do if p[1] == h.x and p[2] == h.y then known = true end end
    if not known then sightings[#sightings + 1] = { h.x, h.y } end
  end
end

local function nearest(x, y)
  local best, bd = nil, nil
  for _, p in ipairs(sightings) do
    local d = distance(x, y, p[1], p[2])
    if bd == nil or d < bd then best, bd = p, d end
  end
  return best
end

local function zombies(side)
  remember(side.ctx)
  -- The zombies alive at the half-turn's start, front-liners first.
  local order = {}
  for _, z in ipairs(side.ctx.zombies) do
    local t = nearest(z.x, z.y) or { 0, 0 }
    order[#order + 1] = { d = distance(z.x, z.y, t[1], t[2]), id = z.id }
  end
  table.sort(order, function(a, b) if a.d ~= b.d then return a.d < b.d end return a.id < b.id end)
  -- Spawns, while the supply and the cap allow.
  while side.ctx.zombies_to_spawn > 0 do
    local focus = sightings[1]
    local k
    if focus then
      local edges = { focus[1] + 13, 13 - focus[2], 13 - focus[1], focus[2] + 13 }
      k = 1
      for i = 2, 4 do if edges[i] < edges[k] then k = i end end
    else
      next_zone = next_zone + 1
      k = next_zone % 4 + 1
    end
    local hx, hy = zone_hex(k, SEQ[zone_count[k] % 27 + 1])
    local tx, ty = 0, 0
    if focus then tx, ty = focus[1], focus[2] end
    local facing = facing_towards(hx, hy, tx, ty, INWARD[k])
    if not side:command{ cmd = "spawn_zombie", zone = 6 + k, facing = facing }.ok then break end
    zone_count[k] = zone_count[k] + 1
  end
  for _, o in ipairs(order) do
    local id = o.id
    local z = find(side.ctx.zombies, id)
    if z then
      local x, y = z.x, z.y
      -- Heal on the healthiest other zombie of its hex.
      if z.hp <= 35 then
        local meal = nil
        for _, m in ipairs(side.ctx.zombies) do
          if m.id ~= id and m.x == x and m.y == y and (meal == nil or m.hp > meal.hp) then meal = m end
        end
        if meal then side:command{ cmd = "eat", unit = id, id = meal.id } end
      end
      local c = side.ctx
      z = find(c.zombies, id)
      if z then
        local prey = nil
        for _, h in ipairs(c.humans) do
          if distance(x, y, h.x, h.y) <= 1 and (prey == nil or h.hp < prey.hp) then prey = h end
        end
        if prey then
          side:command{ cmd = "attack", unit = id, id = prey.id }
        else
          local f = z.facing % 6
          local want
          local t = nearest(x, y)
          if t then want = facing_towards(x, y, t[1], t[2], f)
          elseif z.scent > 0 then want = f
          else want = (f + 1) % 6 end
          if want ~= f then
            side:command{ cmd = "turn", unit = id, by = ((want - f) % 6 <= 3) and 1 or -1 }
          else
            local fx, fy = step(x, y, f)
            local wall = wall_at(c, fx, fy)
            if wall then side:command{ cmd = "attack", unit = id, id = wall.id }
            elseif in_bounds(fx, fy) then side:command{ cmd = "forward", unit = id }
            else side:command{ cmd = "turn", unit = id, by = 1 } end
          end
        end
      end
    end
  end
end

function play_side(side)
  if side.ctx.side == "humans" then humans(side) else zombies(side) end
end
