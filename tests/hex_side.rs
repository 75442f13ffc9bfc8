//! Whole-side calls in hex (hex.md, "Whole sides"): a bot of every kind (a builtin bot on the
//! host's side channel, native Rust and C, Lua, Rhai, programs) plays its side's half-turn
//! in one call, command by command, each with its verdict; a refused command says why and
//! changes nothing; what a side bot sees after each command is the engine's sight; the
//! half-turn's command cap; replays of side games re-play exactly and the page shows the
//! side turns; the bundled side bots make the same decisions in Rust, Lua and Python, and
//! their zombies end the baseline humans well before the limit; both clocks in every
//! kind's context.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;
use std::time::Duration;

use arena::abi::hex::{
    CALL_SIDE, HUMANS, HexAirstrike, HexAnswer, HexCommand, HexContext, HexCrate, HexHuman, HexWall, HexZombie,
    NO_UNIT, ZOMBIES, cmd,
};
use arena::bot::{Bot, BotError, Entry, EntryKind, TimeLeft};
use arena::game::{Outcome, Recorded};
use arena::games::hex::{
    self, Contents, Engine, Event, Hex, HexCall, Refusal, Side, SideChannel, SideInfo, Verdict, play,
};
use arena::limits::TimeBank;
use arena::loaders::{ScriptLimits, SearchPaths, discover};
use arena::replay::Replay;
use arena::tournament::{Plan, play_game, play_here};

use crate::util::{plugin_lib, root};

fn python() -> bool {
    Path::new("/usr/bin/python3").exists() || Path::new("/usr/local/bin/python3").exists()
}

/// The baseline (as plugins/hex-basic) compiled in.
fn basic(name: &str) -> Entry<Hex> {
    Entry::<Hex>::builtin(name, arena::games::hex::bench::baseline)
}

/// The entries of these files (written into a fresh directory, programs made executable).
fn entries_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<Entry<Hex>>) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let found = discover::<Hex>(
        &SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] },
        &ScriptLimits::default(),
    );
    assert!(found.skipped.is_empty(), "skipped: {:?}", found.skipped);
    assert_eq!(found.entries.len(), files.len());
    (dir, found.entries)
}

/// The bundled bots of these files.
fn bundled(files: &[&str]) -> (tempfile::TempDir, Vec<Entry<Hex>>) {
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let name = Path::new(f).file_name().unwrap().to_str().unwrap().to_owned();
            (name, std::fs::read_to_string(root().join(f)).unwrap())
        })
        .collect();
    let refs: Vec<(&str, &str)> = texts.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    entries_of(&refs)
}

fn native(crate_name: &str) -> Entry<Hex> {
    let lib = plugin_lib(crate_name);
    arena::loaders::native::load::<Hex>(&lib, &Default::default()).unwrap_or_else(|e| panic!("{}: {e}", lib.display()))
}

/// A digest of a context's five lists (the same in every test bot's language): per list
/// its length, then per object its integer fields (and with `floats`, the bits of its
/// floats), each mixed in as h = (31 h + v mod M) mod M.
fn digest(ctx: &HexContext<'_>, floats: bool) -> i64 {
    const M: i64 = 1_000_000_007;
    let mut h: i64 = 0;
    let mut add = |v: i64| h = (h * 31 + v.rem_euclid(M)) % M;
    let bits = |f: f64| f.to_bits() as i64;
    add(ctx.humans.len() as i64);
    for o in ctx.humans.iter() {
        for v in
            [o.id.into(), o.x.into(), o.y.into(), o.hp, o.ammo, o.weapon.into(), o.specialty.into(), o.moves.into()]
        {
            add(v);
        }
        if floats {
            add(bits(o.idle));
        }
    }
    add(ctx.zombies.len() as i64);
    for o in ctx.zombies.iter() {
        for v in [o.id.into(), o.x.into(), o.y.into(), o.hp, o.facing.into(), o.moves.into()] {
            add(v);
        }
        if floats {
            add(bits(o.idle));
            add(bits(o.scent));
        }
    }
    add(ctx.walls.len() as i64);
    for o in ctx.walls.iter() {
        for v in [o.id.into(), o.x.into(), o.y.into(), o.hp, o.cap] {
            add(v);
        }
    }
    add(ctx.crates.len() as i64);
    for o in ctx.crates.iter() {
        for v in [o.id.into(), o.x.into(), o.y.into(), o.hp, o.cap, o.contents.into()] {
            add(v);
        }
    }
    add(ctx.airstrikes.len() as i64);
    for o in ctx.airstrikes.iter() {
        for v in [o.id.into(), o.x.into(), o.y.into(), o.delay.into(), o.contents.into()] {
            add(v);
        }
    }
    h
}

/// The check command test bots give: a `give` by unit `u32::MAX` to `u32::MAX` whose
/// amount is the digest of what the bot sees.
fn is_check(unit: u32, c: &HexCommand) -> bool {
    unit == u32::MAX && c.kind == cmd::GIVE && c.id == u32::MAX
}

/// What the checks found: how many, and the first few that failed.
#[derive(Debug, Default)]
struct Checks {
    made: u64,
    failed: Vec<String>,
}

/// A side channel that answers the check commands itself (their digest against its own
/// context's) and passes every other command on.
struct Checking<'c> {
    inner: &'c mut (dyn SideChannel + 'c),
    floats: bool,
    checks: Rc<RefCell<Checks>>,
}

impl SideChannel for Checking<'_> {
    fn claim(&mut self) {
        self.inner.claim();
    }
    fn info(&self) -> SideInfo {
        self.inner.info()
    }
    fn context(&mut self) -> HexContext<'_> {
        self.inner.context()
    }
    fn command(&mut self, unit: u32, c: &HexCommand) -> Verdict {
        if !is_check(unit, c) {
            return self.inner.command(unit, c);
        }
        let ctx = self.inner.context();
        let (t, want) = (ctx.t, digest(&ctx, self.floats));
        let mut checks = self.checks.borrow_mut();
        checks.made += 1;
        if c.amount != want && checks.failed.len() < 5 {
            checks.failed.push(format!("t = {t}: the bot's digest {}, the host's {want}", c.amount));
        }
        Verdict::Invalid
    }
    fn refuse(&mut self, unit: u32, c: &HexCommand, verdict: Verdict) {
        self.inner.refuse(unit, c, verdict);
    }
}

/// A bot whose side calls go through [`Checking`].
struct Checked {
    inner: Box<dyn Bot<Hex>>,
    floats: bool,
    checks: Rc<RefCell<Checks>>,
}

impl Bot<Hex> for Checked {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        match call.take_side() {
            Some(inner) => {
                let mut checking = Checking { inner, floats: self.floats, checks: Rc::clone(&self.checks) };
                self.inner.turn(&HexCall::with_side(call.ctx, call.clocks, &mut checking))
            }
            None => self.inner.turn(call),
        }
    }
}

/// The same entry, its bots' check commands answered beside the host.
fn checked_entry(e: &Entry<Hex>) -> Entry<Hex> {
    let inner = e.clone();
    let factory = move || {
        let bot = inner.create_bot()?;
        Ok(Box::new(Checked { inner: bot, floats: true, checks: Rc::default() }) as Box<dyn Bot<Hex>>)
    };
    Entry::new(e.name.clone(), e.kind, e.source.clone(), std::sync::Arc::new(factory))
}

/// Plays `entry` on `side` against the baseline for `turns` half-turns, its side calls
/// checked: the outcome and the checks.
fn checked_game(entry: &Entry<Hex>, side: u32, floats: bool, turns: u32) -> (Outcome, Checks) {
    let checks = Rc::new(RefCell::new(Checks::default()));
    let checked: Box<dyn Bot<Hex>> =
        Box::new(Checked { inner: entry.create_bot().unwrap(), floats, checks: Rc::clone(&checks) });
    let baseline: Box<dyn Bot<Hex>> = Box::new(arena::games::hex::bench::baseline());
    let mut bots = if side == HUMANS { vec![checked, baseline] } else { vec![baseline, checked] };
    let outcome = play(2, 3, &hex::Config { max_turns: Some(turns) }, &mut bots, |_| {});
    drop(bots);
    (outcome, Rc::try_unwrap(checks).map(RefCell::into_inner).unwrap_or_default())
}

/// A Lua side bot that checks its `side.ctx` after every command (and places, shoots,
/// spawns and walks), and reads both clocks when `clocks` is "required" or "absent".
const LUA_SIDE: &str = r#"-- arena: hex
local M = 1000000007
local function mix(h, v) return (h * 31 + v % M) % M end
local function bits(f) return (string.unpack("<i8", string.pack("<d", f))) end
local function digest(c)
  local h = mix(0, #c.humans)
  for _, o in ipairs(c.humans) do
    for _, v in ipairs({o.id, o.x, o.y, o.hp, o.ammo, o.weapon, o.specialty, o.moves, bits(o.idle)}) do h = mix(h, v) end
  end
  h = mix(h, #c.zombies)
  for _, o in ipairs(c.zombies) do
    for _, v in ipairs({o.id, o.x, o.y, o.hp, o.facing, o.moves, bits(o.idle), bits(o.scent)}) do h = mix(h, v) end
  end
  h = mix(h, #c.walls)
  for _, o in ipairs(c.walls) do for _, v in ipairs({o.id, o.x, o.y, o.hp, o.cap}) do h = mix(h, v) end end
  h = mix(h, #c.crates)
  for _, o in ipairs(c.crates) do
    local k = o.contents == "ammo" and 7 or o.contents
    for _, v in ipairs({o.id, o.x, o.y, o.hp, o.cap, k}) do h = mix(h, v) end
  end
  h = mix(h, #c.airstrikes)
  for _, o in ipairs(c.airstrikes) do
    local k = o.contents == "ammo" and 7 or o.contents
    for _, v in ipairs({o.id, o.x, o.y, o.delay, k}) do h = mix(h, v) end
  end
  return h
end
local function dist(x1, y1, x2, y2)
  local dx, dy = x2 - x1, y2 - y1
  if (dx > 0 and dy > 0) or (dx < 0 and dy < 0) then return math.abs(dx) + math.abs(dy) end
  return math.max(math.abs(dx), math.abs(dy))
end
local function check(side) side:command{cmd = "give", unit = 4294967295, id = 4294967295, amount = digest(side.ctx)} end
local function run(side, c) local v = side:command(c); check(side); return v end
function play_side(side)
  local ctx = side.ctx
  assert(ctx.kind == "side" and side.calls >= 1 and side.max_commands >= 4, "the side call's data")
  check(side)
  if ctx.side == "humans" then
    if ctx.t == 1 then
      local placed = 0
      for x = -3, 3 do for y = -3, 3 do
        if placed < 6 and run(side, {cmd = "spawn", x = x, y = y, weapon = 5}).ok then placed = placed + 1 end
      end end
      return
    end
    for _, h in ipairs(ctx.humans) do
      local tries = 0
      for _, z in ipairs(ctx.zombies) do
        if tries < 3 and dist(h.x, h.y, z.x, z.y) <= 5 then tries = tries + 1; run(side, {cmd = "attack", unit = h.id, id = z.id}) end
      end
      run(side, {cmd = "build", unit = h.id, x = h.x + 1, y = h.y})
    end
  else
    while side.ctx.zombies_to_spawn > 0 do
      if not run(side, {cmd = "spawn_zombie", zone = 7 + ctx.t % 4, facing = ({0, 4, 3, 1})[ctx.t % 4 + 1]}).ok then break end
    end
    local ids = {}
    for i, z in ipairs(ctx.zombies) do ids[i] = z.id end
    for _, id in ipairs(ids) do
      local z, bit = nil, false
      for _, o in ipairs(side.ctx.zombies) do if o.id == id then z = o end end
      for _, h in ipairs(side.ctx.humans) do
        if z and not bit and dist(z.x, z.y, h.x, h.y) <= 1 then bit = true; run(side, {cmd = "attack", unit = id, id = h.id}) end
      end
      if not bit and not run(side, {cmd = "forward", unit = id}).ok then run(side, {cmd = "turn", unit = id, by = 1}) end
    end
  end
end
"#;

/// The same in Rhai (its digest leaves the floats out: Rhai cannot read their bits), also
/// checking that `this` persists between side calls.
const RHAI_SIDE: &str = r#"// arena: hex
fn mix(h, v) { let r = v % 1000000007; if r < 0 { r += 1000000007; } (h * 31 + r) % 1000000007 }
fn digest(c) {
    let h = mix(0, c.humans.len());
    for o in c.humans { for v in [o.id, o.x, o.y, o.hp, o.ammo, o.weapon, o.specialty, o.moves] { h = mix(h, v); } }
    h = mix(h, c.zombies.len());
    for o in c.zombies { for v in [o.id, o.x, o.y, o.hp, o.facing, o.moves] { h = mix(h, v); } }
    h = mix(h, c.walls.len());
    for o in c.walls { for v in [o.id, o.x, o.y, o.hp, o.cap] { h = mix(h, v); } }
    h = mix(h, c.crates.len());
    for o in c.crates { let k = if o.contents == "ammo" { 7 } else { o.contents }; for v in [o.id, o.x, o.y, o.hp, o.cap, k] { h = mix(h, v); } }
    h = mix(h, c.airstrikes.len());
    for o in c.airstrikes { let k = if o.contents == "ammo" { 7 } else { o.contents }; for v in [o.id, o.x, o.y, o.delay, k] { h = mix(h, v); } }
    h
}
fn dist(x1, y1, x2, y2) {
    let dx = x2 - x1; let dy = y2 - y1;
    if (dx > 0 && dy > 0) || (dx < 0 && dy < 0) { dx.abs() + dy.abs() } else { max(dx.abs(), dy.abs()) }
}
fn check(side) { side.command(#{cmd: "give", unit: 4294967295, id: 4294967295, amount: digest(side.ctx)}); }
fn run(side, c) { let v = side.command(c); check(side); v }
fn play_side(side) {
    let calls = this.calls ?? 0;
    if calls > 0 && this.last_t + 2 != side.ctx.t { throw "this did not persist"; }
    this.calls = calls + 1;
    this.last_t = side.ctx.t;
    if side.ctx.kind != "side" { throw "not a side context"; }
    check(side);
    let ctx = side.ctx;
    if ctx.side == "humans" {
        if ctx.t == 1 {
            let placed = 0;
            for x in -3..4 { for y in -3..4 { if placed < 6 && run(side, #{cmd: "spawn", x: x, y: y, weapon: 5}).ok { placed += 1; } } }
            return;
        }
        for h in ctx.humans {
            let tries = 0;
            for z in ctx.zombies {
                if tries < 3 && dist(h.x, h.y, z.x, z.y) <= 5 { tries += 1; run(side, #{cmd: "attack", unit: h.id, id: z.id}); }
            }
            run(side, #{cmd: "build", unit: h.id, x: h.x + 1, y: h.y});
        }
    } else {
        while side.ctx.zombies_to_spawn > 0 {
            if !run(side, #{cmd: "spawn_zombie", zone: 7 + ctx.t % 4, facing: [0, 4, 3, 1][ctx.t % 4]}).ok { break; }
        }
        for z in ctx.zombies {
            let bit = false;
            for h in side.ctx.humans {
                if !bit && dist(z.x, z.y, h.x, h.y) <= 1 { bit = true; run(side, #{cmd: "attack", unit: z.id, id: h.id}); }
            }
            if !bit && !run(side, #{cmd: "forward", unit: z.id}).ok { run(side, #{cmd: "turn", unit: z.id, by: 1}); }
        }
    }
}
"#;

/// The same in C (through hex_bot.h's side calls).
const C_SIDE: &str = r#"#include "hex_bot.h"
#include <stdlib.h>
#include <string.h>
#define M 1000000007LL
static int64_t mix(int64_t h, int64_t v) { int64_t r = v % M; if (r < 0) r += M; return (h * 31 + r) % M; }
static int64_t bits(double d) { int64_t b; memcpy(&b, &d, sizeof b); return b; }
static int64_t digest(const hb_context *c) {
    int64_t h = mix(0, (int64_t)c->humans.len);
    for (size_t i = 0; i < c->humans.len; i++) {
        const hb_human *o = &c->humans.ptr[i];
        int64_t v[9] = { o->id, o->x, o->y, o->hp, o->ammo, o->weapon, o->specialty, o->moves, bits(o->idle) };
        for (int k = 0; k < 9; k++) h = mix(h, v[k]);
    }
    h = mix(h, (int64_t)c->zombies.len);
    for (size_t i = 0; i < c->zombies.len; i++) {
        const hb_zombie *o = &c->zombies.ptr[i];
        int64_t v[8] = { o->id, o->x, o->y, o->hp, o->facing, o->moves, bits(o->idle), bits(o->scent) };
        for (int k = 0; k < 8; k++) h = mix(h, v[k]);
    }
    h = mix(h, (int64_t)c->walls.len);
    for (size_t i = 0; i < c->walls.len; i++) {
        const hb_wall *o = &c->walls.ptr[i];
        int64_t v[5] = { o->id, o->x, o->y, o->hp, o->cap };
        for (int k = 0; k < 5; k++) h = mix(h, v[k]);
    }
    h = mix(h, (int64_t)c->crates.len);
    for (size_t i = 0; i < c->crates.len; i++) {
        const hb_crate *o = &c->crates.ptr[i];
        int64_t v[6] = { o->id, o->x, o->y, o->hp, o->cap, o->contents };
        for (int k = 0; k < 6; k++) h = mix(h, v[k]);
    }
    h = mix(h, (int64_t)c->airstrikes.len);
    for (size_t i = 0; i < c->airstrikes.len; i++) {
        const hb_airstrike *o = &c->airstrikes.ptr[i];
        int64_t v[5] = { o->id, o->x, o->y, o->delay, o->contents };
        for (int k = 0; k < 5; k++) h = mix(h, v[k]);
    }
    return h;
}
static void check(hb_side_turn *t) { hb_side_command(t, 0xffffffffu, HB_GIVE, 0xffffffffu, 0, 0, digest(hb_side_context(t))); }
static hb_verdict run(hb_side_turn *t, uint32_t unit, uint32_t kind, uint32_t id, int32_t x, int32_t y, int64_t amount) {
    hb_verdict v = hb_side_command(t, unit, kind, id, x, y, amount);
    check(t);
    return v;
}
static void *create(void) { return calloc(1, 1); }
static void destroy(void *b) { free(b); }
static void side(void *bot, hb_side_turn *t) {
    (void)bot;
    const hb_context *c = hb_side_context(t);
    if (c->call != HB_CALL_SIDE || t->calls < 1 || t->max_commands < 4) abort();
#ifndef NO_CLOCKS
    /* A bank in these games: both clocks are known. */
    if (t->clocks_ns[HB_HUMANS] == HB_NO_LIMIT || t->clocks_ns[HB_ZOMBIES] == HB_NO_LIMIT || t->time_ns == HB_NO_LIMIT) abort();
#endif
    uint32_t side = c->side, tt = c->t;
    check(t); /* c is not valid after a command */
    if (side == HB_HUMANS) {
        if (tt == 1) {
            int placed = 0;
            for (int x = -3; x <= 3; x++) for (int y = -3; y <= 3; y++)
                if (placed < 6 && run(t, HB_NO_UNIT, HB_SPAWN_HUMAN, HB_PISTOL, x, y, 0).code == HB_ACCEPTED) placed++;
            hb_verdict v = hb_side_command(t, HB_NO_UNIT, HB_FORWARD, 0, 0, 0, 0);
            if (v.code != HB_INVALID || v.reason[0] == 0) abort();
            return;
        }
        size_t n = hb_side_context(t)->humans.len;
        uint32_t ids[16];
        for (size_t i = 0; i < n && i < 16; i++) ids[i] = hb_side_context(t)->humans.ptr[i].id;
        for (size_t i = 0; i < n && i < 16; i++) {
            int tries = 0;
            for (size_t k = 0; tries < 3; k++) {
                const hb_context *now = hb_side_context(t);
                const hb_human *h = NULL;
                for (size_t j = 0; j < now->humans.len; j++) if (now->humans.ptr[j].id == ids[i]) h = &now->humans.ptr[j];
                if (!h || k >= now->zombies.len) break;
                const hb_zombie *z = &now->zombies.ptr[k];
                if (hb_distance(h->x, h->y, z->x, z->y) > 5) continue;
                tries++;
                run(t, ids[i], HB_ATTACK, z->id, 0, 0, 0);
            }
            const hb_context *now = hb_side_context(t);
            for (size_t j = 0; j < now->humans.len; j++) {
                const hb_human h = now->humans.ptr[j];
                if (h.id == ids[i]) { run(t, ids[i], HB_BUILD, 0, h.x + 1, h.y, 0); break; }
            }
        }
    } else {
        while (hb_side_context(t)->zombies_to_spawn > 0) {
            uint32_t zone = 7 + tt % 4;
            if (run(t, HB_NO_UNIT, HB_SPAWN_ZOMBIE, zone, 0, 0, hb_zone_inward(zone)).code != HB_ACCEPTED) break;
        }
        size_t n = hb_side_context(t)->zombies.len;
        uint32_t *ids = malloc(n * sizeof *ids + 1);
        for (size_t i = 0; i < n; i++) ids[i] = hb_side_context(t)->zombies.ptr[i].id;
        for (size_t i = 0; i < n; i++) {
            if (run(t, ids[i], HB_FORWARD, 0, 0, 0, 0).code != HB_ACCEPTED) run(t, ids[i], HB_TURN, 0, 0, 0, 1);
        }
        free(ids);
    }
}
static const zb_bot_table TABLE = { .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table),
    .name = "CSide", .create = create, .destroy = destroy, .game = "hex", .hex_side = side };
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
"#;

/// The Python side bot (the bundled py-legion.py) checking its own copy of the world,
/// rebuilt from the side line's world and each verdict's delta, after every command.
fn python_checking() -> String {
    let bundled = std::fs::read_to_string(root().join("scripts/hex/py-legion.py")).unwrap();
    let body = bundled.trim_end().strip_suffix("main()").expect("py-legion.py ends with main()");
    format!(
        r#"{body}
import struct

M = 1000000007


def digest(turn):
    fields = {{
        "humans": ("id", "x", "y", "hp", "ammo", "weapon", "specialty", "moves", "idle"),
        "zombies": ("id", "x", "y", "hp", "facing", "moves", "idle", "scent"),
        "walls": ("id", "x", "y", "hp", "cap"),
        "crates": ("id", "x", "y", "hp", "cap", "contents"),
        "airstrikes": ("id", "x", "y", "delay", "contents"),
    }}
    h = 0
    for name in LISTS:
        objects = turn.sorted(name)
        h = (h * 31 + len(objects) % M) % M
        for o in objects:
            for f in fields[name]:
                v = o[f]
                if v == "ammo":
                    v = 7
                if isinstance(v, float):
                    v = struct.unpack("<q", struct.pack("<d", v))[0]
                h = (h * 31 + v % M) % M
    return h


_command = Turn.command


def checked(self, command, unit=None):
    verdict = _command(self, command, unit)
    _command(self, {{"cmd": "give", "id": 4294967295, "amount": digest(self)}}, 4294967295)
    return verdict


Turn.command = checked
main()
"#
    )
}

#[test]
fn a_side_call_stands_for_the_half_turns_calls_and_gets_their_time() {
    let s = |calls, bank: Option<u64>, per_call: Option<u64>| SideInfo {
        calls,
        max_commands: 16,
        time: TimeLeft { bank: bank.map(Duration::from_secs), per_call: per_call.map(Duration::from_secs) },
    };
    // What the per-unit calls would together have had: each the limit per call, at most
    // what is left of the bank.
    assert_eq!(s(7, Some(30), Some(1)).share(None), Some(Duration::from_secs(7)));
    assert_eq!(s(40, Some(30), Some(1)).share(None), Some(Duration::from_secs(30)));
    assert_eq!(s(3, None, Some(2)).share(None), Some(Duration::from_secs(6)));
    // A bot with its own limit per call (a script's, a program's) counts calls of it when
    // the host has none; the host's comes first.
    assert_eq!(s(5, None, None).share(Some(Duration::from_secs(1))), Some(Duration::from_secs(5)));
    assert_eq!(s(5, None, Some(2)).share(Some(Duration::from_secs(1))), Some(Duration::from_secs(10)));
    assert_eq!(s(5, Some(3), None).share(None), Some(Duration::from_secs(3)));
    assert_eq!(s(5, None, None).share(None), None);
}

#[test]
fn a_side_bot_of_every_kind_plays_each_half_turn_in_one_call() {
    let mut files = vec![("lua-side.lua", LUA_SIDE), ("rhai-side.rhai", RHAI_SIDE)];
    let py = python_checking();
    if python() {
        files.push(("py-side.py", py.as_str()));
    }
    let (_dir, mut entries) = entries_of(&files);
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("cside.c");
    std::fs::write(&src, C_SIDE).unwrap();
    let lib = crate::util::compile_c(&src, &dir.path().join(crate::util::lib_name("cside")), &["-Wextra"]);
    let c = arena::loaders::native::load::<Hex>(&lib, &Default::default()).unwrap();
    assert_eq!((c.name.as_str(), c.kind), ("CSide", EntryKind::NativeC));
    entries.push(c);
    let rust = native("hex-legion");
    assert_eq!((rust.name.as_str(), rust.kind), ("HexLegion", EntryKind::Native));
    entries.push(rust);
    // The C bot aborts without both clocks: the games have a (large) bank.
    let plan = Plan {
        bank: Some(TimeBank { initial: Duration::from_secs(1000), per_turn: Duration::ZERO }),
        config: hex::Config { max_turns: Some(60) },
        ..Plan::new(0, 1)
    };
    for e in &entries {
        // The test bots' own checks are answered beside the host (they would count
        // against the command cap).
        let e = &checked_entry(e);
        for (seats, at) in [([e.clone(), basic("Basic")], 0), ([basic("Basic"), e.clone()], 1)] {
            let (outcome, _) = play_here(&seats, &plan, 3);
            let s = &outcome.stats[at];
            assert_eq!((s.errors, s.overruns, s.disqualified), (0, 0, 0), "{} (seat {at}): {s:?}", e.name);
            // One call per half-turn of its side: 30 of the 60.
            assert_eq!((outcome.turns, s.calls), (60, 30), "{} (seat {at}): {s:?}", e.name);
        }
    }
}

/// A sight as the ABI lists it: humans, zombies, walls, crates, airstrikes.
type Sight = (Vec<HexHuman>, Vec<HexZombie>, Vec<HexWall>, Vec<HexCrate>, Vec<HexAirstrike>);

/// What the engine shows `side` now, as the ABI lists it (the host's sight, built here
/// from the engine's objects and `Engine::view`).
fn engine_sight(g: &Engine, side: Side) -> Sight {
    let v = g.view(side);
    let first = g.t() <= 2;
    let code = |c: Contents| match c {
        Contents::Ammo => 7,
        Contents::Weapon(w) => w,
    };
    let humans = v
        .humans
        .iter()
        .map(|&id| {
            let h = g.human(id).unwrap();
            HexHuman {
                id,
                x: h.x,
                y: h.y,
                weapon: h.weapon,
                specialty: h.specialty,
                moves: h.moves,
                hp: h.hp,
                ammo: h.ammo,
                idle: h.idle,
            }
        })
        .collect();
    let zombies = v
        .zombies
        .iter()
        .map(|&id| {
            let z = g.zombie(id).unwrap();
            HexZombie {
                id,
                x: z.x,
                y: z.y,
                facing: u32::from(z.facing),
                moves: z.moves,
                reserved: 0,
                hp: z.hp,
                idle: z.idle,
                scent: z.scent,
            }
        })
        .collect();
    let walls = g
        .walls()
        .filter(|w| first || v.walls.contains(&w.id))
        .map(|w| HexWall { id: w.id, x: w.x, y: w.y, reserved: 0, hp: w.hp, cap: w.cap })
        .collect();
    let (crates, airstrikes) = if side == Side::Humans {
        (
            g.crates()
                .filter(|c| first || v.crates.contains(&c.id))
                .map(|c| HexCrate { id: c.id, x: c.x, y: c.y, contents: code(c.contents), hp: c.hp, cap: c.cap })
                .collect(),
            v.airstrikes
                .iter()
                .map(|&id| {
                    let a = g.airstrike(id).unwrap();
                    HexAirstrike { id, x: a.x, y: a.y, delay: a.delay, contents: code(a.contents), reserved: 0 }
                })
                .collect(),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    (humans, zombies, walls, crates, airstrikes)
}

fn sight_of(ctx: &HexContext<'_>) -> Sight {
    (ctx.humans.to_vec(), ctx.zombies.to_vec(), ctx.walls.to_vec(), ctx.crates.to_vec(), ctx.airstrikes.to_vec())
}

/// What the observer saw last: the game's state and the active side's sight, as the
/// engine has them.
#[derive(Default)]
struct Seen {
    state: Option<arena::games::hex::State>,
    sight: Option<Sight>,
}

/// A builtin bot on the host's side channel that gives random commands of every kind (the
/// game's random numbers) and checks, after each: the context is the engine's sight; a
/// refused command says why and changed nothing (but the quirk of spec 8.5); a command
/// not run changed nothing. It counts what it checked.
struct Prober {
    seen: Rc<RefCell<Seen>>,
    counts: Rc<RefCell<std::collections::BTreeMap<&'static str, u64>>>,
}

impl Prober {
    fn give(&self, side: &mut dyn SideChannel, unit: u32, c: HexCommand) -> Verdict {
        let before_state = self.seen.borrow().state.clone();
        let before = sight_of(&side.context());
        let v = side.command(unit, &c);
        let after = sight_of(&side.context());
        let seen = self.seen.borrow();
        // What the bot sees is the engine's sight, after every command (the engine's as the
        // last event left it: a command not run makes none).
        assert_eq!(Some(&after), seen.sight.as_ref(), "the sight drifted at t = {}", side.context().t);
        let quirk = v == Verdict::Refused(Refusal::NoMoves) && c.kind == cmd::ATTACK;
        match v {
            Verdict::Accepted => *self.counts.borrow_mut().entry("accepted").or_default() += 1,
            Verdict::Refused(r) if !quirk => {
                assert!(!r.as_str().is_empty() && v.reason_str() == r.as_str());
                assert_eq!(before, after, "a refused command ({r}) changed the sight");
                assert_eq!(before_state, seen.state, "a refused command ({r}) changed the game");
                *self.counts.borrow_mut().entry("refused").or_default() += 1;
            }
            Verdict::Refused(_) => *self.counts.borrow_mut().entry("quirk").or_default() += 1,
            Verdict::Invalid | Verdict::Cap | Verdict::Time => {
                assert_eq!(before, after);
                assert_eq!(before_state, seen.state);
                *self.counts.borrow_mut().entry("not run").or_default() += 1;
            }
        }
        v
    }
}

impl Bot<Hex> for Prober {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        let side = call.take_side().expect("the first call of a half-turn is offered the side");
        side.claim();
        let r = |n: u32| call.ctx.random(n) as i32;
        let ctx = side.context();
        assert_eq!((ctx.call, ctx.unit), (CALL_SIDE, NO_UNIT));
        let (t, humans) = (ctx.t, ctx.side == HUMANS);
        if humans && t == 1 {
            // A wall's hex first: refused, and why.
            let wall = side.context().walls[0];
            assert_eq!(
                self.give(side, NO_UNIT, HexCommand::spawn_human(wall.x, wall.y, 5)),
                Verdict::Refused(Refusal::Occupied)
            );
            // A zombie's command from the humans: not a command this side can give.
            assert_eq!(self.give(side, NO_UNIT, HexCommand::forward()), Verdict::Invalid);
            let (mut placed, mut tries) = (0, 0);
            while placed < 6 && tries < 60 {
                tries += 1;
                if self.give(side, NO_UNIT, HexCommand::spawn_human(r(9) - 4, r(9) - 4, [1, 5, 6, 2][r(4) as usize]))
                    == Verdict::Accepted
                {
                    placed += 1;
                }
            }
            return Ok(HexAnswer::default());
        }
        if !humans {
            while side.context().zombies_to_spawn > 0 {
                let zone = 7 + r(4) as u32;
                if self.give(side, NO_UNIT, HexCommand::spawn_zombie(zone, r(6) as u32)) != Verdict::Accepted {
                    break;
                }
            }
        }
        let units: Vec<u32> = if humans { ctx_ids(&side.context(), true) } else { ctx_ids(&side.context(), false) };
        for u in units {
            for _ in 0..if humans { 4 } else { 2 } {
                let ctx = side.context();
                let (x, y) = match (ctx.humans.iter().find(|h| h.id == u), ctx.zombies.iter().find(|z| z.id == u)) {
                    (Some(h), _) => (h.x, h.y),
                    (_, Some(z)) => (z.x, z.y),
                    _ => break,
                };
                let (dx, dy) = arena::abi::hex::DIRS[r(6) as usize];
                let near = |list: Vec<(u32, i32, i32)>| {
                    list.into_iter()
                        .min_by_key(|&(id, ox, oy)| (arena::abi::hex::distance(x, y, ox, oy), id))
                        .map(|o| o.0)
                };
                let zombie = near(ctx.zombies.iter().filter(|z| z.id != u).map(|z| (z.id, z.x, z.y)).collect());
                let human = near(ctx.humans.iter().filter(|h| h.id != u).map(|h| (h.id, h.x, h.y)).collect());
                let wall = near(ctx.walls.iter().map(|w| (w.id, w.x, w.y)).collect());
                let krate = near(ctx.crates.iter().map(|c| (c.id, c.x, c.y)).collect());
                let c = if humans {
                    match r(9) {
                        0 => HexCommand::step(x + dx, y + dy),
                        1 | 2 => zombie.map_or(HexCommand::attack_ground(x + 3, y), HexCommand::attack),
                        3 => HexCommand::build(x + dx, y + dy),
                        4 => human.map_or(HexCommand::forward(), |h| HexCommand::give(h, i64::from(r(30)))),
                        5 => krate.map_or(HexCommand::throw_ammo(x + dx, y + dy, 5), HexCommand::grab),
                        6 => HexCommand::attack_ground(x + 2 * dx, y + 2 * dy),
                        7 => HexCommand::call_drop(x + 2, y, 7),
                        // A zombie's command: not one the humans can give.
                        _ => HexCommand::eat(u),
                    }
                } else {
                    match r(7) {
                        0 => HexCommand::turn(if r(2) == 0 { 1 } else { -1 }),
                        // A human's command: not one the zombies can give.
                        5 => HexCommand::build(x + dx, y + dy),
                        1 => human.map_or(HexCommand::forward(), HexCommand::attack),
                        2 => wall.map_or(HexCommand::forward(), HexCommand::attack),
                        3 => zombie.map_or(HexCommand::forward(), HexCommand::eat),
                        _ => HexCommand::forward(),
                    }
                };
                self.give(side, u, c);
            }
        }
        Ok(HexAnswer::default())
    }
}

fn ctx_ids(ctx: &HexContext<'_>, humans: bool) -> Vec<u32> {
    if humans { ctx.humans.iter().map(|h| h.id).collect() } else { ctx.zombies.iter().map(|z| z.id).collect() }
}

/// After every command of a side call the bot sees the engine's sight; a refused command
/// says why and changes nothing; a command not run changes nothing (random commands of
/// every kind, both sides, long games).
#[test]
fn a_refused_command_says_why_and_changes_nothing_and_the_sight_follows_each_command() {
    for prober_side in [HUMANS, ZOMBIES] {
        let seen = Rc::new(RefCell::new(Seen::default()));
        let counts = Rc::new(RefCell::new(std::collections::BTreeMap::new()));
        let prober: Box<dyn Bot<Hex>> = Box::new(Prober { seen: Rc::clone(&seen), counts: Rc::clone(&counts) });
        let baseline: Box<dyn Bot<Hex>> = Box::new(arena::games::hex::bench::baseline());
        let mut bots = if prober_side == HUMANS { vec![prober, baseline] } else { vec![baseline, prober] };
        let observer = Rc::clone(&seen);
        play(2, 11, &hex::Config { max_turns: Some(160) }, &mut bots, move |e| {
            let g = match e {
                Event::Start(g) | Event::Boundary(g) | Event::Command { game: g, .. } => g,
            };
            let mut seen = observer.borrow_mut();
            seen.state = Some(g.snapshot());
            seen.sight = Some(engine_sight(g, g.active()));
        });
        let counts = counts.borrow();
        eprintln!("prober on side {prober_side}: {counts:?}");
        for kind in ["accepted", "refused", "not run"] {
            assert!(counts.get(kind).copied().unwrap_or(0) > 20, "too few {kind} commands to tell: {counts:?}");
        }
    }
}

/// Every kind of side bot sees, after each of its commands, the context the host shows
/// (which the test above holds to the engine's): Lua's `side.ctx`, Rhai's, a C bot's
/// `hb_side_context`, and a Python program's own copy of the world rebuilt from the side
/// line's world and each verdict's delta.
#[test]
fn every_kind_of_side_bot_sees_the_hosts_sight_after_each_command() {
    let mut files = vec![("lua-side.lua", LUA_SIDE), ("rhai-side.rhai", RHAI_SIDE)];
    let py = python_checking();
    if python() {
        files.push(("py-side.py", py.as_str()));
    }
    let (_dir, mut entries) = entries_of(&files);
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("cside.c");
    // Without a bank, no clocks: the C bot is built not to ask for them.
    std::fs::write(&src, C_SIDE).unwrap();
    let lib =
        crate::util::compile_c(&src, &dir.path().join(crate::util::lib_name("cside")), &["-Wextra", "-DNO_CLOCKS"]);
    entries.push(arena::loaders::native::load::<Hex>(&lib, &Default::default()).unwrap());
    for e in &entries {
        for side in [HUMANS, ZOMBIES] {
            let floats = e.kind != EntryKind::Rhai;
            let (outcome, checks) = checked_game(e, side, floats, 120);
            let s = &outcome.stats[if side == HUMANS { 0 } else { 1 }];
            assert_eq!((s.errors, s.overruns, s.disqualified), (0, 0, 0), "{} on side {side}: {s:?}", e.name);
            assert!(checks.failed.is_empty(), "{} on side {side}: {:?}", e.name, checks.failed);
            eprintln!("{} on side {side}: {} checks", e.name, checks.made);
            assert!(checks.made > 300, "{} on side {side}: only {} checks", e.name, checks.made);
        }
    }
}

/// A side call past its half-turn's cap (the per-unit calls' caps added up): the first
/// commands run, the rest are not run (verdict "cap"), and the call counts one error.
#[test]
fn a_side_call_past_the_half_turns_cap_runs_the_first_commands_and_counts_one_error() {
    type Noted = std::sync::Arc<std::sync::Mutex<Vec<(u32, Vec<Verdict>)>>>;
    let verdicts: Noted = Default::default();
    let noted = std::sync::Arc::clone(&verdicts);
    let greedy = Entry::builtin("Greedy", move || {
        struct Greedy(Noted);
        impl Bot<Hex> for Greedy {
            fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
                let side = call.take_side().unwrap();
                side.claim();
                let max = side.info().max_commands;
                let mut got = Vec::new();
                if call.ctx.t == 1 {
                    for i in 0..6 {
                        got.push(side.command(NO_UNIT, &HexCommand::spawn_human(i - 2, 2, 5)));
                    }
                }
                while got.len() < max as usize + 5 {
                    got.push(side.command(NO_UNIT, &HexCommand::call_drop(0, 0, 7)));
                }
                self.0.lock().unwrap().push((max, got));
                Ok(HexAnswer::default())
            }
        }
        Greedy(std::sync::Arc::clone(&noted))
    });
    let outcome = play_game(&[greedy, basic("Basic")], 1, &hex::Config { max_turns: Some(10) });
    let s = &outcome.stats[0];
    assert_eq!((s.calls, s.errors), (5, 5), "{s:?}");
    assert!(s.messages[0].contains("commands in a side call, at most 112 this half-turn"), "{s:?}");
    let verdicts = verdicts.lock().unwrap();
    // t = 1: the spawn call and the six humans' calls (16 each); later, six humans.
    assert_eq!(verdicts.iter().map(|(max, _)| *max).collect::<Vec<_>>(), [112, 96, 96, 96, 96]);
    for (max, got) in verdicts.iter() {
        let max = *max as usize;
        assert!(got[..max].iter().all(|&v| v != Verdict::Cap), "{got:?}");
        assert!(got[max..].iter().all(|&v| v == Verdict::Cap) && got.len() == max + 5, "{got:?}");
    }
    // The first six placed the humans (accepted), the airdrops were refused (none held).
    assert!(verdicts[0].1[..6].iter().all(|&v| v == Verdict::Accepted));
    assert_eq!(verdicts[0].1[6], Verdict::Refused(Refusal::NoAirdrop));
}

/// Replays of side games re-play exactly (the commands with their verdicts), through the
/// bytes, and the page shows the side turns.
#[test]
fn side_games_replay_exactly_and_the_page_shows_the_side_turns() {
    let mut files = vec!["scripts/hex/legion.lua"];
    if python() {
        files.push("scripts/hex/py-legion.py");
    }
    let (_dir, mut entries) = bundled(&files);
    entries.push(native("hex-legion"));
    let config = hex::Config { max_turns: Some(150) };
    for e in &entries {
        for seats in [[e.clone(), basic("Basic")], [basic("Basic"), e.clone()]] {
            let (outcome, replay) = arena::play::play_recorded(&seats, 9, &config);
            let sides = replay.calls.iter().filter(|c| c.side.is_some()).count();
            assert_eq!(sides, 75, "{}: {sides} side calls recorded", e.name);
            let bytes = replay.to_bytes();
            let back = Replay::<Hex>::from_bytes(&bytes).unwrap();
            assert_eq!(back, replay);
            let again = back.verify().unwrap();
            assert_eq!((again.turns, &again.scores), (outcome.turns, &outcome.scores));
            let page = Hex::viewer_page(&back).unwrap();
            assert!(page.contains("\"sc\":[[\""), "{}: no side turn on the page", e.name);
            // A damaged replay is one error, never a panic.
            for cut in [bytes.len() / 2, bytes.len() - 3] {
                assert!(Replay::<Hex>::from_bytes(&bytes[..cut]).and_then(|r| r.verify()).is_err());
            }
        }
    }
}

/// The bundled side bots in Rust, Lua and Python are the same logic: from the same seed
/// they play the same games, command for command and verdict for verdict.
#[test]
fn the_rust_lua_and_python_legions_make_the_same_decisions() {
    let mut files = vec!["scripts/hex/legion.lua"];
    if python() {
        files.push("scripts/hex/py-legion.py");
    }
    let (_dir, mut entries) = bundled(&files);
    entries.insert(0, native("hex-legion"));
    let config = hex::Config { max_turns: Some(if cfg!(debug_assertions) { 200 } else { 1000 }) };
    let games: Vec<_> = entries
        .iter()
        .map(|e| {
            let (outcome, replay) = arena::play::play_recorded(&[e.clone(), e.renamed("copy")], 4, &config);
            for s in &outcome.stats {
                assert_eq!((s.errors, s.overruns), (0, 0), "{}: {s:?}", e.name);
            }
            (e.name.clone(), outcome.turns, replay.calls)
        })
        .collect();
    let commands: usize = games[0].2.iter().filter_map(|c| c.side.as_ref()).map(Vec::len).sum();
    assert!(commands > 3000, "{commands} commands");
    for g in &games[1..] {
        assert_eq!((g.1, &g.2), (games[0].1, &games[0].2), "{} and {} differ", g.0, games[0].0);
    }
}

/// Humans should never live to the turn limit against the bundled side bots either: the
/// zombies of HexLegion (Rust), legion.lua and py-legion.py end the baseline humans well
/// before it.
#[test]
fn bundled_side_zombies_end_the_baseline_humans_well_before_the_limit() {
    let mut files = vec!["scripts/hex/legion.lua"];
    if python() {
        files.push("scripts/hex/py-legion.py");
    }
    let (_dir, mut entries) = bundled(&files);
    entries.insert(0, native("hex-legion"));
    for zombies in &entries {
        let outcome = play_game(&[basic("Basic"), zombies.clone()], 1, &hex::Config::default());
        let s = &outcome.stats[1];
        assert_eq!((s.errors, s.overruns, s.disqualified), (0, 0, 0), "{}: {s:?}", zombies.name);
        eprintln!("{} ends the baseline humans at t = {}", zombies.name, outcome.turns);
        assert!(outcome.turns < 500, "{}: the baseline humans lived to t = {}", zombies.name, outcome.turns);
    }
}

/// Both sides' clocks, as the 2009 status carried them, in every kind's context: with
/// time banks each bot reads two clocks within the bank; without, none. A bot that reads
/// them wrong places no humans (the game ends at t = 1).
#[test]
fn every_kind_reads_both_sides_clocks() {
    let lua = r#"-- arena: hex
function do_turn(ctx)
  local c = ctx.clocks
  local ok = c ~= nil and c.humans > 0 and c.humans <= 1001 and c.zombies > 0 and c.zombies <= 1001
  if WANT == "none" then ok = c == nil end
  if ctx.kind == "spawn_humans" and ok then return {{cmd = "spawn", x = 1, y = 1, weapon = 5}} end
  return {}
end
"#;
    let rhai = r#"// arena: hex
fn do_turn(ctx) {
    let c = ctx.clocks;
    let ok = if WANT == "none" { c == () } else { c != () && c.humans > 0.0 && c.humans <= 1001.0 && c.zombies > 0.0 && c.zombies <= 1001.0 };
    if ctx.kind == "spawn_humans" && ok { return [#{cmd: "spawn", x: 1, y: 1, weapon: 5}]; }
    []
}
"#;
    let py = r#"#!/usr/bin/env python3
# arena: hex
import json, sys
for line in sys.stdin:
    ctx = json.loads(line)
    c = ctx["clocks"]
    if WANT == "none":
        ok = c["humans"] is None and c["zombies"] is None
    else:
        ok = all(c[s] is not None and 0 < c[s] <= 1001 for s in ("humans", "zombies"))
    out = [{"cmd": "spawn", "x": 1, "y": 1, "weapon": 5}] if ctx["kind"] == "spawn_humans" and ok else []
    print(json.dumps(out), flush=True)
"#;
    let lua_side = r#"-- arena: hex
function play_side(side)
  local c = side.ctx.clocks
  local ok = c ~= nil and c.humans > 0 and c.humans <= 1001 and c.zombies > 0 and c.zombies <= 1001
  if WANT == "none" then ok = c == nil end
  if side.ctx.t == 1 and ok then side:command{cmd = "spawn", x = 1, y = 1, weapon = 5} end
end
"#;
    for want in ["both", "none"] {
        let texts = [
            ("clocks-lua.lua", lua.replace("WANT", &format!("\"{want}\""))),
            ("clocks-rhai.rhai", rhai.replace("WANT", &format!("\"{want}\""))),
            ("clocks-side.lua", lua_side.replace("WANT", &format!("\"{want}\""))),
            ("clocks-py.py", py.replace("WANT", &format!("\"{want}\""))),
        ];
        let n = if python() { 4 } else { 3 };
        let files: Vec<(&str, &str)> = texts[..n].iter().map(|(f, t)| (*f, t.as_str())).collect();
        let (_dir, entries) = entries_of(&files);
        let bank =
            (want == "both").then_some(TimeBank { initial: Duration::from_secs(1000), per_turn: Duration::ZERO });
        let plan = Plan { bank, config: hex::Config { max_turns: Some(5) }, ..Plan::new(0, 1) };
        for e in &entries {
            let (outcome, _) = play_here(&[e.clone(), basic("Basic")], &plan, 1);
            assert_eq!(outcome.stats[0].errors, 0, "{}: {:?}", e.name, outcome.stats[0]);
            assert_eq!(outcome.turns, 5, "{} did not read the clocks ({want})", e.name);
        }
    }
}

/// A Rhai script plays per unit or whole sides, not both: one that defines both functions
/// is skipped with one line saying so.
#[test]
fn a_rhai_script_with_both_do_turn_and_play_side_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("both.rhai"), "// arena: hex\nfn do_turn(ctx) { [] }\nfn play_side(side) { }\n")
        .unwrap();
    let found = discover::<Hex>(
        &SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] },
        &ScriptLimits::default(),
    );
    assert!(found.entries.is_empty());
    assert!(found.skipped[0].reason.contains("plays per unit or whole sides"), "{:?}", found.skipped);
}

/// A program declares whole sides in answer to its first line only: later, the
/// declaration is an invalid answer.
#[test]
fn a_program_declares_whole_sides_at_its_first_line_only() {
    if !python() {
        crate::util::skip("skipped: no python3");
        return;
    }
    let late = r#"#!/usr/bin/env python3
# arena: hex
import json, sys
for line in sys.stdin:
    ctx = json.loads(line)
    if ctx["kind"] == "spawn_humans":
        print(json.dumps([{"cmd": "spawn", "x": 1, "y": 1, "weapon": 5}]), flush=True)
    else:
        print(json.dumps({"plays": "sides"}), flush=True)
"#;
    let (_dir, entries) = entries_of(&[("late.py", late)]);
    let outcome = play_game(&[entries[0].clone(), basic("Basic")], 1, &hex::Config { max_turns: Some(5) });
    let s = &outcome.stats[0];
    assert!(s.errors > 0 && s.messages[0].contains("answers the first line of a game only"), "{s:?}");
}

/// The per-unit calls of a side bot's opponent are unchanged by it: the same baseline
/// games whether the other seat's bot plays per unit or its side plays it in one call
/// with the same commands (here: the baseline itself, wrapped to play whole sides).
#[test]
fn a_side_call_giving_a_per_unit_bots_commands_plays_the_same_game() {
    /// The baseline's answers, given as a side call: each unit's commands in id order.
    struct AsSide(Box<dyn FnMut(&HexContext<'_>) -> HexAnswer>);
    impl Bot<Hex> for AsSide {
        fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
            let side = call.take_side().unwrap();
            side.claim();
            let random = call.ctx.random;
            let ctx = HexContext { random, ..side.context() };
            let (humans, t) = (ctx.side == HUMANS, ctx.t);
            let spawn = if humans { t == 1 } else { ctx.zombies_to_spawn >= 1 };
            let mut units = if humans && spawn { Vec::new() } else { ctx_ids(&ctx, humans) };
            let mut answer_for = |side: &mut dyn SideChannel, kind: u32, unit: u32| {
                let ctx = HexContext { random, ..side.context() };
                let index = ctx_ids(&ctx, humans).iter().position(|&u| u == unit).map_or(u32::MAX, |i| i as u32);
                let a = (self.0)(&HexContext { call: kind, unit, unit_index: index, ..ctx });
                for c in a.commands().iter().take(if kind == 2 && !humans { 4 } else { 16 }) {
                    side.command(if kind == 2 { unit } else { NO_UNIT }, c);
                }
            };
            if spawn {
                answer_for(side, if humans { 0 } else { 1 }, NO_UNIT);
                if humans {
                    units = ctx_ids(&HexContext { random, ..side.context() }, true);
                }
            }
            for u in units {
                let alive = ctx_ids(&HexContext { random, ..side.context() }, humans).contains(&u);
                if alive {
                    answer_for(side, 2, u);
                }
            }
            Ok(HexAnswer::default())
        }
    }
    let per_unit = play_game(&[basic("A"), basic("B")], 21, &hex::Config { max_turns: Some(300) });
    let mut bots: Vec<Box<dyn Bot<Hex>>> = vec![
        Box::new(AsSide(Box::new(arena::games::hex::bench::baseline()))),
        Box::new(AsSide(Box::new(arena::games::hex::bench::baseline()))),
    ];
    let sides = play(2, 21, &hex::Config { max_turns: Some(300) }, &mut bots, |_| {});
    assert_eq!((sides.turns, &sides.scores), (per_unit.turns, &per_unit.scores));
    assert!(sides.turns > 100, "{}", sides.turns);
}
