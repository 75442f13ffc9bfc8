//! The hex game's Rhai bindings. `do_turn(ctx)` gets a map shaped like the program
//! protocol's whole context (`protocol::context_json`): `ctx.kind` ("spawn_humans",
//! "spawn_zombies", "unit"), `ctx.side` ("humans", "zombies"), `ctx.t`, `ctx.unit`,
//! `ctx.me`, the counters, `ctx.clocks` (`#{humans: s, zombies: s}`: seconds left in each
//! side's time bank, `()` without banks), and the arrays `ctx.humans`, `ctx.zombies`,
//! `ctx.walls`, `ctx.crates`, `ctx.airstrikes` of maps with `id`, `x`, `y`, .... It answers
//! an array of command maps, `[#{cmd: "move", x: 1, y: 0}, #{cmd: "attack", id: 131}]`
//! (`()`: nothing). The sandbox and limits are `loaders::scripts::rhai`'s.
//!
//! The context is not rebuilt per call: each object's map is made once and kept (shared,
//! read-only) until the object changes, and a list's array is made again only when one
//! of its objects changed, came or went, as Lua's tables are; a call costs little more
//! than the script itself.
//!
//! A script that defines `fn play_side(side)` (and no `do_turn`) plays whole sides (hex.md,
//! "Whole sides"): it is called once per half-turn of its side, with `this` the entry's
//! object map as in `do_turn`. `side.ctx` is the context (`kind` "side") as the last
//! command left it (made again only when a command changed something); `side.command(#{cmd:
//! "attack", unit: 130, id: 131})` runs one command and returns its verdict, `#{ok: true,
//! verdict: "accepted"}` or `#{ok: false, verdict: "refused", reason: "out of range"}`;
//! `side.max_commands`, `side.calls` and `side.time` (seconds, `()` when unlimited) say what
//! the call stands for. Its time is the side's share (the deadline); its operation budget
//! the per-call budget times `lua::SIDE_BUDGET`.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use rhai::{Array, Dynamic, Engine, ImmutableString, Map};
use serde_json::{Number, Value as Json};
use zombies_plugin_abi::hex::{
    self as abi, HexAirstrike, HexAnswer, HexContext, HexCrate, HexHuman, HexWall, HexZombie,
};

use super::lua::SIDE_BUDGET;
use super::protocol::{Listed, answer_from_json, side_command_from_json};
use super::side::{SideLink, Verdict};
use super::{Hex, HexCall};
use crate::bot::{Bot, BotError, BotFactory};
use crate::clock::Stopwatch;
use crate::loaders::scripts::Script;
use crate::loaders::scripts::rhai::{Fallible, RhaiVm};

/// Checks the script now (syntax, top-level code, `do_turn` or `play_side`) and makes its
/// bots.
pub(super) fn bots(script: Script) -> Result<Arc<dyn BotFactory<Hex>>, String> {
    let (script, sides) = side_script(script)?;
    RhaiBot::new(&script, sides)?;
    let factory =
        move || RhaiBot::new(&script, sides).map(|b| Box::new(b) as Box<dyn Bot<Hex>>).map_err(BotError::Failed);
    Ok(Arc::new(factory))
}

/// A script that plays whole sides (it defines `fn play_side(side)`) gets a `do_turn` that
/// calls it (the VM calls `do_turn`) and [`SIDE_BUDGET`] per-call budgets; true for such a
/// script.
fn side_script(mut script: Script) -> Result<(Script, bool), String> {
    // A script that does not compile is left to the VM, which says why.
    let mut scan = Engine::new_raw();
    scan.set_max_expr_depths(0, 0);
    let Ok(ast) = scan.compile(&*script.source) else { return Ok((script, false)) };
    let defines = |name: &str| ast.iter_functions().any(|f| f.name == name && f.params.len() == 1);
    if !defines("play_side") {
        return Ok((script, false));
    }
    if defines("do_turn") {
        return Err(format!(
            "{}: defines both `fn do_turn(ctx)` and `fn play_side(side)`: a Rhai script plays per unit or whole \
             sides",
            script.file_name()
        ));
    }
    script.source = format!("{}\nfn do_turn(side) {{ this.play_side(side) }}\n", script.source).into();
    script.limits.op_budget = script.limits.op_budget.saturating_mul(SIDE_BUDGET);
    Ok((script, true))
}

struct RhaiBot {
    vm: RhaiVm<HexContext<'static>>,
    /// The context's maps, shared with the side object's functions.
    shared: Rc<Shared>,
    /// The script plays whole sides.
    sides: bool,
    /// The script's own limit per call (a side call's share counts calls of it).
    limit: Duration,
    /// The own time of the last side call.
    spent: Option<Duration>,
}

/// What the bot and its `side.command` function share.
struct Shared {
    maps: RefCell<Maps>,
    link: SideLink,
}

/// The context's maps and arrays, kept between calls.
struct Maps {
    humans: Cache<HexHuman>,
    zombies: Cache<HexZombie>,
    walls: Cache<HexWall>,
    crates: Cache<HexCrate>,
    airstrikes: Cache<HexAirstrike>,
    /// The strings of `kind` and `side`, made once.
    names: [Dynamic; 6],
    /// `ctx.game`, made once.
    game: Dynamic,
    /// A side call's `ctx`: one shared value, whose content each command that changed
    /// something replaces (so every copy of the `side` map sees it), and the header it
    /// was made with. (Rhai checks the size of what a host function returns, and cannot
    /// do it for shared values within data: the context is reached through the `side`
    /// map's property, never returned by a function.)
    side_ctx: Dynamic,
    side_head: Option<Head>,
}

/// What a context's map holds besides the lists.
#[derive(Clone, Copy, PartialEq)]
struct Head {
    call: u32,
    side: u32,
    t: u32,
    unit: u32,
    humans_to_spawn: u32,
    zombies_to_spawn: u32,
    zombie_cap: u32,
    airdrops_held: f64,
    zombies_ready: f64,
    clocks: [Option<Duration>; 2],
}

impl Maps {
    fn new() -> Maps {
        let names = ["spawn_humans", "spawn_zombies", "unit", "side", "humans", "zombies"]
            .map(|n| Dynamic::from(ImmutableString::from(n)));
        Maps {
            humans: Cache::default(),
            zombies: Cache::default(),
            walls: Cache::default(),
            crates: Cache::default(),
            airstrikes: Cache::default(),
            names,
            game: to_dynamic(&super::protocol::game_json()).into_read_only().into_shared(),
            side_ctx: Dynamic::UNIT.into_shared(),
            side_head: None,
        }
    }

    /// Brings the lists up to `ctx`'s; true if one changed.
    fn sync(&mut self, ctx: &HexContext<'_>) -> bool {
        let mut changed = self.humans.sync(ctx.humans.as_slice());
        changed |= self.zombies.sync(ctx.zombies.as_slice());
        changed |= self.walls.sync(ctx.walls.as_slice());
        changed |= self.crates.sync(ctx.crates.as_slice());
        changed |= self.airstrikes.sync(ctx.airstrikes.as_slice());
        changed
    }

    /// The map of `ctx` (the lists synced first).
    fn map(&self, ctx: &HexContext<'_>, clocks: [Option<Duration>; 2]) -> Dynamic {
        let kind = match ctx.call {
            abi::CALL_SPAWN_HUMANS => 0,
            abi::CALL_SPAWN_ZOMBIES => 1,
            abi::CALL_SIDE => 3,
            _ => 2,
        };
        let unit = (ctx.unit != abi::NO_UNIT).then_some(ctx.unit);
        let me = match unit {
            Some(id) if ctx.call == abi::CALL_UNIT && ctx.side == abi::HUMANS => self.humans.map_of(id),
            Some(id) if ctx.call == abi::CALL_UNIT => self.zombies.map_of(id),
            _ => Dynamic::UNIT,
        };
        let mut m = Map::new();
        m.insert("kind".into(), self.names[kind].clone());
        m.insert("side".into(), self.names[if ctx.side == abi::HUMANS { 4 } else { 5 }].clone());
        m.insert("t".into(), Dynamic::from(i64::from(ctx.t)));
        m.insert("unit".into(), unit.map_or(Dynamic::UNIT, |u| Dynamic::from(i64::from(u))));
        m.insert("me".into(), me);
        m.insert("humans_to_spawn".into(), Dynamic::from(i64::from(ctx.humans_to_spawn)));
        m.insert("zombies_to_spawn".into(), Dynamic::from(i64::from(ctx.zombies_to_spawn)));
        m.insert("zombie_cap".into(), Dynamic::from(i64::from(ctx.zombie_cap)));
        m.insert("airdrops_held".into(), Dynamic::from(ctx.airdrops_held));
        m.insert("zombies_ready".into(), Dynamic::from(ctx.zombies_ready));
        m.insert("humans".into(), self.humans.array.clone());
        m.insert("zombies".into(), self.zombies.array.clone());
        m.insert("walls".into(), self.walls.array.clone());
        m.insert("crates".into(), self.crates.array.clone());
        m.insert("airstrikes".into(), self.airstrikes.array.clone());
        m.insert("game".into(), self.game.clone());
        let secs = |d: Option<Duration>| d.map_or(Dynamic::UNIT, |d| Dynamic::from(d.as_secs_f64()));
        let clocks = match clocks {
            [None, None] => Dynamic::UNIT,
            [h, z] => Dynamic::from_map(Map::from([("humans".into(), secs(h)), ("zombies".into(), secs(z))])),
        };
        m.insert("clocks".into(), clocks);
        Dynamic::from_map(m)
    }

    /// Makes `side_ctx` the side's context `ctx`, made again only if something changed.
    fn refresh_side(&mut self, ctx: &HexContext<'_>, clocks: [Option<Duration>; 2]) {
        let head = Head {
            call: ctx.call,
            side: ctx.side,
            t: ctx.t,
            unit: ctx.unit,
            humans_to_spawn: ctx.humans_to_spawn,
            zombies_to_spawn: ctx.zombies_to_spawn,
            zombie_cap: ctx.zombie_cap,
            airdrops_held: ctx.airdrops_held,
            zombies_ready: ctx.zombies_ready,
            clocks,
        };
        let changed = self.sync(ctx);
        if changed || self.side_head != Some(head) {
            let map = self.map(ctx, clocks).into_read_only();
            if let Some(mut inner) = self.side_ctx.write_lock::<Dynamic>() {
                *inner = map;
            }
            self.side_head = Some(head);
        }
    }
}

impl RhaiBot {
    fn new(script: &Script, sides: bool) -> Result<RhaiBot, String> {
        let shared = Rc::new(Shared { maps: RefCell::new(Maps::new()), link: SideLink::default() });
        let vm = RhaiVm::new(script, |engine, _| register_side(engine, Rc::clone(&shared)))?;
        Ok(RhaiBot { vm, shared, sides, limit: script.limits.call_timeout, spent: None })
    }

    /// One whole side's half-turn: `play_side(side)`, with the side's share of time.
    fn side_call(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        let Some(channel) = call.take_side() else {
            return Err(BotError::Failed("a script that plays whole sides was called for one unit".into()));
        };
        channel.claim();
        let info = channel.info();
        let share = info.share(Some(self.limit));
        let shared = Rc::clone(&self.shared);
        let side = Map::from([
            ("ctx".into(), shared.maps.borrow().side_ctx.clone()),
            ("max_commands".into(), Dynamic::from(i64::from(info.max_commands))),
            ("calls".into(), Dynamic::from(i64::from(info.calls))),
            ("time".into(), share.map_or(Dynamic::UNIT, |d| Dynamic::from(d.as_secs_f64()))),
        ]);
        let watch = Stopwatch::start();
        // The call's deadline is its share (the VM reads it from the script's limits).
        self.vm.script.limits.call_timeout = share.unwrap_or(self.limit);
        let file = self.vm.script.file_name();
        let vm = &mut self.vm;
        let result = rhai_call(&file, || {
            shared.link.during(channel, call.ctx.random, call.clocks, || {
                shared.link.with(|ch, random| {
                    let ctx = HexContext { random, ..ch.context() };
                    shared.maps.borrow_mut().refresh_side(&ctx, call.clocks);
                });
                vm.call(&call.ctx, call.ctx.random, Dynamic::from_map(side))
            })
        });
        self.vm.script.limits.call_timeout = self.limit;
        self.spent = Some(watch.own());
        result.map(|_| HexAnswer::default())
    }
}

/// `side.command(c)`: runs one command through the side call in progress, refreshes
/// `side.ctx`, and returns the verdict map.
fn register_side(engine: &mut Engine, shared: Rc<Shared>) {
    engine.register_fn("command", move |_side: Map, command: Map| -> Fallible<Map> {
        let mut verdict = Map::new();
        let parsed = to_json(&Dynamic::from_map(command), 0).and_then(|c| side_command_from_json(&c));
        let (unit, command) = match parsed {
            Ok(c) => c,
            Err(e) => {
                verdict.insert("ok".into(), Dynamic::FALSE);
                verdict.insert("verdict".into(), Dynamic::from(Verdict::Invalid.name()));
                verdict.insert("reason".into(), Dynamic::from(e.to_string()));
                return Ok(verdict);
            }
        };
        let clocks = shared.link.clocks.get();
        let ran = shared.link.with(|ch, random| {
            let v = ch.command(unit, &command);
            let ctx = HexContext { random, ..ch.context() };
            shared.maps.borrow_mut().refresh_side(&ctx, clocks);
            v
        });
        let Some(v) = ran else { return Err("side.command exists only during play_side".into()) };
        verdict.insert("ok".into(), Dynamic::from(v == Verdict::Accepted));
        verdict.insert("verdict".into(), Dynamic::from(v.name()));
        if v != Verdict::Accepted {
            verdict.insert("reason".into(), Dynamic::from(v.reason_str()));
        }
        Ok(verdict)
    });
}

/// One list of the context as a Rhai array: one shared value, read-only to scripts, whose
/// elements (each object's map, plain and read-only) the host edits in place, one object at
/// a time, as the list changes.
///
/// Rhai measures the data a `&mut` method reaches and cannot do it through shared values
/// nested in data (it panics): the lists' elements are therefore plain maps, and only the
/// lists themselves are shared (a method on a list, `ctx.zombies.len()`, measures it from
/// the top). A method on the context map itself (`ctx.len()`, `"me" in ctx`) would reach
/// the shared lists: the call is caught and fails ([`rhai_call`]).
struct Cache<T> {
    prev: Vec<T>,
    array: Dynamic,
}

impl<T> Default for Cache<T> {
    fn default() -> Self {
        Cache { prev: Vec::new(), array: Dynamic::from_array(Array::new()).into_read_only().into_shared() }
    }
}

impl<T: Listed> Cache<T> {
    /// Makes the array hold `cur`: both are in id order, so one merge walk removes, inserts
    /// and replaces the objects that went, came or changed (a map is made only for those);
    /// true if it changed.
    fn sync(&mut self, cur: &[T]) -> bool {
        if cur == self.prev.as_slice() {
            return false;
        }
        let make = |o: &T| to_dynamic(&o.json()).into_read_only();
        let mut guard = self.array.write_lock::<Array>().expect("a list is an array");
        let array = &mut *guard;
        let (mut k, mut i, mut j) = (0, 0, 0);
        loop {
            match (self.prev.get(i), cur.get(j)) {
                (Some(b), Some(n)) if b.id() == n.id() => {
                    if b != n {
                        array[k] = make(n);
                    }
                    (k, i, j) = (k + 1, i + 1, j + 1);
                }
                (Some(b), n) if n.is_none_or(|n| b.id() < n.id()) => {
                    drop(array.remove(k));
                    i += 1;
                }
                (_, Some(n)) => {
                    array.insert(k, make(n));
                    (k, j) = (k + 1, j + 1);
                }
                (_, None) => break,
            }
        }
        drop(guard);
        self.prev.clear();
        self.prev.extend_from_slice(cur);
        true
    }

    /// The map of object `id` (a copy), or `()`.
    fn map_of(&self, id: u32) -> Dynamic {
        match self.prev.binary_search_by_key(&id, Listed::id) {
            Ok(k) => self.array.read_lock::<Array>().map_or(Dynamic::UNIT, |a| a[k].clone()),
            Err(_) => Dynamic::UNIT,
        }
    }
}

/// Runs a call of the VM, a panic inside Rhai (its size checks reaching the host's shared
/// lists through a method on the context map itself) costing only this call.
fn rhai_call<R>(file: &str, call: impl FnOnce() -> Result<R, BotError>) -> Result<R, BotError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)) {
        Ok(result) => result,
        Err(payload) => {
            let what = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            Err(BotError::Failed(format!(
                "{file}: Rhai failed ({}): call no function on ctx or side themselves (their lists are shared \
                 with the host)",
                scripts_first_line(what)
            )))
        }
    }
}

fn scripts_first_line(text: &str) -> String {
    crate::loaders::scripts::first_line(text)
}

/// A JSON value as a Rhai value (null is `()`).
fn to_dynamic(v: &Json) -> Dynamic {
    match v {
        Json::Null => Dynamic::UNIT,
        Json::Bool(b) => Dynamic::from(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Dynamic::from(i),
            None => Dynamic::from(n.as_f64().unwrap_or(0.0)),
        },
        Json::String(s) => Dynamic::from(ImmutableString::from(s.as_str())),
        Json::Array(a) => Dynamic::from_array(a.iter().map(to_dynamic).collect::<Array>()),
        Json::Object(m) => {
            Dynamic::from_map(m.iter().map(|(k, x)| (k.as_str().into(), to_dynamic(x))).collect::<Map>())
        }
    }
}

/// A Rhai answer as JSON.
fn to_json(v: &Dynamic, depth: u32) -> Result<Json, BotError> {
    if depth > 4 {
        return Err(BotError::Invalid("the answer is nested too deeply".into()));
    }
    if v.is_unit() {
        return Ok(Json::Null);
    }
    if let Ok(i) = v.as_int() {
        return Ok(Json::Number(i.into()));
    }
    if let Ok(f) = v.as_float() {
        return Ok(Number::from_f64(f).map_or(Json::Null, Json::Number));
    }
    if let Ok(b) = v.as_bool() {
        return Ok(Json::Bool(b));
    }
    if let Some(s) = v.clone().try_cast::<ImmutableString>() {
        return Ok(Json::String(s.to_string()));
    }
    if let Some(a) = v.clone().try_cast::<Array>() {
        return a.iter().map(|x| to_json(x, depth + 1)).collect::<Result<Vec<_>, _>>().map(Json::Array);
    }
    if let Some(m) = v.clone().try_cast::<Map>() {
        let mut out = serde_json::Map::new();
        for (k, x) in &m {
            out.insert(k.to_string(), to_json(x, depth + 1)?);
        }
        return Ok(Json::Object(out));
    }
    Err(BotError::Invalid(format!("a {} in the answer", v.type_name())))
}

impl Bot<Hex> for RhaiBot {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        if self.sides {
            return self.side_call(call);
        }
        let ctx = &call.ctx;
        let arg = {
            let mut maps = self.shared.maps.borrow_mut();
            maps.sync(ctx);
            maps.map(ctx, call.clocks)
        };
        let file = self.vm.script.file_name();
        let vm = &mut self.vm;
        let result = rhai_call(&file, || vm.call(ctx, ctx.random, arg))?;
        answer_from_json(&to_json(&result, 0)?)
    }

    fn times_itself(&self) -> bool {
        self.sides
    }

    fn call_time(&self) -> Option<Duration> {
        self.spent.filter(|_| self.sides)
    }
}
