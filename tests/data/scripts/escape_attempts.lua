-- Every call tries one forbidden door, in turn; each must fail as a runtime error.
local doors = {
  function() return io.open("/etc/passwd") end,
  function() return os.execute("echo hacked") end,
  function() return require("os") end,
  function() return load("return 1")() end,
  function() return loadfile("/etc/passwd") end,
  function() return dofile("/etc/passwd") end,
  function() return string.dump(print) end,
  function() return debug.getinfo(1) end,
  function() return collectgarbage("count") end,
  function() return setmetatable({}, { __gc = function() while true do end end }) end,
}
local n = 0
function do_turn(ctx)
  n = n % #doors + 1
  doors[n]()
  return "STAY"
end
