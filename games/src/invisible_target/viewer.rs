//! The target replay viewer: one self-contained HTML page (no network, no other files)
//! that draws a replayed "Invisible target" game turn by turn on a canvas.
//!
//! The game is re-played here, in Rust, through the engine's own play loop, and the page
//! receives the set-up once and then one character per turn as JSON:
//!
//! - `target`: the target cell (shown to the viewer, never to bots);
//! - `entry`, `copy`, `start`: per player, its entry, its copy index and its start cell;
//! - `order`: the turn order (turn `t` is player `order[t % players]`'s);
//! - `mv`: per turn, the step the player took, `'0'..'4'` (`'2'`: it did not move);
//! - `walls`: `[turn, cell, ...]`, each wall with the turn after which it came (from 1);
//! - `scores`: the final points per entry (the recorded ones, checked by the re-play).
//!
//! - `debug`: what the bots said at their calls, rows `[call, entry, turn, unit, text]`
//!   (`crate::replay::notes_rows`), shown beside the board by the shared panel
//!   (`replay/debug.js`).
//!
//! The page's script and style are in `viewer.html`, a template compiled into the binary;
//! its playback (play, seek, keys, the `#t=` address, resizing) and base style are the
//! shared ones (`replay/player.js`, `replay/page.css`), put in at the template's marks.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{Value, json};

use super::engine::{self, Engine, Step};
use super::{InvisibleTarget, check_game, play};
use crate::bot::Bot;
use crate::game::{Outcome, Recorded as _};
use crate::replay::{Replay, ReplayError};

/// Plays a replay again turn by turn, calling `each_turn` as [`play`] does, and checks
/// that it ends as recorded.
pub fn replay_turns(
    replay: &Replay<InvisibleTarget>,
    each_turn: impl FnMut(&Engine, Option<&Step>),
) -> Result<Outcome, ReplayError> {
    let h = &replay.header;
    if h.scores.len() != h.names.len() || h.names.is_empty() {
        return Err(ReplayError::Corrupt("the header's names and scores do not match".into()));
    }
    let config = h.config::<InvisibleTarget>()?;
    check_game(h.names.len(), &config).map_err(|e| ReplayError::Corrupt(format!("implausible game: {e}")))?;
    let tape = Rc::new(RefCell::new((0, replay.calls.clone())));
    let mut bots: Vec<Box<dyn Bot<InvisibleTarget>>> =
        h.names.iter().map(|_| InvisibleTarget::playback(Rc::clone(&tape))).collect();
    let outcome = play(h.names.len(), h.seed, &config, &mut bots, each_turn);
    let used = tape.borrow().0;
    replay.check(&outcome, used)?;
    Ok(outcome)
}

const TEMPLATE: &str = include_str!("viewer.html");

/// The step between two cells as the move's digit (`'2'` when they are the same).
fn move_char(from: u16, to: u16) -> char {
    [engine::NORTH, engine::WEST, engine::EAST, engine::SOUTH]
        .into_iter()
        .find(|&m| from != to && engine::neighbour(from, m) == to)
        .map_or('2', |m| char::from(b'0' + m))
}

/// The page's data: the set-up, then one character per turn and the walls.
pub fn viewer_data(replay: &Replay<InvisibleTarget>) -> Result<Value, ReplayError> {
    let mut setup = Value::Null;
    let mut mv = String::new();
    let mut walls = Vec::new();
    let mut turn = 0u64;
    replay_turns(replay, |game, step| match step {
        None => {
            let n = game.players();
            setup = json!({
                "target": game.target(),
                "entry": (0..n).map(|p| game.entry_of(p)).collect::<Vec<_>>(),
                "copy": (0..n).map(|p| game.copy_of(p)).collect::<Vec<_>>(),
                "start": (0..n).map(|p| game.position(p)).collect::<Vec<_>>(),
                "order": game.order(),
                "q": game.q(),
            });
        }
        Some(s) => {
            turn += 1;
            mv.push(move_char(s.from, s.to));
            if let Some(w) = s.wall {
                walls.extend([turn, u64::from(w)]);
            }
        }
    })?;
    let h = &replay.header;
    let mut data = json!({
        "names": h.names,
        "debug": crate::replay::notes_rows(&replay.notes),
        "seed": h.seed.to_string(),
        "side": engine::SIDE,
        "rounds": h.turns,
        "scores": h.scores,
        "mv": mv,
        "walls": walls,
        "colours": crate::plot::entry_colours(h.names.len()),
    });
    if let (Value::Object(d), Value::Object(s)) = (&mut data, setup) {
        d.extend(s);
    }
    Ok(data)
}

/// The self-contained viewer page of a replay.
pub fn render(replay: &Replay<InvisibleTarget>) -> Result<String, ReplayError> {
    Ok(crate::replay::fill_page(TEMPLATE, &replay.header, &viewer_data(replay)?))
}
