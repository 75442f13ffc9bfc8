//! The one bot interface inside the host, and the entries that make bots.
//!
//! Every kind of bot (native abi_stable, native C, Rhai, Lua, programs, Rust bots in
//! tests) sits behind [`Bot`], generic over the game it plays, of which it sees only
//! [`Plays`]: what one call shows it and what it answers; an [`Entry`] is a named
//! source of fresh bots, one per game; [`host_fault`] is how a bot's caller says that a
//! call failed through nobody's fault but the host's or the machine's (a program's box
//! killed from outside), so that the game is played again. This module is about
//! *calling* bots; it does not load files (see `loaders`), knows no rules (see `rules`,
//! `games`) and sits below everything that does (ARCHITECTURE.md, "Layers").
//!
//! **Architecture Invariant:** a bot is created inside the thread that plays its game and
//! never leaves it, so script VMs need not be `Send`; only entries cross threads.

use std::cell::RefCell;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use arena_system::clock::call_nanos;

/// Why a call gave no usable answer. The player stays; the entry's stats count it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BotError {
    /// The bot failed: a panic, a script runtime error, a failed constructor.
    #[error("{0}")]
    Failed(String),
    /// A script used up its instruction budget for the call.
    #[error("over its instruction budget")]
    Budget,
    /// The call used more than its time limit (its own time: `crate::clock`).
    #[error("over its time limit")]
    Timeout,
    /// The entry went over its memory cap.
    #[error("over its memory limit")]
    Memory,
    /// The answer was not a move or a shot.
    #[error("invalid answer: {0}")]
    Invalid(String),
    /// The entry is out of this game (crashed, hung, or spent its time bank): its
    /// players stay and its bot is not called again.
    #[error("disqualified: {0}")]
    Disqualified(String),
}

impl BotError {
    /// True for budget, time and memory overruns (reported apart from plain errors).
    pub fn is_overrun(&self) -> bool {
        matches!(self, BotError::Budget | BotError::Timeout | BotError::Memory)
    }
}

thread_local! {
    /// Why the game this thread plays must be played again, if it must ([`host_fault`]).
    static HOST_FAULT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Says that the game this thread plays failed through no bot's fault (a bot's process
/// killed from outside its box): the game is not counted, and the tournament plays it
/// again from its seed (`crate::tournament::play_one` returns `reason` as its error).
/// The first reason of a game is kept.
pub fn host_fault(reason: String) {
    HOST_FAULT.with(|f| {
        f.borrow_mut().get_or_insert(reason);
    });
}

/// The reason given to [`host_fault`] since the last take on this thread, if any.
pub fn take_host_fault() -> Option<String> {
    HOST_FAULT.with(|f| f.borrow_mut().take())
}

/// The side of a game its bots see: what one call shows a bot, what it answers, and
/// the turn a call belongs to. The bot-facing part of the game contract (`crate::game`);
/// every game implements it.
pub trait Plays: Sized + 'static {
    /// What a bot sees for one call.
    type Ctx<'a>;
    /// What a bot answers.
    type Answer;

    /// The turn a call belongs to (a time bank grows by one allowance per turn).
    fn clock(ctx: &Self::Ctx<'_>) -> u32;

    /// Where a call belongs, for what its bot says in it (`crate::debug`): the turn as
    /// the game's replays and viewer count it, and the player or unit the call decides
    /// for (`None`: a call for no one unit). By default the [`Plays::clock`] and no unit.
    fn place(ctx: &Self::Ctx<'_>) -> (u32, Option<u32>) {
        (Self::clock(ctx), None)
    }
}

/// A bot of game `G`: one instance per entry per game, called once per living player
/// (or unit) of its entry per turn.
pub trait Bot<G: Plays> {
    /// Decides for the player described by `ctx`.
    fn turn(&mut self, ctx: &G::Ctx<'_>) -> Result<G::Answer, BotError>;

    /// True for a bot whose work happens outside the calling thread and which keeps its
    /// calls' deadlines itself (a program bot: the process layer times its processes).
    /// A watching process then holds such a call only to the wall-clock backstop.
    fn times_itself(&self) -> bool {
        false
    }

    /// True for a bot whose calls are made elsewhere and come when they come (a seat of
    /// a lockstep game played by another process). An engine whose turn's calls do not
    /// depend on each other (zombies) makes the other bots' calls first, so that every
    /// process of a lockstep game makes its own calls at once.
    fn played_elsewhere(&self) -> bool {
        false
    }

    /// True for a bot that wants to know a turn's calls before it gets them
    /// ([`Bot::prefetch`]): a program bot, which then sends them to its process in one
    /// write instead of one round trip per call.
    fn prefetches(&self) -> bool {
        false
    }

    /// A call this bot will get later in this turn (in the order it will get them), told
    /// before the first call of the turn by an engine whose turn's calls do not depend on
    /// each other (zombies). The bot must not draw from the context's generator here, nor
    /// count on getting the call (a bot put out of the game gets no more calls).
    fn prefetch(&mut self, ctx: &G::Ctx<'_>) {
        let _ = ctx;
    }

    /// True for a bot that answers all of its entry's calls of a turn in one call
    /// ([`Bot::turn_all`]): a native zombies bot of ABI 1.6, and a zombies script bot
    /// (which calls its VM once per player: so that its limits read the clock once per
    /// entry and turn). An engine whose turn's calls do not depend on each other (zombies)
    /// then makes one call per entry per turn.
    fn whole_entry(&self) -> bool {
        false
    }

    /// All of the entry's calls of a turn at once, in the order [`Bot::turn`] would get
    /// them: `answers` is cleared, then holds the answer for each call, as that many
    /// `turn`s would have given (which is what this does unless the bot is
    /// [`whole_entry`](Bot::whole_entry)). Each answer is its call's verdict; a wrapper
    /// with limits gives the batch the time of as many calls (`crate::limits::Guarded`).
    fn turn_all(&mut self, calls: &[G::Ctx<'_>], answers: &mut Vec<Result<G::Answer, BotError>>) {
        answers.clear();
        answers.extend(calls.iter().map(|ctx| self.turn(ctx)));
    }

    /// True for a [`whole_entry`](Bot::whole_entry) bot whose [`Bot::turn_all`] is the
    /// default (its calls made one by one): a script bot, which answers a whole entry only
    /// so that the limits around it read the clock once per entry and turn. Those limits
    /// then make the calls themselves, judging each as it comes (`crate::limits::Guarded`).
    fn one_by_one(&self) -> bool {
        false
    }

    /// For a bot that [`times_itself`](Bot::times_itself): the own time its last call
    /// took (`crate::clock`), charged to its time bank instead of the calling thread's.
    fn call_time(&self) -> Option<std::time::Duration> {
        None
    }

    /// For a bot with limits (`crate::limits::Guarded`): what is left of its time bank at
    /// turn `clock` ([`Plays::clock`]) and the most own time one call may take, so that a
    /// game can show its bots the clocks and give a call that stands for several calls
    /// their time. Nothing for a bot without limits.
    fn remaining_time(&self, clock: u32) -> TimeLeft {
        let _ = clock;
        TimeLeft::default()
    }
}

/// A game whose test and benchmark bots may be closures: what a closure bot is handed
/// of a call. Most games hand it the whole context ([`Plays::Ctx`]); a game whose calls
/// carry more than the unit's own context hands it that part.
pub trait ClosureBots: Plays {
    /// What a closure bot reads of one call.
    type Seen<'a>;

    /// The part of a call's context a closure bot reads.
    fn seen<'b, 'a>(ctx: &'b Self::Ctx<'a>) -> &'b Self::Seen<'a>;
}

/// Test and benchmark bots are closures from what they see of a call to an answer.
impl<G: ClosureBots, F: FnMut(&G::Seen<'_>) -> G::Answer> Bot<G> for F {
    fn turn(&mut self, ctx: &G::Ctx<'_>) -> Result<G::Answer, BotError> {
        Ok(self(G::seen(ctx)))
    }
}

/// What a bot with limits has left in its game ([`Bot::remaining_time`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeLeft {
    /// What is left of its time bank (`None`: it has no bank).
    pub bank: Option<std::time::Duration>,
    /// The most own time one call may take (`None`: no limit per call).
    pub per_call: Option<std::time::Duration>,
}

/// Where an entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A Rust library exporting the abi_stable root module.
    Native,
    /// A library exporting the plain C table (`zombies_bot.h`).
    NativeC,
    /// A Rhai script.
    Rhai,
    /// A Lua script.
    Lua,
    /// A program in any language speaking the game's text protocol.
    Program,
    /// A bot compiled into the host (tests, benchmarks).
    Builtin,
}

impl fmt::Display for EntryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EntryKind::Native => "native (Rust ABI)",
            EntryKind::NativeC => "native (C ABI)",
            EntryKind::Rhai => "rhai",
            EntryKind::Lua => "lua",
            EntryKind::Program => "program",
            EntryKind::Builtin => "builtin",
        })
    }
}

/// Makes a fresh bot for each game. Shared across the threads that play games.
pub trait BotFactory<G: Plays>: Send + Sync {
    /// A new bot, made in the thread that will play with it.
    fn create(&self) -> Result<Box<dyn Bot<G>>, BotError>;
}

impl<G: Plays, F: Fn() -> Result<Box<dyn Bot<G>>, BotError> + Send + Sync> BotFactory<G> for F {
    fn create(&self) -> Result<Box<dyn Bot<G>>, BotError> {
        self()
    }
}

/// A named competitor in game `G`.
pub struct Entry<G: Plays> {
    /// Unique name (also the name of its players' ids).
    pub name: String,
    /// What kind of bot it is.
    pub kind: EntryKind,
    /// The file it was loaded from (empty for builtin bots).
    pub source: PathBuf,
    factory: Arc<dyn BotFactory<G>>,
}

impl<G: Plays> Clone for Entry<G> {
    fn clone(&self) -> Self {
        Entry {
            name: self.name.clone(),
            kind: self.kind,
            source: self.source.clone(),
            factory: Arc::clone(&self.factory),
        }
    }
}

impl<G: Plays> fmt::Debug for Entry<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("source", &self.source)
            .finish()
    }
}

impl<G: Plays> Entry<G> {
    /// An entry of any kind.
    pub fn new(name: impl Into<String>, kind: EntryKind, source: PathBuf, factory: Arc<dyn BotFactory<G>>) -> Self {
        Entry { name: name.into(), kind, source, factory }
    }

    /// A builtin entry whose bots are made by `make` (Rust bots for tests and benchmarks).
    pub fn builtin<B: Bot<G> + 'static>(name: impl Into<String>, make: impl Fn() -> B + Send + Sync + 'static) -> Self {
        let factory = move || Ok(Box::new(make()) as Box<dyn Bot<G>>);
        Entry::new(name, EntryKind::Builtin, PathBuf::new(), Arc::new(factory))
    }

    /// The same bots under another name (to field one bot as several entries, as the
    /// benchmarks do).
    pub fn renamed(&self, name: impl Into<String>) -> Self {
        Entry { name: name.into(), ..self.clone() }
    }

    /// A fresh bot for a new game.
    pub fn create_bot(&self) -> Result<Box<dyn Bot<G>>, BotError> {
        self.factory.create()
    }
}

/// A bot whose constructor failed: every call reports the same error (the player stays).
#[derive(Debug)]
pub struct BrokenBot(pub BotError);

impl<G: Plays> Bot<G> for BrokenBot {
    fn turn(&mut self, _ctx: &G::Ctx<'_>) -> Result<G::Answer, BotError> {
        Err(self.0.clone())
    }
}

/// Per-entry counters of one game (or, summed, of a tournament).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CallStats {
    /// Bot calls made.
    pub calls: u64,
    /// Calls that failed (panics, runtime errors, invalid answers).
    pub errors: u64,
    /// Calls over budget, time or memory.
    pub overruns: u64,
    /// Calls whose duration was measured (every [`CallStats::TIMING_PERIOD`]th call).
    #[serde(default)]
    pub timed_calls: u64,
    /// Total duration of the measured calls, in nanoseconds.
    #[serde(default)]
    pub timed_nanos: u64,
    /// Games in which the entry was disqualified (crash, hang, time bank spent).
    #[serde(default)]
    pub disqualified: u64,
    /// The first few distinct error messages.
    pub messages: Vec<String>,
}

impl CallStats {
    /// One call in this many is timed (timing every call would cost more than a
    /// native call itself).
    pub const TIMING_PERIOD: u64 = 16;

    /// Mean duration of a call in microseconds, from the timed sample (0 if none).
    pub fn mean_micros(&self) -> f64 {
        if self.timed_calls == 0 { 0.0 } else { self.timed_nanos as f64 / self.timed_calls as f64 / 1000.0 }
    }

    /// How many distinct messages are kept.
    pub const KEPT_MESSAGES: usize = 3;

    /// Counts a failed call.
    pub fn record_error(&mut self, err: &BotError) {
        if let BotError::Disqualified(_) = err {
            // Once per game: later calls of a disqualified entry are not errors.
            if self.disqualified == 0 {
                self.disqualified = 1;
                self.keep(err.to_string());
            }
            return;
        }
        if err.is_overrun() {
            self.overruns += 1;
        } else {
            self.errors += 1;
        }
        self.keep(err.to_string());
    }

    fn keep(&mut self, message: String) {
        if self.messages.len() < Self::KEPT_MESSAGES && !self.messages.contains(&message) {
            self.messages.push(message);
        }
    }

    /// Makes one bot call (`call`) and counts it, timing one call in
    /// [`CallStats::TIMING_PERIOD`] (timing every call would cost more than a native
    /// call itself). Every game's engine, and a served seat's process, counts so. The
    /// clock is [`call_nanos`] (the time-stamp counter where the kernel keeps time with
    /// it: about half the cost of `clock_gettime`).
    #[inline]
    pub fn count<R>(&mut self, call: impl FnOnce() -> R) -> R {
        self.calls += 1;
        if self.calls % Self::TIMING_PERIOD != 0 {
            return call();
        }
        self.timed(1, call)
    }

    /// Makes one call that stands for `n` bot calls (`call`: [`Bot::turn_all`]) and counts
    /// them, timing the first batch and then one batch in [`CallStats::TIMING_PERIOD`]
    /// (when the count passes a multiple of that many times `n`), so that about one call
    /// in that many is timed, as by [`CallStats::count`]; a timed batch's time is counted
    /// for its `n` calls, so that the mean per call stays one. (Timing every batch that
    /// held a call `count` would have timed read the clock twice for nearly every batch
    /// of a large entry.)
    #[inline]
    pub fn count_all<R>(&mut self, n: u64, call: impl FnOnce() -> R) -> R {
        let before = self.calls;
        self.calls += n;
        let period = Self::TIMING_PERIOD * n.max(1);
        if before > 0 && self.calls / period == before / period {
            return call();
        }
        self.timed(n, call)
    }

    /// Makes `call`, standing for `n` calls, and counts its time for them.
    fn timed<R>(&mut self, n: u64, call: impl FnOnce() -> R) -> R {
        let start = call_nanos();
        let result = call();
        self.timed_calls += n;
        self.timed_nanos += call_nanos().saturating_sub(start);
        result
    }

    /// Adds another game's counters.
    pub fn merge(&mut self, other: &CallStats) {
        self.calls += other.calls;
        self.errors += other.errors;
        self.overruns += other.overruns;
        self.timed_calls += other.timed_calls;
        self.timed_nanos += other.timed_nanos;
        self.disqualified += other.disqualified;
        for m in &other.messages {
            self.keep(m.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Batches are timed about as often as single calls are, the first one always.
    #[test]
    fn about_one_call_in_the_timing_period_is_timed_single_or_in_batches() {
        let mut single = CallStats::default();
        (0..1600).for_each(|_| single.count(|| ()));
        assert_eq!(single.timed_calls, 1600 / CallStats::TIMING_PERIOD);
        let mut batches = CallStats::default();
        batches.count_all(25, || ());
        assert_eq!((batches.calls, batches.timed_calls), (25, 25), "the first batch");
        (1..64).for_each(|_| batches.count_all(25, || ()));
        // 64 batches of 25: the first, then one each time 400 more calls have passed.
        assert_eq!((batches.calls, batches.timed_calls), (1600, 5 * 25));
    }
}
