//! The hex text protocol for program bots, and the JSON shape the script bindings share.
//!
//! One process plays a whole game (one per entry per game, started at its first call).
//! Each call is one line of JSON on the program's standard input, the context
//! ([`context_json`]); the program answers with one line of JSON, the command list
//! ([`answer_from_json`]), and flushes. For example:
//!
//! ```text
//! > {"kind":"unit","side":"humans","t":3,"unit":120,"me":{"id":120,"x":0,"y":0,...},"humans":[...],...}
//! < [{"cmd":"build","x":1,"y":0},{"cmd":"attack","id":131}]
//! ```
//!
//! A command is an object with `cmd` and its fields: `move` (x, y), `attack` (id),
//! `attack_ground` (x, y), `grab` (id), `give` (id, amount), `throw_weapon` (x, y),
//! `throw_ammo` (x, y, amount), `build` (x, y), `call_drop` (x, y, contents: "ammo" or a
//! weapon id), `spawn` (x, y, weapon: the humans' spawn call), `spawn_zombie` (zone,
//! facing: the zombies' spawn call), `forward`, `turn` (by: 1 or −1), `eat` (id). The
//! answer may also be an object `{"commands": [...]}`; an empty line or `[]` does nothing.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use zombies_plugin_abi::hex::{
    self as abi, HexAirstrike, HexAnswer, HexCommand, HexContext, HexCrate, HexHuman, HexWall, HexZombie, cmd,
};

use super::HexGame;
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::program::{Program, Talker};

/// The bots of a program (always one persistent process per game).
pub(super) fn bots(program: Program) -> Result<Arc<dyn BotFactory<HexGame>>, String> {
    let program = Program { persistent: true, ..program };
    let factory = move || Ok(Box::new(ProgramBot(Talker::new(program.clone()))) as Box<dyn Bot<HexGame>>);
    Ok(Arc::new(factory))
}

struct ProgramBot(Talker);

impl Bot<HexGame> for ProgramBot {
    fn turn(&mut self, ctx: &HexContext<'_>) -> Result<HexAnswer, BotError> {
        let mut line = serde_json::to_vec(&context_json(ctx)).expect("JSON values serialise");
        line.push(b'\n');
        let lines = self.0.ask(&line, 1)?;
        let text = lines.first().map_or("", |l| l.trim());
        if text.is_empty() {
            return Ok(HexAnswer::default());
        }
        let value: Value =
            serde_json::from_str(text).map_err(|e| BotError::Invalid(format!("not JSON ({e}): {:.60}", text)))?;
        answer_from_json(&value)
    }
}

fn contents_json(c: u32) -> Value {
    if c == abi::AMMO { json!("ammo") } else { json!(c) }
}

/// An object of a context's lists, with its id and its JSON object.
pub trait Listed: Copy + PartialEq {
    /// Its id.
    fn id(&self) -> u32;
    /// Its JSON object.
    fn json(&self) -> Value;
}

impl Listed for HexHuman {
    fn id(&self) -> u32 {
        self.id
    }
    fn json(&self) -> Value {
        let h = self;
        json!({"id": h.id, "x": h.x, "y": h.y, "hp": h.hp, "ammo": h.ammo, "weapon": h.weapon,
               "specialty": h.specialty, "moves": h.moves, "idle": h.idle})
    }
}

impl Listed for HexZombie {
    fn id(&self) -> u32 {
        self.id
    }
    fn json(&self) -> Value {
        let z = self;
        json!({"id": z.id, "x": z.x, "y": z.y, "hp": z.hp, "facing": z.facing, "moves": z.moves,
               "idle": z.idle, "scent": z.scent})
    }
}

impl Listed for HexWall {
    fn id(&self) -> u32 {
        self.id
    }
    fn json(&self) -> Value {
        json!({"id": self.id, "x": self.x, "y": self.y, "hp": self.hp, "cap": self.cap})
    }
}

impl Listed for HexCrate {
    fn id(&self) -> u32 {
        self.id
    }
    fn json(&self) -> Value {
        let c = self;
        json!({"id": c.id, "x": c.x, "y": c.y, "hp": c.hp, "cap": c.cap, "contents": contents_json(c.contents)})
    }
}

impl Listed for HexAirstrike {
    fn id(&self) -> u32 {
        self.id
    }
    fn json(&self) -> Value {
        let a = self;
        json!({"id": a.id, "x": a.x, "y": a.y, "delay": a.delay, "contents": contents_json(a.contents)})
    }
}

/// The context as JSON: `kind` ("spawn_humans", "spawn_zombies", "unit"), `side`
/// ("humans", "zombies"), `t`, `unit` (null in spawn calls), `me` (the unit, or null),
/// `humans_to_spawn`, `zombies_to_spawn`, `zombie_cap`, `airdrops_held`, `zombies_ready`,
/// and the lists `humans`, `zombies`, `walls`, `crates`, `airstrikes` of objects.
pub fn context_json(ctx: &HexContext<'_>) -> Value {
    let humans: Vec<Value> = ctx.humans.iter().map(Listed::json).collect();
    let zombies: Vec<Value> = ctx.zombies.iter().map(Listed::json).collect();
    let walls: Vec<Value> = ctx.walls.iter().map(Listed::json).collect();
    let crates: Vec<Value> = ctx.crates.iter().map(Listed::json).collect();
    let airstrikes: Vec<Value> = ctx.airstrikes.iter().map(Listed::json).collect();
    let call = match ctx.call {
        abi::CALL_SPAWN_HUMANS => "spawn_humans",
        abi::CALL_SPAWN_ZOMBIES => "spawn_zombies",
        _ => "unit",
    };
    let side = if ctx.side == abi::HUMANS { "humans" } else { "zombies" };
    let unit = (ctx.unit != abi::NO_UNIT).then_some(ctx.unit);
    let me = unit.and_then(|id| {
        let list = if ctx.side == abi::HUMANS { &humans } else { &zombies };
        list.iter().find(|o| o["id"] == json!(id)).cloned()
    });
    json!({
        "kind": call, "side": side, "t": ctx.t, "unit": unit, "me": me,
        "humans_to_spawn": ctx.humans_to_spawn, "zombies_to_spawn": ctx.zombies_to_spawn,
        "zombie_cap": ctx.zombie_cap, "airdrops_held": ctx.airdrops_held, "zombies_ready": ctx.zombies_ready,
        "humans": humans, "zombies": zombies, "walls": walls, "crates": crates, "airstrikes": airstrikes,
    })
}

fn int(m: &Map<String, Value>, key: &str) -> Result<i64, BotError> {
    match m.get(key) {
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9e15).map(|f| f as i64))
            .ok_or_else(|| BotError::Invalid(format!("{key} = {n} is not an integer"))),
        Some(other) => Err(BotError::Invalid(format!("{key} is {other}, not an integer"))),
        None => Err(BotError::Invalid(format!("the command has no {key}"))),
    }
}

fn coord(m: &Map<String, Value>, key: &str) -> Result<i32, BotError> {
    int(m, key).map(|v| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
}

fn id(m: &Map<String, Value>, key: &str) -> Result<u32, BotError> {
    int(m, key).map(|v| u32::try_from(v).unwrap_or(u32::MAX))
}

/// One command from its JSON object.
pub fn command_from_json(v: &Value) -> Result<HexCommand, BotError> {
    let m = v.as_object().ok_or_else(|| BotError::Invalid(format!("a command is an object, not {v:.40}")))?;
    let name = m.get("cmd").and_then(Value::as_str).ok_or_else(|| BotError::Invalid("a command without cmd".into()))?;
    let xy = || Ok::<_, BotError>((coord(m, "x")?, coord(m, "y")?));
    let target = || id(m, "id").or_else(|_| id(m, "target"));
    Ok(match name {
        "move" => {
            let (x, y) = xy()?;
            HexCommand::step(x, y)
        }
        "attack" => HexCommand::attack(target()?),
        "attack_ground" => {
            let (x, y) = xy()?;
            HexCommand::attack_ground(x, y)
        }
        "grab" => HexCommand::grab(target()?),
        "give" => HexCommand::give(target()?, int(m, "amount")?),
        "throw_weapon" => {
            let (x, y) = xy()?;
            HexCommand::throw_weapon(x, y)
        }
        "throw_ammo" => {
            let (x, y) = xy()?;
            HexCommand::throw_ammo(x, y, int(m, "amount")?)
        }
        "build" => {
            let (x, y) = xy()?;
            HexCommand::build(x, y)
        }
        "call_drop" => {
            let (x, y) = xy()?;
            let contents = match m.get("contents") {
                Some(Value::String(s)) if s == "ammo" => abi::AMMO,
                None => abi::AMMO,
                Some(_) => id(m, "contents")?.min(abi::AMMO + 1),
            };
            HexCommand::call_drop(x, y, contents)
        }
        "spawn" | "spawn_human" => {
            let (x, y) = xy()?;
            HexCommand::spawn_human(x, y, id(m, "weapon")?)
        }
        "spawn_zombie" => HexCommand::spawn_zombie(id(m, "zone")?, id(m, "facing")?),
        "forward" => HexCommand::forward(),
        "turn" => {
            let by = int(m, "by").or_else(|_| int(m, "direction"))?;
            HexCommand { kind: cmd::TURN, amount: by, ..HexCommand::default() }
        }
        "eat" => HexCommand::eat(target()?),
        other => return Err(BotError::Invalid(format!("unknown command {other:?}"))),
    })
}

/// An answer from JSON: a list of commands (or `{"commands": [...]}`, or null for none).
/// Commands past the 16th are refused (not read, counted in the answer's `reserved`):
/// the play loop runs the first ones and counts the call as one error.
pub fn answer_from_json(v: &Value) -> Result<HexAnswer, BotError> {
    let list = match v {
        Value::Null => return Ok(HexAnswer::default()),
        Value::Array(a) => a,
        Value::Object(m) if m.contains_key("commands") => match &m["commands"] {
            Value::Array(a) => a,
            Value::Null => return Ok(HexAnswer::default()),
            other => return Err(BotError::Invalid(format!("commands is {other:.40}, not a list"))),
        },
        Value::Object(_) => std::slice::from_ref(v),
        other => return Err(BotError::Invalid(format!("the answer is {other:.40}, not a list of commands"))),
    };
    let mut answer = HexAnswer::default();
    for c in list.iter().take(abi::MAX_COMMANDS) {
        answer.push(command_from_json(c)?);
    }
    answer.reserved = u32::try_from(list.len().saturating_sub(abi::MAX_COMMANDS)).unwrap_or(u32::MAX);
    Ok(answer)
}
