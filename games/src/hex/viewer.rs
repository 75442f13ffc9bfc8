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
//! - `ad`, `zr`: airdrops held and zombies ready;
//! - (beside the frames: `names`, the entries by index, as `debug`'s rows name them)
//! - `sc`: when the half-turn that led here was played by a whole-side call, its commands
//!   in order, each `[text, accepted]` (the text names the unit, the command and, for one
//!   not accepted, the verdict and why).
//!
//! - `debug`: what the bots said at their calls, rows `[call, entry, turn, unit, text]`
//!   (`crate::replay::notes_rows`), shown beside the board by the shared panel
//!   (`replay/debug.js`).
//!
//! The page's script and style are in `viewer.html`, a template compiled into the binary;
//! its base style is the one every replay page shares (`replay/page.css`), put in at
//! the template's mark. Its playback is its own (half-turns; see `replay/player.js`).

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{Value, json};

use zombies_plugin_abi::hex::{self as abi, HexAnswer, cmd};

use super::replay::{Call, SideCommand};
use super::{Engine, Event, Hex, HexCall, Verdict, play};
use crate::bot::{Bot, BotError};
use crate::game::{Outcome, PlaybackTape, Recorded as _};
use crate::replay::{Replay, ReplayError};

const TEMPLATE: &str = include_str!("viewer.html");

/// Plays a replay again, handing every event of the play loop to `observe`, and checks
/// that it ends as recorded.
pub fn replay_events(replay: &Replay<Hex>, observe: impl FnMut(Event<'_>)) -> Result<Outcome, ReplayError> {
    replay_calls(replay, observe, |_| {})
}

/// [`replay_events`], also handing `on_side` each whole-side call's commands as it is
/// re-played (between the events of its half-turn).
fn replay_calls(
    replay: &Replay<Hex>,
    observe: impl FnMut(Event<'_>),
    on_side: impl FnMut(&[SideCommand]) + 'static,
) -> Result<Outcome, ReplayError> {
    let h = &replay.header;
    if h.scores.len() != h.names.len() || h.names.is_empty() {
        return Err(ReplayError::Corrupt("the header's names and scores do not match".into()));
    }
    if h.names.len() > 2 {
        return Err(ReplayError::Corrupt(format!("a hex game seats two entries, not {}", h.names.len())));
    }
    let config = h.config::<Hex>()?;
    let tape = Rc::new(RefCell::new((0, replay.calls.clone())));
    let on_side: OnSide = Rc::new(RefCell::new(on_side));
    let mut bots: Vec<Box<dyn Bot<Hex>>> = h
        .names
        .iter()
        .map(|_| {
            Box::new(Noticed {
                inner: Hex::playback(Rc::clone(&tape)),
                tape: Rc::clone(&tape),
                on_side: Rc::clone(&on_side),
            }) as Box<dyn Bot<Hex>>
        })
        .collect();
    let outcome = play(h.names.len(), h.seed, &config, &mut bots, observe);
    let used = tape.borrow().0;
    replay.check(&outcome, used)?;
    Ok(outcome)
}

/// A playback bot that hands on each side call it re-plays.
struct Noticed {
    inner: Box<dyn Bot<Hex>>,
    tape: PlaybackTape<Call>,
    on_side: OnSide,
}

/// What is told of each side call re-played.
type OnSide = Rc<RefCell<dyn FnMut(&[SideCommand])>>;

impl Bot<Hex> for Noticed {
    fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
        let result = self.inner.turn(call);
        let tape = self.tape.borrow();
        let (next, calls) = &*tape;
        if let Some(side) = next.checked_sub(1).and_then(|i| calls.get(i)).and_then(|c| c.side.as_deref()) {
            (self.on_side.borrow_mut())(side);
        }
        result
    }
}

/// A side call's command as the page lists it: the unit, the command, and for one not
/// accepted its verdict and why.
fn describe(c: &SideCommand) -> String {
    let k = &c.command;
    let what = match k.kind {
        cmd::MOVE => format!("move to ({}, {})", k.x, k.y),
        cmd::ATTACK => format!("attack #{}", k.id),
        cmd::ATTACK_GROUND => format!("attack ({}, {})", k.x, k.y),
        cmd::GRAB => format!("grab #{}", k.id),
        cmd::GIVE => format!("give {} to #{}", k.amount, k.id),
        cmd::THROW_WEAPON => format!("throw the weapon to ({}, {})", k.x, k.y),
        cmd::THROW_AMMO => format!("throw {} ammo to ({}, {})", k.amount, k.x, k.y),
        cmd::BUILD => format!("build at ({}, {})", k.x, k.y),
        cmd::CALL_DROP if k.id == abi::AMMO => format!("airdrop of ammo on ({}, {})", k.x, k.y),
        cmd::CALL_DROP => format!("airdrop of weapon {} on ({}, {})", k.id, k.x, k.y),
        cmd::SPAWN_HUMAN => format!("place a human at ({}, {}) with weapon {}", k.x, k.y, k.id),
        cmd::SPAWN_ZOMBIE => format!("spawn in zone {} facing {}", k.id, k.amount),
        cmd::FORWARD => "forward".to_owned(),
        cmd::TURN => format!("turn {:+}", k.amount),
        cmd::EAT => format!("eat #{}", k.id),
        other => format!("command {other}"),
    };
    let who = if c.unit == abi::NO_UNIT { String::new() } else { format!("#{}: ", c.unit) };
    match c.verdict {
        Verdict::Accepted => format!("{who}{what}"),
        v => format!("{who}{what}: {} ({})", v.name(), v.reason_str()),
    }
}

/// A side call as the page shows it: `[text, accepted]` per command.
fn side_call_json(side: &[SideCommand]) -> Value {
    Value::Array(side.iter().map(|c| json!([describe(c), c.verdict == Verdict::Accepted])).collect())
}

fn contents(c: super::Contents) -> u32 {
    super::contents_code(c)
}

fn frame(g: &Engine, shots: &mut Vec<Value>, walls_prev: &mut Vec<Value>, crates_prev: &mut Vec<Value>) -> Value {
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
pub fn viewer_data(replay: &Replay<Hex>) -> Result<Value, ReplayError> {
    let mut frames = Vec::new();
    let mut shots = Vec::new();
    let (mut walls, mut crates) = (Vec::new(), Vec::new());
    // The side calls re-played since the last frame (at most one a half-turn).
    let sides: Rc<RefCell<Vec<Value>>> = Rc::default();
    let noted = Rc::clone(&sides);
    let outcome = replay_calls(
        replay,
        |e| match e {
            Event::Start(g) | Event::Boundary(g) => {
                let mut f = frame(g, &mut shots, &mut walls, &mut crates);
                if let Some(side) = sides.borrow_mut().drain(..).next_back() {
                    f["sc"] = side;
                }
                frames.push(f);
            }
            Event::Command { accepted: true, shot: Some(s), .. } => {
                shots.push(json!([s.from.0, s.from.1, s.to.0, s.to.1, s.weapon]));
            }
            Event::Command { .. } => {}
        },
        move |side| noted.borrow_mut().push(side_call_json(side)),
    )?;
    let h = &replay.header;
    let humans = h.names.first().cloned().unwrap_or_default();
    let zombies = h.names.get(1).cloned().unwrap_or_else(|| humans.clone());
    Ok(json!({
        "humans": humans,
        "zombies": zombies,
        "names": h.names,
        "debug": crate::replay::notes_rows(&replay.notes),
        "seed": h.seed.to_string(),
        "result": outcome.turns,
        "frames": frames,
    }))
}

/// The self-contained viewer page of a replay.
pub fn render(replay: &Replay<Hex>) -> Result<String, ReplayError> {
    Ok(crate::replay::fill_page(TEMPLATE, &replay.header, &viewer_data(replay)?))
}
