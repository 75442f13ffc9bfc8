-- arena: @GAME@
-- A hostile Lua bot of tests/hostile_games.rs (the test fills in the @...@ fields). Its
-- answer is always the game's "do nothing" (eggs: stay with N, target: stay, hex: no
-- command) and it draws no random number, so a game with it is the very game played
-- with a bot that only stays, whatever happens to it; from its call @TRIGGER@ on, every
-- call misbehaves as BEHAVIOUR says (stay: never, the stand-in of the reference
-- tournament).
local GAME, BEHAVIOUR, TRIGGER, OUTSIDE = "@GAME@", "@BEHAVIOUR@", @TRIGGER@, "@OUTSIDE@"

local STAY = {
  eggs = function() return { dir = 9, action = "N", memory = "" } end,
  target = function() return 2 end,
  hex = function() return {} end,
}

-- Every call tries one forbidden door, in turn; each must fail as a runtime error.
local doors = {
  function() return io.open(OUTSIDE, "w"):write("escaped") end,
  function() return os.execute("touch " .. OUTSIDE) end,
  function() return require("io").open(OUTSIDE, "w") end,
  function() return load("return io")().open(OUTSIDE, "w") end,
  function() return loadfile("/etc/passwd") end,
  function() return dofile("/etc/passwd") end,
  function() return string.dump(print) end,
  function() return debug.getinfo(1) end,
  function() return package.loadlib("libc.so.6", "system") end,
  function() return collectgarbage("count") end,
  function() return setmetatable({}, { __gc = function() while true do end end }) end,
  function() return rawget(_G, "io").open(OUTSIDE, "w") end,
  function() return getmetatable("").__index.rep("x", 1 << 40) end,
}
local door = 0

hoard = {}

local function deep(n)
  return deep(n + 1) + 1
end

local misbehave = {
  stay = function() end,
  -- The instruction budget, then the call's own time limit.
  spin = function() while true do end end,
  pcall_spin = function()
    while true do
      pcall(function() while true do end end)
    end
  end,
  -- The memory cap.
  string_bomb = function()
    local s = "x"
    while true do s = s .. s end
  end,
  table_bomb = function()
    local s = string.rep("x", 1024)
    while true do hoard[#hoard + 1] = s .. #hoard end
  end,
  deep_recursion = function() return deep(1) end,
  -- Stuck in Lua's C pattern matcher, where the instruction hook never fires.
  pattern = function() return string.find(string.rep("a", 6000), ".-.-.-.-.-.-b") end,
  escape = function()
    door = door % #doors + 1
    doors[door]()
  end,
}

local calls = 0
function do_turn(ctx)
  calls = calls + 1
  if calls >= TRIGGER then misbehave[BEHAVIOUR]() end
  return STAY[GAME]()
end
