//! The hex replay viewer: one self-contained HTML page (no network, no other files) that
//! draws a replayed game half-turn by half-turn on a canvas.
//!
//! The game is re-played here, in Rust, through the host's own play loop, and the page
//! receives one frame per position: the start (after set-up) and then every half-turn's
//! end. A frame holds:
//!
//! - `t`: the half-turn about to be played (or the result, at the end);
//! - `h`: humans `[id, x, y, hp, weapon, ammo]`; `z`: zombies `[id, x, y, hp, facing]`;
//! - `w`: walls `[x, y, hp]` (the first frame and whenever a wall changed, else absent:
//!   the previous frame's walls stand); `c`: crates `[x, y, contents]` (7: ammo), same rule;
//! - `a`: pending airdrops `[x, y, delay]`;
//! - `s`: the shots of the half-turn that led here, `[from_x, from_y, to_x, to_y, weapon]`;
//! - `ad`, `zr`: airdrops held and zombies ready.
//!
//! The page's script and style are in `viewer.html`, a template compiled into the binary;
//! its base style is the one every replay page shares (`replay/page.css`), put in at
//! the template's mark. Its playback is its own (half-turns; see `replay/player.js`).

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{Value, json};

use super::{Event, Hex, HexGame, play};
use crate::bot::Bot;
use crate::game::{Game as _, Outcome};
use crate::replay::{Replay, ReplayError};

const TEMPLATE: &str = include_str!("viewer.html");

/// Plays a replay again, handing every event of the play loop to `observe`, and checks
/// that it ends as recorded.
pub fn replay_events(replay: &Replay<HexGame>, observe: impl FnMut(Event<'_>)) -> Result<Outcome, ReplayError> {
    let h = &replay.header;
    if h.scores.len() != h.names.len() || h.names.is_empty() {
        return Err(ReplayError::Corrupt("the header's names and scores do not match".into()));
    }
    if h.names.len() > 2 {
        return Err(ReplayError::Corrupt(format!("a hex game seats two entries, not {}", h.names.len())));
    }
    let config = h.config::<HexGame>()?;
    let tape = Rc::new(RefCell::new((0, replay.calls.clone())));
    let mut bots: Vec<Box<dyn Bot<HexGame>>> = h.names.iter().map(|_| HexGame::playback(Rc::clone(&tape))).collect();
    let outcome = play(h.names.len(), h.seed, &config, &mut bots, observe);
    let used = tape.borrow().0;
    replay.check(&outcome, used)?;
    Ok(outcome)
}

fn contents(c: super::Contents) -> u32 {
    super::contents_code(c)
}

fn frame(g: &Hex, shots: &mut Vec<Value>, walls_prev: &mut Vec<Value>, crates_prev: &mut Vec<Value>) -> Value {
    let h: Vec<Value> = g.humans().map(|u| json!([u.id, u.x, u.y, u.hp, u.weapon, u.ammo])).collect();
    let z: Vec<Value> = g.zombies().map(|u| json!([u.id, u.x, u.y, u.hp, u.facing])).collect();
    let w: Vec<Value> = g.walls().map(|o| json!([o.x, o.y, o.hp])).collect();
    let c: Vec<Value> = g.crates().map(|o| json!([o.x, o.y, contents(o.contents)])).collect();
    let a: Vec<Value> = g.airstrikes().map(|o| json!([o.x, o.y, o.delay])).collect();
    let mut f = json!({
        "t": g.t(), "h": h, "z": z, "a": a, "s": std::mem::take(shots),
        "ad": (g.airdrops_held() * 1000.0).round() / 1000.0, "zr": (g.zombies_ready() * 1000.0).round() / 1000.0,
    });
    if w != *walls_prev {
        f["w"] = json!(w);
        *walls_prev = w;
    }
    if c != *crates_prev {
        f["c"] = json!(c);
        *crates_prev = c;
    }
    f
}

/// The page's data: the entries, the result, and the frames.
pub fn viewer_data(replay: &Replay<HexGame>) -> Result<Value, ReplayError> {
    let mut frames = Vec::new();
    let mut shots = Vec::new();
    let (mut walls, mut crates) = (Vec::new(), Vec::new());
    let outcome = replay_events(replay, |e| match e {
        Event::Start(g) | Event::Boundary(g) => frames.push(frame(g, &mut shots, &mut walls, &mut crates)),
        Event::Command { accepted: true, shot: Some(s), .. } => {
            shots.push(json!([s.from.0, s.from.1, s.to.0, s.to.1, s.weapon]));
        }
        Event::Command { .. } => {}
    })?;
    let h = &replay.header;
    let humans = h.names.first().cloned().unwrap_or_default();
    let zombies = h.names.get(1).cloned().unwrap_or_else(|| humans.clone());
    Ok(json!({
        "humans": humans,
        "zombies": zombies,
        "seed": h.seed.to_string(),
        "result": outcome.turns,
        "frames": frames,
    }))
}

/// The self-contained viewer page of a replay.
pub fn render(replay: &Replay<HexGame>) -> Result<String, ReplayError> {
    Ok(crate::replay::fill_page(TEMPLATE, "hex", replay.header.seed, &viewer_data(replay)?))
}
