//! Easter Egg Hunt's performance workloads (`arena --game eggs bench`,
//! `docs/performance.md`): the engine with native bots (player-turns per second), and
//! program bots' round trips (persistent) and calls (once per turn, the seed's protocol).
//!
//! This module builds workloads and measures them, handing each line of the report to
//! the caller; it prints nothing.

use std::time::{Duration, Instant};

use zombies_plugin_abi::eggs::EggsContext;

use super::{Config, Eggs, answer};
use crate::bench::{BenchError, BenchOptions, answer_micros, python};
use crate::bot::{Entry, EntryKind};
use crate::play::play_game;
use crate::process::{Limits, ProgramSpec, run_once};

/// Whole games of `entries` (one player each) for at least `min_time`: games,
/// player-turns, and player-turns per second.
pub fn player_turns_per_sec(entries: &[Entry<Eggs>], min_time: Duration) -> (u64, u64, f64) {
    let (mut games, mut turns) = (0u64, 0u64);
    let started = Instant::now();
    while games == 0 || started.elapsed() < min_time {
        let outcome = play_game(entries, games, &Config::default());
        turns += u64::from(outcome.turns) * entries.len() as u64;
        games += 1;
    }
    (games, turns, turns as f64 / started.elapsed().as_secs_f64())
}

/// Median time, in milliseconds, of one once-per-turn call of `command` (start the
/// process, send six lines, read its answer, end it), over `n` calls.
pub fn once_per_turn_millis(command: &[&str], n: usize) -> Result<f64, String> {
    let spec = ProgramSpec::new(command.iter().copied());
    let input = b"#####\n#o * \n  *  \n     \n#####\n\n";
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        run_once(&spec, &Limits::default(), input, 3, Duration::from_secs(5), &mut std::io::sink())
            .map_err(|e| e.to_string())?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[n / 2])
}

/// The workloads: games of 7 and 50 players of a builtin Rust bot and of a native one,
/// then program bots' round trips and once-per-turn calls.
pub fn run(opts: &BenchOptions, out: &mut dyn FnMut(String)) -> Result<(), BenchError> {
    let discovery = opts.discover::<Eggs>();
    // The engine's speed with a native bot that costs nearly nothing: the random one.
    let natives = || discovery.entries.iter().filter(|e| e.kind == EntryKind::Native);
    let native = natives().find(|e| e.name.to_lowercase().contains("random")).or_else(|| natives().next()).cloned();
    let builtin = Entry::<Eggs>::builtin("RustRandom", || {
        |ctx: &EggsContext<'_>| answer(1 + ctx.random(9), [65, 67, 78][ctx.random(3) as usize], b"")
    });
    let mut bots = vec![("builtin Rust closure", builtin)];
    if let Some(n) = native {
        bots.push(("native plugin", n));
    } else {
        out("(no native eggs plugin found: build with `cargo build --release`, add --plugins target/release)"
            .to_owned());
    }
    out(format!("{:<36} {:>7} {:>14} {:>18}", "workload", "games", "player-turns", "player-turns/s"));
    for (what, entry) in &bots {
        for players in [7usize, 50] {
            let name = format!("E{players} {what} ({})", entry.name);
            if !opts.selects(&name) {
                continue;
            }
            let entries: Vec<_> = (0..players).map(|i| entry.renamed(format!("P{i}"))).collect();
            let (games, turns, rate) = player_turns_per_sec(&entries, opts.time);
            out(format!("{name:<36} {games:>7} {turns:>14} {rate:>18.0}"));
        }
    }
    if opts.selects("programs") {
        out("\nprogram bots (median over many calls):".to_owned());
        let python = python();
        let echo = "import sys\nfor l in sys.stdin: print(l, end='')";
        for (what, cmd) in
            [("cat (persistent)", vec!["cat"]), ("python3 echo (persistent)", vec![python, "-u", "-c", echo])]
        {
            match answer_micros(&cmd, 0, 20_000, |i| format!("{i}\n")) {
                Ok((median, p99)) => out(format!("  round trip, {what}: median {median:.1} us, p99 {p99:.1} us")),
                Err(e) => out(format!("  round trip, {what}: {e}")),
            }
        }
        let seed_bot = "import sys\nrows=[sys.stdin.readline() for _ in range(6)]\nprint(9);print('N');print('')";
        for (what, cmd) in [("/bin/cat", vec!["/bin/cat"]), (python, vec![python, "-c", seed_bot])] {
            match once_per_turn_millis(&cmd, 100) {
                Ok(ms) => out(format!("  once-per-turn call (the seed's protocol), {what}: median {ms:.2} ms")),
                Err(e) => out(format!("  once-per-turn call, {what}: {e}")),
            }
        }
    }
    Ok(())
}
