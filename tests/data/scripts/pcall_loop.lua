-- Tries to swallow the budget error: pcall around an endless loop, in an endless loop.
function do_turn(ctx)
  while true do
    pcall(function() while true do end end)
  end
end
