function do_turn(ctx)
  while true do end
end
