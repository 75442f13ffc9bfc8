//! Playing one game: fresh bots for its entries, the game's engine, and its recording;
//! and the seeds of a tournament's games. Everything that plays games (tournaments,
//! workers and lockstep games in `isolate`, `check`, benchmarks) plays each one
//! through here, so a game is the same game wherever it is played.
//!
//! This module plays one game at a time, with the bots it is given (wrapped as the
//! caller says: limits, recording). It is not the rules (each game's `Rules::play`),
//! does not limit bots (`limits`), isolate them (`isolate`), or schedule, rank or
//! merge games (`tournament`).

use std::cell::RefCell;
use std::rc::Rc;

use crate::bot::{Bot, BotError, BrokenBot, Entry};
use crate::game::{Game, Outcome};
use crate::replay::{Header, Listening, Notes, Replay};

/// The seed of game `index` of a tournament seeded with `seed` (SplitMix64 mixing, so
/// neighbouring indices give unrelated games).
pub fn game_seed(seed: u64, index: u64) -> u64 {
    splitmix64(splitmix64(seed) ^ index)
}

/// SplitMix64's mixing step (also the workers' request nonces).
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Plays one game: fresh bots for every entry (an entry whose bot cannot be made plays
/// with players that always stay, and the failure is counted), then the game.
pub fn play_game<G: Game>(entries: &[Entry<G>], seed: u64, config: &G::Config) -> Outcome {
    play_game_with(entries, seed, config, |_, bot| bot)
}

/// The bots of a game, and the entries (by index) whose bot could not be made.
pub type Bots<'a, G> = (Vec<Box<dyn Bot<G> + 'a>>, Vec<(usize, BotError)>);

/// Fresh bots for every entry, each passed through `wrap` (with its entry index), and
/// the failures of those that could not be made.
pub fn make_bots<'a, G: Game>(
    entries: &[Entry<G>],
    wrap: impl Fn(usize, Box<dyn Bot<G>>) -> Box<dyn Bot<G> + 'a>,
) -> Bots<'a, G> {
    let mut failures = Vec::new();
    let bots = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let bot = e.create_bot().unwrap_or_else(|err| {
                failures.push((i, err.clone()));
                Box::new(BrokenBot(err))
            });
            wrap(i, bot)
        })
        .collect();
    (bots, failures)
}

/// [`play_game`] with every bot passed through `wrap` (limits, recording, ...).
pub fn play_game_with<'a, G: Game>(
    entries: &[Entry<G>],
    seed: u64,
    config: &G::Config,
    wrap: impl Fn(usize, Box<dyn Bot<G>>) -> Box<dyn Bot<G> + 'a>,
) -> Outcome {
    crate::loaders::log::set_log_game(seed);
    let (mut bots, failures) = make_bots(entries, wrap);
    let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    let mut outcome = G::play(&names, seed, config, &mut bots);
    drop(bots);
    crate::loaders::log::end_log_game();
    for (i, err) in failures {
        outcome.stats[i].record_error(&err);
    }
    outcome
}

/// Plays one game like [`play_game`] and records it.
pub fn play_recorded<G: Game>(entries: &[Entry<G>], seed: u64, config: &G::Config) -> (Outcome, Replay<G>) {
    play_recorded_with(entries, seed, config, |_, bot| bot)
}

/// [`play_recorded`] with every bot passed through `wrap` first (the recording sees
/// what the wrapped bot answers). What the bots say at each call is kept in the
/// replay's notes (`crate::debug`): only recorded games listen.
pub fn play_recorded_with<'a, G: Game>(
    entries: &[Entry<G>],
    seed: u64,
    config: &G::Config,
    wrap: impl Fn(usize, Box<dyn Bot<G>>) -> Box<dyn Bot<G> + 'a>,
) -> (Outcome, Replay<G>) {
    let tape = Rc::new(RefCell::new(Vec::new()));
    let notes: Notes = Rc::default();
    let outcome = play_game_with(entries, seed, config, |i, bot| {
        let recorded = G::record(wrap(i, bot), Rc::clone(&tape));
        Box::new(Listening::new(recorded, i, Rc::clone(&tape), Rc::clone(&notes))) as Box<dyn Bot<G> + 'a>
    });
    let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    let calls = Rc::try_unwrap(tape).map(RefCell::into_inner).unwrap_or_else(|rc| rc.borrow().clone());
    let notes = notes.take();
    let config = match serde_json::to_value(config) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let header =
        Header { game: G::NAME.to_owned(), seed, names, turns: outcome.turns, scores: outcome.scores.clone(), config };
    (outcome, Replay { header, calls, notes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_seeds_differ_by_index_and_seed() {
        assert_ne!(game_seed(1, 0), game_seed(1, 1));
        assert_ne!(game_seed(1, 0), game_seed(2, 0));
        assert_eq!(game_seed(7, 3), game_seed(7, 3));
    }
}
