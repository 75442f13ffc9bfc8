//! A replay as JSON, turn by turn, for tools outside the arena (`arena replay FILE --json
//! OUT`): every game's replay is played again through its engine (as the viewer pages
//! are), and each turn's state is written with named columns. The schema is documented
//! in `docs/replays.md`; its `"format"` number changes whenever a field changes meaning.
//!
//! This module only reads replays; it draws nothing (the pages are each game's
//! `viewer.rs`) and it writes no file (the CLI does).

use serde_json::{Map, Value, json};

use crate::game::Game;
use crate::replay::{Replay, ReplayError};

/// The version of the JSON layout.
pub const FORMAT: u32 = 1;

/// The turn-by-turn JSON of a replay file of any game (the game is read from the file).
pub fn replay_json(bytes: &[u8]) -> Result<Value, ReplayError> {
    let game = crate::replay::game_of(bytes)?;
    match game.as_str() {
        "zombies" => zombies(&Replay::from_bytes(bytes)?),
        "eggs" => eggs(&Replay::from_bytes(bytes)?),
        "target" => target(&Replay::from_bytes(bytes)?),
        "hex" => hex(&Replay::from_bytes(bytes)?),
        other => Err(ReplayError::Corrupt(format!("a replay of {other:?}, a game this program does not know"))),
    }
}

/// What every game's JSON starts with: the replay's header.
fn envelope<G: Game>(replay: &Replay<G>, counted_in: &str, columns: Value) -> Map<String, Value> {
    let h = &replay.header;
    let mut m = Map::new();
    m.insert("format".into(), json!(FORMAT));
    m.insert("game".into(), json!(G::NAME));
    m.insert("rules_version".into(), json!(G::RULES_VERSION));
    m.insert("seed".into(), json!(h.seed));
    m.insert("seed_text".into(), json!(h.seed.to_string()));
    m.insert("entries".into(), json!(h.names));
    m.insert("options".into(), Value::Object(h.config.clone()));
    m.insert("counted_in".into(), json!(counted_in));
    m.insert("length".into(), json!(h.turns));
    m.insert("scores".into(), json!(h.scores));
    m.insert("columns".into(), columns);
    m.insert("debug".into(), notes_json(replay));
    m
}

/// What the bots said (`crate::debug`), in call order: each note's call (index into the
/// replay's calls), entry (index and name), turn as the game counts it (`counted_in`),
/// player or unit (`null`: none) and text.
pub fn notes_json<G: Game>(replay: &Replay<G>) -> Value {
    let names = &replay.header.names;
    let notes: Vec<Value> = replay
        .notes
        .iter()
        .map(|n| {
            json!({
                "call": n.call,
                "entry": n.entry,
                "name": names.get(n.entry as usize),
                "turn": n.turn,
                "unit": n.unit,
                "text": n.text,
            })
        })
        .collect();
    Value::Array(notes)
}

fn zombies(replay: &Replay<super::zombies::Zombies>) -> Result<Value, ReplayError> {
    use super::zombies::Kind;
    let mut side = 0;
    let mut turns = Vec::new();
    super::zombies::viewer::replay_turns(replay, |game| {
        side = game.side();
        let entities: Vec<Value> = game
            .entities()
            .map(|e| {
                let (kind, owner) = match e.kind {
                    Kind::Player(o) => ("player", json!(o)),
                    Kind::Zombie => ("zombie", Value::Null),
                    Kind::DeadBody => ("body", Value::Null),
                };
                json!([e.id.number, kind, owner, e.x, e.y, e.bullets])
            })
            .collect();
        let shots: Vec<Value> = game
            .shots()
            .iter()
            .map(|s| {
                let to = s.to.map_or(Value::Null, |t| json!([t.0, t.1]));
                json!([[s.from.0, s.from.1], to, s.hit])
            })
            .collect();
        turns.push(json!({
            "turn": game.clock(),
            "alive": game.alive(),
            "scores": game.scores(),
            "entities": entities,
            "shots": shots,
        }));
    })?;
    let mut m = envelope(
        replay,
        "turns",
        json!({"entities": ["number", "kind", "owner", "x", "y", "bullets"], "shots": ["from", "to", "hit"]}),
    );
    m.insert("board_side".into(), json!(side));
    m.insert("turns".into(), Value::Array(turns));
    Ok(Value::Object(m))
}

fn eggs(replay: &Replay<super::eggs::Eggs>) -> Result<Value, ReplayError> {
    let mut board = Vec::new();
    let mut turns = Vec::new();
    super::eggs::viewer::replay_turns(replay, |game| {
        if board.is_empty() {
            board = super::eggs::viewer::board_rows(game, ' ');
        }
        let events: Vec<Value> = game.last_events().iter().map(super::eggs::viewer::event_json).collect();
        turns.push(json!({
            "turn": game.turn(),
            "players": game.players().iter().map(|&(x, y)| json!([x, y])).collect::<Vec<_>>(),
            "scores": game.scores(),
            "eggs_left": game.eggs_left(),
            "events": if turns.is_empty() { Vec::new() } else { events },
        }));
    })?;
    let mut m = envelope(replay, "turns", json!({"players": ["x", "y"]}));
    m.insert("board".into(), json!(board));
    m.insert("turns".into(), Value::Array(turns));
    Ok(Value::Object(m))
}

fn target(replay: &Replay<super::invisible_target::InvisibleTarget>) -> Result<Value, ReplayError> {
    let mut setup = Map::new();
    let mut moves = Vec::new();
    let mut turn = 0u64;
    let mut players = 1u64;
    super::invisible_target::viewer::replay_turns(replay, |game, step| match step {
        None => {
            let n = game.players();
            players = n.max(1) as u64;
            let rows: Vec<Value> =
                (0..n).map(|p| json!([game.entry_of(p), game.copy_of(p), game.position(p)])).collect();
            setup.insert("target".into(), json!(game.target()));
            setup.insert("players".into(), json!(rows));
            setup.insert("order".into(), json!(game.order()));
        }
        Some(s) => {
            turn += 1;
            // Every player moves once a round, in the same order: turn k is in round (k-1)/N.
            moves.push(json!([turn, (turn - 1) / players, s.player, s.from, s.to, s.moved, s.wall]));
        }
    })?;
    let mut m = envelope(
        replay,
        "rounds",
        json!({
            "players": ["entry", "copy", "start"],
            "moves": ["turn", "round", "player", "from", "to", "moved", "wall"],
        }),
    );
    m.insert("side".into(), json!(super::invisible_target::engine::SIDE));
    m.extend(setup);
    m.insert("moves".into(), Value::Array(moves));
    Ok(Value::Object(m))
}

fn hex(replay: &Replay<super::hex::Hex>) -> Result<Value, ReplayError> {
    use super::hex::{Contents, Engine, Event};
    fn contents(c: Contents) -> Value {
        match c {
            Contents::Ammo => json!("ammo"),
            Contents::Weapon(w) => json!(w),
        }
    }
    fn state(g: &Engine, shots: &mut Vec<Value>) -> Value {
        json!({
            "t": g.t(),
            "humans": g.humans().map(|u| json!([u.id, u.x, u.y, u.hp, u.ammo, u.weapon, u.moves])).collect::<Vec<_>>(),
            "zombies": g.zombies().map(|u| json!([u.id, u.x, u.y, u.hp, u.facing, u.moves])).collect::<Vec<_>>(),
            "walls": g.walls().map(|o| json!([o.id, o.x, o.y, o.hp])).collect::<Vec<_>>(),
            "crates": g.crates().map(|o| json!([o.id, o.x, o.y, o.hp, contents(o.contents)])).collect::<Vec<_>>(),
            "airstrikes": g.airstrikes().map(|o| json!([o.id, o.x, o.y, o.delay, contents(o.contents)])).collect::<Vec<_>>(),
            "airdrops_held": g.airdrops_held(),
            "zombies_ready": g.zombies_ready(),
            "zombie_cap": g.zombie_cap(),
            "shots": std::mem::take(shots),
        })
    }
    let mut states = Vec::new();
    let mut shots = Vec::new();
    super::hex::viewer::replay_events(replay, |e| match e {
        Event::Start(g) | Event::Boundary(g) => states.push(state(g, &mut shots)),
        Event::Command { accepted: true, shot: Some(s), .. } => {
            shots.push(json!([[s.from.0, s.from.1], [s.to.0, s.to.1], s.weapon]));
        }
        Event::Command { .. } => {}
    })?;
    let mut m = envelope(
        replay,
        "half-turns",
        json!({
            "humans": ["id", "x", "y", "hp", "ammo", "weapon", "moves"],
            "zombies": ["id", "x", "y", "hp", "facing", "moves"],
            "walls": ["id", "x", "y", "hp"],
            "crates": ["id", "x", "y", "hp", "contents"],
            "airstrikes": ["id", "x", "y", "delay", "contents"],
            "shots": ["from", "to", "weapon"],
        }),
    );
    let names = &replay.header.names;
    m.insert("humans_entry".into(), json!(names.first()));
    m.insert("zombies_entry".into(), json!(names.get(1).or(names.first())));
    m.insert("half_turns".into(), Value::Array(states));
    Ok(Value::Object(m))
}
