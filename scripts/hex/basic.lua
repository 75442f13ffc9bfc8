-- arena: hex
-- The hex baseline in Lua, for both sides (as plugins/hex-basic):
-- humans: six pistols near the middle, each shooting the nearest zombie in range;
-- zombies: spawned in the zones in turn facing inwards; each bites a human next to it,
-- else steps forward, and turns a random way at a wall or the edge.

local DIRS = { {1, 0}, {0, 1}, {-1, 1}, {-1, 0}, {0, -1}, {1, -1} }
local INWARD = { [7] = 0, [8] = 4, [9] = 3, [10] = 1 }
local next_zone = 0

local function distance(x1, y1, x2, y2)
  local dx, dy = x2 - x1, y2 - y1
  if (dx > 0 and dy > 0) or (dx < 0 and dy < 0) then
    return math.abs(dx) + math.abs(dy)
  end
  return math.max(math.abs(dx), math.abs(dy))
end

local function wall_at(ctx, x, y)
  for _, w in ipairs(ctx.walls) do
    if w.x == x and w.y == y then return true end
  end
  return false
end

function do_turn(ctx)
  if ctx.kind == "spawn_humans" then
    local out = {}
    for _, p in ipairs({ {2, 2}, {3, 2}, {2, 3}, {1, 2}, {2, 1}, {3, 1} }) do
      out[#out + 1] = { cmd = "spawn", x = p[1], y = p[2], weapon = 5 }
    end
    return out
  elseif ctx.kind == "spawn_zombies" then
    local out = {}
    for _ = 1, math.min(ctx.zombies_to_spawn, 16) do
      local zone = 7 + next_zone % 4
      next_zone = next_zone + 1
      out[#out + 1] = { cmd = "spawn_zombie", zone = zone, facing = INWARD[zone] }
    end
    return out
  end
  local me = ctx.me
  if ctx.side == "humans" then
    local best, best_d = nil, 6
    for _, z in ipairs(ctx.zombies) do
      local d = distance(me.x, me.y, z.x, z.y)
      if d < best_d then best, best_d = z, d end
    end
    if best then
      return { { cmd = "attack", id = best.id }, { cmd = "attack", id = best.id }, { cmd = "attack", id = best.id } }
    end
    return {}
  end
  for _, h in ipairs(ctx.humans) do
    if distance(me.x, me.y, h.x, h.y) <= 1 then
      return { { cmd = "attack", id = h.id } }
    end
  end
  local d = DIRS[me.facing + 1]
  local fx, fy = me.x + d[1], me.y + d[2]
  if math.abs(fx) > 13 or math.abs(fy) > 13 or wall_at(ctx, fx, fy) then
    return { { cmd = "turn", by = (random(2) == 0) and 1 or -1 } }
  end
  return { { cmd = "forward" } }
end
