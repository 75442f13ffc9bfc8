-- Coward: never fires a shot. Each player steps directly away from the nearest zombie
-- it sees, or stays put when none is in sight. The smallest useful Lua bot.

function do_turn(ctx)
  local best, bx, by = 99, 0, 0
  for _, seen in ipairs(ctx:visible()) do
    if seen.id.name == "Zombie" then
      local d = math.max(math.abs(seen.dx), math.abs(seen.dy))
      if d < best then best, bx, by = d, seen.dx, seen.dy end
    end
  end
  if best == 99 then return "STAY" end
  -- Step away: the opposite sign of the zombie's offset on each axis.
  local sx = bx > 0 and -1 or (bx < 0 and 1 or 0)
  local sy = by > 0 and -1 or (by < 0 and 1 or 0)
  local names = { [-1] = { [-1] = "NW", [0] = "W", [1] = "SW" },
                  [0]  = { [-1] = "N",  [0] = "STAY", [1] = "S" },
                  [1]  = { [-1] = "NE", [0] = "E", [1] = "SE" } }
  if ctx:look(sx, sy) ~= nil then return random_move() end
  return names[sx][sy]
end
