function do_turn(ctx) return 42 end
