//! The clock every time limit is measured on: a bot's **own time**, never the
//! machine's load.
//!
//! A task's own time is the wall-clock time that passes while it is not waiting for a
//! CPU: the time it runs, plus the time it sleeps or blocks by itself. Linux keeps, for
//! every task, the nanoseconds it ran and the nanoseconds it sat runnable in a run
//! queue (`/proc/<pid>/task/<tid>/schedstat`); own time is wall time less the second.
//! A bot that computes for 0.9 s is charged 0.9 s whether the machine is idle or has
//! twelve CPU hogs per core beside it; a bot that sleeps 120 ms is charged 120 ms.
//!
//! What is charged, per kind of bot (also in `docs/hardening.md`):
//! - **in the calling thread** (native, Lua and Rhai bots, in the host or a worker):
//!   the calling thread's own time over the call ([`Stopwatch`]). A call shorter than
//!   [`SHORT`] in wall time is charged its wall time (no wait for a CPU of note fits in
//!   it, and reading the counters costs a system call); a longer one reads the thread's
//!   counters. So that a fast call needs no system call at its start either, the thread
//!   keeps a mark (its own time at a moment at most [`MARK_AGE`] before the call); a
//!   long call is charged from that mark, that is at most [`MARK_AGE`] of the engine's
//!   own time too much, whatever the load.
//!   Each reading of the counters is bracketed by two reads of the clock and made
//!   again when a wait for a CPU fell between them ([`own_now`], [`READ_ERROR`]).
//! - **program bots**: the wall time from the request to the answer, less the time the
//!   program's tasks (every thread of every process it consists of, as far as the host
//!   saw them when the call started) and the host's calling thread waited for a CPU
//!   ([`ProgramTimer`]; an answer read after the limit is judged by when it was
//!   written, by the kernel's stamp on the program's stdout: from the end of the
//!   request's write to the stamp, less the program's waits; where there is no stamp,
//!   an answer that came while the calling thread waited after a deadline has that
//!   whole wait counted). A program started for the call is timed from its `execve`
//!   ([`ProgramTimer::start_spawned`]): the host's set-up of its process is not its
//!   time.
//!
//! The wall time of an in-thread call is read with [`call_nanos`]: the monotonic
//! clock's scale, from the processor's time-stamp counter where the kernel keeps time
//! with it (a read costs about half a `clock_gettime`; set `ARENA_NO_TSC` to read the
//! monotonic clock instead).
//!
//! Where the counters cannot be read (no `/proc`, or a kernel without scheduler
//! statistics), in-thread calls are charged the thread's CPU time and programs their
//! wall time; [`source`] says which.
//!
//! This module measures; it decides nothing (the limits are `crate::limits`,
//! `crate::process` and the games').

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::time::Duration;

/// Nanoseconds on the system's monotonic clock: the same clock in every process of the
/// machine, so a worker's times mean the same to the host that watches it.
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

/// Nanoseconds on the monotonic clock's scale, for the per-call reads of
/// [`Stopwatch`] and [`OwnDeadline`]: cheaper than [`monotonic_nanos`] where the
/// processor's time-stamp counter is the kernel's clock source (then it is read
/// instead, and scaled), and [`monotonic_nanos`] itself elsewhere.
///
/// The counter is turned into nanoseconds from an anchor, a pair of readings of both
/// clocks that each thread takes again once the last is [`ANCHOR_AGE`] old; the scale
/// is measured between the thread's first anchor and its latest, so it follows the
/// monotonic clock's rate (and its adjustments) ever more closely. A time read here is
/// thus at most a few microseconds from what [`monotonic_nanos`] would have said (the
/// error of the scale over at most [`ANCHOR_AGE`]): another process can compare it
/// with its own monotonic clock (a blame page's start of a call, `crate::limits`).
/// Successive reads in one thread never go back.
#[inline]
pub fn call_nanos() -> u64 {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        if tsc::usable() {
            return tsc::nanos();
        }
    }
    monotonic_nanos()
}

/// The most time [`call_nanos`] extrapolates the time-stamp counter from one anchor.
pub const ANCHOR_AGE: Duration = Duration::from_millis(1);

/// The time-stamp counter behind [`call_nanos`] (x86-64 Linux).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod tsc {
    use std::cell::Cell;
    use std::sync::OnceLock;

    /// Whether the kernel keeps time with the counter: it then found it constant-rate
    /// and the same on every CPU (else it would have switched to another source), so
    /// readings taken on different CPUs compare.
    pub(super) fn usable() -> bool {
        static USABLE: OnceLock<bool> = OnceLock::new();
        *USABLE.get_or_init(|| {
            std::env::var_os("ARENA_NO_TSC").is_none()
                && std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
                    .is_ok_and(|s| s.trim() == "tsc")
        })
    }

    /// A thread's anchors and scale (all zero before its first read).
    struct Anchors {
        /// The first anchor (monotonic ns, counter), the base of the scale.
        first: Cell<(u64, u64)>,
        /// The latest anchor.
        last: Cell<(u64, u64)>,
        /// Nanoseconds per tick.
        scale: Cell<f64>,
        /// Ticks after `last` at which to take a new anchor (0: none taken yet).
        age_ticks: Cell<u64>,
        /// The last time returned (reads never go back).
        returned: Cell<u64>,
    }

    thread_local! {
        static ANCHORS: Anchors = const {
            Anchors {
                first: Cell::new((0, 0)),
                last: Cell::new((0, 0)),
                scale: Cell::new(0.0),
                age_ticks: Cell::new(0),
                returned: Cell::new(0),
            }
        };
    }

    #[inline]
    fn ticks() -> u64 {
        // SAFETY: RDTSC exists on every x86-64 processor and has no preconditions.
        unsafe { core::arch::x86_64::_rdtsc() }
    }

    impl Anchors {
        /// A new anchor now: the monotonic clock's time, returned. The first one
        /// measures the scale over 20 us; later ones from the first.
        #[cold]
        fn anchor(&self) -> u64 {
            let (mut m, mut t) = (super::monotonic_nanos(), ticks());
            let first = self.first.get();
            if first == (0, 0) {
                self.first.set((m, t));
                let (m0, t0) = (m, t);
                while m.saturating_sub(m0) < 20_000 || t <= t0 {
                    (m, t) = (super::monotonic_nanos(), ticks());
                }
                self.set_scale((m - m0) as f64 / (t - t0) as f64);
            } else if t > first.1 && m > first.0 {
                self.set_scale((m - first.0) as f64 / (t - first.1) as f64);
            }
            self.last.set((m, t));
            let returned = self.returned.get().max(m);
            self.returned.set(returned);
            returned
        }

        fn set_scale(&self, scale: f64) {
            self.scale.set(scale);
            self.age_ticks.set(((super::ANCHOR_AGE.as_nanos() as f64 / scale) as u64).max(1));
        }
    }

    #[inline]
    pub(super) fn nanos() -> u64 {
        ANCHORS.with(|a| {
            let t = ticks();
            let (m, t0) = a.last.get();
            // (Also a new anchor when the counter seems to go back, or before the first.)
            let since = t.wrapping_sub(t0);
            if since >= a.age_ticks.get() {
                return a.anchor();
            }
            let now = a.returned.get().max(m + (since as f64 * a.scale.get()) as u64);
            a.returned.set(now);
            now
        })
    }
}

/// A call shorter than this in wall time is charged its wall time.
pub const SHORT: Duration = Duration::from_millis(1);

/// The oldest a thread's mark may be at the start of a call (see the module's doc).
pub const MARK_AGE: Duration = Duration::from_millis(1);

/// The wall-clock backstop of a limit: a call still running this long after it
/// started is ended whatever its own time says (a bot that only waits for a CPU that
/// long is on a machine too loaded to play on). Twenty times the limit, plus 5 s.
pub fn backstop(limit: Duration) -> Duration {
    limit.saturating_mul(20).saturating_add(Duration::from_secs(5))
}

/// A task's scheduler counters: nanoseconds on a CPU, and nanoseconds runnable but
/// waiting for one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sched {
    /// Time on a CPU.
    pub cpu: u64,
    /// Time waiting in a run queue.
    pub wait: u64,
}

/// Parses a `schedstat` file: `cpu_ns wait_ns timeslices`.
pub fn parse_schedstat(text: &[u8]) -> Option<Sched> {
    let text = std::str::from_utf8(text).ok()?;
    let mut fields = text.split_ascii_whitespace();
    let cpu = fields.next()?.parse().ok()?;
    let wait = fields.next()?.parse().ok()?;
    Some(Sched { cpu, wait })
}

/// Reads a `schedstat` file kept open (from its start, without moving it).
#[cfg(unix)]
fn pread_sched(file: &File) -> Option<Sched> {
    use std::os::unix::fs::FileExt;
    let mut buf = [0u8; 96];
    let n = file.read_at(&mut buf, 0).ok()?;
    parse_schedstat(&buf[..n])
}

#[cfg(not(unix))]
fn pread_sched(_file: &File) -> Option<Sched> {
    None
}

/// What the calling thread's own time is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Wall time less run-queue waits (`/proc/thread-self/schedstat`).
    Schedstat,
    /// The thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): sleeping is not charged.
    ThreadCpu,
}

thread_local! {
    /// This thread's `schedstat`, opened at its first use (`None` inside: unavailable).
    static SCHEDSTAT: RefCell<Option<Option<File>>> = const { RefCell::new(None) };
    /// This thread's mark: (wall, own) at the last reading, 0 wall for none yet.
    static MARK: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
    /// Whether this thread's own time is wall time less waits (else CPU time).
    static SCHEDSTAT_SCALE: Cell<Option<bool>> = const { Cell::new(None) };
}

/// The calling thread's counters, or `None` where they cannot be read.
pub fn thread_sched() -> Option<Sched> {
    SCHEDSTAT.with(|cell| {
        let mut cell = cell.borrow_mut();
        let file = cell.get_or_insert_with(|| File::open("/proc/thread-self/schedstat").ok());
        file.as_ref().and_then(pread_sched)
    })
}

/// Where this thread's own time comes from.
pub fn source() -> Source {
    if thread_sched().is_some() { Source::Schedstat } else { Source::ThreadCpu }
}

/// The calling thread's CPU time in nanoseconds.
#[cfg(unix)]
pub fn thread_cpu_nanos() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write; the thread CPU clock always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(not(unix))]
pub fn thread_cpu_nanos() -> u64 {
    monotonic_nanos()
}

/// The most a reading of the calling thread's own time ([`own_now`]) may fall short of
/// the truth: the wall clock and the thread's counters are two reads, and a wait for a
/// CPU between them would count in the second and not in the first. A reading whose
/// two clock reads are further apart than this is made again (a few times at most).
pub const READ_ERROR: Duration = Duration::from_micros(20);

/// Readings [`own_now`] makes at most before it takes one whose reads were further
/// apart than [`READ_ERROR`] (a machine so loaded that every try was preempted).
const READ_TRIES: u32 = 8;

/// The calling thread's own time now, on a scale of its own (only differences mean
/// anything), with the wall time ([`call_nanos`]) it is the own time at: `(now, own)`.
/// It never runs faster than wall time, and falls short of the truth by at most
/// [`READ_ERROR`] (but on a machine that preempted every one of [`READ_TRIES`] tries;
/// before, a wait for a CPU between the wall clock's read and the counters' made it
/// fall short by that wait: under load, a call stopped at its own limit by a script's
/// deadline was once charged less than that limit a moment later).
pub fn own_now() -> (u64, u64) {
    let sched = consistent_reading(call_nanos, thread_sched);
    SCHEDSTAT_SCALE.with(|c| {
        if c.get().is_none() {
            c.set(Some(sched.1.is_some()));
        }
    });
    match sched {
        (now, Some(wait)) => (now, now.saturating_sub(wait)),
        (now, None) => (now, thread_cpu_nanos()),
    }
}

/// A wall time read with `clock` and the thread's wait for a CPU read with `sched`
/// (`None` where the counters cannot be read) that belong together: the two clock
/// reads around the counters' read at most [`READ_ERROR`] apart, or the last of
/// [`READ_TRIES`] tries.
fn consistent_reading(mut clock: impl FnMut() -> u64, mut sched: impl FnMut() -> Option<Sched>) -> (u64, Option<u64>) {
    let mut tries = 0;
    loop {
        let now = clock();
        let Some(s) = sched() else {
            return (now, None);
        };
        tries += 1;
        // The counters were read between `now` and `after`: a wait that counts in them
        // and not in `now` is at most the time between the two.
        let after = clock();
        if after.saturating_sub(now) <= READ_ERROR.as_nanos() as u64 || tries >= READ_TRIES {
            return (now, Some(s.wait));
        }
    }
}

/// Reads the thread's own time now and makes it the thread's mark: `(now, own)`.
fn mark_now() -> (u64, u64) {
    let (now, own) = own_now();
    MARK.with(|m| m.set((now, own)));
    (now, own)
}

/// The time of one call made in the calling thread (see the module's doc). Started
/// before the call, read during or after it, in the same thread.
#[derive(Debug, Clone, Copy)]
pub struct Stopwatch {
    /// Wall time at the start.
    wall0: u64,
    /// The thread's own time at the start, or at a mark at most [`MARK_AGE`] before.
    own0: u64,
}

impl Stopwatch {
    /// Starts timing; reads the thread's counters only when its mark is older than
    /// [`MARK_AGE`].
    #[inline]
    pub fn start() -> Stopwatch {
        let now = call_nanos();
        let (wall, own) = MARK.with(Cell::get);
        if wall != 0 && now.saturating_sub(wall) <= MARK_AGE.as_nanos() as u64 {
            Stopwatch { wall0: now, own0: own }
        } else {
            let (now, own) = mark_now();
            Stopwatch { wall0: now, own0: own }
        }
    }

    /// Starts timing, reading the thread's counters now.
    pub fn start_exact() -> Stopwatch {
        let (now, own) = mark_now();
        Stopwatch { wall0: now, own0: own }
    }

    /// Wall time at the start ([`call_nanos`]: on the monotonic clock's scale).
    pub fn started(&self) -> u64 {
        self.wall0
    }

    /// The thread's own time the watch counts from, when it is wall time less waits
    /// (so that another process reading this thread's counters can go on measuring it
    /// with [`task_own`]); `None` on the CPU-time fallback.
    pub fn own_origin(&self) -> Option<u64> {
        SCHEDSTAT_SCALE.with(Cell::get).unwrap_or(false).then_some(self.own0)
    }

    /// Wall time since the start.
    pub fn wall(&self) -> Duration {
        Duration::from_nanos(call_nanos().saturating_sub(self.wall0))
    }

    /// Own time since the start: the wall time while it is under [`SHORT`], else read
    /// from the thread's counters (at most the wall time).
    #[inline]
    pub fn own(&self) -> Duration {
        let now = call_nanos();
        let wall = now.saturating_sub(self.wall0);
        if wall < SHORT.as_nanos() as u64 {
            return Duration::from_nanos(wall);
        }
        self.own_exact()
    }

    /// Own time since the start, always read from the counters (at most the wall time).
    pub fn own_exact(&self) -> Duration {
        let (now, own) = mark_now();
        Duration::from_nanos(own.saturating_sub(self.own0).min(now.saturating_sub(self.wall0)))
    }
}

/// A deadline on a thread's own time, checked often and cheaply: the wall clock is read
/// first, and the counters only once the wall time says the limit may have been
/// reached (own time never runs faster than wall time). Used by the script VMs'
/// hooks.
#[derive(Debug, Clone, Copy)]
pub struct OwnDeadline {
    watch: Stopwatch,
    limit: u64,
    /// No need to read the counters before this wall time.
    next_check: u64,
    /// The wall-clock backstop.
    backstop: u64,
}

impl OwnDeadline {
    /// A deadline `limit` of own time from now.
    pub fn start(limit: Duration) -> OwnDeadline {
        let watch = Stopwatch::start();
        let limit_ns = limit.as_nanos().min(u128::from(u64::MAX / 4)) as u64;
        OwnDeadline {
            watch,
            limit: limit_ns,
            next_check: watch.wall0.saturating_add(limit_ns),
            backstop: watch.wall0.saturating_add(backstop(limit).as_nanos().min(u128::from(u64::MAX / 4)) as u64),
        }
    }

    /// True once the call has used its time (or reached the wall-clock backstop).
    #[inline]
    pub fn passed(&mut self) -> bool {
        let now = call_nanos();
        if now < self.next_check {
            return false;
        }
        if now >= self.backstop {
            return true;
        }
        let (now, own) = mark_now();
        let used = own.saturating_sub(self.watch.own0).min(now.saturating_sub(self.watch.wall0));
        if used >= self.limit {
            return true;
        }
        // Own time cannot reach the limit before the rest of it has passed in wall time.
        self.next_check = now + (self.limit - used).max(100_000);
        false
    }
}

/// One task watched from outside: its `schedstat` and `stat` files, kept open.
///
/// The kernel adds a wait to a task's counters only when the task gets a CPU again, so
/// a task waiting in a run queue *now* shows none of that wait yet. [`TaskProbe::waiting`]
/// tells that case apart: the task is runnable (state `R`) but has had no CPU time since
/// the previous reading; a verdict is then put off until it has run again, and rests on
/// the own time it surely used ([`TaskProbe::own_surely`]), never on [`TaskProbe::own`].
#[derive(Debug)]
pub struct TaskProbe {
    sched: File,
    stat: File,
    /// CPU time at the previous reading.
    last_cpu: u64,
    /// When [`TaskProbe::mark`] (or [`TaskProbe::own_surely`]) last read it (monotonic
    /// nanoseconds).
    mark_wall: u64,
}

impl TaskProbe {
    /// Opens task `tid` of process `pid`.
    pub fn open(pid: u32, tid: u32) -> Option<TaskProbe> {
        let sched = File::open(format!("/proc/{pid}/task/{tid}/schedstat")).ok()?;
        let stat = File::open(format!("/proc/{pid}/task/{tid}/stat")).ok()?;
        let last_cpu = pread_sched(&sched)?.cpu;
        Some(TaskProbe { sched, stat, last_cpu, mark_wall: monotonic_nanos() })
    }

    /// The task's counters now.
    pub fn read(&mut self) -> Option<Sched> {
        pread_sched(&self.sched)
    }

    /// The task's own time at wall time `now` (wall time less its waits so far).
    pub fn own(&mut self, now: u64) -> Option<u64> {
        self.read().map(|s| now.saturating_sub(s.wait))
    }

    /// The task's state letter now (`R`, `S`, `T` for stopped, ...).
    pub fn state(&mut self) -> Option<u8> {
        task_state(&self.stat)
    }

    /// Notes the task's CPU time now, for [`TaskProbe::waiting`] and
    /// [`TaskProbe::own_surely`] to compare with.
    pub fn mark(&mut self) {
        let now = monotonic_nanos();
        if let Some(s) = self.read() {
            self.last_cpu = s.cpu;
            self.mark_wall = now;
        }
    }

    /// The task's own time that is certain at wall time `now`, for a verdict: never
    /// more than it used, whatever the load. `None` while it waits for a CPU and has not
    /// run since the last [`TaskProbe::mark`] (look again a tick later). Marks anew.
    ///
    /// [`TaskProbe::own`] counts as the task's own time the wait it may be sitting in
    /// *now* (the kernel adds a wait to its counters only when it runs again), which on
    /// a crowded CPU is tens of milliseconds too much. Here it is the wall time up to
    /// which its counters are complete ([`TaskProbe::sure_at`]) less its waits.
    pub fn own_surely(&mut self, now: u64) -> Option<u64> {
        let (at, s) = self.sure_at(now)?;
        Some(at.saturating_sub(s.wait))
    }

    /// A wall time up to which the task's waits are all in its counters, and the
    /// counters now: `now` for a task that is not runnable (asleep, blocked: it sits in
    /// no wait); for a runnable one that has run since the last [`TaskProbe::mark`], the
    /// mark's time (it was on a CPU at some moment after it, when every wait before that
    /// moment was counted). `None` while it is runnable and has not run since the mark
    /// (or cannot be read). Marks anew.
    pub fn sure_at(&mut self, now: u64) -> Option<(u64, Sched)> {
        let s = self.read()?;
        let runnable = task_state(&self.stat) == Some(b'R');
        let (ran, mark) = (s.cpu != self.last_cpu, self.mark_wall);
        self.last_cpu = s.cpu;
        self.mark_wall = now;
        if !runnable {
            Some((now, s))
        } else if ran {
            Some((mark, s))
        } else {
            None
        }
    }

    /// True when the task is runnable but has not run since the previous
    /// [`TaskProbe::mark`] (or call of this; at least a scheduler tick earlier, so that a
    /// running task shows CPU time): it is waiting for a CPU, and its counters do not
    /// show that wait yet.
    pub fn waiting(&mut self) -> bool {
        let Some(cpu) = self.read().map(|s| s.cpu) else { return false };
        let ran = cpu != self.last_cpu;
        self.last_cpu = cpu;
        !ran && task_state(&self.stat) == Some(b'R')
    }
}

/// The state letter of a task's `stat` file (`R`, `S`, `D`, `Z`, ...).
#[cfg(unix)]
fn task_state(file: &File) -> Option<u8> {
    use std::os::unix::fs::FileExt;
    let mut buf = [0u8; 512];
    let n = file.read_at(&mut buf, 0).ok()?;
    stat_fields(&buf[..n])?.next()?.bytes().next()
}

/// The fields of a `/proc/<pid>/stat` line after the command name, from the state (field
/// 3) on. The name is in parentheses and may hold anything, spaces and `)` included: the
/// fields follow the last `)`.
pub fn stat_fields(stat: &[u8]) -> Option<std::str::SplitAsciiWhitespace<'_>> {
    let close = stat.iter().rposition(|&b| b == b')')?;
    Some(std::str::from_utf8(&stat[close + 1..]).ok()?.split_ascii_whitespace())
}

#[cfg(not(unix))]
fn task_state(_file: &File) -> Option<u8> {
    None
}

/// How long a verdict is put off while a task waits for a CPU (see [`TaskProbe`]):
/// longer than a scheduler tick, so that a task that does run shows CPU time by then.
pub const RECHECK: Duration = Duration::from_millis(5);

/// The tasks of a program bot, and the run-queue waits they had at the start of a call:
/// every thread of its first process and of every process below it, found through
/// `/proc/<pid>/task/<tid>/children` (again whenever a long call is measured).
#[derive(Debug, Default)]
pub struct ProgramTasks {
    root: u32,
    /// (task id, its probe, its wait at the start of the call in progress).
    tasks: Vec<(u32, TaskProbe, Option<u64>)>,
    /// Whether the tasks were looked for since the program started.
    found: bool,
}

impl ProgramTasks {
    /// The tasks of the program whose first process is `root` (found at first use).
    pub fn new(root: u32) -> ProgramTasks {
        ProgramTasks { root, tasks: Vec::new(), found: false }
    }

    /// Looks for the program's tasks again, keeping those already open.
    pub fn refresh(&mut self) {
        self.found = true;
        let mut seen: Vec<u32> = Vec::new();
        let mut queue = vec![self.root];
        while let Some(pid) = queue.pop() {
            if seen.len() > 4096 {
                break;
            }
            let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
            for entry in dir.flatten() {
                let Some(tid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
                if seen.contains(&tid) {
                    continue;
                }
                seen.push(tid);
                if !self.tasks.iter().any(|t| t.0 == tid)
                    && let Some(mut probe) = TaskProbe::open(pid, tid)
                {
                    // A task first seen now is not forgiven its earlier waits.
                    let start = probe.read().map(|s| s.wait);
                    self.tasks.push((tid, probe, start));
                }
                if let Ok(children) = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/children")) {
                    queue.extend(children.split_ascii_whitespace().filter_map(|c| c.parse::<u32>().ok()));
                }
            }
        }
        self.tasks.retain(|t| seen.contains(&t.0));
    }

    /// Marks the start of a call: every known task's wait now.
    fn begin(&mut self) {
        if !self.found {
            self.refresh();
        }
        for t in &mut self.tasks {
            let now = t.1.read();
            t.2 = now.map(|s| s.wait);
            t.1.last_cpu = now.map_or(0, |s| s.cpu);
        }
    }

    /// The waits of the known tasks since [`ProgramTasks::begin`] (tasks that ended
    /// since, or were not known then, count nothing); with `born`, their whole waits.
    fn waited(&mut self, born: bool) -> u64 {
        self.tasks
            .iter_mut()
            .filter_map(|t| {
                let wait = t.1.read()?.wait;
                Some(if born { wait } else { wait.saturating_sub(t.2?) })
            })
            .fold(0u64, u64::saturating_add)
    }

    /// Notes every task's CPU time now ([`TaskProbe::mark`]).
    fn mark(&mut self) {
        for t in &mut self.tasks {
            t.1.mark();
        }
    }

    /// A wall time up to which every task's waits are in its counters
    /// ([`TaskProbe::sure_at`]; `now` when there is none), or `None` while one of them
    /// is most likely waiting for a CPU and has not run since the mark. Marks anew.
    fn sure_at(&mut self, now: u64) -> Option<u64> {
        let mut at = now;
        let mut waiting = false;
        for t in &mut self.tasks {
            match t.1.sure_at(now) {
                Some((since, _)) => at = at.min(since),
                // Runnable and not run since the mark, unless it has ended.
                None => waiting |= t.1.read().is_some(),
            }
        }
        (!waiting).then_some(at)
    }
}

/// When a program last wrote to its stdout, by the kernel's stamp on it (`crate::process`'s
/// `stamped`), in nanoseconds of the monotonic clock: for
/// [`ProgramTimer::answered_late`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// At the earliest; `None` where that last write may not be the answer read
    /// (something may have been written after it: an answer to a request sent ahead, a
    /// `#` line, lines past those read, or the rest of an answer held up by a full pipe).
    pub earliest: Option<u64>,
    /// At the latest.
    pub latest: u64,
    /// When the host last wrote to the program's stdin, at the latest (its stamp, where
    /// it is one and was not read when the request was written).
    pub requested: Option<u64>,
    /// The real-time clock less the monotonic one when the stamp (a real time) was
    /// read: the earliest moment is used only if the real-time clock was not set in
    /// the call ([`real_offset`] at the call's start within a millisecond of this).
    pub offset: u64,
}

/// The real-time clock less the monotonic clock, in nanoseconds: constant while nobody
/// sets the real-time clock (both run at the rate time is kept at). Read between two
/// readings of the monotonic clock, the closest of three tries, so that a thread taken
/// off its CPU between the two clocks' readings does not move it (within a few
/// microseconds unless all three tries were interrupted).
#[cfg(unix)]
pub fn real_offset() -> u64 {
    let real = || {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid timespec to write; CLOCK_REALTIME always exists.
        unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
        (ts.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as u64)
    };
    let mut best = (u64::MAX, 0);
    for _ in 0..3 {
        let (before, real, after) = (monotonic_nanos(), real(), monotonic_nanos());
        let gap = after.saturating_sub(before);
        if gap < best.0 {
            best = (gap, real.saturating_sub(before + gap / 2));
        }
        if gap < 20_000 {
            break;
        }
    }
    best.1
}

/// Without a real-time clock to compare: none ever matches a stamp (there are none).
#[cfg(not(unix))]
pub fn real_offset() -> u64 {
    u64::MAX
}

/// The time of one call to a program bot: wall time less the run-queue waits of the
/// program's tasks and of the calling thread (see the module's doc), with a deadline
/// on it.
///
/// An answer is judged by when it was written, not by when the calling thread, waiting
/// for a CPU, got to read it ([`ProgramTimer::answered_late`]): by the kernel's stamp
/// on the program's stdout where there is one, and otherwise, when a `poll` woken by
/// its own deadline finds the answer there, by taking the calling thread's wait after
/// that deadline as the program's time. Without this, a host thread crowded off its CPU
/// for longer than a program sleeps past its limit would read the late answer as in
/// time.
#[derive(Debug)]
pub struct ProgramTimer {
    wall0: u64,
    /// The calling thread's wait at the start of the call: the host's waits from then
    /// on are left out. Read before the request is written: a pipe's writer wakes its
    /// reader on its own CPU, where the program can take the CPU from a crowded host
    /// thread in the middle of the write, and that wait is the host's.
    host_wait0: Option<u64>,
    /// The calling thread's wait at the start of the `poll` in progress.
    poll_wait0: Option<u64>,
    /// The calling thread's waits that are the program's time (after polls woken by
    /// their deadline), left out of the time charged but not of the late answer's.
    host_unexcused: u64,
    /// A poll woken by its deadline found the answer (or part of it) there: it came
    /// after that deadline, and its time decides whether it was late.
    ready_after_deadline: bool,
    /// The last poll woken by its deadline: when it ended, and how long the calling
    /// thread waited for a CPU in it (the end of [`ProgramTimer::host_unexcused`]).
    late_poll: Option<(u64, u64)>,
    /// What [`ProgramTimer::charge`] read: the call's wall time, the calling thread's
    /// waits in it, and the program's tasks'.
    charged: (u64, u64, u64),
    /// When the request was all written at the latest ([`ProgramTimer::request_written`]):
    /// the program's own time to its answer counts from there at the latest.
    requested: Option<u64>,
    /// [`real_offset`] at the call's start: a stamp (a real time) is compared with it.
    offset0: u64,
    /// [`ProgramTimer::left`] said the time was up: the call ended at its deadline.
    expired: bool,
    /// The backstop came and the program's pipes had their one last look (a poll that
    /// waits for nothing): what it wrote before is read and judged by its stamp, as an
    /// answer read after the limit is.
    looked_at_backstop: bool,
    limit: u64,
    next_check: u64,
    backstop: u64,
    /// The limit seemed reached at the last check: the tasks' CPU times were noted, to
    /// tell at the next whether one was only waiting for a CPU.
    suspect: bool,
    /// A program started for the call ([`ProgramTimer::start_spawned`]): its first
    /// task's time on a CPU before the clock started (counted), and its run-queue wait
    /// then (left out of the waits, which count from its birth).
    before: Sched,
}

impl ProgramTimer {
    /// Starts the time of a call with `limit`; `tasks` are the program's (for a program
    /// started for this call, none yet: its tasks are all born within the call).
    pub fn start(limit: Duration, tasks: Option<&mut ProgramTasks>) -> ProgramTimer {
        if let Some(tasks) = tasks {
            tasks.begin();
        }
        // Side by side: a wait between the two readings is neither charged nor excused.
        let host_wait0 = thread_sched().map(|s| s.wait);
        let wall0 = monotonic_nanos();
        let limit_ns = limit.as_nanos().min(u128::from(u64::MAX / 4)) as u64;
        ProgramTimer {
            wall0,
            host_wait0,
            poll_wait0: None,
            host_unexcused: 0,
            ready_after_deadline: false,
            late_poll: None,
            charged: (0, 0, 0),
            requested: None,
            offset0: real_offset(),
            expired: false,
            looked_at_backstop: false,
            limit: limit_ns,
            next_check: wall0.saturating_add(limit_ns),
            backstop: wall0.saturating_add(backstop(limit).as_nanos().min(u128::from(u64::MAX / 4)) as u64),
            suspect: false,
            before: Sched::default(),
        }
    }

    /// This timer with its backstop come already (for the tests of what reads with it).
    #[cfg(test)]
    pub(crate) fn past_backstop(mut self) -> ProgramTimer {
        self.backstop = self.wall0;
        self
    }

    /// Starts the time of a call to a program started for it, once its `execve` is
    /// done (`root`: its first process). The host's set-up before that is not the
    /// program's time: the box's uid and control groups, the fork of the host's process
    /// and the exec's release of that copy, where a crowded kernel can block for
    /// hundreds of milliseconds on locks another process holds (seen beside a hostile
    /// tournament: 281 ms of a 357 ms call). What `root` ran before the clock started
    /// (that code of the host's, the exec, and the program's own first steps if it got
    /// a CPU before this thread did) is counted, its time on a CPU, so no work of the
    /// program's is free.
    pub fn start_spawned(limit: Duration, root: u32) -> ProgramTimer {
        let mut timer = ProgramTimer::start(limit, None);
        let before = std::fs::read(format!("/proc/{root}/schedstat")).ok().and_then(|b| parse_schedstat(&b));
        timer.before = before.unwrap_or_default();
        timer.next_check = timer.next_check.saturating_sub(timer.before.cpu);
        timer
    }

    /// The own time used up to `now`: the wall time less the waits.
    fn measure(&mut self, now: u64, tasks: Option<&mut ProgramTasks>, born: bool) -> u64 {
        let (wall, host, program) = self.parts(now, tasks, born);
        wall.saturating_sub(host.saturating_add(program)).saturating_add(self.before.cpu)
    }

    /// The wall time up to `now`, the calling thread's waits in it, and the program's.
    fn parts(&mut self, now: u64, tasks: Option<&mut ProgramTasks>, born: bool) -> (u64, u64, u64) {
        let wall = now.saturating_sub(self.wall0);
        let host = match (self.host_wait0, thread_sched()) {
            (Some(w0), Some(s)) => s.wait.saturating_sub(w0),
            _ => 0,
        };
        // The first task's wait before the clock started is in its waits (counted from
        // its birth) but not in the wall time.
        let program = tasks.map_or(0, |t| t.waited(born)).saturating_sub(self.before.wait);
        (wall, host, program)
    }

    /// The wall time left before the limit may have been reached, or `None` once it
    /// has (or the backstop has come). `tasks`: the program's; `born`: they were all
    /// started within this call (their whole waits are forgiven).
    pub fn left(&mut self, tasks: Option<&mut ProgramTasks>, born: bool) -> Option<Duration> {
        let left = self.left_inner(tasks, born);
        self.expired |= left.is_none();
        left
    }

    fn left_inner(&mut self, mut tasks: Option<&mut ProgramTasks>, born: bool) -> Option<Duration> {
        let now = monotonic_nanos();
        if now >= self.backstop {
            // One look that waits for nothing, first: a host thread kept off its CPU
            // past the backstop (a machine far past 12 busy tasks per core) would else
            // end a call whose answer sat in the pipe; read now, the answer is judged
            // by its stamp (`answered_late`), so a late one stays late.
            if !std::mem::replace(&mut self.looked_at_backstop, true) {
                return Some(Duration::ZERO);
            }
            return None;
        }
        if now < self.next_check {
            return Some(Duration::from_nanos(self.next_check - now));
        }
        if let Some(t) = tasks.as_deref_mut() {
            t.refresh();
        }
        let used = self.measure(now, tasks.as_deref_mut(), born);
        let rest = match tasks {
            _ if used < self.limit => {
                self.suspect = false;
                (self.limit - used).max(100_000)
            }
            // The limit seems reached, but a task may be waiting for a CPU with that
            // wait not counted yet: look again a tick later, and decide on the time the
            // program surely used (its tasks' waits complete up to a moment after the
            // mark), or look again while one still waits without running.
            Some(t) if !self.suspect => {
                self.suspect = true;
                t.mark();
                RECHECK.as_nanos() as u64
            }
            Some(t) => {
                if let Some(at) = t.sure_at(now)
                    && self.measure(at, Some(t), born) >= self.limit
                {
                    return None;
                }
                RECHECK.as_nanos() as u64
            }
            None => return None,
        };
        self.next_check = now + rest;
        Some(Duration::from_nanos(rest))
    }

    /// Whether [`ProgramTimer::answered_late`] may need the stamps: read them before
    /// [`ProgramTimer::charge`] if so. A program's write wakes the host before the
    /// kernel stamps it; a program taken off its CPU in between stamps its write only
    /// when it runs again, and that wait must be in the waits `charge` reads.
    pub fn wants_stamp(&self) -> bool {
        self.ready_after_deadline || monotonic_nanos().saturating_sub(self.wall0) > self.limit
    }

    /// The request has been written in full (the first call counts; a call that writes
    /// nothing says so at its start). Where the host's thread waited for a CPU in the
    /// middle of the write, the program could not answer before the end of it; where it
    /// waited after the write, before it got back, the stamp on the program's stdin
    /// tells ([`Written::requested`]).
    pub fn request_written(&mut self) {
        if self.requested.is_none() {
            self.requested = Some(monotonic_nanos());
        }
    }

    /// Before each `poll` of the call (for at most the time [`ProgramTimer::left`]
    /// said): notes the calling thread's wait so far.
    pub fn poll_starts(&mut self) {
        self.poll_wait0 = thread_sched().map(|s| s.wait);
    }

    /// After each `poll`; `ready`: it found something to read or write. A poll that
    /// returned past its deadline was woken either by what it waited for, before the
    /// deadline, or by the deadline itself; the thread's wait since the poll started
    /// tells which (it waited for a CPU from its wake-up to now). Woken by its
    /// deadline, that wait is the program's time, and what it found came after the
    /// deadline: [`ProgramTimer::answered_late`] then judges the answer by its time.
    pub fn poll_ended(&mut self, ready: bool) {
        let Some(wait0) = self.poll_wait0.take() else { return };
        let now = monotonic_nanos();
        if now < self.next_check {
            return;
        }
        let Some(s) = thread_sched() else { return };
        let waited = s.wait.saturating_sub(wait0);
        if now.saturating_sub(waited) >= self.next_check {
            self.host_unexcused = self.host_unexcused.saturating_add(waited);
            self.ready_after_deadline |= ready;
            self.late_poll = Some((now, waited));
        }
    }

    /// Whether an answer read in full is late, once the call was charged
    /// ([`ProgramTimer::charge`]): that time, when it is. Two rules, each meant to find
    /// late only an answer written past the limit of own time (what the stamps cannot
    /// bound, the callers leave out: [`Written::earliest`]):
    ///
    /// 1. **Read after the limit in wall time** (and not cut off by the call's deadline),
    ///    with a stamp of when it was written at the earliest: its own time is from the
    ///    end of the request's write ([`ProgramTimer::request_written`]: by the stamp on
    ///    the program's stdin where there is one, else when the host got back from the
    ///    write; never before the call's start) to that stamp,
    ///    less the program's tasks' waits. This is what the host's waits cannot hide: a
    ///    host thread kept off its CPU for a second between two polls (not in one, where
    ///    rule 2 sees it) had that second taken out as the host's, and a sleep of 150 ms
    ///    read as 41 ms of own time. The host's waits do not enter here: the stamp says
    ///    when the program was done, whenever the host got to read it.
    /// 2. **Found after a poll's deadline**: its own time, with the calling thread's
    ///    waits after that deadline taken as the program's time rather than the host's,
    ///    is over the limit. That own time is the wall time less the host's other waits
    ///    and the program's tasks' waits. The two kinds of wait may overlap (both waited
    ///    for a CPU at once after the deadline), so the charged time, which takes both
    ///    out and stops at zero, is not the base here. The part of the last such wait
    ///    after the stamp's latest moment came after the answer: it is the host's, and
    ///    left out.
    ///
    /// `written` tells, when it can, when the program last wrote to its stdout (the
    /// kernel's stamp, see `crate::process`'s `stamped`); asked only when the answer
    /// may be late by either rule.
    pub fn answered_late(&self, written: impl FnOnce() -> Option<Written>) -> Option<Duration> {
        let (wall, host, program) = self.charged;
        let over = |own: u64| {
            let time = Duration::from_nanos(own.saturating_add(self.before.cpu));
            (time.as_nanos() > u128::from(self.limit)).then_some(time)
        };
        let late = |unexcused: u64| over(wall.saturating_sub(host.saturating_sub(unexcused)).saturating_sub(program));
        let after_deadline = self.ready_after_deadline && late(self.host_unexcused).is_some();
        let read_after_limit = !self.expired && wall > self.limit;
        if !after_deadline && !read_after_limit {
            return None;
        }
        let written = written();
        if read_after_limit
            && let Some(w) = written
            && let Some(at) = w.earliest
            && let Some(requested) = self.requested
            && self.offset0.abs_diff(w.offset) <= 1_000_000
            && let from = requested.min(w.requested.unwrap_or(u64::MAX)).max(self.wall0)
            && let Some(time) = over(at.saturating_sub(from).saturating_sub(program))
        {
            return Some(time);
        }
        if !after_deadline {
            return None;
        }
        let mut unexcused = self.host_unexcused;
        if let (Some((end, waited)), Some(w)) = (self.late_poll, written) {
            unexcused = unexcused.saturating_sub(waited.min(end.saturating_sub(w.latest)));
        }
        late(unexcused)
    }

    /// The own time the call took, at its end: its wall time if under [`SHORT`]. After
    /// a long call the program's tasks are looked for again, for the next call.
    pub fn charge(&mut self, tasks: Option<&mut ProgramTasks>, born: bool) -> Duration {
        let now = monotonic_nanos();
        let wall = now.saturating_sub(self.wall0);
        if wall < SHORT.as_nanos() as u64 {
            self.charged = (wall, 0, 0);
            return Duration::from_nanos(wall.saturating_add(self.before.cpu));
        }
        self.charged = match tasks {
            Some(t) => {
                if born {
                    t.refresh();
                }
                let parts = self.parts(now, Some(&mut *t), born);
                if !born {
                    t.refresh();
                }
                parts
            }
            None => self.parts(now, None, born),
        };
        let (wall, host, program) = self.charged;
        Duration::from_nanos(wall.saturating_sub(host.saturating_add(program)).saturating_add(self.before.cpu))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timer whose call was charged `(wall, host, program)` milliseconds of wall time and
    /// waits, after a poll woken by its 50 ms deadline that ended at `end` ms (from the
    /// start) having waited `waited` ms for a CPU, and found the answer.
    fn read_late(wall: u64, host: u64, program: u64, end: u64, waited: u64) -> ProgramTimer {
        const MS: u64 = 1_000_000;
        let mut timer = ProgramTimer::start(Duration::from_millis(50), None);
        timer.host_unexcused = waited * MS;
        timer.ready_after_deadline = true;
        timer.late_poll = Some((timer.wall0 + end * MS, waited * MS));
        timer.charged = (wall * MS, host * MS, program * MS);
        timer.requested = Some(timer.wall0);
        timer.offset0 = 0;
        timer
    }

    /// A stamp whose latest moment is `ms` after the start (the earliest a tick before).
    fn stamp(timer: &ProgramTimer, ms: u64) -> Option<Written> {
        let latest = timer.wall0 + ms * 1_000_000;
        Some(Written { earliest: Some(latest - 4_000_000), latest, requested: None, offset: 0 })
    }

    #[test]
    fn an_answer_read_late_is_charged_the_hosts_wait_only_up_to_when_it_was_written() {
        // 4 ms of work that waited 66 ms for a CPU (written at 70 ms); the host, woken
        // by its deadline at 50 ms, got a CPU at 127 ms. Without a stamp all 77 ms of its
        // wait may have been the program's: late. The stamp says 57 ms of it came after.
        let timer = read_late(127, 77, 66, 127, 77);
        assert_eq!(timer.answered_late(|| None), Some(Duration::from_millis(61)));
        assert_eq!(timer.answered_late(|| stamp(&timer, 70)), None);
        // Both waited at once: 4 ms of work written at 103 ms after 99 ms of waits, the
        // host's 53 ms wait after its deadline beside them. Its own time is 4 ms, not the
        // 53 ms that taking both waits out (stopping at zero) and adding one back gives.
        let timer = read_late(103, 53, 99, 103, 53);
        assert_eq!(timer.answered_late(|| None), None);
        // A program that slept 150 ms and wrote then, read at 400 ms: late by its own
        // time (150 ms), whatever the stamp.
        let timer = read_late(400, 350, 0, 400, 350);
        assert_eq!(timer.answered_late(|| None), Some(Duration::from_millis(400)));
        assert_eq!(timer.answered_late(|| stamp(&timer, 150)), Some(Duration::from_millis(146)));
        // A stamp is asked for only when the answer may be late.
        let timer = read_late(45, 10, 20, 45, 10);
        assert_eq!(timer.answered_late(|| panic!("asked for a stamp")), None);
    }

    /// At the backstop the program's pipes get one look that waits for nothing, then
    /// the call is over; an answer read in that look is judged like any answer read
    /// after the limit (the call did not end at its deadline).
    #[test]
    fn the_backstop_gives_one_last_look_then_ends_the_call() {
        let mut timer = ProgramTimer::start(Duration::from_millis(50), None);
        timer.backstop = timer.wall0;
        assert_eq!(timer.left(None, false), Some(Duration::ZERO));
        assert!(!timer.expired);
        assert_eq!(timer.left(None, false), None);
        assert!(timer.expired);
    }

    #[test]
    fn an_answer_written_past_the_limit_is_late_however_long_the_host_waited_between_polls() {
        const MS: u64 = 1_000_000;
        // The case CI saw: a sleep of 150 ms, read after 1.12 s of which the host waited
        // 1.08 s for a CPU, outside any poll (no poll was woken by its deadline). Charged
        // 40 ms; written 150 ms after the request.
        let mut timer = ProgramTimer::start(Duration::from_millis(50), None);
        timer.requested = Some(timer.wall0 + MS);
        timer.offset0 = 0;
        timer.charged = (1120 * MS, 1080 * MS, 0);
        assert_eq!(timer.answered_late(|| None), None, "no stamp: the old rule");
        assert_eq!(timer.answered_late(|| stamp(&timer, 155)), Some(Duration::from_millis(150)));
        // Only the earliest moment proves it late: with answers to later requests owed,
        // the last write may be one of theirs.
        let later_owed = || stamp(&timer, 155).map(|w| Written { earliest: None, ..w });
        assert_eq!(timer.answered_late(later_owed), None);
        // Nor once the real-time clock (the stamp's) was set in the call.
        let clock_set = || stamp(&timer, 155).map(|w| Written { offset: 2_000_000, ..w });
        assert_eq!(timer.answered_late(clock_set), None);
        // Cut off by its deadline (the lines read before it stand): not judged again.
        timer.expired = true;
        assert_eq!(timer.answered_late(|| panic!("asked for a stamp")), None);
        // An honest answer read late: 8 ms of work after 60 ms of waits for a CPU, written
        // at 74 ms, read at 400 ms after the host's 330 ms of waits.
        let mut timer = ProgramTimer::start(Duration::from_millis(50), None);
        timer.requested = Some(timer.wall0 + 2 * MS);
        timer.offset0 = 0;
        timer.charged = (400 * MS, 330 * MS, 60 * MS);
        assert_eq!(timer.answered_late(|| stamp(&timer, 74)), None);
        // Its own time counts from the end of the request's write: a host held off its CPU
        // in the middle of the write, 200 ms, kept the program from answering before.
        timer.requested = Some(timer.wall0 + 200 * MS);
        timer.charged = (400 * MS, 250 * MS, 0);
        assert_eq!(timer.answered_late(|| stamp(&timer, 244)), None);
        assert_eq!(timer.answered_late(|| stamp(&timer, 264)), Some(Duration::from_millis(60)));
        // A host held off its CPU after the write, before it got back from it: the stamp
        // on the program's stdin says when the request was all there (at 3 ms).
        let stdin_at = |ms: u64| {
            move |timer: &ProgramTimer| Written { requested: Some(timer.wall0 + ms * MS), ..stamp(timer, 155).unwrap() }
        };
        assert_eq!(timer.answered_late(|| Some(stdin_at(3)(&timer))), Some(Duration::from_millis(148)));
        // Never before the call's start (the requests of calls sent ahead were written
        // earlier).
        let early =
            |timer: &ProgramTimer| Written { requested: Some(timer.wall0 - 100 * MS), ..stamp(timer, 155).unwrap() };
        assert_eq!(timer.answered_late(|| Some(early(&timer))), Some(Duration::from_millis(151)));
        // Read within the limit in wall time: no stamp asked for.
        timer.charged = (49 * MS, 0, 0);
        assert_eq!(timer.answered_late(|| panic!("asked for a stamp")), None);
    }

    #[test]
    fn schedstat_lines_parse() {
        assert_eq!(parse_schedstat(b"327482069 108261373 43\n"), Some(Sched { cpu: 327482069, wait: 108261373 }));
        assert_eq!(parse_schedstat(b"garbage"), None);
        assert_eq!(parse_schedstat(b""), None);
    }

    #[test]
    fn own_time_counts_sleep_and_never_exceeds_wall_time() {
        let watch = Stopwatch::start_exact();
        std::thread::sleep(Duration::from_millis(30));
        let own = watch.own_exact();
        let wall = watch.wall();
        assert!(own >= Duration::from_millis(29), "{own:?}");
        assert!(own <= wall, "{own:?} > {wall:?}");
    }

    #[test]
    fn call_nanos_keeps_to_the_monotonic_clock_and_never_goes_back() {
        let mut last = call_nanos();
        for round in 0..200 {
            let before = monotonic_nanos();
            let fast = call_nanos();
            let after = monotonic_nanos();
            assert!(fast >= last, "went back: {fast} < {last}");
            last = fast;
            // A few microseconds of scale error (and the reads between), at most.
            assert!(fast + 50_000 >= before && fast <= after + 50_000, "{before} {fast} {after} (round {round})");
            if round % 20 == 0 {
                std::thread::sleep(Duration::from_micros(1500));
            } else {
                std::hint::black_box((0..2000).sum::<u64>());
            }
        }
    }

    #[test]
    fn a_deadline_passes_after_its_limit_of_sleep() {
        let mut deadline = OwnDeadline::start(Duration::from_millis(20));
        assert!(!deadline.passed());
        std::thread::sleep(Duration::from_millis(25));
        assert!(deadline.passed());
    }

    /// A reading whose counters came after a wait for a CPU (the clock moved more than
    /// `READ_ERROR` across the counters' read) is made again, so that the wait it
    /// holds is matched by its wall time: the own time read is not short by that wait.
    #[test]
    fn a_reading_preempted_between_the_clock_and_the_counters_is_made_again() {
        use std::cell::Cell;
        // Wall time 1 ms; the first read of the counters waits 5 ms for a CPU (the
        // kernel counts that wait); the second try is not preempted.
        let (wall, wait, reads) = (Cell::new(1_000_000u64), Cell::new(0u64), Cell::new(0));
        let clock = || {
            wall.set(wall.get() + 100);
            wall.get()
        };
        let sched = || {
            reads.set(reads.get() + 1);
            if reads.get() == 1 {
                wall.set(wall.get() + 5_000_000);
                wait.set(wait.get() + 5_000_000);
            }
            Some(Sched { cpu: 0, wait: wait.get() })
        };
        let (now, waited) = consistent_reading(clock, sched);
        assert_eq!(reads.get(), 2, "read again");
        // Own time (wall less waits) as of `now`: the 1 ms before plus the reads' own
        // 100 ns steps, not 5 ms less.
        let own = now - waited.unwrap();
        assert!((1_000_000..1_001_000).contains(&own), "own {own}");
        // A machine that preempts every try: the last reading is taken.
        let (n, tries) = (Cell::new(0u64), Cell::new(0));
        let always = || {
            tries.set(tries.get() + 1);
            n.set(n.get() + 1_000_000);
            Some(Sched { cpu: 0, wait: 0 })
        };
        let _ = consistent_reading(|| n.get(), always);
        assert_eq!(tries.get(), READ_TRIES);
        // No counters: no retry.
        assert_eq!(consistent_reading(|| 7, || None), (7, None));
    }
}
