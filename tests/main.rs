//! The integration tests: one binary, fixtures in `tests/data`.
//!
//! - `rules`: one test per rule of `shared/rules/zombies.md`, on hand-made positions;
//! - `properties`: invariants over random games (one entity per cell, unique ids,
//!   determinism);
//! - `cli`: the `zombies` binary end to end.

mod cli;
mod hardening;
mod native;
mod properties;
mod rules;
mod scripts;
mod tournaments;
mod util;
mod viewer;
