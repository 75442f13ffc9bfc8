-- arena: target
local SIDE = 64
function do_turn(ctx)
  local me = ctx.me
  local mx, my = me % SIDE, me // SIDE
  local best, bdx, bdy = 999, 0, 0
  for _, p in ipairs(ctx.others) do
    local dx = (p % SIDE - mx + 32) % SIDE - 32
    local dy = (p // SIDE - my + 32) % SIDE - 32
    local d = math.abs(dx) + math.abs(dy)
    if d < best then best, bdx, bdy = d, dx, dy end
  end
  if best > 6 then return ({0, 1, 3, 4})[me % 4 + 1]
  elseif math.abs(bdx) >= math.abs(bdy) then
    if bdx > 0 then return 1 else return 3 end
  else
    if bdy > 0 then return 0 else return 4 end
  end
end
