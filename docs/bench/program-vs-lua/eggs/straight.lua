-- arena: eggs
local steps = { {-1, -1}, {0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0} }

local function at(ctx, dx, dy)
  return ctx.view[3 + dy]:sub(3 + dx, 3 + dx)
end

function do_turn(ctx)
  for i, s in ipairs(steps) do
    if at(ctx, s[1], s[2]) == "o" then
      return { dir = i, action = "N", memory = ctx.memory }
    end
  end
  local d = tonumber(ctx.memory) or 0
  if d < 1 or d > 8 or at(ctx, steps[d][1], steps[d][2]):match("[#X]") then
    d = 1 + random(8)
  end
  return { dir = d, action = "N", memory = tostring(d) }
end
