-- A Lua syntax error on line 3.
function do_turn(ctx)
  return "N" +
end
