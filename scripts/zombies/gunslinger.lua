-- Gunslinger: shoot what would bite, run from the rest, never crowd a teammate, and
-- refill an empty gun from corpses (a corpse keeps the bullets of the player it was;
-- standing next to it at the end of a turn hands them over).
--
-- All of this entry's players share this script's globals for the whole game, so the
-- players coordinate through them: a zombie one player shot at this turn is not shot at
-- again, and a cell one player moves into this turn is not chosen by another.

local shot_at = {}     -- zombie number -> true, for the current turn
local claimed = {}     -- "x,y" -> true: cells our players move into this turn
local turn = -1
local emptied = {}     -- corpse number -> true: one of us stood next to it already

local MOVES = {
  {"N", 0, -1}, {"NE", 1, -1}, {"E", 1, 0}, {"SE", 1, 1},
  {"S", 0, 1}, {"SW", -1, 1}, {"W", -1, 0}, {"NW", -1, -1}, {"STAY", 0, 0},
}

local function dist(dx, dy)
  return math.max(math.abs(dx), math.abs(dy))
end

function do_turn(ctx)
  if ctx.clock ~= turn then
    turn, shot_at, claimed = ctx.clock, {}, {}
  end

  -- What we see: zombies, other living players and corpses, as offsets.
  local zombies, people, corpses = {}, {}, {}
  for _, seen in ipairs(ctx:visible()) do
    local dx, dy, who = seen.dx, seen.dy, seen.id
    local name = who.name
    if name == "Zombie" then
      zombies[#zombies + 1] = {dx, dy, who}
    elseif name == "DeadBody" then
      if dist(dx, dy) <= 1 then emptied[who.number] = true end
      corpses[#corpses + 1] = {dx, dy, who}
    elseif (dx ~= 0 or dy ~= 0) and dist(dx, dy) <= 2 then
      -- Only those next to a cell we could step to can crowd it.
      people[#people + 1] = {dx, dy}
    end
  end

  -- 1. A zombie within 2 steps will be next to us after its move: shoot it.
  if ctx.bullets > 0 then
    local target, best = nil, 3
    for _, z in ipairs(zombies) do
      local d = dist(z[1], z[2])
      if d < best and not shot_at[z[3].number] then
        target, best = z[3], d
      end
    end
    if target then
      shot_at[target.number] = true
      return shoot(target)
    end
  end

  -- 2. Otherwise pick the free move that keeps zombies farthest and people apart.
  local size = ctx.board_size
  local best_move, best_score = "STAY", nil
  for _, m in ipairs(MOVES) do
    local name, mx, my = m[1], m[2], m[3]
    local key = ((ctx.x + mx) % size) .. "," .. ((ctx.y + my) % size)
    local free = (mx == 0 and my == 0) or (ctx:look(mx, my) == nil and not claimed[key])
    if free then
      local nearest = 99
      for _, z in ipairs(zombies) do
        nearest = math.min(nearest, dist(z[1] - mx, z[2] - my))
      end
      local crowd = 0
      for _, p in ipairs(people) do
        if dist(p[1] - mx, p[2] - my) <= 1 then crowd = crowd + 1 end
      end
      -- With an empty gun and no zombie close, head for a corpse not yet emptied.
      local loot = 0
      if ctx.bullets == 0 and nearest > 3 then
        local best = 99
        for _, c in ipairs(corpses) do
          if not emptied[c[3].number] then best = math.min(best, dist(c[1] - mx, c[2] - my)) end
        end
        if best < 99 then loot = 8 - math.min(best, 8) end
      end
      local score = math.min(nearest, 4) * 10 - crowd * 3 + loot - ((mx ~= 0 or my ~= 0) and 1 or 0)
      if best_score == nil or score > best_score then
        best_move, best_score = name, score
      end
    end
  end
  for _, m in ipairs(MOVES) do
    if m[1] == best_move then
      claimed[((ctx.x + m[2]) % size) .. "," .. ((ctx.y + m[3]) % size)] = true
    end
  end
  return best_move
end
