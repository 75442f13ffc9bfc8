function do_turn(ctx) return { move = "N" } end
