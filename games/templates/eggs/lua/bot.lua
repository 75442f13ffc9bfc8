-- arena: eggs
-- {{NAME}}: an Easter Egg Hunt bot for the arena, in Lua 5.4, written by
-- `arena new-bot`. Nothing to build; play it with
--     arena --game eggs --scripts . play --seed 1
--
-- The game in a few lines (all of it: the arena's docs/games/eggs.md; the API:
-- docs/scripting.md): one player per entry on a walled board strewn with eggs. Each turn
-- `do_turn(ctx)` sees ctx.view, the 5x5 cells around the player (five strings, north to
-- south, each five characters west to east, the player at row 3, column 3: '#' wall,
-- 'o' egg, '*' player, ' ' empty, 'X' outside), and ctx.memory, the memory it answered
-- last turn. It returns {dir = 1..9, action = "A" | "C" | "N", memory = "..."}:
-- directions 1 NW, 2 N, 3 NE, 4 E, 5 SE, 6 S, 7 SW, 8 W, 9 stay; Attack beats Nothing,
-- Nothing beats Counter, Counter beats Attack when players fight; stepping onto an egg
-- with N picks it up (one point). A memory is at most 1,024 bytes.
--
-- This starting strategy: step onto an egg next to the player; otherwise walk straight
-- on, turning at random when a wall or the edge is ahead. The memory holds the
-- direction it walks. Globals (kept for the whole game) could hold more; print(...)
-- writes to logs/{{NAME}}.log.

-- The step {dx, dy} of directions 1..8 (x east, y south).
local STEPS = { {-1, -1}, {0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0} }

-- The view cell at offset (dx, dy), each -2..2.
local function at(ctx, dx, dy)
  return ctx.view[3 + dy]:sub(3 + dx, 3 + dx)
end

function do_turn(ctx)
  -- 1. An egg next to us: step onto it with N, which picks it up.
  for i, s in ipairs(STEPS) do
    if at(ctx, s[1], s[2]) == "o" then
      return { dir = i, action = "N", memory = ctx.memory }
    end
  end

  -- 2. Walk on in the remembered direction; pick another when the way is blocked.
  --    random(n) and math.random draw from the game's generator, so games replay from
  --    their seed.
  local d = tonumber(ctx.memory) or 0
  if d < 1 or d > 8 or at(ctx, STEPS[d][1], STEPS[d][2]):match("[#X]") then
    d = 1 + random(8)
  end
  return { dir = d, action = "N", memory = tostring(d) }
end
