-- Shoots an id it made up: the bullet is spent, nothing is hit.
function do_turn(ctx)
  return shoot({ name = "Zombie", number = 987654 })
end
