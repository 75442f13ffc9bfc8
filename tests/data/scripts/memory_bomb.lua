-- Grows a table of strings without bound.
hoard = {}
function do_turn(ctx)
  local s = string.rep("x", 1024)
  while true do
    hoard[#hoard + 1] = s .. #hoard
  end
end
