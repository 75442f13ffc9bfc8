-- Defines no do_turn.
function dont_turn(ctx) return "N" end
