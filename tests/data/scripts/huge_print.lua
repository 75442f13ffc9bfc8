-- Prints far more than any log should hold.
local line = string.rep("spam ", 2000)
function do_turn(ctx)
  for i = 1, 50 do print(line) end
  return "STAY"
end
