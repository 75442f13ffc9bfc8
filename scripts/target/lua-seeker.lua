-- arena: target
-- TargetSeekerLua: an "Invisible target" bot that reasons about the wall rule (the same
-- strategy as the TargetSeeker plugin and py-seeker.py).
--
-- A wall is only placed where every player can still reach the target, so the target
-- always lies in the region of free cells that holds the players. The entry's one VM
-- keeps every wall its copies were told about; after a new wall it prunes its belief
-- (`possible`) to the cells reachable from its player through non-wall cells.
-- Each copy then moves to where it is the nearest player to the most possible cells (its
-- share of where the target can be; a sample of at most SAMPLE cells, ties count half),
-- staying if nothing beats staying; equal choices are broken at random.

local SIDE, CELLS, NO_WALL = 64, 4096, 4096
local SAMPLE = 256

local wall, possible, cells = {}, {}, {}
for c = 0, CELLS - 1 do possible[c] = true; cells[#cells + 1] = c end
local dirty = false

local function step(p, m)
  local x, y = p % SIDE, p // SIDE
  if m == 0 then return ((y + SIDE - 1) % SIDE) * SIDE + x
  elseif m == 4 then return ((y + 1) % SIDE) * SIDE + x
  elseif m == 1 then return y * SIDE + (x + SIDE - 1) % SIDE
  elseif m == 3 then return y * SIDE + (x + 1) % SIDE end
  return p
end

local function distance(a, b)
  local dx = math.abs(a % SIDE - b % SIDE)
  local dy = math.abs(a // SIDE - b // SIDE)
  if dx > SIDE - dx then dx = SIDE - dx end
  if dy > SIDE - dy then dy = SIDE - dy end
  return dx + dy
end

-- Keeps only the possible cells reachable from `from` through non-wall cells.
local function prune(from)
  local seen, todo, n = { [from] = true }, { from }, 1
  while n > 0 do
    local c = todo[n]; todo[n] = nil; n = n - 1
    for m = 0, 4 do
      if m ~= 2 then
        local d = step(c, m)
        if not wall[d] and not seen[d] then seen[d] = true; n = n + 1; todo[n] = d end
      end
    end
  end
  local kept = {}
  for _, c in ipairs(cells) do
    if seen[c] then kept[#kept + 1] = c else possible[c] = nil end
  end
  cells = kept
end

function do_turn(ctx)
  local w = ctx.new_wall
  if w ~= NO_WALL and not wall[w] then
    wall[w] = true; possible[w] = nil; dirty = true
  end
  if dirty then dirty = false; prune(ctx.me) end
  local others, occupied = ctx.others, {}
  for i = 1, #others do occupied[others[i]] = true end
  -- A sample of the possible cells, each with the distance of the nearest other player.
  local stride = math.max(1, (#cells + SAMPLE - 1) // SAMPLE)
  local ts, ds = {}, {}
  for i = 1, #cells, stride do
    local t, best = cells[i], 1000
    for j = 1, #others do
      local d = distance(t, others[j])
      if d < best then best = d end
    end
    ts[#ts + 1] = t; ds[#ds + 1] = best
  end
  local function mass(c)
    local sum = 0
    for i = 1, #ts do
      local mine = distance(c, ts[i])
      if mine < ds[i] then sum = sum + 2 elseif mine == ds[i] then sum = sum + 1 end
    end
    return sum
  end
  local best, ties, choice = mass(ctx.me), 1, 2
  for _, m in ipairs({ 0, 1, 3, 4 }) do
    local d = step(ctx.me, m)
    if not wall[d] and not occupied[d] then
      local v = mass(d)
      if v > best then best, ties, choice = v, 1, m
      elseif v == best then
        ties = ties + 1
        if random(ties) == 0 then choice = m end
      end
    end
  end
  return choice
end
