//! Helpers shared by the integration tests.

use std::path::PathBuf;

use zombies::abi::{Action, Context};
use zombies::bot::Bot;

/// Entry names `P0`, `P1`, ...
pub fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("P{i}")).collect()
}

/// One bot per entry, all of whose players always stay.
pub fn stay_bots(n: usize) -> Vec<Box<dyn Bot>> {
    (0..n)
        .map(|_| Box::new(|_: &Context<'_>| Action::stay()) as Box<dyn Bot>)
        .collect()
}

/// A bot that moves at random and sometimes shoots what it sees, using the game's
/// random numbers (so the game stays a function of its seed).
pub fn random_bot() -> impl FnMut(&Context<'_>) -> Action {
    |ctx: &Context<'_>| {
        if ctx.random(4) == 0 {
            let targets: Vec<_> = ctx.shootable().collect();
            if !targets.is_empty() {
                let (_, _, id) = targets[ctx.random(targets.len() as u32) as usize];
                return Action::shoot(id);
            }
        }
        Action::go(ctx.random_move())
    }
}

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// A fixture under `tests/data`.
#[allow(dead_code)]
pub fn data(name: &str) -> PathBuf {
    root().join("tests/data").join(name)
}
