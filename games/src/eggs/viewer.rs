//! The eggs replay viewer: one self-contained HTML page (no network, no other files)
//! that draws a replayed Easter Egg Hunt turn by turn on a canvas.
//!
//! The game is re-played here, in Rust, through the engine's own play loop, and the page
//! receives the start board once and then compact per-turn changes as JSON:
//!
//! - `board`: `side` strings of `side` characters, `#` wall, `o` egg, `.` empty;
//! - `start`: each entry's player as `[x, y]`;
//! - `frames[t]` (the turn `t + 1`): `mv`, one character per player, `'0' + (dy + 1) * 3
//!   + (dx + 1)` for its step; `eggs`, the cells `[x, y, ...]` whose egg went; `sc`, the
//!   entries whose score changed with their new score `[entry, score, ...]`; `left`, the
//!   eggs left; `ev`, the turn's events (see [`event_json`]);
//! - `scores`: the final scores (the recorded ones, checked by the re-play).
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

use super::engine::{Act, Cell, Engine, Event, Reason};
use super::{Eggs, play};
use crate::bot::Bot;
use crate::game::{Outcome, Recorded as _};
use crate::replay::{Replay, ReplayError};

/// Most entries a viewer accepts (the rules' own limit).
const MAX_ENTRIES: usize = super::engine::MAX_ENTRIES;

/// Plays a replay again turn by turn, calling `each_turn` with the game before the
/// first turn and after every turn, and checks that it ends as recorded.
pub fn replay_turns(replay: &Replay<Eggs>, each_turn: impl FnMut(&Engine)) -> Result<Outcome, ReplayError> {
    let h = &replay.header;
    if h.scores.len() != h.names.len() || h.names.is_empty() {
        return Err(ReplayError::Corrupt("the header's names and scores do not match".into()));
    }
    if h.names.len() > MAX_ENTRIES {
        return Err(ReplayError::Corrupt(format!("implausible game size in the header: {} entries", h.names.len())));
    }
    let config = h.config::<Eggs>()?;
    let tape = Rc::new(RefCell::new((0, replay.calls.clone())));
    let mut bots: Vec<Box<dyn Bot<Eggs>>> = h.names.iter().map(|_| Eggs::playback(Rc::clone(&tape))).collect();
    let outcome = play(h.names.len(), h.seed, &config, &mut bots, each_turn);
    let used = tape.borrow().0;
    replay.check(&outcome, used)?;
    Ok(outcome)
}

const TEMPLATE: &str = include_str!("viewer.html");

fn act_code(act: Act) -> &'static str {
    match act {
        Act::Attack => "A",
        Act::Counter => "C",
        Act::Nothing => "N",
    }
}

fn reason_code(reason: Reason) -> &'static str {
    match reason {
        Reason::Fight => "fight",
        Reason::Crowd => "crowd",
        Reason::Cascade => "cascade",
        Reason::Counter => "counter",
    }
}

/// An event as the page sees it, an array led by a letter:
/// - `["F", x, y, p0, p1, act0, act1, winner]` a fight (`winner` -1 on a tie);
/// - `["C", x, y, count]` three or more players landed on one cell;
/// - `["S", player, from_x, from_y, to_x, to_y, reason]` a player sent back;
/// - `["P", player, x, y]` an egg picked up; `["D", player, x, y]` an egg destroyed;
/// - `["W", player, x, y]` a player bumped into a wall.
pub fn event_json(e: &Event) -> Value {
    match *e {
        Event::Fight { at, players, acts, winner } => json!([
            "F",
            at.0,
            at.1,
            players[0],
            players[1],
            act_code(acts[0]),
            act_code(acts[1]),
            winner.map_or(-1, i64::from)
        ]),
        Event::Crowd { at, count } => json!(["C", at.0, at.1, count]),
        Event::SentBack { player, from, to, reason } => {
            json!(["S", player, from.0, from.1, to.0, to.1, reason_code(reason)])
        }
        Event::EggPicked { player, at } => json!(["P", player, at.0, at.1]),
        Event::EggDestroyed { player, at } => json!(["D", player, at.0, at.1]),
        Event::Bumped { player, at } => json!(["W", player, at.0, at.1]),
    }
}

/// The step of a player between two positions, as one character (`'4'` for staying).
fn step_char(before: (u32, u32), after: (u32, u32)) -> char {
    let d = |a: u32, b: u32| (i64::from(b) - i64::from(a)).clamp(-1, 1) + 1;
    char::from(b'0' + (d(before.1, after.1) * 3 + d(before.0, after.0)) as u8)
}

/// The board as text rows, north to south: `#` a wall, `o` an egg, `empty` elsewhere.
pub fn board_rows(game: &Engine, empty: char) -> Vec<String> {
    let side = game.side();
    (0..side)
        .map(|y| {
            (0..side)
                .map(|x| match game.cell(x, y) {
                    Cell::Wall => '#',
                    Cell::Egg => 'o',
                    Cell::Empty => empty,
                })
                .collect()
        })
        .collect()
}

/// The page's data: the start board, then one frame of changes per turn.
pub fn viewer_data(replay: &Replay<Eggs>) -> Result<Value, ReplayError> {
    let mut side = 0;
    let mut board = Vec::new();
    let mut start = Vec::new();
    let mut frames = Vec::new();
    let mut prev_pos: Vec<(u32, u32)> = Vec::new();
    let mut prev_scores: Vec<u32> = Vec::new();
    let mut started = false;
    replay_turns(replay, |game| {
        if !started {
            started = true;
            side = game.side();
            board = board_rows(game, '.');
            start = game.players().iter().map(|&(x, y)| json!([x, y])).collect();
        } else {
            let mv: String = prev_pos.iter().zip(game.players()).map(|(&a, &b)| step_char(a, b)).collect();
            let mut eggs = Vec::new();
            let mut ev = Vec::new();
            for e in game.last_events() {
                if let Event::EggPicked { at, .. } | Event::EggDestroyed { at, .. } = *e {
                    eggs.extend([at.0, at.1]);
                }
                ev.push(event_json(e));
            }
            let sc: Vec<u32> = prev_scores
                .iter()
                .zip(game.scores())
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .flat_map(|(i, (_, &b))| [i as u32, b])
                .collect();
            frames.push(json!({"mv": mv, "eggs": eggs, "sc": sc, "left": game.eggs_left(), "ev": ev}));
        }
        prev_pos = game.players().to_vec();
        prev_scores = game.scores().to_vec();
    })?;
    let h = &replay.header;
    Ok(json!({
        "names": h.names,
        "debug": crate::replay::notes_rows(&replay.notes),
        "seed": h.seed.to_string(),
        "side": side,
        "turns": h.turns,
        "scores": h.scores,
        "board": board,
        "start": start,
        "frames": frames,
        "colours": crate::plot::entry_colours(h.names.len()),
    }))
}

/// The self-contained viewer page of a replay.
pub fn render(replay: &Replay<Eggs>) -> Result<String, ReplayError> {
    Ok(crate::replay::fill_page(TEMPLATE, &replay.header, &viewer_data(replay)?))
}
