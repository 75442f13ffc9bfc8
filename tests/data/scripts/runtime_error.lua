-- Fails on every call, on line 3.
function do_turn(ctx)
  return ctx.no_such_field.oops
end
