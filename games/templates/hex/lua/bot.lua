-- arena: hex
-- {{NAME}}: a hex humans vs zombies bot for the arena, in Lua 5.4, written by
-- `arena new-bot`. Nothing to build; play it with
--     arena --game hex --scripts . play --seed 1 --set max_turns=100
--
-- The game in a few lines (all of it: the arena's docs/games/hex.md): a game seats two
-- entries, the first playing six armed humans on a hex map, the second the zombie horde;
-- your bot plays either side, and each call says which. The humans try to survive as long
-- as they can (up to 1000 half-turns); the zombies try to bite them all. Each call is
-- either a spawn call (place your humans on the first half-turn; spawn zombies in the
-- edge zones 7..10) or a unit call (one per living unit of your side, in id order), and
-- its answer is an ordered list of commands (at most 16; a zombie's first 4 count).
-- Hexes: |x| <= 13 and |y| <= 13; distance |dx| + |dy| when dx * dy > 0, else
-- max(|dx|, |dy|); the six facings 0..5 step (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1),
-- (1, -1).
--
-- This starting strategy (the bundled baseline): the humans take pistols near the middle
-- and shoot the nearest zombie in range; the zombies spawn in the four zones in turn,
-- facing inwards, bite a human next to them, else step forward, turning a random way at
-- a wall or the edge. Change anything below.
--
-- `do_turn(ctx)` gets ctx.kind ("spawn_humans", "spawn_zombies", "unit"), ctx.side
-- ("humans", "zombies"), ctx.t, ctx.me (the unit), ctx.zombies_to_spawn, and the lists
-- ctx.humans, ctx.zombies, ctx.walls, ctx.crates, ctx.airstrikes (tables with id, x, y,
-- ...); it returns a list of commands such as { {cmd = "attack", id = 131} }. Treat ctx
-- as read-only. Globals last the whole game; print(...) writes to logs/{{NAME}}.log.

local DIRS = { {1, 0}, {0, 1}, {-1, 1}, {-1, 0}, {0, -1}, {1, -1} }  -- facing 0..5
local INWARD = { [7] = 0, [8] = 4, [9] = 3, [10] = 1 }  -- zone -> facing into the board
local spawned = 0

local function distance(x1, y1, x2, y2)
  local dx, dy = x2 - x1, y2 - y1
  if dx * dy > 0 then return math.abs(dx) + math.abs(dy) end
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
    -- Six pistols (weapon 5) around (2, 2), an open hall of the office map.
    local out = {}
    for _, p in ipairs({ {2, 2}, {3, 2}, {2, 3}, {1, 2}, {2, 1}, {3, 1} }) do
      out[#out + 1] = { cmd = "spawn", x = p[1], y = p[2], weapon = 5 }
    end
    return out
  elseif ctx.kind == "spawn_zombies" then
    local out = {}
    for _ = 1, math.min(ctx.zombies_to_spawn, 16) do
      local zone = 7 + spawned % 4
      spawned = spawned + 1
      out[#out + 1] = { cmd = "spawn_zombie", zone = zone, facing = INWARD[zone] }
    end
    return out
  end

  local me = ctx.me
  if ctx.side == "humans" then
    -- Shoot the nearest zombie within a pistol's range (5), as often as it can.
    local best, best_d = nil, 6
    for _, z in ipairs(ctx.zombies) do
      local d = distance(me.x, me.y, z.x, z.y)
      if d < best_d then best, best_d = z, d end
    end
    if best then
      local shot = { cmd = "attack", id = best.id }
      return { shot, shot, shot, shot }
    end
    return {}
  end

  -- A zombie: bite a human next to it, else step forward, else turn a random way
  -- (random(n) draws from the game's generator, so games replay from their seed).
  for _, h in ipairs(ctx.humans) do
    if distance(me.x, me.y, h.x, h.y) <= 1 then return { { cmd = "attack", id = h.id } } end
  end
  local d = DIRS[me.facing + 1]
  local fx, fy = me.x + d[1], me.y + d[2]
  if math.abs(fx) > 13 or math.abs(fy) > 13 or wall_at(ctx, fx, fy) then
    return { { cmd = "turn", by = (random(2) == 0) and 1 or -1 } }
  end
  return { { cmd = "forward" } }
end
