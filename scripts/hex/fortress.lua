-- arena: hex
-- A hex bot that plays both sides sensibly, after plugins/hex-smart's plan (not its twin:
-- it shares no ammo, grabs without HexSmart's limit, aims its spawns at the sighting
-- nearest the middle rather than the first, and breaks ties otherwise, so a game between
-- the two is no mirror; the bundled bots that do make the same decisions are the
-- baselines and the legions, legion.lua for HexLegion):
-- humans stand on the six hexes around a free centre near the middle (four pistols, two
-- shotguns), build walls on the ring two steps out (the weakest hex first, three builds a
-- half-turn each), shoot the weakest zombies in range with as many shots as a kill needs,
-- call ammo airdrops onto the empty centre and grab them;
-- zombies remember where humans were seen, turn towards the nearest and step, bite
-- humans next to them, break walls in their way, follow their scent when no human was
-- seen, and eat a zombie on their hex to heal when hurt.

local DIRS = { {1, 0}, {0, 1}, {-1, 1}, {-1, 0}, {0, -1}, {1, -1} }
local SEQ = { 13, 14, 12, 15, 11, 16, 10, 17, 9, 18, 8, 19, 7, 20, 6, 21, 5, 22, 4, 23, 3, 24, 2, 25, 1, 26, 0 }
local INWARD = { 0, 4, 3, 1 }
local centre = nil
local sightings = {}        -- "x,y" -> {x, y}
local zone_count = { 0, 0, 0, 0 }
local next_zone = 0

local function distance(x1, y1, x2, y2)
  local dx, dy = x2 - x1, y2 - y1
  if (dx > 0 and dy > 0) or (dx < 0 and dy < 0) then return math.abs(dx) + math.abs(dy) end
  return math.max(math.abs(dx), math.abs(dy))
end

local function step(x, y, d) local v = DIRS[d % 6 + 1]; return x + v[1], y + v[2] end
local function in_bounds(x, y) return math.abs(x) <= 13 and math.abs(y) <= 13 end

local function walls_by_hex(ctx)
  local w = {}
  for _, o in ipairs(ctx.walls) do w[o.x .. "," .. o.y] = o end
  return w
end

local function facing_towards(x, y, tx, ty, prefer)
  local best, cost = prefer, nil
  for d = 0, 5 do
    local fx, fy = step(x, y, d)
    local c = distance(fx, fy, tx, ty)
    if cost == nil or c < cost or (c == cost and d == prefer) then
      if cost == nil or c < cost then best, cost = d, c end
    end
  end
  local px, py = step(x, y, prefer)
  if distance(px, py, tx, ty) == cost then return prefer end
  return best
end

local function place(ctx)
  local walls = walls_by_hex(ctx)
  local best, score = nil, nil
  for x = -8, 8 do
    for y = -8, 8 do
      local ok = not walls[x .. "," .. y]
      for d = 0, 5 do
        local nx, ny = step(x, y, d)
        if walls[nx .. "," .. ny] then ok = false end
      end
      if ok then
        local ring = 0
        for d = 0, 5 do
          local ax, ay = step(x, y, d)
          local bx, by = step(ax, ay, d)
          local cx, cy = step(ax, ay, d + 1)
          if walls[bx .. "," .. by] then ring = ring + 1 end
          if walls[cx .. "," .. cy] then ring = ring + 1 end
        end
        local s = 4 * ring - distance(0, 0, x, y)
        if score == nil or s > score then best, score = { x, y }, s end
      end
    end
  end
  centre = best or { 2, 2 }
  local arms = { 5, 1, 5, 1, 5, 5 }
  local out = {}
  for d = 0, 5 do
    local x, y = step(centre[1], centre[2], d)
    out[#out + 1] = { cmd = "spawn", x = x, y = y, weapon = arms[d + 1] }
  end
  return out
end

local function human(ctx)
  local me, out = ctx.me, {}
  centre = centre or { me.x, me.y }
  local cx, cy = centre[1], centre[2]
  if ctx.airdrops_held >= 1 then out[#out + 1] = { cmd = "call_drop", x = cx, y = cy, contents = "ammo" } end
  for _, k in ipairs(ctx.crates) do
    if distance(me.x, me.y, k.x, k.y) <= 1 and (k.contents == "ammo" or me.weapon == 4) then
      out[#out + 1] = { cmd = "grab", id = k.id }
    end
  end
  if me.ammo <= 0 and me.weapon ~= 4 then out[#out + 1] = { cmd = "throw_weapon", x = cx, y = cy } end
  -- Builds on the ring two steps from the centre, weakest first.
  local walls, taken = walls_by_hex(ctx), {}
  for _, h in ipairs(ctx.humans) do taken[h.x .. "," .. h.y] = true end
  for _, z in ipairs(ctx.zombies) do taken[z.x .. "," .. z.y] = true end
  local ring = {}
  for d = 0, 5 do
    local x, y = step(me.x, me.y, d)
    if in_bounds(x, y) and distance(cx, cy, x, y) == 2 and not taken[x .. "," .. y] then
      local w = walls[x .. "," .. y]
      ring[#ring + 1] = { x = x, y = y, hp = w and w.hp or 0 }
    end
  end
  for _ = 1, math.max(me.moves, 0) do
    table.sort(ring, function(a, b) return a.hp < b.hp end)
    if ring[1] then
      out[#out + 1] = { cmd = "build", x = ring[1].x, y = ring[1].y }
      ring[1].hp = ring[1].hp + 7
    end
  end
  -- Shots at the weakest zombies in range.
  local range = ({ [0] = 1, 3, 4, 1, 1, 5, 1 })[me.weapon] or 1
  local damage = ({ [1] = 40, [5] = 25, [4] = 60, [6] = 25 })[me.weapon] or 45
  local targets = {}
  for _, z in ipairs(ctx.zombies) do
    local d = distance(me.x, me.y, z.x, z.y)
    if d <= range and d > 0 then targets[#targets + 1] = { hp = z.hp, d = d, id = z.id } end
  end
  table.sort(targets, function(a, b) if a.hp ~= b.hp then return a.hp < b.hp end return a.d < b.d end)
  for _, t in ipairs(targets) do
    for _ = 1, (t.hp + damage - 1) // damage do
      if #out >= 16 then return out end
      out[#out + 1] = { cmd = "attack", id = t.id }
    end
  end
  return out
end

local function remember(ctx)
  for key, p in pairs(sightings) do
    local watched = false
    for _, z in ipairs(ctx.zombies) do
      if distance(z.x, z.y, p[1], p[2]) <= 2 then watched = true break end
    end
    if watched then
      local there = false
      for _, h in ipairs(ctx.humans) do if h.x == p[1] and h.y == p[2] then there = true end end
      if not there then sightings[key] = nil end
    end
  end
  for _, h in ipairs(ctx.humans) do sightings[h.x .. "," .. h.y] = { h.x, h.y } end
end

local function nearest(x, y)
  local best, bd = nil, nil
  for _, p in pairs(sightings) do
    local d = distance(x, y, p[1], p[2])
    if bd == nil or d < bd or (d == bd and (p[1] < best[1] or (p[1] == best[1] and p[2] < best[2]))) then
      best, bd = p, d
    end
  end
  return best
end

local function spawn(ctx)
  remember(ctx)
  local out = {}
  for _ = 1, math.min(ctx.zombies_to_spawn, 16) do
    local target = nearest(0, 0)
    local k
    if target then
      local edges = { target[1] + 13, 13 - target[2], 13 - target[1], target[2] + 13 }
      k = 1
      for i = 2, 4 do if edges[i] < edges[k] then k = i end end
    else
      next_zone = next_zone + 1
      k = next_zone % 4 + 1
    end
    local m = SEQ[zone_count[k] % 27 + 1]
    zone_count[k] = zone_count[k] + 1
    local hx, hy
    if k == 1 then hx, hy = -13, -13 + m elseif k == 2 then hx, hy = -13 + m, 13
    elseif k == 3 then hx, hy = 13, 13 - m else hx, hy = 13 - m, -13 end
    local tx, ty = 0, 0
    if target then tx, ty = target[1], target[2] end
    out[#out + 1] = { cmd = "spawn_zombie", zone = 6 + k, facing = facing_towards(hx, hy, tx, ty, INWARD[k]) }
  end
  return out
end

local function zombie(ctx)
  remember(ctx)
  local me, out = ctx.me, {}
  if me.hp <= 35 then
    local best = nil
    for _, o in ipairs(ctx.zombies) do
      if o.id ~= me.id and o.x == me.x and o.y == me.y and (best == nil or o.hp > best.hp) then best = o end
    end
    if best then out[#out + 1] = { cmd = "eat", id = best.id } end
  end
  local prey = nil
  for _, h in ipairs(ctx.humans) do
    if distance(me.x, me.y, h.x, h.y) <= 1 and (prey == nil or h.hp < prey.hp) then prey = h end
  end
  if prey then out[#out + 1] = { cmd = "attack", id = prey.id } return out end
  local f = me.facing
  local want
  local target = nearest(me.x, me.y)
  if target then want = facing_towards(me.x, me.y, target[1], target[2], f)
  elseif me.scent > 0 then want = f
  else want = (f + 1) % 6 end
  if want ~= f then
    out[#out + 1] = { cmd = "turn", by = ((want - f) % 6 <= 3) and 1 or -1 }
    return out
  end
  local fx, fy = step(me.x, me.y, f)
  local wall = walls_by_hex(ctx)[fx .. "," .. fy]
  if wall then out[#out + 1] = { cmd = "attack", id = wall.id }
  elseif in_bounds(fx, fy) then out[#out + 1] = { cmd = "forward" }
  else out[#out + 1] = { cmd = "turn", by = 1 } end
  return out
end

function do_turn(ctx)
  if ctx.kind == "spawn_humans" then return place(ctx)
  elseif ctx.kind == "spawn_zombies" then return spawn(ctx)
  elseif ctx.side == "humans" then return human(ctx)
  else return zombie(ctx) end
end
