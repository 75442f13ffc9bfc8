-- Prints a lot: it goes to logs/chatty.log, never to the terminal.
function do_turn(ctx)
  print("player", ctx.id.number, "at", ctx.x, ctx.y, "turn", ctx.clock)
  return "STAY"
end
