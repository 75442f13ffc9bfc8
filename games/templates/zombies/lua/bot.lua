-- arena: zombies
-- {{NAME}}: a zombies bot ("Save the last bullet for yourself") for the arena, in Lua
-- 5.4, written by `arena new-bot`. Nothing to build; play it with
--     arena --game zombies --scripts . play --seed 1
--
-- The game in a few lines (all of it: the arena's docs/games/zombies.md; the API:
-- docs/scripting.md): every entry fields 50 players on a toroidal board; zombies rise and
-- chase them, and a bitten player turns into one. Each turn `do_turn(ctx)` is called once
-- for each of your living players: it sees a 17x17 window around that player and
-- returns a move ("N", "NE", "E", "SE", "S", "SW", "W", "NW", "STAY") or `shoot(id)` for
-- something within 5 cells. Your score is how long your last player survives.
--
-- This starting strategy: shoot a zombie that could bite next turn, else step away from
-- the nearest zombie in sight, else wander at random. Change anything below.
--
-- Globals last the whole game and are shared by all of your players (how they
-- coordinate); print(...) writes to logs/{{NAME}}.log.

local turn = -1
local shot = {}  -- zombie number -> true: shot at this turn

local MOVES = {
  {"N", 0, -1}, {"NE", 1, -1}, {"E", 1, 0}, {"SE", 1, 1},
  {"S", 0, 1}, {"SW", -1, 1}, {"W", -1, 0}, {"NW", -1, -1},
}

-- Chebyshev distance: how many moves apart two cells are.
local function distance(dx, dy)
  return math.max(math.abs(dx), math.abs(dy))
end

function do_turn(ctx)
  if ctx.clock ~= turn then
    turn, shot = ctx.clock, {}
  end

  -- The nearest zombie in sight. ctx:visible() lists every entity in the view as
  -- {dx=, dy=, id=} (dx east, dy south; yourself at 0, 0); id.name is "Zombie",
  -- "DeadBody" or an entry's name.
  local near, target
  for _, seen in ipairs(ctx:visible()) do
    if seen.id.name == "Zombie" then
      local d = distance(seen.dx, seen.dy)
      if not near or d < distance(near.dx, near.dy) then near = seen end
      if d <= 2 and not shot[seen.id.number]
          and (not target or d < distance(target.dx, target.dy)) then
        target = seen
      end
    end
  end

  -- 1. A zombie within 2 cells can be next to us after its move, and bite: shoot it.
  if ctx.bullets > 0 and target then
    shot[target.id.number] = true
    return shoot(target.id)
  end

  -- 2. Step to the free neighbouring cell farthest from the nearest zombie (a move
  --    onto an occupied cell fails: the player stays).
  if near then
    local best, best_d = "STAY", distance(near.dx, near.dy)
    for _, m in ipairs(MOVES) do
      if ctx:look(m[2], m[3]) == nil then
        local d = distance(near.dx - m[2], near.dy - m[3])
        if d > best_d then best, best_d = m[1], d end
      end
    end
    return best
  end

  -- 3. Nothing in sight: wander. random_move(), random(n) and math.random draw from
  --    the game's generator, so games replay from their seed.
  return random_move()
end
