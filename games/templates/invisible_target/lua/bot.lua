-- arena: target
-- {{NAME}}: an "Invisible target" bot for the arena, in Lua 5.4, written by
-- `arena new-bot`. Nothing to build; play it with
--     arena --game target --scripts . play --seed 1
--
-- The game in a few lines (all of it: the arena's docs/games/target.md): a target hides
-- on a cell of a 64x64 torus (positions p = 64 * y + x). Every entry fields copies of its
-- player; they move in turn, and now and then a wall appears, never one that would cut
-- any player off from the target. The game ends after a round in which nobody moved;
-- each copy nearest the target then scores a point. `do_turn(ctx)` is called once per
-- copy, on that copy's turn: ctx.me (its position), ctx.new_wall (the wall added since
-- its previous turn, or 4096), ctx.others (the other players' positions), ctx.copy,
-- ctx.copies, ctx.round. It returns a move: 0 north, 1 west, 2 stay, 3 east, 4 south.
--
-- This starting strategy: spread out, since a copy far from everyone else is the
-- nearest to more of the places the target can be. For the first 100 rounds a copy
-- steps away from the nearest other player while one is within 8 cells, never into a
-- known wall; then it stays. The walls say where the target can be: use them.
--
-- Globals last the whole game and are shared by all of your copies; print(...) writes
-- to logs/{{NAME}}.log.

local SIDE, NO_WALL, STAY = 64, 4096, 2
local walls = {}  -- position -> true: every wall a copy was told about

-- The cell a move leads to from p on the torus.
local function step(p, m)
  local x, y = p % SIDE, p // SIDE
  if m == 0 then return ((y + SIDE - 1) % SIDE) * SIDE + x
  elseif m == 1 then return y * SIDE + (x + SIDE - 1) % SIDE
  elseif m == 3 then return y * SIDE + (x + 1) % SIDE
  elseif m == 4 then return ((y + 1) % SIDE) * SIDE + x end
  return p
end

-- Torus Manhattan distance.
local function distance(a, b)
  local dx = math.abs(a % SIDE - b % SIDE)
  local dy = math.abs(a // SIDE - b // SIDE)
  return math.min(dx, SIDE - dx) + math.min(dy, SIDE - dy)
end

-- How far p is from the nearest other player (own copies included).
local function nearest(p, others)
  local best = math.huge
  for _, o in ipairs(others) do best = math.min(best, distance(p, o)) end
  return best
end

function do_turn(ctx)
  if ctx.new_wall ~= NO_WALL then walls[ctx.new_wall] = true end
  local occupied = {}
  for _, o in ipairs(ctx.others) do occupied[o] = true end

  local here = nearest(ctx.me, ctx.others)
  if ctx.round >= 100 or here >= 8 then return STAY end
  -- The move that gets farthest from the nearest player; a move into a wall or onto
  -- another player fails (the copy stays). random(n) and math.random draw from the
  -- game's generator, so games replay from their seed.
  local best, best_d = STAY, here
  for _, m in ipairs({0, 1, 3, 4}) do
    local to = step(ctx.me, m)
    if not walls[to] and not occupied[to] then
      local d = nearest(to, ctx.others)
      if d > best_d or (d == best_d and best ~= STAY and random(2) == 0) then
        best, best_d = m, d
      end
    end
  end
  return best
end
