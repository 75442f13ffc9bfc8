//! The integration tests: one binary, fixtures in `tests/data`.
//!
//! - `rules`: one test per rule of `docs/games/zombies.md`, on hand-made positions;
//! - `properties`: invariants over random games (one entity per cell, unique ids,
//!   determinism);
//! - `cli`: the `zombies` binary end to end;
//! - `newcomer`: the defects a first-time entrant hit (issue 23), through the binary;
//! - `ladder`: `arena ladder` killed with SIGKILL and resumed, stopped by Ctrl-C, read back,
//!   and attacked by a boxed entry through its database's files;
//! - `postgres`: the ladder on a PostgreSQL server the test starts, and two `ladder work`
//!   workers, one killed, against one `ladder run` on SQLite;
//! - `layout`: the host's code names a game only inside `games/src/`;
//! - `archives`: programs with files uploaded to `arena serve` as archives.
//!
//! By default this binary runs twice as many tests at once as the machine has cores
//! ([`more_tests_at_once`]); `--test-threads N` or `RUST_TEST_THREADS` still decide.

mod archives;
mod boxes;
mod cli;
mod debug;
mod deciding;
mod eggs_bots;
mod eggs_cli;
mod eggs_rules;
mod eggs_viewer;
mod entrant;
mod golden;
mod hardening;
mod hex_game;
mod hex_rules;
mod hex_side;
mod hex_traces;
mod hostile;
mod hostile_games;
mod kit;
mod ladder;
mod layout;
mod load;
mod native;
mod newcomer;
mod postgres;
mod programs;
mod properties;
mod report;
mod rules;
mod scripts;
mod serve;
mod slurm;
mod target_game;
mod target_rules;
mod tournaments;
mod util;
mod viewer;
mod workers;

/// Most of these tests wait, on tournaments of bots that sleep or hang into their
/// limits, on a Slurm cluster, on PostgreSQL, on Chromium, or on another test's lock:
/// run one per core (libtest's default), the whole binary kept 0.87 of a core busy on a
/// 2-core machine and took 500 s; two per core, 356 s at the same use of the CPU
/// (three per two cores, 398 s; 2026-11-27). So unless `RUST_TEST_THREADS` is set (or
/// `--test-threads` given, which libtest puts first), this sets it to twice the cores
/// before libtest reads it. The tests whose verdicts rest on timing hold beside twelve
/// busy loops per core (`load`), far more than their neighbours here make.
#[ctor::ctor(unsafe)]
fn more_tests_at_once() {
    if std::env::var_os("RUST_TEST_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // SAFETY: this runs before `main`, while the process has its one thread.
        unsafe { std::env::set_var("RUST_TEST_THREADS", (cores * 2).to_string()) };
    }
}
