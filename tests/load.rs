//! Verdicts that do not move with the machine's load (`docs/hardening.md`, "Time"): the
//! bundled bots of all four games play the same games beside CPU hogs as on a quieter
//! machine, with no error, overrun or disqualification; and a bot that really is slow
//! is still caught at its limit, quiet or loaded.
//!
//! The hogs are threads of this test process (twelve runnable per core beside the
//! bundled bots, as `docs/hardening.md` promises; six beside a program; or all pinned to
//! one core beside the thread under test), stopped when the test ends or after a bound.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::util::{deps_dir, root};

/// Busy threads that end on drop (or after `bound`, whichever comes first).
pub struct Hogs {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Hogs {
    /// `n` busy threads; pinned to CPU `cpu` when given.
    fn start(n: usize, bound: Duration, cpu: Option<usize>) -> Hogs {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..n)
            .map(|_| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    if let Some(cpu) = cpu {
                        pin_to(cpu);
                    }
                    let started = Instant::now();
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) && started.elapsed() < bound {
                        for _ in 0..10_000 {
                            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                        }
                    }
                })
            })
            .collect();
        Hogs { stop, threads }
    }

    /// `n` per core of this machine.
    pub fn per_core(n: usize, bound: Duration) -> Hogs {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Hogs::start(n * cores, bound, None)
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Pins the calling thread to one CPU.
fn pin_to(cpu: usize) {
    pin_task(0, cpu);
}

/// Lets the task `tid` (0: the calling thread) run on `cpu` only.
fn pin_task(tid: u32, cpu: usize) {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes within it;
    // sched_setaffinity applies to the one task named.
    let r = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(tid as libc::pid_t, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    assert_eq!(r, 0, "sched_setaffinity({tid}): {}", std::io::Error::last_os_error());
}

/// Lets the calling thread run on every CPU again.
fn unpin() {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    // SAFETY: as in `pin_to`.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for cpu in 0..cores {
            libc::CPU_SET(cpu, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// A directory holding the bundled native bots of every game (links to the plugins
/// cargo built for the tests), and nothing else.
fn bundled_plugins(dir: &Path) -> PathBuf {
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    for name in [
        "standstill",
        "random_walker",
        "sharpshooter",
        "phalanx",
        "egg_hunter",
        "egg_random",
        "target_random",
        "target_seeker",
        "hex_basic",
        "hex_smart",
    ] {
        let file = format!("{}{name}{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
        std::os::unix::fs::symlink(deps_dir().join(&file), plugins.join(&file)).unwrap();
    }
    plugins
}

/// A tournament of the bundled bots of `game` (its native plugins, and every script and
/// program in the repository's `scripts/`), as its results.
fn tournament(game: &str, plugins: &Path, dir: &Path, args: &[&str]) -> serde_json::Value {
    let json = dir.join(format!("{game}-{}.json", Instant::now().elapsed().as_nanos()));
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["--game", game, "--plugins"])
        .arg(plugins)
        .arg("--scripts")
        .arg(root().join("scripts"))
        .arg("--logs")
        .arg(dir.join("logs"))
        .args(["tournament", "--seed", "20"])
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{game}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    v
}

/// What must not move with the load: each game's index, seed, turns and scores.
fn games(v: &serde_json::Value) -> Vec<String> {
    v["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| format!("game {} seed {} turns {} scores {}", g["index"], g["seed"], g["turns"], g["scores"]))
        .collect()
}

/// Every entry played every game without an error, an overrun or a disqualification,
/// and no game was lost.
fn assert_clean(game: &str, when: &str, v: &serde_json::Value) {
    assert!(v.get("failed").is_none_or(|f| f.as_array().unwrap().is_empty()), "{game} {when}: lost games: {v}");
    for s in v["leaderboard"].as_array().unwrap() {
        assert!(
            s["errors"] == 0 && s["overruns"] == 0 && s["disqualified"] == 0,
            "{game} {when}: {} made errors: {s}",
            s["name"]
        );
    }
}

/// Each game's bundled bots (native, Rhai, Lua, and the deterministic program bots),
/// with options that keep the test short.
const CASES: [(&str, &[&str]); 4] = [
    ("zombies", &["--rounds", "2", "--set", "players_per_entry=20"]),
    ("eggs", &["--rounds", "2", "--set", "max_turns=30"]),
    ("target", &["--rounds", "1", "--set", "max_rounds=40"]),
    ("hex", &["--rounds", "1", "--max-turns", "24"]),
];

#[test]
fn the_bundled_bots_of_every_game_play_the_same_games_beside_twelve_cpu_hogs_per_core() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = bundled_plugins(dir.path());
    let quiet: Vec<serde_json::Value> =
        CASES.iter().map(|(game, args)| tournament(game, &plugins, dir.path(), args)).collect();
    for ((game, _), v) in CASES.iter().zip(&quiet) {
        assert_clean(game, "quiet", v);
        let kinds = v["leaderboard"].as_array().unwrap().len();
        assert!(kinds >= 4, "{game}: only {kinds} bundled entries played");
    }
    let hogs = Hogs::per_core(12, Duration::from_secs(900));
    for ((game, args), quiet) in CASES.iter().zip(&quiet) {
        let loaded = tournament(game, &plugins, dir.path(), args);
        assert_clean(game, "loaded", &loaded);
        assert_eq!(games(quiet), games(&loaded), "{game}: the games changed with the load");
    }
    drop(hogs);
}

/// Runs `f` on a thread pinned to CPU 0 beside `hogs` busy threads pinned there too, so
/// that it waits for the CPU most of the time whatever else the machine does.
fn crowded<R: Send>(hogs: usize, f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|scope| {
        let _hogs = Hogs::start(hogs, Duration::from_secs(120), Some(0));
        scope
            .spawn(|| {
                pin_to(0);
                let r = f();
                unpin();
                r
            })
            .join()
            .unwrap()
    })
}

#[test]
fn own_time_leaves_out_the_waits_for_a_cpu() {
    use arena::clock::Stopwatch;
    // Work that takes some tens of milliseconds of CPU, timed three ways.
    let work = || {
        let mut x = 1u64;
        for i in 0..30_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(i | 1));
        }
        x
    };
    let (own, wall, cpu) = crowded(3, || {
        let cpu0 = arena::clock::thread_cpu_nanos();
        let watch = Stopwatch::start_exact();
        work();
        let (own, wall) = (watch.own_exact(), watch.wall());
        (own, wall, Duration::from_nanos(arena::clock::thread_cpu_nanos() - cpu0))
    });
    // Sharing one CPU with three hogs, the work waited most of the time; its own time
    // is its CPU time (it never slept), not the wall time.
    assert!(wall > cpu * 2, "no contention to measure: wall {wall:?}, cpu {cpu:?}");
    let diff = own.abs_diff(cpu);
    assert!(diff < cpu / 10 + Duration::from_millis(5), "own {own:?} vs cpu {cpu:?} (wall {wall:?})");
}

#[test]
fn the_own_time_a_verdict_rests_on_is_never_more_than_a_crowded_thread_used() {
    use arena::clock::{TaskProbe, monotonic_nanos};
    use std::sync::atomic::AtomicI32;
    let tid = AtomicI32::new(0);
    let stop = AtomicBool::new(false);
    // (the largest excess over the CPU time it had used, of `own`, of `own_surely`)
    let (upper, surely) = std::thread::scope(|scope| {
        let observer = scope.spawn(|| {
            while tid.load(Ordering::SeqCst) == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            let tid = tid.load(Ordering::SeqCst) as u32;
            let mut probe = TaskProbe::open(std::process::id(), tid).expect("the thread's counters");
            let start = probe.read().unwrap();
            let own0 = monotonic_nanos() - start.wait;
            let (mut upper, mut surely) = (0i64, 0i64);
            let until = Instant::now() + Duration::from_millis(1500);
            while Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
                let now = monotonic_nanos();
                let own = probe.own(now).unwrap() as i64 - own0 as i64;
                let sure = probe.own_surely(now).map(|s| s as i64 - own0 as i64);
                // Read last: the thread's CPU time after the readings, never before.
                let cpu = (probe.read().unwrap().cpu - start.cpu) as i64;
                upper = upper.max(own - cpu);
                surely = sure.map_or(surely, |s| surely.max(s - cpu));
            }
            stop.store(true, Ordering::SeqCst);
            (upper, surely)
        });
        // A thread that only computes (its own time is its CPU time), on CPU 0 beside
        // six hogs.
        crowded(6, || {
            // SAFETY: gettid has no preconditions.
            tid.store(unsafe { libc::gettid() }, Ordering::SeqCst);
            let mut x = 1u64;
            while !stop.load(Ordering::Relaxed) {
                for i in 0..10_000u64 {
                    x = std::hint::black_box(x.wrapping_mul(i | 1));
                }
            }
        });
        observer.join().unwrap()
    });
    let ms = |n: i64| n as f64 / 1e6;
    // The plain reading counts the wait the thread sits in now: tens of milliseconds.
    assert!(upper > 15_000_000, "no contention to measure: own time at most {} ms over its CPU time", ms(upper));
    // The sure one is never over what it used (a scheduler tick of slack, 10 ms at
    // 100 Hz, for a CPU time the kernel had not updated yet when it was read).
    assert!(
        surely <= 10_000_000,
        "own time surely used {} ms over its CPU time (the plain reading: {} ms)",
        ms(surely),
        ms(upper)
    );
}

/// A zombies Lua bot that adds `n` numbers when the clock is even and spins forever when
/// it is odd, with a 400 ms limit per call and no instruction budget to speak of.
fn lua_bot(dir: &Path, n: u64) -> arena::bot::Entry<arena::games::zombies::Zombies> {
    use arena::loaders::{ScriptLimits, SearchPaths, discover};
    let sub = dir.join(n.to_string());
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("spin.lua"),
        format!(
            "function do_turn(ctx)\n  if ctx.clock % 2 == 1 then while true do end end\n  local x = 0\n  for i = 1, {n} do x = x + i end\n  return 'STAY'\nend\n"
        ),
    )
    .unwrap();
    let limits = ScriptLimits { op_budget: u64::MAX / 4, call_timeout: LIMIT, ..ScriptLimits::default() };
    let found = discover(&SearchPaths { plugins: vec![], scripts: vec![sub] }, &limits);
    found.entries.first().expect("the script loads").clone()
}

const LIMIT: Duration = Duration::from_millis(400);

/// A persistent Python program (`body`, after `import sys, time`) in `dir`, started with
/// the default limits.
fn python_program(dir: &Path, body: &str) -> arena::process::Process {
    use arena::process::{Limits, Process, ProgramSpec};
    let bot = dir.join("bot.py");
    std::fs::write(&bot, format!("#!/usr/bin/env python3\nimport sys, time\n{body}")).unwrap();
    std::fs::set_permissions(&bot, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    Process::spawn(&ProgramSpec::new([&bot]), &Limits::default(), Box::new(std::io::sink())).unwrap()
}

#[test]
fn a_lua_spin_loop_is_caught_at_its_limit_and_an_honest_slow_call_is_not_crowded_out() {
    use arena::bot::BotError;
    use arena::clock::Stopwatch;
    let dir = tempfile::tempdir().unwrap();
    // Calibrate: how many additions make about 160 ms of this machine's own time (the
    // fastest of three calls: the first pays for warming up). Sharing its CPU with three
    // hogs, such a call takes about four times that in wall time, well over the limit.
    let probe = lua_bot(dir.path(), 1_000_000);
    let per_million = arena::games::zombies::bench::with_sample_context(|ctx| {
        let mut bot = probe.create_bot().unwrap();
        (0..3)
            .map(|_| {
                let watch = Stopwatch::start_exact();
                bot.turn(ctx).unwrap();
                watch.own_exact()
            })
            .min()
            .unwrap()
    });
    let n = (160.0 / per_million.as_secs_f64().max(1e-4) / 1000.0 * 1_000_000.0) as u64;
    let entry = lua_bot(dir.path(), n.clamp(10_000, 200_000_000));
    let (honest, honest_wall, spin) = crowded(3, || {
        arena::games::zombies::bench::with_sample_context(|ctx| {
            let mut bot = entry.create_bot().unwrap();
            let watch = Stopwatch::start_exact();
            let honest = bot.turn(ctx).map(|_| watch.own_exact());
            let honest_wall = watch.wall();
            let odd = arena::abi::Context { clock: 1, ..*ctx };
            let watch = Stopwatch::start_exact();
            let spin = bot.turn(&odd).map(|_| ()).map_err(|e| (e, watch.own_exact(), watch.wall()));
            (honest, honest_wall, spin)
        })
    });
    // The honest call took longer than the limit in wall time (it shared its CPU with
    // three hogs), but not in its own time: it is not cut short.
    let honest = honest.expect("a call well within its limit is not cut short by waiting for a CPU");
    assert!(honest < LIMIT, "{honest:?}");
    assert!(honest_wall > LIMIT || honest < LIMIT / 5, "not crowded enough to tell: {honest_wall:?}");
    let (err, took, wall) = spin.expect_err("the spin loop is stopped");
    assert_eq!(err, BotError::Timeout);
    // At its limit; or, on a machine so crowded that the loop got less than a twentieth
    // of a CPU (beyond the 12 busy tasks per core this test is meant for: in CI beside
    // other tests' hogs, it once had 336 ms in 13 s), by the wall-clock backstop.
    let at_backstop = wall >= arena::clock::backstop(LIMIT);
    assert!(
        (took >= LIMIT || at_backstop) && took <= LIMIT + LIMIT / 10,
        "caught after {took:?} of its own time ({wall:?} of wall time), not at its limit"
    );
}

#[test]
fn a_program_that_sleeps_past_its_limit_is_caught_and_one_that_computes_within_it_is_not_crowded_out() {
    use arena::process::CallError;
    let dir = tempfile::tempdir().unwrap();
    let mut p = python_program(
        dir.path(),
        "for line in sys.stdin:\n    what, n = line.split()\n    if what == 'sleep':\n        time.sleep(int(n) / 1000)\n    else:\n        x = 0\n        for i in range(int(n)):\n            x += i\n    print('done', flush=True)\n",
    );
    // Start-up, then calibrate: how many additions make about 120 ms of its own time.
    assert_eq!(p.ask(b"work 10\n", 1, Duration::from_secs(30)).unwrap(), ["done"]);
    p.ask(b"work 1000000\n", 1, Duration::from_secs(30)).unwrap();
    let per_million = p.last_call_time().as_secs_f64().max(1e-4);
    let n = ((0.12 / per_million) * 1e6) as u64;
    let work = format!("work {}\n", n.clamp(1000, 1_000_000_000));
    let _hogs = Hogs::per_core(6, Duration::from_secs(120));
    let started = Instant::now();
    let answer = p.ask(work.as_bytes(), 1, LIMIT);
    let (took, wall) = (p.last_call_time(), started.elapsed());
    assert_eq!(answer, Ok(vec!["done".to_owned()]), "computing {took:?} of its own time ({wall:?} on the wall clock)");
    assert!(took < LIMIT, "{took:?}");
    assert!(wall > took * 2, "no contention to measure: {wall:?} on the wall clock, {took:?} of its own");
    let answer = p.ask(b"sleep 700\n", 1, LIMIT);
    let took = p.last_call_time();
    assert_eq!(answer, Err(CallError::Timeout));
    assert!(took >= LIMIT && took <= LIMIT + LIMIT / 10, "caught after {took:?} of its own time");
}

/// Makes the calling thread wait for a CPU whenever another task wants one: the
/// scheduler's idle class (`SCHED_IDLE`), which any thread may choose for itself.
fn lowest_priority() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is a valid sched_param; pid 0 is the calling thread only.
    let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    assert_eq!(r, 0, "sched_setscheduler(SCHED_IDLE): {}", std::io::Error::last_os_error());
}

/// A persistent Python program in `dir` that sleeps the milliseconds each line asks
/// for and then answers `done`, started and past its first call.
fn sleeper(dir: &Path) -> arena::process::Process {
    let mut p = python_program(
        dir,
        "for line in sys.stdin:\n    time.sleep(int(line) / 1000)\n    print('done', flush=True)\n",
    );
    assert_eq!(p.ask(b"0\n", 1, Duration::from_secs(30)).unwrap(), ["done"]);
    p
}

#[test]
fn a_program_is_judged_by_when_it_answered_however_long_the_host_waits_for_a_cpu() {
    use arena::process::CallError;
    let dir = tempfile::tempdir().unwrap();
    // Started before the host's thread is crowded: the program runs on any CPU, at the
    // normal priority.
    let mut p = sleeper(dir.path());
    // The host's calling thread shares CPU 0 with four hogs and runs only when they let
    // it (the idle class): each of its wake-ups waits for a CPU, often far longer than
    // the program sleeps.
    let limit = Duration::from_millis(50);
    let calls = crowded(4, || {
        lowest_priority();
        ["10", "150", "10", "150", "10", "150"]
            .map(|sleep| {
                let started = Instant::now();
                let answer = p.ask(format!("{sleep}\n").as_bytes(), 1, limit);
                let call = (sleep, answer, p.last_call_time(), started.elapsed());
                // A late call's program sleeps on: the next call starts after it woke.
                std::thread::sleep(Duration::from_millis(if sleep == "150" { 200 } else { 0 }));
                call
            })
            .to_vec()
    });
    for (i, (sleep, answer, took, wall)) in calls.into_iter().enumerate() {
        let what = format!(
            "call {i}, a sleep of {sleep} ms: {answer:?} after {took:?} of own time ({wall:?} on the wall clock)"
        );
        if sleep == "10" {
            // Answered in time, however late the host read it.
            assert_eq!(answer, Ok(vec!["done".to_owned()]), "{what}");
            assert!(took < limit, "{what}");
        } else {
            // Past the limit, however long the host waited before it looked.
            assert_eq!(answer, Err(CallError::Timeout), "{what}");
            assert!(took >= limit, "{what}");
        }
    }
}

/// Asks `p` the same `request` `calls` times with `limit`, with the program and the
/// calling thread (in the idle class) on CPU 0 beside four hogs: each call's answer,
/// own time and wall time.
#[allow(clippy::type_complexity)]
fn asked_behind_hogs(
    p: &mut arena::process::Process,
    request: &[u8],
    calls: usize,
    limit: Duration,
) -> Vec<(Result<Vec<String>, arena::process::CallError>, Duration, Duration)> {
    pin_task(p.pid(), 0);
    crowded(4, || {
        lowest_priority();
        (0..calls)
            .map(|_| {
                let started = Instant::now();
                let answer = p.ask(request, 1, limit);
                (answer, p.last_call_time(), started.elapsed())
            })
            .collect()
    })
}

#[test]
fn a_program_whose_answer_waited_for_a_cpu_past_the_deadline_is_judged_by_when_it_wrote_it() {
    use arena::process::CallError;
    let dir = tempfile::tempdir().unwrap();
    // Each call computes for the milliseconds it asks for, of its own CPU time.
    let mut p = python_program(
        dir.path(),
        "for line in sys.stdin:\n    t = time.thread_time() + int(line) / 1000\n    while time.thread_time() < t:\n        pass\n    print('done', flush=True)\n",
    );
    assert_eq!(p.ask(b"0\n", 1, Duration::from_secs(30)).unwrap(), ["done"]);
    // The program shares CPU 0 with four hogs, so that 20 ms of its work take about
    // 100 ms of wall time: its answer then comes after the host's poll was woken by
    // its deadline. The host's calling thread is there too, in the idle class,
    // so that after that wake-up it waits for the CPU far longer than the program took.
    // Which of that wait came before the answer, and could have been the program's
    // time, the kernel's stamp on the program's stdout tells.
    let limit = Duration::from_millis(50);
    let calls = asked_behind_hogs(&mut p, b"20\n", 12, limit);
    let mut past_the_deadline = 0;
    for (i, (answer, took, wall)) in calls.into_iter().enumerate() {
        let what =
            format!("call {i}, 20 ms of work: {answer:?} after {took:?} of own time ({wall:?} on the wall clock)");
        assert_eq!(answer, Ok(vec!["done".to_owned()]), "{what}");
        assert!(took < limit, "{what}");
        past_the_deadline += usize::from(wall > limit * 2);
    }
    assert!(past_the_deadline >= 3, "only {past_the_deadline} of 12 calls were read well past their deadline");
    // Work past the limit is still late, however the host waited.
    unpin();
    let answer = p.ask(b"120\n", 1, limit);
    assert_eq!(answer, Err(CallError::Timeout), "120 ms of work after {:?} of own time", p.last_call_time());
}

#[test]
fn a_program_is_not_charged_the_hosts_wait_for_a_cpu_while_it_writes_the_request() {
    use arena::process::CallError;
    let dir = tempfile::tempdir().unwrap();
    let mut p = sleeper(dir.path());
    // The program shares CPU 0 with the host's calling thread (the idle class) and four
    // hogs: the request wakes the program on the writer's CPU, where it takes the CPU
    // from the host thread at once, often before the write has returned; the host
    // thread then waits for the CPU far longer than the program sleeps.
    let limit = Duration::from_millis(50);
    let calls = asked_behind_hogs(&mut p, b"10\n", 8, limit);
    for (i, (answer, took, wall)) in calls.into_iter().enumerate() {
        let what =
            format!("call {i}, a sleep of 10 ms: {answer:?} after {took:?} of own time ({wall:?} on the wall clock)");
        assert_eq!(answer, Ok(vec!["done".to_owned()]), "{what}");
        assert!(took < limit, "{what}");
    }
    // A late answer is still late.
    let answer = p.ask(b"120\n", 1, limit);
    assert_eq!(answer, Err(CallError::Timeout), "a sleep of 120 ms after {:?} of own time", p.last_call_time());
}
