-- A script named after the zombies: its entry name would be "Zombie", which is reserved.
function do_turn(ctx) return "STAY" end
