function do_turn(ctx)
  local best, bx, by, target = 99, 0, 0, nil
  for _, seen in ipairs(ctx:visible()) do
    local d = math.max(math.abs(seen.dx), math.abs(seen.dy))
    if seen.id.name == "Zombie" and d < best then
      best, bx, by, target = d, seen.dx, seen.dy, seen.id
    end
  end
  if best <= 3 and ctx.bullets > 0 then return shoot(target) end
  if target then
    local away = { [-1] = { [-1] = "SE", [0] = "E", [1] = "NE" },
                   [0] = { [-1] = "S", [0] = "STAY", [1] = "N" },
                   [1] = { [-1] = "SW", [0] = "W", [1] = "NW" } }
    local sx = bx > 0 and 1 or (bx < 0 and -1 or 0)
    local sy = by > 0 and 1 or (by < 0 and -1 or 0)
    return away[sx][sy]
  end
  return random_move()
end
