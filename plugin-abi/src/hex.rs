//! The hex humans vs zombies contract (ABI 1.1): what a hex bot sees ([`HexContext`]) and
//! answers ([`HexAnswer`], an ordered list of [`HexCommand`]s), the stable bot object,
//! and the trait a Rust hex bot implements ([`HexPlayer`], exported with
//! [`export_hex_bot!`](crate::export_hex_bot)).
//!
//! One entry is one bot that plays either side; the context says which (`side`) and what
//! the call is for (`call`): the humans' spawn call on half-turn 1, the zombies' spawn
//! call on each zombie half-turn (only when a zombie can be spawned), then one call per
//! living unit of the side whose half-turn it is, in id order. Each answer is executed
//! in order at once; a rejected command is skipped and the rest still run. The rules are
//! the host's (`games::hex`, told in full in `docs/games/hex.md`); nothing here knows them beyond the
//! tables bots need.
//!
//! A bot may instead play a **whole side** per half-turn (ABI 1.3), as the 2009 clients
//! did: [`HexSide`], exported with [`export_hex_side_bot!`](crate::export_hex_side_bot),
//! gets one call per half-turn of its side, a [`HexSideTurn`], through which it gives
//! commands one at a time for any of its units ([`HexSideTurn::command`]), reads each
//! command's [`HexVerdict`] (accepted, or refused and why), and sees the side's sight as
//! the last command left it ([`HexSideTurn::context`]).
//!
//! `include/hex_bot.h` declares the same layouts for C (asserted on both sides).
#![allow(non_local_definitions)]

use core::ffi::{CStr, c_char, c_void};
use core::marker::PhantomData;

use abi_stable::{
    StableAbi, sabi_trait,
    std_types::{RBox, RResult, RSlice, RString},
};

use crate::Random;

/// `side`: the bot plays the humans (odd half-turns).
pub const HUMANS: u32 = 0;
/// `side`: the bot plays the zombies (even half-turns).
pub const ZOMBIES: u32 = 1;

/// `call`: place up to 6 humans (half-turn 1): answer [`cmd::SPAWN_HUMAN`] commands.
pub const CALL_SPAWN_HUMANS: u32 = 0;
/// `call`: spawn zombies (zombie half-turns, when `zombies_to_spawn` ≥ 1): answer
/// [`cmd::SPAWN_ZOMBIE`] commands.
pub const CALL_SPAWN_ZOMBIES: u32 = 1;
/// `call`: one unit's half-turn (`unit` is its id).
pub const CALL_UNIT: u32 = 2;
/// `call` (1.3): the whole side's half-turn, in the context a [`HexSideTurn`] shows
/// (`unit` is [`NO_UNIT`]; the counters are those of the moment).
pub const CALL_SIDE: u32 = 3;

/// Crate and airdrop contents: ammo (weapons are their ids 0..=6).
pub const AMMO: u32 = 7;
/// Most commands in an answer (spawn calls and humans). The command cap, one rule for
/// every kind of bot: of an answer with more commands than its call may carry, the first
/// ones run, the rest are refused and the call counts as one error.
pub const MAX_COMMANDS: usize = 16;
/// Most commands a zombie's unit call may carry (the cap above, for zombies).
pub const MAX_ZOMBIE_COMMANDS: usize = 4;
/// `unit` in spawn calls.
pub const NO_UNIT: u32 = u32::MAX;
/// A clock or a time share of a [`HexSideTurn`] that is not limited.
pub const NO_LIMIT: u64 = u64::MAX;

/// |x| ≤ BOUND and |y| ≤ BOUND is the board.
pub const BOUND: i32 = 13;
/// The six directions as (dx, dy), numbered as zombie facings (0..=5, counter-clockwise).
pub const DIRS: [(i32, i32); 6] = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)];
/// The spawn zones' ids (edges x = −13, y = 13, x = 13, y = −13).
pub const ZONES: [u32; 4] = [7, 8, 9, 10];

/// Weapon ids.
pub mod weapon {
    /// Heals 50 in the target hex (range 1).
    pub const MEDICAL_KIT: u32 = 0;
    /// 40 to the target, 20 to the rest of its hex (range 3).
    pub const SHOTGUN: u32 = 1;
    /// 90 in the hex, 45 around (range 4).
    pub const GRENADE_LAUNCHER: u32 = 2;
    /// Zombies' only weapon: 5 (range 1).
    pub const ZOMBIE_ARMS: u32 = 3;
    /// 60 (range 1), no ammo: the "unarmed" weapon.
    pub const CHAINSAW: u32 = 4;
    /// 25 (range 5).
    pub const PISTOL: u32 = 5;
    /// 25 to the hex (range 1), fires about 3 times a half-turn.
    pub const FLAMETHROWER: u32 = 6;
    /// Range of each weapon, by id.
    pub const RANGE: [i32; 7] = [1, 3, 4, 1, 1, 5, 1];
    /// Ammo per shot, by id.
    pub const AMMO: [i64; 7] = [5, 2, 12, 0, 0, 1, 3];
    /// Firing delay (a shot needs delay < idle time), by id.
    pub const DELAY: [f64; 7] = [2.0, 1.0, 3.0, 1.0, 1.0, 0.5, 0.33];
}

/// Command kinds ([`HexCommand::kind`]) and the fields each uses.
pub mod cmd {
    /// Humans: step to the adjacent hex `(x, y)` (costs a move).
    pub const MOVE: u32 = 1;
    /// Both sides: attack object `id`.
    pub const ATTACK: u32 = 2;
    /// Both sides: attack hex `(x, y)`.
    pub const ATTACK_GROUND: u32 = 3;
    /// Humans: grab crate `id` (distance ≤ 1).
    pub const GRAB: u32 = 4;
    /// Humans: give `amount` ammo to human `id`.
    pub const GIVE: u32 = 5;
    /// Humans: throw the carried weapon into a crate at `(x, y)`.
    pub const THROW_WEAPON: u32 = 6;
    /// Humans: throw `amount` ammo into a crate at `(x, y)`.
    pub const THROW_AMMO: u32 = 7;
    /// Humans: build (or add 7 hp to) a wall at the adjacent hex `(x, y)` (costs a move).
    pub const BUILD: u32 = 8;
    /// Humans (side command): call an airdrop of `id` (a weapon, or [`AMMO`](super::AMMO))
    /// onto `(x, y)`; needs a whole airdrop held.
    pub const CALL_DROP: u32 = 9;
    /// Humans (side command, half-turn 1 only: the spawn call or any later call of that
    /// half-turn): a human at `(x, y)` with weapon `id`.
    pub const SPAWN_HUMAN: u32 = 10;
    /// Zombies (side command, any call of a zombie half-turn: the spawn call or a unit
    /// call): a zombie in zone `id` (7..=10) facing `amount` (0..=5). The cap counts the
    /// zombies living at that moment, so one eaten earlier in the half-turn frees room.
    pub const SPAWN_ZOMBIE: u32 = 11;
    /// Zombies: step to the front hex.
    pub const FORWARD: u32 = 12;
    /// Zombies: turn by `amount` (+1 counter-clockwise, −1 clockwise).
    pub const TURN: u32 = 13;
    /// Zombies: eat zombie `id` (same hex, or the front hex).
    pub const EAT: u32 = 14;
}

/// A human as a side sees it.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct HexHuman {
    /// Its id.
    pub id: u32,
    /// Position.
    pub x: i32,
    /// Position.
    pub y: i32,
    /// The weapon carried (id).
    pub weapon: u32,
    /// The spawn weapon (no effect on play).
    pub specialty: u32,
    /// Moves left this half-turn (3 at its start).
    pub moves: i32,
    /// Hit points (cap 150).
    pub hp: i64,
    /// Ammo carried.
    pub ammo: i64,
    /// Idle time: a weapon with delay D fires only if D < idle.
    pub idle: f64,
}

/// A zombie as a side sees it.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct HexZombie {
    /// Its id.
    pub id: u32,
    /// Position.
    pub x: i32,
    /// Position.
    pub y: i32,
    /// Facing, 0..=5 (a direction of [`DIRS`]).
    pub facing: u32,
    /// Moves left this half-turn (1 at its start; eating may make it negative).
    pub moves: i32,
    /// Unused (0).
    pub reserved: u32,
    /// Hit points (cap 105).
    pub hp: i64,
    /// Idle time (an attack needs idle > 1).
    pub idle: f64,
    /// Σ 1/distance over the living humans in front of it.
    pub scent: f64,
}

/// A wall.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct HexWall {
    /// Its id.
    pub id: u32,
    /// Position.
    pub x: i32,
    /// Position.
    pub y: i32,
    /// Unused (0).
    pub reserved: u32,
    /// Hit points.
    pub hp: i64,
    /// Hit-point cap.
    pub cap: i64,
}

/// A crate (humans only see crates).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct HexCrate {
    /// Its id.
    pub id: u32,
    /// Position.
    pub x: i32,
    /// Position.
    pub y: i32,
    /// A weapon id, or [`AMMO`] (the ammo is the crate's hp).
    pub contents: u32,
    /// Hit points.
    pub hp: i64,
    /// Hit-point cap.
    pub cap: i64,
}

/// A pending airdrop (humans only see them).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct HexAirstrike {
    /// Its id.
    pub id: u32,
    /// Target hex (may be off the board).
    pub x: i32,
    /// Target hex.
    pub y: i32,
    /// Boundaries left before it lands (200 damage, then a crate).
    pub delay: i32,
    /// A weapon id, or [`AMMO`].
    pub contents: u32,
    /// Unused (0).
    pub reserved: u32,
}

/// What a hex bot sees for one call. Valid only during the call.
///
/// The world is the side's sight (humans 8, zombies 2 around each own unit): all its
/// own units, the walls and units of the other side in sight, and for the humans the
/// crates and pending airdrops in sight (zombies never see them). On the side's first
/// half-turn (t = 1 humans, t = 2 zombies) every wall (and for the humans every crate)
/// is listed, as the original's first status did. Each list is in id order.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct HexContext<'a> {
    /// [`CALL_SPAWN_HUMANS`], [`CALL_SPAWN_ZOMBIES`] or [`CALL_UNIT`].
    pub call: u32,
    /// [`HUMANS`] or [`ZOMBIES`].
    pub side: u32,
    /// The half-turn, 1..=1000 (odd: humans, even: zombies).
    pub t: u32,
    /// The unit this call is for (its id), or [`NO_UNIT`] in spawn calls.
    pub unit: u32,
    /// Humans still to place (spawn call; else 0).
    pub humans_to_spawn: u32,
    /// Zombies that can be spawned now: ⌊ready⌋, at most the cap minus the living
    /// zombies (zombie side only; else 0).
    pub zombies_to_spawn: u32,
    /// The cap on living zombies this half-turn.
    pub zombie_cap: u32,
    /// In a unit call, the unit's index in `humans` (humans) or `zombies` (zombies).
    pub unit_index: u32,
    /// Airdrops held by the humans (a call needs 1).
    pub airdrops_held: f64,
    /// Zombies ready (f64; whole ones can be spawned).
    pub zombies_ready: f64,
    /// Humans in sight (own humans: all of them).
    pub humans: RSlice<'a, HexHuman>,
    /// Zombies in sight (own zombies: all of them).
    pub zombies: RSlice<'a, HexZombie>,
    /// Walls in sight.
    pub walls: RSlice<'a, HexWall>,
    /// Crates in sight (humans only; empty for zombies).
    pub crates: RSlice<'a, HexCrate>,
    /// Pending airdrops in sight (humans only).
    pub airstrikes: RSlice<'a, HexAirstrike>,
    /// The game's random numbers (keep games reproducible: draw from here).
    pub random: Random<'a>,
}

impl HexContext<'_> {
    /// The human this unit call is for.
    #[inline]
    pub fn me_human(&self) -> Option<&HexHuman> {
        let list = self.humans.as_slice();
        match list.get(self.unit_index as usize) {
            Some(h) if h.id == self.unit => Some(h),
            _ => list.iter().find(|h| h.id == self.unit),
        }
    }

    /// The zombie this unit call is for.
    #[inline]
    pub fn me_zombie(&self) -> Option<&HexZombie> {
        let list = self.zombies.as_slice();
        match list.get(self.unit_index as usize) {
            Some(z) if z.id == self.unit => Some(z),
            _ => list.iter().find(|z| z.id == self.unit),
        }
    }

    /// Is there a wall on `(x, y)` in sight?
    pub fn wall_at(&self, x: i32, y: i32) -> bool {
        self.walls.as_slice().iter().any(|w| w.x == x && w.y == y)
    }

    /// A uniform integer in `0..n` from the game's generator.
    #[inline]
    pub fn random(&self, n: u32) -> u32 {
        self.random.below(n)
    }
}

/// One command. Which fields count depends on `kind` (see [`cmd`]); the unit is the
/// call's.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HexCommand {
    /// A [`cmd`] constant.
    pub kind: u32,
    /// An object id, a weapon, a zone, or contents.
    pub id: u32,
    /// A hex.
    pub x: i32,
    /// A hex.
    pub y: i32,
    /// Ammo given or thrown, a facing, or a turn (±1).
    pub amount: i64,
}

impl HexCommand {
    const fn new(kind: u32, id: u32, x: i32, y: i32, amount: i64) -> HexCommand {
        HexCommand { kind, id, x, y, amount }
    }
    /// Humans: step to `(x, y)`.
    pub const fn step(x: i32, y: i32) -> HexCommand {
        Self::new(cmd::MOVE, 0, x, y, 0)
    }
    /// Attack object `id`.
    pub const fn attack(id: u32) -> HexCommand {
        Self::new(cmd::ATTACK, id, 0, 0, 0)
    }
    /// Attack hex `(x, y)`.
    pub const fn attack_ground(x: i32, y: i32) -> HexCommand {
        Self::new(cmd::ATTACK_GROUND, 0, x, y, 0)
    }
    /// Grab crate `id`.
    pub const fn grab(id: u32) -> HexCommand {
        Self::new(cmd::GRAB, id, 0, 0, 0)
    }
    /// Give `amount` ammo to human `id`.
    pub const fn give(id: u32, amount: i64) -> HexCommand {
        Self::new(cmd::GIVE, id, 0, 0, amount)
    }
    /// Throw the carried weapon to `(x, y)`.
    pub const fn throw_weapon(x: i32, y: i32) -> HexCommand {
        Self::new(cmd::THROW_WEAPON, 0, x, y, 0)
    }
    /// Throw `amount` ammo to `(x, y)`.
    pub const fn throw_ammo(x: i32, y: i32, amount: i64) -> HexCommand {
        Self::new(cmd::THROW_AMMO, 0, x, y, amount)
    }
    /// Build at `(x, y)`.
    pub const fn build(x: i32, y: i32) -> HexCommand {
        Self::new(cmd::BUILD, 0, x, y, 0)
    }
    /// Call an airdrop of `contents` (a weapon or [`AMMO`]) onto `(x, y)`.
    pub const fn call_drop(x: i32, y: i32, contents: u32) -> HexCommand {
        Self::new(cmd::CALL_DROP, contents, x, y, 0)
    }
    /// Place a human at `(x, y)` with `weapon`.
    pub const fn spawn_human(x: i32, y: i32, weapon: u32) -> HexCommand {
        Self::new(cmd::SPAWN_HUMAN, weapon, x, y, 0)
    }
    /// Spawn a zombie in `zone` facing `facing`.
    pub const fn spawn_zombie(zone: u32, facing: u32) -> HexCommand {
        Self::new(cmd::SPAWN_ZOMBIE, zone, 0, 0, facing as i64)
    }
    /// Zombies: step forward.
    pub const fn forward() -> HexCommand {
        Self::new(cmd::FORWARD, 0, 0, 0, 0)
    }
    /// Zombies: turn by `by` (+1 or −1).
    pub const fn turn(by: i32) -> HexCommand {
        Self::new(cmd::TURN, 0, 0, 0, by as i64)
    }
    /// Zombies: eat zombie `id`.
    pub const fn eat(id: u32) -> HexCommand {
        Self::new(cmd::EAT, id, 0, 0, 0)
    }
}

/// A hex bot's answer: `len` commands, executed in order.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HexAnswer {
    /// Commands in use (at most [`MAX_COMMANDS`]).
    pub len: u32,
    /// Commands refused because the answer was full ([`HexAnswer::push`] counts them;
    /// the host counts the call as one error and still runs the first commands). The
    /// name is the ABI 1.0 one (a field's name is part of the layout check).
    pub reserved: u32,
    /// The commands.
    pub commands: [HexCommand; MAX_COMMANDS],
}

impl HexAnswer {
    /// Appends a command; false when the answer is full: the command is refused and
    /// counted ([`HexAnswer::refused`]).
    #[inline]
    pub fn push(&mut self, c: HexCommand) -> bool {
        let n = self.len as usize;
        if n >= MAX_COMMANDS {
            self.reserved = self.reserved.saturating_add(1);
            return false;
        }
        self.commands[n] = c;
        self.len += 1;
        true
    }

    /// Commands refused because the answer was full.
    pub fn refused(&self) -> u32 {
        self.reserved
    }

    /// Commands the bot gave: those in use plus those refused as the answer was full.
    pub fn given(&self) -> u64 {
        u64::from(self.len) + u64::from(self.reserved)
    }

    /// The commands in use.
    pub fn commands(&self) -> &[HexCommand] {
        &self.commands[..(self.len as usize).min(MAX_COMMANDS)]
    }
}

/// [`HexVerdict::code`]s: what became of one command of a side call.
pub mod verdict {
    /// It ran: the rules accepted it, and the context shows what it did.
    pub const ACCEPTED: u32 = 0;
    /// The rules refused it ([`HexVerdict::reason`] names the check it failed); it changed
    /// nothing, but for the rules' two quirks (a zombie's attack refused for want of a
    /// move still spends its idle time; spec 8.5).
    pub const REFUSED: u32 = 1;
    /// Not a command this side can give (an unknown kind, the other side's, a turn other
    /// than ±1, contents neither ammo nor a weapon): not run.
    pub const INVALID: u32 = 2;
    /// Past the half-turn's command cap ([`HexSideTurn::max_commands`]): not run.
    pub const CAP: u32 = 3;
    /// The call has used its time ([`HexSideTurn::time_ns`]): not run.
    pub const TIME: u32 = 4;
}

/// The verdict on one command of a side call.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub struct HexVerdict {
    /// A [`verdict`] code.
    pub code: u32,
    /// Unused (0).
    pub reserved: u32,
    /// Why it was not accepted, in a few words: a NUL-terminated UTF-8 string that lives as
    /// long as the host (empty when accepted).
    pub reason: *const c_char,
}

impl HexVerdict {
    /// True if the command ran.
    pub fn accepted(&self) -> bool {
        self.code == verdict::ACCEPTED
    }

    /// Why it was not accepted ("" when it was).
    pub fn reason(&self) -> &'static str {
        if self.reason.is_null() {
            return "";
        }
        // SAFETY: the host hands NUL-terminated strings that live as long as it does.
        unsafe { CStr::from_ptr(self.reason) }.to_str().unwrap_or("")
    }
}

/// A whole side's half-turn (ABI 1.3): what a [`HexSide`] bot is given, once per half-turn
/// of its side. Valid only during the call.
///
/// Commands go one at a time ([`HexSideTurn::command`], each for a unit of the side, or
/// [`NO_UNIT`] for the side commands `spawn`, `spawn_zombie` and `call_drop`), each run at
/// once and answered with its verdict; [`HexSideTurn::context`] is the side's sight as the
/// last command left it (call [`CALL_SIDE`]). The host's callbacks make it a sound FFI
/// object: a state pointer and `extern "C"` functions, as [`Random`].
#[repr(C)]
#[derive(StableAbi)]
pub struct HexSideTurn<'a> {
    state: *mut c_void,
    context: extern "C" fn(state: *mut c_void) -> *const HexContext<'static>,
    command: extern "C" fn(state: *mut c_void, unit: u32, command: &HexCommand) -> HexVerdict,
    /// Own time left in each side's time bank at the call's start, in nanoseconds, by side
    /// ([`HUMANS`], [`ZOMBIES`]); [`NO_LIMIT`] when the host keeps no bank.
    pub clocks_ns: [u64; 2],
    /// The own time this call may take, in nanoseconds: what the per-unit calls of this
    /// half-turn would together have had (at most the bank); [`NO_LIMIT`]: not limited.
    /// A command given after it is spent is not run ([`verdict::TIME`]).
    pub time_ns: u64,
    /// Most commands this half-turn: the per-unit calls' caps added up (16 a human and
    /// for a spawn call, 4 a zombie); the rest are not run ([`verdict::CAP`]) and the call
    /// counts as one error.
    pub max_commands: u32,
    /// The per-unit calls this call stands for (spawn call included).
    pub calls: u32,
    _borrow: PhantomData<&'a mut ()>,
}

impl core::fmt::Debug for HexSideTurn<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HexSideTurn")
            .field("clocks_ns", &self.clocks_ns)
            .field("time_ns", &self.time_ns)
            .field("max_commands", &self.max_commands)
            .field("calls", &self.calls)
            .finish()
    }
}

impl<'a> HexSideTurn<'a> {
    /// The host's side of the object: `context(state)` returns the context as the last
    /// command left it, `command(state, unit, c)` runs one command.
    ///
    /// # Safety
    /// `state` must stay valid for `'a`, both functions must be safe to call with it from
    /// the thread that receives this value, and the context `context` returns must stay
    /// valid and unchanged until the next `command` or the end of `'a`.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn from_raw(
        state: *mut c_void,
        context: extern "C" fn(*mut c_void) -> *const HexContext<'static>,
        command: extern "C" fn(*mut c_void, u32, &HexCommand) -> HexVerdict,
        clocks_ns: [u64; 2],
        time_ns: u64,
        max_commands: u32,
        calls: u32,
    ) -> Self {
        HexSideTurn { state, context, command, clocks_ns, time_ns, max_commands, calls, _borrow: PhantomData }
    }

    /// The side's sight now, as the last command left it (`call` is [`CALL_SIDE`]).
    pub fn context(&self) -> &HexContext<'_> {
        // SAFETY: `from_raw`'s contract: the context lives unchanged until the next command,
        // which needs `&mut self`, so no reference handed out here outlives it.
        unsafe { &*(self.context)(self.state) }
    }

    /// Gives one command for `unit` (or [`NO_UNIT`] for a side command) and says what
    /// became of it.
    pub fn command(&mut self, unit: u32, command: HexCommand) -> HexVerdict {
        (self.command)(self.state, unit, &command)
    }

    /// Own time left in `side`'s bank at the call's start, if the host keeps banks.
    pub fn clock(&self, side: u32) -> Option<core::time::Duration> {
        match self.clocks_ns.get(side as usize) {
            Some(&ns) if ns != NO_LIMIT => Some(core::time::Duration::from_nanos(ns)),
            _ => None,
        }
    }

    /// The own time this call may take, if limited.
    pub fn time(&self) -> Option<core::time::Duration> {
        (self.time_ns != NO_LIMIT).then(|| core::time::Duration::from_nanos(self.time_ns))
    }
}

/// Distance between two hexes: with dx = x2 − x1, dy = y2 − y1, |dx| + |dy| when dx·dy > 0,
/// else max(|dx|, |dy|).
pub const fn distance(x1: i32, y1: i32, x2: i32, y2: i32) -> i32 {
    let (dx, dy) = (x2 - x1, y2 - y1);
    if (dx > 0 && dy > 0) || (dx < 0 && dy < 0) {
        dx.abs() + dy.abs()
    } else if dx.abs() > dy.abs() {
        dx.abs()
    } else {
        dy.abs()
    }
}

/// Is `(x, y)` on the board?
pub const fn in_bounds(x: i32, y: i32) -> bool {
    x >= -BOUND && x <= BOUND && y >= -BOUND && y <= BOUND
}

pub use bot_trait::{HexBot, HexBot_TO};

mod bot_trait {
    //! The `#[sabi_trait]` hex bot object.
    #![allow(non_local_definitions, non_camel_case_types, missing_docs)]
    use super::*;

    /// The hex bot object a plugin hands to the host: one per entry per game.
    #[sabi_trait]
    pub trait HexBot {
        /// Answers one call, writing into `answer` (empty at the start). An `RErr` counts
        /// as an error: an empty answer.
        #[sabi(last_prefix_field)]
        fn turn(&mut self, ctx: &HexContext<'_>, answer: &mut HexAnswer) -> RResult<(), RString>;
    }
}

/// An owned hex bot object.
pub type HexBotBox = HexBot_TO<'static, RBox<()>>;

pub use side_trait::{HexSideBot, HexSideBot_TO};

mod side_trait {
    //! The `#[sabi_trait]` hex side bot object (ABI 1.3).
    #![allow(non_local_definitions, non_camel_case_types, missing_docs)]
    use super::*;

    /// The hex side bot object a plugin hands to the host: one per entry per game.
    #[sabi_trait]
    pub trait HexSideBot {
        /// Plays one half-turn of the side through `turn`. An `RErr` counts as an error (the
        /// commands given before it stand).
        #[sabi(last_prefix_field)]
        fn play(&mut self, turn: &mut HexSideTurn<'_>) -> RResult<(), RString>;
    }
}

/// An owned hex side bot object.
pub type HexSideBotBox = HexSideBot_TO<'static, RBox<()>>;

/// What a Rust hex bot that plays whole sides implements;
/// [`export_hex_side_bot!`](crate::export_hex_side_bot) turns it into a plugin. One
/// instance plays one side of one game (both, in a game against itself).
pub trait HexSide: 'static {
    /// The entry's name.
    const NAME: &'static str;
    /// A fresh bot, made at the start of every game.
    fn new() -> Self;
    /// Plays one half-turn of the side (`turn.context().side` says which).
    fn play(&mut self, turn: &mut HexSideTurn<'_>);
}

/// What a Rust hex bot implements; [`export_hex_bot!`](crate::export_hex_bot) turns it
/// into a plugin. One instance plays one side of one game.
pub trait HexPlayer: 'static {
    /// The entry's name.
    const NAME: &'static str;
    /// A fresh bot, made at the start of every game.
    fn new() -> Self;
    /// Answers one call (`ctx.call` says which); `answer` starts empty.
    fn turn(&mut self, ctx: &HexContext<'_>, answer: &mut HexAnswer);
}

// The C header asserts the same layouts (64-bit targets).
#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(core::mem::size_of::<HexHuman>() == 48);
    assert!(core::mem::size_of::<HexZombie>() == 48);
    assert!(core::mem::size_of::<HexWall>() == 32);
    assert!(core::mem::size_of::<HexCrate>() == 32);
    assert!(core::mem::size_of::<HexAirstrike>() == 24);
    assert!(core::mem::size_of::<HexCommand>() == 24);
    assert!(core::mem::size_of::<HexAnswer>() == 8 + 24 * MAX_COMMANDS);
    assert!(core::mem::offset_of!(HexContext<'_>, airdrops_held) == 32);
    assert!(core::mem::offset_of!(HexContext<'_>, humans) == 48);
    assert!(core::mem::offset_of!(HexContext<'_>, random) == 128);
    assert!(core::mem::size_of::<HexContext<'_>>() == 144);
    assert!(core::mem::size_of::<HexVerdict>() == 16);
    assert!(core::mem::offset_of!(HexSideTurn<'_>, clocks_ns) == 24);
    assert!(core::mem::offset_of!(HexSideTurn<'_>, max_commands) == 48);
    assert!(core::mem::size_of::<HexSideTurn<'_>>() == 56);
};
