//! The replay viewer: one self-contained HTML page (no network, no other files) that
//! draws a replayed game turn by turn on a canvas.
//!
//! The game is re-played here, in Rust, and the page receives the start and then compact
//! per-turn changes as JSON:
//!
//! - `start`: every entity as `[number, owner, x, y, bullets]` (see [`entity_json`]);
//! - `frames[t]` (the turn `t + 1`): `add`, the entities that appeared; `del`, the
//!   numbers that went; `mv`, one character per entity that is not a dead body, `'0' +
//!   (dy + 1) * 3 + (dx + 1)` for its step (wrapping); `bul`, `[number, bullets, ...]`
//!   for changed bullets; `shots`, `[from x, from y, to x, to y, hit, shooter's entry]`
//!   (the target's cell is the shooter's own when the id named no entity);
//! - `alive[t]` and `score[t]`: each entry's living players and score after turn `t`
//!   (`t = 0`: the start); `scores`: the final (recorded) scores;
//! - `colours`: each entry's colour, the plot's ([`crate::plot::entry_colours`]), and
//!   `hit`, the colour of a hit, which no entry has.
//!
//! - `debug`: what the bots said at their calls, rows `[call, entry, turn, unit, text]`
//!   (`crate::replay::notes_rows`), shown beside the board by the shared panel
//!   (`replay/debug.js`).
//!
//! The page's script and style are in `viewer.html`, a template compiled into the binary;
//! its playback (play, seek, keys, the `#t=` address, resizing) and base style are the
//! shared ones (`replay/player.js`, `replay/page.css`), put in at the template's marks.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::{Value, json};

use super::{Engine, EntityInfo, Kind, Zombies};
use crate::bot::Bot;
use crate::game::{Outcome, Recorded as _};
use crate::replay::{Replay, ReplayError};

/// Plays a replay again turn by turn, calling `each_turn` with the game before the
/// first turn and after every turn, and checks that it ends as recorded.
pub fn replay_turns(replay: &Replay<Zombies>, mut each_turn: impl FnMut(&Engine)) -> Result<Outcome, ReplayError> {
    let h = &replay.header;
    if h.scores.len() != h.names.len() || h.names.is_empty() {
        return Err(ReplayError::Corrupt("the header's names and scores do not match".into()));
    }
    let config = h.config::<Zombies>()?;
    let players = u64::from(config.players_per_entry) * h.names.len() as u64;
    if config.players_per_entry == 0 || players > 200_000 {
        return Err(ReplayError::Corrupt("implausible game size in the header".into()));
    }
    let tape = Rc::new(RefCell::new((0, replay.calls.clone())));
    let mut bots: Vec<Box<dyn Bot<Zombies>>> = h.names.iter().map(|_| Zombies::playback(Rc::clone(&tape))).collect();
    let mut game = Engine::new(h.names.clone(), h.seed, config);
    each_turn(&game);
    while !game.is_over() && config.max_turns.is_none_or(|m| game.clock() < m) {
        if game.clock() > h.turns {
            return Err(ReplayError::Mismatch(format!("still playing after turn {}", h.turns)));
        }
        game.turn(&mut bots);
        each_turn(&game);
        if game.stats().iter().any(|s| s.errors > 0) {
            return Err(ReplayError::Mismatch(format!("calls ran out in turn {}", game.clock())));
        }
    }
    let outcome = game.outcome();
    replay.check(&outcome, tape.borrow().0)?;
    Ok(outcome)
}

const TEMPLATE: &str = include_str!("viewer.html");

/// An entity as the page sees it: `[number, owner, x, y, bullets]`, owner -1 for a
/// zombie and -2 for a dead body.
fn entity_json(e: &EntityInfo) -> Value {
    let owner = match e.kind {
        Kind::Player(o) => i64::from(o),
        Kind::Zombie => -1,
        Kind::DeadBody => -2,
    };
    json!([e.id.number, owner, e.x, e.y, e.bullets])
}

/// One state of the board, by entity number.
fn snapshot(game: &Engine) -> BTreeMap<u32, EntityInfo> {
    game.entities().map(|e| (e.id.number, e)).collect()
}

/// The page's data: the start, then one frame of changes per turn.
pub fn viewer_data(replay: &Replay<Zombies>) -> Result<Value, ReplayError> {
    let mut side = 0;
    let mut start = Vec::new();
    let mut frames = Vec::new();
    let mut alive = Vec::new();
    let mut score = Vec::new();
    let mut prev: BTreeMap<u32, EntityInfo> = BTreeMap::new();
    replay_turns(replay, |game| {
        let now = snapshot(game);
        alive.push(json!(game.alive()));
        score.push(json!(game.scores()));
        if game.clock() == 0 {
            side = game.side();
            start = now.values().map(entity_json).collect();
        } else {
            let added: Vec<Value> =
                now.iter().filter(|(n, _)| !prev.contains_key(n)).map(|(_, e)| entity_json(e)).collect();
            let removed: Vec<u32> = prev.keys().filter(|n| !now.contains_key(n)).copied().collect();
            let (mut steps, mut bullets) = (String::new(), Vec::new());
            for (n, before) in &prev {
                let Some(after) = now.get(n) else { continue };
                if before.kind != Kind::DeadBody {
                    let d = |a: u32, b: u32| {
                        let diff = (i64::from(b) - i64::from(a)).rem_euclid(i64::from(side));
                        if diff == 0 {
                            1
                        } else if diff == 1 {
                            2
                        } else {
                            0
                        }
                    };
                    steps.push(char::from(b'0' + (d(before.y, after.y) * 3 + d(before.x, after.x)) as u8));
                }
                if before.bullets != after.bullets {
                    bullets.extend([*n, after.bullets]);
                }
            }
            // Shooters shoot before anyone moves: each stood where the last turn left it.
            let owner_at: BTreeMap<(u32, u32), u32> = prev
                .values()
                .filter_map(|e| match e.kind {
                    Kind::Player(o) => Some(((e.x, e.y), o)),
                    _ => None,
                })
                .collect();
            let shots: Vec<Value> = game
                .shots()
                .iter()
                .map(|s| {
                    let to = s.to.unwrap_or(s.from);
                    let owner = owner_at.get(&s.from).map_or(-1, |&o| i64::from(o));
                    json!([s.from.0, s.from.1, to.0, to.1, u8::from(s.hit), owner])
                })
                .collect();
            frames.push(json!({"add": added, "del": removed, "mv": steps, "bul": bullets, "shots": shots}));
        }
        prev = now;
    })?;
    let h = &replay.header;
    Ok(json!({
        "names": h.names,
        "debug": crate::replay::notes_rows(&replay.notes),
        "seed": h.seed.to_string(),
        "side": side,
        "turns": h.turns,
        "scores": h.scores,
        "start": start,
        "frames": frames,
        "alive": alive,
        "score": score,
        "colours": crate::plot::entry_colours(h.names.len()),
        "hit": crate::plot::HIT_COLOUR,
    }))
}

/// The self-contained viewer page of a replay.
pub fn render(replay: &Replay<Zombies>) -> Result<String, ReplayError> {
    Ok(crate::replay::fill_page(TEMPLATE, &replay.header, &viewer_data(replay)?))
}
