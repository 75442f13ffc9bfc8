//! Limits around one entry's bot in one game: a time bank, a limit per call, and the
//! blame page that tells a watching process which call is running and how much time it
//! has (it decides when to look, never whom to blame: `crate::isolate`).
//!
//! Every time here is the bot's own time (`crate::clock`): what it ran or slept, never
//! what it waited for a CPU, so verdicts do not move with the machine's load.
//!
//! [`Guarded`] wraps any [`Bot`]; once the entry is out (bank spent, or late too often), its
//! players stay and the bot is not called again in this game. A call that used more
//! than the limit per call gives no answer ([`BotError::Timeout`], an overrun); a call for a
//! whole entry's turn ([`Bot::turn_all`]), standing for `n` calls, gets `n` limits per call;
//! for a bot that makes such calls one by one ([`Bot::one_by_one`]: a script bot) the calls
//! are made here, inside one pair of clock reads, and each is judged as it comes.
//! This module limits and reports; it knows nothing of the rules.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::bot::{Bot, BotError, Plays};
use crate::clock::Stopwatch;

/// An allowance of own time (`crate::clock`) per entry and game: `initial` at the
/// start, plus `per_turn` for every turn (in the spirit of 30 s + 1 s per turn).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeBank {
    /// Time at the start of a game.
    pub initial: Duration,
    /// Time added each turn.
    pub per_turn: Duration,
}

impl TimeBank {
    /// The allowance up to and including turn `clock`.
    pub fn allowance(&self, clock: u32) -> Duration {
        self.initial + self.per_turn * (clock + 1)
    }
}

impl Default for TimeBank {
    fn default() -> Self {
        TimeBank { initial: Duration::from_secs(30), per_turn: Duration::from_secs(1) }
    }
}

/// A page of shared memory where the bot-running process writes which call is in
/// progress, so that another process can tell whom to blame when it crashes or hangs.
///
/// Layout (native-endian u64s): `[0]` entry index + 1 (0: no call in progress),
/// `[1]` that entry's call index, `[2]` the own time the call may take in nanoseconds
/// (0: unlimited), `[3]` when it started ([`monotonic_nanos`], the same in every
/// process), `[4]` flags ([`BlamePage::BANK`], [`BlamePage::TIMES_ITSELF`]), `[5]` the
/// calling thread's own time at the start (`crate::clock::Stopwatch::own_origin`; 0:
/// unknown), from which a watching process measures the call on the thread's counters.
#[derive(Debug)]
pub struct BlamePage {
    map: memmap2::MmapMut,
}

/// A call in progress, as its blame page says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallInProgress {
    /// The entry's index.
    pub entry: usize,
    /// Its call index.
    pub call: u64,
    /// The own time it may take (`None`: unlimited).
    pub budget: Option<u64>,
    /// When it started, on the monotonic clock.
    pub started: u64,
    /// Its flags.
    pub flags: u64,
    /// The calling thread's own time at the start (0: unknown).
    pub own_origin: u64,
}

impl BlamePage {
    const SIZE: usize = 48;
    /// The budget is what is left of the entry's time bank (not its limit per call).
    pub const BANK: u64 = 1;
    /// The bot keeps its own deadline (a program bot): only the backstop applies.
    pub const TIMES_ITSELF: u64 = 2;

    /// Creates (or resets) the page in `path`.
    pub fn create(path: &Path) -> std::io::Result<BlamePage> {
        let file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(path)?;
        file.set_len(Self::SIZE as u64)?;
        Self::map(&file)
    }

    /// Opens a page another process created.
    pub fn open(path: &Path) -> std::io::Result<BlamePage> {
        let file = std::fs::OpenOptions::new().read(true).write(true).open(path)?;
        if file.metadata()?.len() < Self::SIZE as u64 {
            return Err(std::io::Error::other("blame page too short"));
        }
        Self::map(&file)
    }

    fn map(file: &std::fs::File) -> std::io::Result<BlamePage> {
        // SAFETY: the file is private to the host and its worker; both access it only
        // through the atomics below.
        let map = unsafe { memmap2::MmapOptions::new().len(Self::SIZE).map_mut(file)? };
        Ok(BlamePage { map })
    }

    fn slot(&self, i: usize) -> &AtomicU64 {
        assert!(i < Self::SIZE / 8);
        // SAFETY: the map is page-aligned and SIZE bytes long, so u64 slot i is in
        // bounds and aligned; AtomicU64 has the layout of u64.
        unsafe { &*self.map.as_ptr().cast::<AtomicU64>().add(i) }
    }

    /// Marks a call of `entry` in progress, started at `started` ([`monotonic_nanos`])
    /// with `budget` nanoseconds of own time.
    #[inline]
    pub fn enter(&self, entry: usize, call: u64, budget: Option<u64>, started: u64, flags: u64, own_origin: u64) {
        self.slot(5).store(own_origin, Ordering::Relaxed);
        self.slot(1).store(call, Ordering::Relaxed);
        self.slot(2).store(budget.unwrap_or(0), Ordering::Relaxed);
        self.slot(3).store(started, Ordering::Relaxed);
        self.slot(4).store(flags, Ordering::Relaxed);
        self.slot(0).store(entry as u64 + 1, Ordering::Release);
    }

    /// Marks that no call is in progress.
    #[inline]
    pub fn leave(&self) {
        self.slot(0).store(0, Ordering::Release);
    }

    /// The call in progress.
    pub fn current(&self) -> Option<CallInProgress> {
        let entry = self.slot(0).load(Ordering::Acquire);
        (entry > 0).then(|| {
            let budget = self.slot(2).load(Ordering::Relaxed);
            CallInProgress {
                entry: entry as usize - 1,
                call: self.slot(1).load(Ordering::Relaxed),
                budget: (budget > 0).then_some(budget),
                started: self.slot(3).load(Ordering::Relaxed),
                flags: self.slot(4).load(Ordering::Relaxed),
                own_origin: self.slot(5).load(Ordering::Relaxed),
            }
        })
    }
}

pub use crate::clock::monotonic_nanos;

/// A bot with a time bank, a limit per call and an optional blame page.
pub struct Guarded<'a, G: Plays> {
    inner: Box<dyn Bot<G>>,
    entry: usize,
    calls: u64,
    used: Duration,
    bank: Option<TimeBank>,
    /// The most own time one call may take: a call that took more gives no answer (an
    /// overrun), and the blame page's budget is at most this, so that a watching
    /// process ends a call stuck past it.
    call_limit: Option<Duration>,
    blame: Option<&'a BlamePage>,
    /// Why the entry is out of this game, once it is.
    out: Option<String>,
    /// Calls in a row that used their whole limit per call.
    late_in_a_row: u32,
}

/// Calls in a row over the limit per call that put an entry out of the game.
pub const LATE_IN_A_ROW: u32 = 3;

impl<G: Plays> std::fmt::Debug for Guarded<'_, G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guarded")
            .field("entry", &self.entry)
            .field("calls", &self.calls)
            .field("out", &self.out)
            .finish()
    }
}

impl<'a, G: Plays> Guarded<'a, G> {
    /// Wraps the bot of entry number `entry`.
    pub fn new(inner: Box<dyn Bot<G>>, entry: usize, bank: Option<TimeBank>, blame: Option<&'a BlamePage>) -> Self {
        Guarded {
            inner,
            entry,
            calls: 0,
            used: Duration::ZERO,
            bank,
            call_limit: None,
            blame,
            out: None,
            late_in_a_row: 0,
        }
    }

    /// The same with a limit per call.
    pub fn with_call_limit(mut self, limit: Option<Duration>) -> Self {
        self.call_limit = limit;
        self
    }
}

impl<G: Plays> Guarded<'_, G> {
    /// What a call standing for `n` calls at turn `clock` may take: what is left of the
    /// bank, its limit (`n` limits per call) and the smaller of the two (`None`: no limit).
    fn allowance(&self, clock: u32, n: u32) -> (Option<Duration>, Option<Duration>, Option<Duration>) {
        let left = self.bank.map(|b| b.allowance(clock).saturating_sub(self.used));
        let limit = self.call_limit.map(|c| c.saturating_mul(n));
        let allowed = match (left, limit) {
            (Some(l), Some(c)) => Some(l.min(c)),
            (l, c) => l.or(c),
        };
        (left, limit, allowed)
    }

    /// Tells the blame page that a call with `limit` (else what is `allowed` of the bank)
    /// started at `watch`.
    fn enter(&self, watch: &Stopwatch, limit: Option<Duration>, allowed: Duration) {
        if let Some(blame) = self.blame {
            // A watching process ends a call stuck past its limit per call; a call that
            // only overdraws the bank is left to finish and decided here (ending it
            // would cost the game a replay).
            let (budget, mut flags) = match limit {
                Some(limit) => (limit, 0),
                None => (allowed, BlamePage::BANK),
            };
            if self.inner.times_itself() {
                flags |= BlamePage::TIMES_ITSELF;
            }
            let budget = budget.as_nanos().min(u128::from(u64::MAX)) as u64;
            blame.enter(self.entry, self.calls, Some(budget), watch.started(), flags, watch.own_origin().unwrap_or(0));
        }
    }

    /// Charges a call that ended to the bank: the own time it took, and the reason the
    /// entry is now out if it spent more than was `left`.
    fn charge(&mut self, watch: &Stopwatch, clock: u32, left: Option<Duration>) -> (Duration, Option<String>) {
        if let Some(blame) = self.blame {
            blame.leave();
        }
        let spent = self.inner.call_time().unwrap_or_else(|| watch.own());
        self.used += spent;
        if let (Some(bank), Some(left)) = (self.bank, left)
            && spent > left
        {
            let reason = format!(
                "ran out of its time bank at turn {} ({:.1} s used of {:.1} s)",
                clock,
                self.used.as_secs_f64(),
                bank.allowance(clock).as_secs_f64()
            );
            self.out = Some(reason.clone());
            return (spent, Some(reason));
        }
        (spent, None)
    }

    /// True when a call that took `spent` went over its `limit` (a bot that times itself
    /// kept its own deadline already).
    fn over(&self, spent: Duration, limit: Option<Duration>) -> bool {
        limit.is_some_and(|l| spent > l) && !self.inner.times_itself()
    }

    /// The calls of a batch made one by one, for a bot that makes them so
    /// ([`Bot::one_by_one`]), each judged as it comes as a separate call is: a timeout it
    /// gives a call (a script's own deadline, which is the limit per call) is a late call
    /// when there is a `limit`, and once the entry is out its later calls are not made.
    fn turn_one_by_one(
        &mut self,
        calls: &[G::Ctx<'_>],
        answers: &mut Vec<Result<G::Answer, BotError>>,
        clock: u32,
        limit: bool,
    ) {
        answers.clear();
        for ctx in calls {
            if let Some(reason) = &self.out {
                answers.push(Err(BotError::Disqualified(reason.clone())));
                continue;
            }
            self.calls += 1;
            let answer = self.inner.turn(ctx);
            self.count_late(limit && matches!(answer, Err(BotError::Timeout)), 1, clock);
            answers.push(answer);
        }
    }

    /// Counts `n` calls that each used their whole limit per call (`late`), or none: not
    /// a game's own shorter deadline, like target's 50 ms. The bank grows by a turn's
    /// allowance each turn, so a bot that times out every call would never spend it;
    /// [`LATE_IN_A_ROW`] in a row put the entry out of the game instead.
    fn count_late(&mut self, late: bool, n: u32, clock: u32) {
        self.late_in_a_row = if late { self.late_in_a_row.saturating_add(n) } else { 0 };
        if self.late_in_a_row >= LATE_IN_A_ROW {
            self.out = Some(format!("over its time limit in {LATE_IN_A_ROW} calls in a row (turn {clock})"));
        }
    }
}

impl<G: Plays> Bot<G> for Guarded<'_, G> {
    fn turn(&mut self, ctx: &G::Ctx<'_>) -> Result<G::Answer, BotError> {
        let clock = G::clock(ctx);
        if let Some(reason) = &self.out {
            return Err(BotError::Disqualified(reason.clone()));
        }
        let (left, limit, allowed) = self.allowance(clock, 1);
        let Some(allowed) = allowed else {
            self.calls += 1;
            return self.inner.turn(ctx);
        };
        let watch = Stopwatch::start();
        self.enter(&watch, limit, allowed);
        self.calls += 1;
        let answer = self.inner.turn(ctx);
        let (spent, out) = self.charge(&watch, clock, left);
        if let Some(reason) = out {
            return Err(BotError::Disqualified(reason));
        }
        let answer = match answer {
            Ok(_) if self.over(spent, limit) => Err(BotError::Timeout),
            answer => answer,
        };
        // A timeout at the limit per call (not a game's own shorter deadline): the bot's
        // deadline and this charge are two readings of the thread's own time, each short
        // of the truth by at most `READ_ERROR`.
        let late = matches!(answer, Err(BotError::Timeout))
            && limit.is_some_and(|l| spent.saturating_add(crate::clock::READ_ERROR) >= l);
        self.count_late(late, 1, clock);
        answer
    }

    /// As the bot says, but for a bot that makes its calls one by one
    /// ([`Bot::one_by_one`]) under a watching process (a blame page): there each call is
    /// made on its own, so that the watch ends a call stuck where no hook runs (a Lua
    /// pattern match) after its own limit, not after the batch's `n` limits.
    fn whole_entry(&self) -> bool {
        self.inner.whole_entry() && !(self.blame.is_some() && self.inner.one_by_one())
    }

    /// A whole entry's calls of a turn in one call: the batch of `n` calls gets `n` limits
    /// per call (as a served lockstep batch and a hex side call do), and the bank as one
    /// call does. Verdicts stay per call where this side can know them (the bot's own
    /// failures, each player's answer, and, for a bot that makes its calls one by one, the
    /// timeouts of each: see `turn_one_by_one`); the time is the batch's alone: a batch over
    /// its `n` limits makes each of its calls an overrun and counts as `n` late calls in a
    /// row, and one that spends the bank puts the entry out for all of them.
    fn turn_all(&mut self, calls: &[G::Ctx<'_>], answers: &mut Vec<Result<G::Answer, BotError>>) {
        let Some(first) = calls.first() else {
            answers.clear();
            return;
        };
        let clock = G::clock(first);
        let n = u32::try_from(calls.len()).unwrap_or(u32::MAX);
        let disqualified = |answers: &mut Vec<Result<G::Answer, BotError>>, reason: &str| {
            answers.clear();
            answers.extend(calls.iter().map(|_| Err(BotError::Disqualified(reason.to_owned()))));
        };
        if let Some(reason) = &self.out {
            return disqualified(answers, reason);
        }
        let (left, limit, allowed) = self.allowance(clock, n);
        let Some(allowed) = allowed else {
            self.calls += u64::from(n);
            return self.inner.turn_all(calls, answers);
        };
        let watch = Stopwatch::start();
        self.enter(&watch, limit, allowed);
        let one_by_one = self.inner.one_by_one();
        if one_by_one {
            self.turn_one_by_one(calls, answers, clock, limit.is_some());
        } else {
            self.calls += u64::from(n);
            self.inner.turn_all(calls, answers);
        }
        let (spent, out) = self.charge(&watch, clock, left);
        if let Some(reason) = out {
            return disqualified(answers, &reason);
        }
        let over = self.over(spent, limit);
        if over {
            answers.iter_mut().filter(|a| a.is_ok()).for_each(|a| *a = Err(BotError::Timeout));
        }
        if over || !one_by_one {
            self.count_late(over, n, clock);
        }
    }

    fn prefetches(&self) -> bool {
        self.out.is_none() && self.inner.prefetches()
    }

    fn prefetch(&mut self, ctx: &G::Ctx<'_>) {
        if self.out.is_none() {
            self.inner.prefetch(ctx);
        }
    }

    fn remaining_time(&self, clock: u32) -> crate::bot::TimeLeft {
        crate::bot::TimeLeft {
            bank: self.bank.map(|b| b.allowance(clock).saturating_sub(self.used)),
            per_call: self.call_limit,
        }
    }
}
