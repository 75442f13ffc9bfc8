//! Limits around one entry's bot in one game: a wall-clock time bank, a limit per call,
//! a cut-off after a given call (set by the host after a crash), and the blame page that
//! tells a watching process which entry is running and until when it may.
//!
//! [`Guarded`] wraps any [`Bot`]; once the entry is out (bank spent, or cut), its
//! players stay and the bot is not called again in this game. This module limits and
//! reports; it knows nothing of the rules.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::bot::{Bot, BotError};
use crate::game::Game;

/// A wall-clock allowance per entry and game: `initial` at the start, plus `per_turn`
/// for every turn (in the spirit of 30 s + 1 s per turn).
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

/// An entry taken out of a game at a given call (after a crash found by re-playing).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cut {
    /// The entry's index.
    pub entry: usize,
    /// Its calls before the cut (the call with this index is not made).
    pub after_calls: u64,
    /// Why, in one line.
    pub reason: String,
}

/// A page of shared memory where the bot-running process writes which call is in
/// progress, so that another process can tell whom to blame when it crashes or hangs.
///
/// Layout (native-endian u64s): `[0]` entry index + 1 (0: no call in progress),
/// `[1]` that entry's call index, `[2]` the call's deadline on the monotonic clock
/// ([`monotonic_nanos`], the same in every process; 0: none).
#[derive(Debug)]
pub struct BlamePage {
    map: memmap2::MmapMut,
}

impl BlamePage {
    const SIZE: usize = 24;

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
        assert!(i < 3);
        // SAFETY: the map is page-aligned and SIZE bytes long, so u64 slot i is in
        // bounds and aligned; AtomicU64 has the layout of u64.
        unsafe { &*self.map.as_ptr().cast::<AtomicU64>().add(i) }
    }

    /// Marks a call of `entry` in progress, to end by `deadline` ([`monotonic_nanos`]).
    #[inline]
    pub fn enter(&self, entry: usize, call: u64, deadline: Option<u64>) {
        self.slot(1).store(call, Ordering::Relaxed);
        self.slot(2).store(deadline.unwrap_or(0), Ordering::Relaxed);
        self.slot(0).store(entry as u64 + 1, Ordering::Release);
    }

    /// Marks that no call is in progress.
    #[inline]
    pub fn leave(&self) {
        self.slot(0).store(0, Ordering::Release);
    }

    /// The call in progress: `(entry, call index, deadline)`, the deadline in
    /// [`monotonic_nanos`].
    pub fn current(&self) -> Option<(usize, u64, Option<u64>)> {
        let entry = self.slot(0).load(Ordering::Acquire);
        (entry > 0).then(|| {
            let nanos = self.slot(2).load(Ordering::Relaxed);
            (entry as usize - 1, self.slot(1).load(Ordering::Relaxed), (nanos > 0).then_some(nanos))
        })
    }
}

/// Nanoseconds on the system's monotonic clock: the same clock in every process of the
/// machine, so a worker's deadlines mean the same to the host that watches it.
#[cfg(unix)]
#[inline]
pub fn monotonic_nanos() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Nanoseconds since this process first asked (without isolation, the only use).
#[cfg(not(unix))]
pub fn monotonic_nanos() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
}

/// A bot with a time bank, a limit per call, an optional cut-off and an optional blame
/// page.
pub struct Guarded<'a, G: Game> {
    inner: Box<dyn Bot<G>>,
    entry: usize,
    calls: u64,
    used: Duration,
    bank: Option<TimeBank>,
    /// The longest a call may take: the blame page's deadline is at most this far
    /// ahead, so that a watching process kills a call stuck past it (plus a grace).
    /// A slow answer that does come is taken (scripts and programs enforce the limit
    /// on themselves; a wall-clock verdict here would change games on a loaded machine).
    call_limit: Option<Duration>,
    cut: Option<Cut>,
    blame: Option<&'a BlamePage>,
    /// Why the entry is out of this game, once it is.
    out: Option<String>,
}

impl<G: Game> std::fmt::Debug for Guarded<'_, G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guarded")
            .field("entry", &self.entry)
            .field("calls", &self.calls)
            .field("out", &self.out)
            .finish()
    }
}

impl<'a, G: Game> Guarded<'a, G> {
    /// Wraps the bot of entry number `entry`.
    pub fn new(
        inner: Box<dyn Bot<G>>,
        entry: usize,
        bank: Option<TimeBank>,
        cut: Option<Cut>,
        blame: Option<&'a BlamePage>,
    ) -> Self {
        Guarded { inner, entry, calls: 0, used: Duration::ZERO, bank, call_limit: None, cut, blame, out: None }
    }

    /// The same with a limit per call.
    pub fn with_call_limit(mut self, limit: Option<Duration>) -> Self {
        self.call_limit = limit;
        self
    }
}

impl<G: Game> Bot<G> for Guarded<'_, G> {
    fn turn(&mut self, ctx: &G::Ctx<'_>) -> Result<G::Answer, BotError> {
        let clock = G::clock(ctx);
        if let Some(reason) = &self.out {
            return Err(BotError::Disqualified(reason.clone()));
        }
        if let Some(cut) = self.cut.as_ref().filter(|c| c.after_calls == self.calls) {
            self.out = Some(cut.reason.clone());
            return Err(BotError::Disqualified(cut.reason.clone()));
        }
        let left = self.bank.map(|b| b.allowance(clock).saturating_sub(self.used));
        let allowed = match (left, self.call_limit) {
            (Some(l), Some(c)) => Some(l.min(c)),
            (l, c) => l.or(c),
        };
        // One clock read starts the call's timing and dates its deadline.
        let start = allowed.map(|_| monotonic_nanos());
        if let Some(blame) = self.blame {
            blame.enter(self.entry, self.calls, start.zip(allowed).map(|(s, a)| s + a.as_nanos() as u64));
        }
        self.calls += 1;
        let answer = self.inner.turn(ctx);
        if let Some(blame) = self.blame {
            blame.leave();
        }
        let spent = start.map(|s| Duration::from_nanos(monotonic_nanos().saturating_sub(s)));
        if let (Some(bank), Some(left), Some(spent)) = (self.bank, left, spent) {
            self.used += spent;
            if spent > left {
                let reason = format!(
                    "ran out of its time bank at turn {} ({:.1} s used of {:.1} s)",
                    clock,
                    self.used.as_secs_f64(),
                    bank.allowance(clock).as_secs_f64()
                );
                self.out = Some(reason.clone());
                return Err(BotError::Disqualified(reason));
            }
        }
        answer
    }
}
