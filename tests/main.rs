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
