//! The zombies game's Lua bindings: what `ctx` offers a Lua bot, ids, `shoot(id)` and
//! `random_move()`, and how its answer reads. The sandbox, budgets and limits are
//! `loaders::scripts::lua`'s.
//!
//! A call is the hot path of every script game: `ctx` is one long-lived table per VM
//! whose fields are written, and `do_turn` called, through the raw Lua C API inside one
//! protected call on a Lua thread of the VM kept for it (`LuaBot::call`,
//! `fill_and_call`); ids are tables cached per entity number. The view is read the same
//! way: `ctx:look` is a C closure for the usual case (`quick_look`), `random_move()` too
//! (`quick_random_move`), and `ctx:visible()` builds its list with raw table operations.
//! The bot answers a whole entry per turn, one call at a time (`Bot::one_by_one`), so that
//! its limits read the clock once per entry and turn.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use mlua::{Lua, Table, UserData, Value};
use zombies_plugin_abi::{Action, Context, Direction, Id, VISION_RANGE};

use super::{Zombies, name_of, parse_move};
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::scripts::lua::{LuaVm, slot_of};
use crate::loaders::scripts::{Script, with_article};

type Slot = crate::loaders::scripts::Slot<Context<'static>>;

/// Checks the script now (syntax, top-level code, `do_turn`) and makes its bots.
pub(super) fn bots(script: Script) -> Result<Arc<dyn BotFactory<Zombies>>, String> {
    LuaBot::new(&script)?;
    let factory = move || LuaBot::new(&script).map(|b| Box::new(b) as Box<dyn Bot<Zombies>>).map_err(BotError::Failed);
    Ok(Arc::new(factory))
}

/// What `shoot(id)` returns.
#[derive(Debug, Clone, Copy)]
struct Shot(Id);

impl UserData for Shot {}

/// Ids are plain Lua tables `{name = ..., number = ...}`, one per entity number and VM
/// (cached for the game), so that reading `id.name` costs no call into the host and
/// the same entity is the same table. They share a metatable with `__eq` and
/// `__tostring`.
#[derive(Debug, Clone)]
struct Ids {
    cache: Table,
    meta: Table,
    /// Owner names as Lua strings, by owner index; then "Zombie" and "DeadBody".
    names: Table,
}

impl Ids {
    fn new(lua: &Lua) -> mlua::Result<Ids> {
        // Strong, not weak: a weak cache lets the collector drop the id of every player
        // between two of its calls, and rebuilding it costs more than the whole call.
        // Entities are at most a few thousand per game.
        let cache = lua.create_table()?;
        let meta = lua
            .load(
                r##"return {
                  __eq = function(a, b) return a.number == b.number and a.name == b.name end,
                  __tostring = function(id) return tostring(id.name) .. "#" .. tostring(id.number) end,
                }"##,
            )
            .set_name("=ids")
            .eval::<Table>()?;
        Ok(Ids { cache, meta, names: lua.create_table()? })
    }

    /// The table of `id`.
    fn value(&self, lua: &Lua, slot: &Slot, id: Id) -> mlua::Result<Value> {
        if let Value::Table(t) = self.cache.raw_get::<Value>(id.number)? {
            return Ok(Value::Table(t));
        }
        let name = match self.names.raw_get::<Value>(id.owner)? {
            Value::String(s) => s,
            _ => {
                let s = lua.create_string(name_of(&slot.names.borrow(), id))?;
                self.names.raw_set(id.owner, &s)?;
                s
            }
        };
        let t = lua.create_table_with_capacity(0, 2)?;
        t.raw_set("name", name)?;
        t.raw_set("number", id.number)?;
        t.set_metatable(Some(self.meta.clone()))?;
        self.cache.raw_set(id.number, &t)?;
        Ok(Value::Table(t))
    }

    /// The id a script's table names (a made-up one resolves to no entity).
    fn resolve(slot: &Slot, t: &Table) -> mlua::Result<Id> {
        let name: String = t.raw_get("name")?;
        let number: u32 = t.raw_get("number")?;
        let owner = match name.as_str() {
            "Zombie" => Id::ZOMBIE,
            "DeadBody" => Id::DEAD_BODY,
            n => slot.names.borrow().iter().position(|e| e == n).map_or(u32::MAX - 2, |i| i as u32),
        };
        Ok(Id { owner, number })
    }
}

/// `ctx`: one table per VM whose fields are refreshed at every call, with the methods
/// `look`, `shootable` and `visible`.
fn make_ctx(lua: &Lua, slot: &Rc<Slot>, ids: &Ids) -> mlua::Result<Table> {
    let ctx = lua.create_table()?;
    let (s, i) = (Rc::clone(slot), ids.clone());
    let full_look = lua.create_function(move |lua, (_, dx, dy): (Value, i64, i64)| {
        let r = i64::from(VISION_RANGE);
        if !(-r..=r).contains(&dx) || !(-r..=r).contains(&dy) {
            return Err(mlua::Error::runtime(format!("look({dx}, {dy}): offsets go from -8 to 8")));
        }
        let ctx = s.ctx().map_err(mlua::Error::runtime)?;
        match ctx.look(dx as i32, dy as i32) {
            Some(id) => i.value(lua, &s, id),
            None => Ok(Value::Nil),
        }
    })?;
    // SAFETY: runs in mlua's protected call with ctx, the full look and the id cache as
    // its arguments; it sets `ctx.look` (ctx has no metatable) to a C closure over the
    // slot, the cache and the full look, and leaves the stack as it found it. The slot
    // outlives the closure: the state holds an `Rc` of it as app data until it closes.
    unsafe {
        lua.exec_raw::<()>((&ctx, &full_look, &ids.cache), |state| {
            use mlua::ffi;
            let top = ffi::lua_gettop(state);
            ffi::lua_pushlightuserdata(state, Rc::as_ptr(slot).cast_mut().cast());
            ffi::lua_pushvalue(state, top);
            ffi::lua_pushvalue(state, top - 1);
            ffi::lua_pushcclosure(state, quick_look, 3);
            ffi::lua_setfield(state, top - 2, c"look".as_ptr());
            ffi::lua_settop(state, top - 3);
        })?;
    }
    let (s, i) = (Rc::clone(slot), ids.clone());
    ctx.raw_set(
        "shootable",
        lua.create_function(move |lua, _: Value| {
            let ctx = s.ctx().map_err(mlua::Error::runtime)?;
            let list = lua.create_table()?;
            for (n, (_, _, id)) in ctx.shootable().enumerate() {
                list.raw_set(n + 1, i.value(lua, &s, id)?)?;
            }
            Ok(list)
        })?,
    )?;
    let (s, i) = (Rc::clone(slot), ids.clone());
    ctx.raw_set(
        "visible",
        lua.create_function(move |lua, _: Value| {
            let ctx = s.ctx().map_err(mlua::Error::runtime)?;
            let seen: Vec<(i32, i32, Id)> = ctx.visible().collect();
            loop {
                let missing = Cell::new(None);
                // SAFETY: the closure runs in mlua's protected call with the id cache as
                // its one argument, on top of this function's own stack. It builds the
                // list above the cache with plain table operations and leaves only the
                // list; on an id not in the cache it drops what it pushed, the cache
                // included, and returns (the id is made below and the list built again).
                let list = unsafe {
                    lua.exec_raw::<Value>(&i.cache, |state| {
                        use mlua::ffi;
                        let cache = ffi::lua_gettop(state);
                        ffi::lua_createtable(state, seen.len() as i32, 0);
                        for (n, &(dx, dy, id)) in seen.iter().enumerate() {
                            ffi::lua_createtable(state, 0, 3);
                            ffi::lua_pushinteger(state, dx.into());
                            ffi::lua_setfield(state, -2, c"dx".as_ptr());
                            ffi::lua_pushinteger(state, dy.into());
                            ffi::lua_setfield(state, -2, c"dy".as_ptr());
                            if ffi::lua_rawgeti(state, cache, id.number.into()) == ffi::LUA_TNIL {
                                missing.set(Some(id));
                                ffi::lua_settop(state, cache - 1);
                                return;
                            }
                            ffi::lua_setfield(state, -2, c"id".as_ptr());
                            ffi::lua_rawseti(state, -2, n as ffi::lua_Integer + 1);
                        }
                        // The list is the one result.
                        ffi::lua_remove(state, cache);
                    })
                }?;
                match missing.get() {
                    Some(id) => i.value(lua, &s, id).map(drop)?,
                    None => return Ok(list),
                }
            }
        })?,
    )?;
    Ok(ctx)
}

/// `ctx:look(dx, dy)` without leaving C for the usual case: two integer offsets in
/// range, during a call, an empty cell or an id already cached. Anything else (a bad
/// argument, which raises the error, or an id seen for the first time) is handed to
/// the full version. Upvalues: the slot, the id cache, the full look.
unsafe extern "C-unwind" fn quick_look(state: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
    use mlua::ffi;
    // SAFETY: Lua calls this with the upvalues `make_ctx` gave it; the slot pointer is
    // valid while the state lives. Nothing here needs dropping, so an error raised by
    // the full version may unwind (longjmp) through this frame.
    unsafe {
        let slot = &*ffi::lua_touserdata(state, ffi::lua_upvalueindex(1)).cast::<Slot>();
        if ffi::lua_gettop(state) == 3 && ffi::lua_isinteger(state, 2) != 0 && ffi::lua_isinteger(state, 3) != 0 {
            let (dx, dy) = (ffi::lua_tointeger(state, 2), ffi::lua_tointeger(state, 3));
            let r = ffi::lua_Integer::from(VISION_RANGE);
            if let (true, Ok(ctx)) = ((-r..=r).contains(&dx) && (-r..=r).contains(&dy), slot.ctx()) {
                match ctx.look(dx as i32, dy as i32) {
                    None => {
                        ffi::lua_pushnil(state);
                        return 1;
                    }
                    Some(id) => {
                        if ffi::lua_rawgeti(state, ffi::lua_upvalueindex(2), id.number.into()) == ffi::LUA_TTABLE {
                            return 1;
                        }
                        ffi::lua_pop(state, 1);
                    }
                }
            }
        }
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(3));
        ffi::lua_insert(state, 1);
        ffi::lua_call(state, ffi::lua_gettop(state) - 1, 1);
        1
    }
}

/// `random_move()` without leaving C during a call: the answer is one of the nine
/// strings made once. Outside a call (the slot is empty) it hands over to the full
/// version, which raises the error. Upvalues: the
/// slot, the full version, the nine answers in [`Direction::ALL`]'s order.
unsafe extern "C-unwind" fn quick_random_move(state: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
    use mlua::ffi;
    // SAFETY: Lua calls this with the upvalues `api` gave it; the slot pointer is valid
    // while the state lives. Nothing here needs dropping, so an error raised by the full
    // version may unwind (longjmp) through this frame.
    unsafe {
        let slot = &*ffi::lua_touserdata(state, ffi::lua_upvalueindex(1)).cast::<Slot>();
        if let Ok(ctx) = slot.ctx() {
            let answer = ctx.random_move() as std::ffi::c_int;
            ffi::lua_pushvalue(state, ffi::lua_upvalueindex(3 + answer));
            return 1;
        }
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(2));
        ffi::lua_insert(state, 1);
        ffi::lua_call(state, ffi::lua_gettop(state) - 1, 1);
        1
    }
}

struct LuaBot {
    vm: LuaVm<Context<'static>>,
    ids: Ids,
    /// The call thread: a Lua thread of the VM (kept in the registry) whose first stack
    /// slot holds [`fill_and_call`] over do_turn, ctx, the id cache and ctx's keys. A call
    /// is one `lua_pcall` on it, without going through mlua's references; only a failure
    /// or an answer other than a move goes back through mlua.
    thread: *mut mlua::ffi::lua_State,
    /// The clock of the last call: `ctx.clock` and `ctx.board_size` change only with it.
    clock: u32,
}

/// The keys of `ctx`'s fields a call sets, in the order of [`fill_and_call`]'s upvalues
/// from the fourth on.
const FIELDS: [&std::ffi::CStr; 6] = [c"id", c"bullets", c"x", c"y", c"clock", c"board_size"];

/// What [`fill_and_call`] answers when the player's id is not in the cache yet (a light
/// userdata no script can make).
static MISSED: u8 = 0;

/// Sets `ctx`'s fields and calls `do_turn(ctx)`, in the protected call on the call
/// thread. Arguments: the player's entity number, bullets, x, y, and the clock and the
/// board's side (nil when the turn did not change); upvalues: do_turn, ctx, the id
/// cache, the keys of [`FIELDS`]. Answers do_turn's answer, or [`MISSED`] (setting
/// nothing) when the player's id is not cached. Fields are set raw (ctx is the bot's
/// own plain table).
unsafe extern "C-unwind" fn fill_and_call(state: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
    use mlua::ffi;
    let up = |i: std::ffi::c_int| ffi::lua_upvalueindex(i);
    // SAFETY: Lua calls this with the six arguments and the upvalues `LuaBot::new` gave
    // it, with LUA_MINSTACK free slots (it uses four at once); nothing here needs
    // dropping, so an error raised in do_turn may unwind (longjmp) through this frame.
    unsafe {
        ffi::lua_pushvalue(state, up(2));
        let ctx = ffi::lua_gettop(state);
        ffi::lua_pushvalue(state, up(4));
        if ffi::lua_rawgeti(state, up(3), ffi::lua_tointeger(state, 1)) == ffi::LUA_TNIL {
            ffi::lua_pushlightuserdata(state, (&raw const MISSED).cast_mut().cast());
            return 1;
        }
        ffi::lua_rawset(state, ctx);
        let fields = if ffi::lua_isnil(state, 5) != 0 { 3 } else { 5 };
        for k in 0..fields {
            ffi::lua_pushvalue(state, up(5 + k));
            ffi::lua_pushvalue(state, 2 + k);
            ffi::lua_rawset(state, ctx);
        }
        ffi::lua_pushvalue(state, up(1));
        ffi::lua_pushvalue(state, ctx);
        ffi::lua_call(state, 1, 1);
        1
    }
}

impl LuaBot {
    fn new(script: &Script) -> Result<LuaBot, String> {
        let vm = LuaVm::new(script, api)?;
        let setup = || -> mlua::Result<(Ids, *mut mlua::ffi::lua_State)> {
            let ids = Ids::new(&vm.lua)?;
            let ctx = make_ctx(&vm.lua, &vm.slot, &ids)?;
            let thread = Cell::new(std::ptr::null_mut());
            // SAFETY: runs in mlua's protected call with do_turn, ctx and the id cache as
            // its arguments (1 to 3); it makes the call thread (inheriting the VM's
            // hook), keeps it in the registry, makes `fill_and_call` over the three and
            // the keys, moves it to the thread's first slot and leaves its own stack
            // empty. The thread's stack has room for a call's arguments (checked again
            // at each call).
            unsafe {
                vm.lua.exec_raw::<()>((&vm.do_turn, &ctx, &ids.cache), |state| {
                    use mlua::ffi;
                    let t = ffi::lua_newthread(state);
                    ffi::luaL_ref(state, ffi::LUA_REGISTRYINDEX);
                    for name in FIELDS {
                        ffi::lua_pushstring(state, name.as_ptr());
                    }
                    ffi::lua_pushcclosure(state, fill_and_call, 3 + FIELDS.len() as i32);
                    if ffi::lua_checkstack(t, 16) != 0 {
                        ffi::lua_xmove(state, t, 1);
                        thread.set(t);
                    }
                    ffi::lua_settop(state, 0);
                })?;
            }
            if thread.get().is_null() {
                return Err(mlua::Error::MemoryError("no room for the call thread's stack".to_owned()));
            }
            Ok((ids, thread.get()))
        };
        let (ids, thread) = setup().map_err(|e| format!("{}: cannot set up Lua: {e}", script.file_name()))?;
        Ok(LuaBot { vm, ids, thread, clock: u32::MAX })
    }
}

impl Bot<Zombies> for LuaBot {
    /// A whole entry's calls of a turn in one call, made one by one (the default
    /// [`Bot::turn_all`]: one call of the VM per player, each with its own budget, deadline
    /// and verdict), so that the limits around the bot read the clock once per entry and
    /// turn, not per player.
    fn whole_entry(&self) -> bool {
        true
    }

    fn one_by_one(&self) -> bool {
        true
    }

    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        // Lua's own incremental collector keeps memory flat; an explicit step per turn
        // and VM cost half the time of a 20-entry game.
        let new_turn = ctx.clock != self.clock;
        if new_turn {
            self.clock = ctx.clock;
            if self.vm.slot.names.borrow().len() != ctx.names.len() {
                *self.vm.slot.names.borrow_mut() = ctx.names.iter().map(|n| n.as_str().to_owned()).collect();
            }
        }
        let answer = self.vm.call(ctx, ctx.random, || self.call(ctx, new_turn))?;
        match answer {
            Answer::Move(d) => Ok(Action::go(d)),
            Answer::Other(Value::String(s)) => match std::str::from_utf8(&s.as_bytes()) {
                Ok(text) => parse_move(text),
                Err(_) => Err(BotError::Invalid("do_turn returned a string that is not UTF-8".to_owned())),
            },
            Answer::Other(Value::UserData(ud)) if ud.is::<Shot>() => {
                let Shot(id) = *ud.borrow::<Shot>().map_err(|e| BotError::Failed(e.to_string()))?;
                Ok(Action::shoot(id))
            }
            Answer::Other(other) => Err(BotError::Invalid(format!(
                "do_turn returned {}, not a move or shoot(id)",
                with_article(other.type_name())
            ))),
        }
    }
}

/// What `do_turn` returned: a move spelled exactly (read without leaving Lua), or any
/// other value.
enum Answer {
    Move(Direction),
    Other(Value),
}

impl LuaBot {
    /// Fills `ctx` and calls `do_turn` on the call thread through the raw Lua API: one
    /// protected call ([`fill_and_call`]) and a move read in place.
    fn call(&self, ctx: &Context<'_>, new_turn: bool) -> mlua::Result<Answer> {
        use mlua::ffi;
        let t = self.thread;
        loop {
            // SAFETY: `t` is the VM's call thread, alive while the VM is (the registry
            // holds it), not running (calls do not nest), with `fill_and_call` alone on
            // its stack between calls. Pushing integers, nil and a copy of a slot onto
            // room checked first allocates nothing, so cannot raise an error outside a
            // protected call; everything else runs inside `lua_pcall`. The stack is left
            // as it was found on every path.
            unsafe {
                if ffi::lua_checkstack(t, 8) == 0 {
                    return Err(mlua::Error::MemoryError("not enough memory for a call".to_owned()));
                }
                ffi::lua_pushvalue(t, 1);
                for value in [ctx.id.number.into(), ctx.bullets.into(), ctx.x.into(), ctx.y.into()] {
                    ffi::lua_pushinteger(t, value);
                }
                if new_turn {
                    ffi::lua_pushinteger(t, ctx.clock.into());
                    ffi::lua_pushinteger(t, ctx.board_size.into());
                } else {
                    ffi::lua_pushnil(t);
                    ffi::lua_pushnil(t);
                }
                let status = ffi::lua_pcall(t, 6, 1, 0);
                if status != ffi::LUA_OK {
                    return Err(self.failure(status));
                }
                match ffi::lua_type(t, -1) {
                    ffi::LUA_TSTRING => {
                        let mut len = 0;
                        let text = ffi::lua_tolstring(t, -1, &mut len);
                        let text = std::slice::from_raw_parts(text.cast::<u8>(), len);
                        if let Some(d) = Direction::ALL.into_iter().find(|d| d.name().as_bytes() == text) {
                            ffi::lua_settop(t, 1);
                            return Ok(Answer::Move(d));
                        }
                    }
                    ffi::LUA_TLIGHTUSERDATA
                        if ffi::lua_touserdata(t, -1).cast_const() == (&raw const MISSED).cast() =>
                    {
                        ffi::lua_settop(t, 1);
                        self.ids.value(&self.vm.lua, &self.vm.slot, ctx.id)?;
                        continue;
                    }
                    _ => {}
                }
                // Any other answer is read by mlua (moved to its stack in a protected call).
                let answer = self.vm.lua.exec_raw::<Value>((), |state| ffi::lua_xmove(t, state, 1));
                ffi::lua_settop(t, 1);
                return answer.map(Answer::Other);
            }
        }
    }

    /// The error of a failed call (`status`), its object taken off the call thread: an
    /// allocation failure as such, anything else raised again in mlua's protected call,
    /// which reads it as it reads any error (a Rust function's error, a panic, a message).
    fn failure(&self, status: std::ffi::c_int) -> mlua::Error {
        use mlua::ffi;
        let t = self.thread;
        // SAFETY: the error object is on top of the call thread, above `fill_and_call`;
        // reading a string allocates nothing; the protected call moves the object off
        // the thread (leaving it as it was before the call) and raises it, which mlua
        // catches.
        unsafe {
            if status == ffi::LUA_ERRMEM {
                let message = match ffi::lua_type(t, -1) {
                    ffi::LUA_TSTRING => {
                        let mut len = 0;
                        let text = ffi::lua_tolstring(t, -1, &mut len);
                        String::from_utf8_lossy(std::slice::from_raw_parts(text.cast::<u8>(), len)).into_owned()
                    }
                    _ => "not enough memory".to_owned(),
                };
                ffi::lua_settop(t, 1);
                return mlua::Error::MemoryError(message);
            }
            let raised = self.vm.lua.exec_raw::<()>((), |state| {
                ffi::lua_xmove(t, state, 1);
                ffi::lua_error(state);
            });
            ffi::lua_settop(t, 1);
            match raised {
                Err(e) => e,
                Ok(()) => mlua::Error::runtime("the call failed"),
            }
        }
    }
}

/// The zombies API: `shoot(id)` and `random_move()` (ctx is made per VM by `make_ctx`).
fn api(lua: &Lua, slot: &Rc<Slot>) -> mlua::Result<()> {
    let g = lua.globals();
    g.raw_set(
        "shoot",
        lua.create_function(|lua, id: Value| match id {
            Value::Table(t) => Ok(Shot(Ids::resolve(&*slot_of::<Context<'static>>(lua)?, &t)?)),
            other => Err(mlua::Error::runtime(format!("shoot(id) needs an id, got a {}", other.type_name()))),
        })?,
    )?;
    // The nine answers, made once: no string is built per call.
    let names: Vec<mlua::LuaString> =
        Direction::ALL.iter().map(|d| lua.create_string(d.name())).collect::<mlua::Result<_>>()?;
    let full_random_move = {
        let (s, names) = (Rc::clone(slot), names.clone());
        lua.create_function(move |_, ()| {
            let ctx = s.ctx().map_err(mlua::Error::runtime)?;
            Ok(names[ctx.random_move() as usize].clone())
        })?
    };
    let answers = lua.create_sequence_from(names)?;
    // SAFETY: runs in mlua's protected call with the globals, the full version and the
    // nine answers as its arguments; it sets the global `random_move` to a C closure over
    // the slot, the full version and the answers (`quick_random_move`), and leaves the
    // stack empty. The slot outlives the closure: the state holds an `Rc` of it as app
    // data until it closes.
    unsafe {
        lua.exec_raw::<()>((&g, &full_random_move, &answers), |state| {
            use mlua::ffi;
            ffi::lua_pushlightuserdata(state, Rc::as_ptr(slot).cast_mut().cast());
            ffi::lua_pushvalue(state, 2);
            for i in 1..=Direction::ALL.len() {
                ffi::lua_rawgeti(state, 3, i as ffi::lua_Integer);
            }
            ffi::lua_pushcclosure(state, quick_random_move, 2 + Direction::ALL.len() as i32);
            ffi::lua_setfield(state, 1, c"random_move".as_ptr());
            ffi::lua_settop(state, 0);
        })?;
    }
    Ok(())
}
