//! Whole-side calls: a bot that plays its side's half-turn in one call, giving commands one
//! at a time and reading each one's verdict and the state it left (hex.md, "Whole sides").
//!
//! The play loop offers the first call of each of a seat's half-turns a [`SideChannel`]
//! (through [`HexCall::take_side`](super::HexCall::take_side)). A bot that plays per unit
//! ignores it and the half-turn goes on call by call; a bot that plays whole sides takes
//! it, [`claims`](SideChannel::claim) the half-turn and plays it through the channel, and
//! gets no other call in that half-turn. Each kind of bot wraps the channel in its own
//! terms (the ABI's `HexSideTurn`, Lua's and Rhai's `side` object, the program protocol's
//! lines); replays wrap it to record every command with its verdict.
//!
//! [`Table`] is the host's channel: the engine, the side's sight kept as in unit calls, the
//! half-turn's command cap. What it is not: it measures no time ([`Verdict::Time`] is the
//! bot's wrapper's decision, which knows how its bot's time is measured).

use std::cell::Cell;
use std::ffi::CStr;
use std::time::Duration;

use zombies_plugin_abi::Random;
use zombies_plugin_abi::hex::{self as abi, HexCommand, HexContext, HexVerdict};

use super::engine::Refusal;
use super::{Engine, Event, Side, World, command_of, shot_of, side_code, zombies_to_spawn};
use crate::bot::TimeLeft;

/// What became of one command of a side call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It ran.
    Accepted,
    /// The rules refused it (it changed nothing but for the quirks of spec 8.5).
    Refused(Refusal),
    /// Not a command this side can give: not run.
    Invalid,
    /// Past the half-turn's command cap: not run.
    Cap,
    /// The call had used its time: not run.
    Time,
}

impl Verdict {
    /// Its [`abi::verdict`] code.
    pub fn code(self) -> u32 {
        match self {
            Verdict::Accepted => abi::verdict::ACCEPTED,
            Verdict::Refused(_) => abi::verdict::REFUSED,
            Verdict::Invalid => abi::verdict::INVALID,
            Verdict::Cap => abi::verdict::CAP,
            Verdict::Time => abi::verdict::TIME,
        }
    }

    /// The code's name, as scripts and programs read it.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Refused(_) => "refused",
            Verdict::Invalid => "invalid",
            Verdict::Cap => "cap",
            Verdict::Time => "time",
        }
    }

    /// Why it was not accepted (empty when it was), NUL-terminated.
    pub fn reason(self) -> &'static CStr {
        match self {
            Verdict::Accepted => c"",
            Verdict::Refused(r) => r.reason(),
            Verdict::Invalid => c"not a command this side can give",
            Verdict::Cap => c"past the half-turn's command cap",
            Verdict::Time => c"the call has used its time",
        }
    }

    /// Why it was not accepted (empty when it was).
    pub fn reason_str(self) -> &'static str {
        self.reason().to_str().unwrap_or("")
    }

    /// As the ABI hands it to native bots.
    pub fn to_abi(self) -> HexVerdict {
        HexVerdict { code: self.code(), reserved: 0, reason: self.reason().as_ptr() }
    }

    /// Its byte in a replay: 0 accepted, 1 invalid, 2 cap, 3 time, 16 + the refusal's code.
    pub fn byte(self) -> u8 {
        match self {
            Verdict::Accepted => 0,
            Verdict::Invalid => 1,
            Verdict::Cap => 2,
            Verdict::Time => 3,
            Verdict::Refused(r) => 16 + r.code(),
        }
    }

    /// The verdict of a replay's byte.
    pub fn from_byte(b: u8) -> Option<Verdict> {
        match b {
            0 => Some(Verdict::Accepted),
            1 => Some(Verdict::Invalid),
            2 => Some(Verdict::Cap),
            3 => Some(Verdict::Time),
            16.. => Refusal::from_code(b - 16).map(Verdict::Refused),
            _ => None,
        }
    }
}

/// What a side call stands for: the per-unit calls the half-turn would have had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SideInfo {
    /// The per-unit calls it stands for (the spawn call included).
    pub calls: u32,
    /// The half-turn's command cap: those calls' caps added up.
    pub max_commands: u32,
    /// The seat's time: its bank left and its limit per call (a call of `calls` calls may
    /// take `calls` times the limit, at most the bank: [`SideInfo::share`]).
    pub time: TimeLeft,
}

impl SideInfo {
    /// The own time the call may take: what its per-unit calls would together have had
    /// (each the limit per call, or `own_limit` for a bot that has its own, such as a
    /// script's), at most what is left of the bank; `None`: not limited.
    pub fn share(&self, own_limit: Option<Duration>) -> Option<Duration> {
        let calls = self.time.per_call.or(own_limit).map(|l| l.saturating_mul(self.calls.max(1)));
        match (self.time.bank, calls) {
            (Some(b), Some(c)) => Some(b.min(c)),
            (b, c) => b.or(c),
        }
    }
}

/// A whole side's half-turn as a bot's wrapper sees it (see the module's doc).
pub trait SideChannel {
    /// Takes the half-turn: the caller plays the whole side now, and no other call of the
    /// half-turn is made.
    fn claim(&mut self);
    /// What the call stands for.
    fn info(&self) -> SideInfo;
    /// The side's sight as the last command left it (`call` is [`abi::CALL_SIDE`]).
    fn context(&mut self) -> HexContext<'_>;
    /// Runs one command of `unit` (or [`abi::NO_UNIT`] for a side command).
    fn command(&mut self, unit: u32, command: &HexCommand) -> Verdict;
    /// Records a command the bot's wrapper refused without running it ([`Verdict::Time`]).
    fn refuse(&mut self, unit: u32, command: &HexCommand, verdict: Verdict);
}

/// The host's side of a side call: the game, the side's sight, the cap.
pub(super) struct Table<'a, F: FnMut(Event<'_>)> {
    pub(super) g: &'a mut Engine,
    pub(super) world: &'a mut World,
    pub(super) side: Side,
    pub(super) observe: &'a mut F,
    pub(super) random: Random<'a>,
    pub(super) info: SideInfo,
    /// A bot took the half-turn.
    pub(super) claimed: bool,
    /// Commands counted against the cap (all but those refused for time).
    pub(super) given: u32,
}

impl<F: FnMut(Event<'_>)> SideChannel for Table<'_, F> {
    fn claim(&mut self) {
        self.claimed = true;
    }

    fn info(&self) -> SideInfo {
        self.info
    }

    fn context(&mut self) -> HexContext<'_> {
        let g = &*self.g;
        if !self.world.valid {
            self.world.build(g, self.side);
        }
        let w = &*self.world;
        HexContext {
            call: abi::CALL_SIDE,
            side: side_code(self.side),
            t: g.t(),
            unit: abi::NO_UNIT,
            humans_to_spawn: g.humans_to_spawn() as u32,
            zombies_to_spawn: if self.side == Side::Zombies { zombies_to_spawn(g) } else { 0 },
            zombie_cap: g.zombie_cap(),
            unit_index: u32::MAX,
            airdrops_held: g.airdrops_held(),
            zombies_ready: g.zombies_ready(),
            humans: w.humans.as_slice().into(),
            zombies: w.zombies.as_slice().into(),
            walls: w.walls.as_slice().into(),
            crates: w.crates.as_slice().into(),
            airstrikes: w.airstrikes.as_slice().into(),
            random: self.random,
        }
    }

    fn command(&mut self, unit: u32, c: &HexCommand) -> Verdict {
        self.given = self.given.saturating_add(1);
        if self.given > self.info.max_commands {
            return Verdict::Cap;
        }
        let Some(command) = command_of(abi::CALL_SIDE, side_code(self.side), unit, c) else {
            return Verdict::Invalid;
        };
        let g = &mut *self.g;
        let unit = command.unit();
        let before = unit.and_then(|u| g.position(u));
        let shot = shot_of(g, &command);
        let result = g.try_apply(self.side, &command);
        (self.observe)(Event::Command { game: g, side: self.side, command, accepted: result.is_ok(), shot });
        match unit {
            Some(u) => {
                let applied = [command];
                let applied = if result.is_ok() { &applied[..] } else { &[] };
                self.world.after_call(g, self.side, u, before, applied);
            }
            None if result.is_ok() => self.world.valid = false,
            None => {}
        }
        // Debug builds check (for one command in 7) that the refreshed lists are what a
        // rebuild gives.
        if cfg!(debug_assertions) && self.world.valid && self.given % 7 == 0 {
            self.world.check(g, self.side);
        }
        match result {
            Ok(()) => Verdict::Accepted,
            Err(r) => Verdict::Refused(r),
        }
    }

    fn refuse(&mut self, _unit: u32, _command: &HexCommand, _verdict: Verdict) {}
}

/// The side call in progress as script bindings reach it: its channel (with its lifetime
/// erased: set only during the call, by [`SideLink::during`]), the call's random numbers
/// and clocks.
#[derive(Default)]
pub(super) struct SideLink {
    channel: Cell<Option<*mut (dyn SideChannel + 'static)>>,
    random: Cell<Option<Random<'static>>>,
    pub(super) clocks: Cell<[Option<Duration>; 2]>,
}

impl SideLink {
    /// Runs `f` with the link holding `channel`, emptied again afterwards even on panic.
    pub(super) fn during<R>(
        &self,
        channel: &mut (dyn SideChannel + '_),
        random: Random<'_>,
        clocks: [Option<Duration>; 2],
        f: impl FnOnce() -> R,
    ) -> R {
        struct Clear<'a>(&'a SideLink);
        impl Drop for Clear<'_> {
            fn drop(&mut self) {
                self.0.channel.set(None);
                self.0.random.set(None);
            }
        }
        // SAFETY: the lifetimes are erased only while `f` runs; `Clear` empties the cells
        // before the borrows end, and every use goes through `with`, inside `f`.
        let (channel, random) = unsafe {
            (
                std::mem::transmute::<*mut (dyn SideChannel + '_), *mut (dyn SideChannel + 'static)>(channel),
                std::mem::transmute::<Random<'_>, Random<'static>>(random),
            )
        };
        self.channel.set(Some(channel));
        self.random.set(Some(random));
        self.clocks.set(clocks);
        let _clear = Clear(self);
        f()
    }

    /// Runs `f` on the channel of the call in progress and the call's random numbers.
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut dyn SideChannel, Random<'_>) -> R) -> Option<R> {
        let (channel, random) = (self.channel.get()?, self.random.get()?);
        // SAFETY: set only during the side call (`during`), whose channel it points to;
        // the bindings use it one command at a time, never reentrantly.
        Some(f(unsafe { &mut *channel }, random))
    }
}
