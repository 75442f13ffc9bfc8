//! Golden-trace replay: the 20 games recorded from the original 2009 server's game logic
//! (`tests/data/hex-traces/`, format in its README) must replay exactly.
//!
//! What this is: for every trace, start `Engine::new()`, compare with `initial_state`, then per
//! half-turn feed the commands in order (each accept/reject must match), end the half-turn and
//! compare the whole world (floats exactly). The first difference is printed with trace, t, object
//! and field. What it is not: no rule reasoning here; it uses the public API only.

use std::fmt::Write as _;
use std::path::PathBuf;

use arena::games::hex::{Command, Contents, Engine, Side, State};
use serde_json::Value;

/// `HEX_TRACES_DIR`, else the repository's `tests/data/hex-traces` (beside this file).
fn traces_dir() -> PathBuf {
    match std::env::var_os("HEX_TRACES_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/hex-traces"),
    }
}

fn load(n: u32) -> Value {
    let path = traces_dir().join(format!("trace_{n:02}.json.gz"));
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_reader(flate2::read::GzDecoder::new(file)).expect("trace json")
}

/// An integer field; the original's Python sometimes wrote integral values as floats (e.g. 37.0).
fn int(v: &Value, key: &str) -> i64 {
    match (v[key].as_i64(), v[key].as_f64()) {
        (Some(i), _) => i,
        (None, Some(f)) if f.fract() == 0.0 => f as i64,
        _ => panic!("field {key} in {v}"),
    }
}

fn contents(v: &Value) -> Contents {
    match v {
        Value::String(s) if s == "ammo" => Contents::Ammo,
        v => Contents::Weapon(v.as_u64().unwrap_or_else(|| panic!("contents {v}")) as u32),
    }
}

fn contents_eq(c: Contents, v: &Value) -> bool {
    c == contents(v)
}

fn command(v: &Value) -> (Side, Command) {
    let side = match v["side"].as_str() {
        Some("humans") => Side::Humans,
        Some("zombies") => Side::Zombies,
        s => panic!("side {s:?}"),
    };
    let u = |k: &str| int(v, k) as u32;
    let i = |k: &str| int(v, k) as i32;
    let cmd = match v["cmd"].as_str().expect("cmd") {
        "spawn_human" => Command::SpawnHuman { x: i("x"), y: i("y"), weapon: u("weapon") },
        "move" => Command::Move { unit: u("unit"), x: i("x"), y: i("y") },
        "attack" => Command::Attack { unit: u("unit"), target: u("target") },
        "attack_ground" => Command::AttackGround { unit: u("unit"), x: i("x"), y: i("y") },
        "grab" => Command::Grab { unit: u("unit"), krate: u("crate") },
        "give" => Command::Give { unit: u("unit"), to: u("to"), amount: int(v, "amount") },
        "throw_weapon" => Command::ThrowWeapon { unit: u("unit"), x: i("x"), y: i("y") },
        "throw_ammo" => Command::ThrowAmmo { unit: u("unit"), x: i("x"), y: i("y"), amount: int(v, "amount") },
        "build" => Command::Build { unit: u("unit"), x: i("x"), y: i("y") },
        "call_drop" => Command::CallDrop { x: i("x"), y: i("y"), contents: contents(&v["contents"]) },
        "spawn_zombie" => Command::SpawnZombie { zone: u("zone"), facing: u("facing") },
        "forward" => Command::Forward { unit: u("unit") },
        "turn" => Command::Turn { unit: u("unit"), direction: i("direction") },
        "eat" => Command::Eat { unit: u("unit"), target: u("target") },
        c => panic!("unknown command {c}"),
    };
    (side, cmd)
}

/// A number in a trace row equals ours exactly (ints and floats alike compare as f64 values).
fn num_eq(expected: &Value, got: f64) -> bool {
    expected.as_f64().is_some_and(|e| e == got)
}

/// Compare one kind of rows: `ours` gives (id, [(field, value)]) per object; `theirs` the trace rows
/// with the column names. Returns the first difference.
fn diff_rows(kind: &str, cols: &[&str], theirs: &Value, ours: Vec<(u32, Vec<Field>)>) -> Option<String> {
    let rows = theirs.as_array().expect("rows");
    let n = rows.len().max(ours.len());
    for k in 0..n {
        let (Some(row), Some((id, fields))) = (rows.get(k), ours.get(k)) else {
            let extra = match (rows.get(k), ours.get(k)) {
                (Some(r), None) => format!("trace has {kind} {r} that we lack"),
                (None, Some((id, _))) => format!("we have {kind} {id} that the trace lacks"),
                _ => unreachable!(),
            };
            return Some(extra);
        };
        let tid = row[0].as_u64().expect("id") as u32;
        if tid != *id {
            return Some(format!("{kind} ids differ at row {k}: trace {tid}, ours {id} (trace row {row})"));
        }
        for (c, (name, f)) in cols.iter().zip(fields.iter()).enumerate() {
            debug_assert_eq!(*name, f.0);
            let ok = match &f.1 {
                Val::Num(x) => num_eq(&row[c + 1], *x),
                Val::Contents(cn) => contents_eq(*cn, &row[c + 1]),
            };
            if !ok {
                return Some(format!("{kind} {id} field {name}: trace {}, ours {:?}", row[c + 1], f.1));
            }
        }
    }
    None
}

#[derive(Debug)]
enum Val {
    Num(f64),
    Contents(Contents),
}
type Field = (&'static str, Val);

fn n<T: Into<f64>>(name: &'static str, v: T) -> Field {
    (name, Val::Num(v.into()))
}

/// The first difference between a trace state and ours, if any.
fn diff_state(theirs: &Value, ours: &State) -> Option<String> {
    if !num_eq(&theirs["t"], ours.t as f64) {
        return Some(format!("t: trace {}, ours {}", theirs["t"], ours.t));
    }
    for (key, got) in [
        ("airdrops_held", ours.airdrops_held),
        ("zombies_ready", ours.zombies_ready),
        ("zombie_cap", ours.zombie_cap as f64),
    ] {
        if !num_eq(&theirs[key], got) {
            return Some(format!("{key}: trace {}, ours {got:?}", theirs[key]));
        }
    }
    let humans = ours
        .humans
        .iter()
        .map(|h| {
            let f = vec![
                n("x", h.x),
                n("y", h.y),
                n("hp", h.hp as f64),
                n("ammo", h.ammo as f64),
                n("weapon", h.weapon),
                n("moves", h.moves),
                n("idle", h.idle),
            ];
            (h.id, f)
        })
        .collect();
    let d = diff_rows("human", &["x", "y", "hp", "ammo", "weapon", "moves", "idle"], &theirs["humans"], humans);
    if d.is_some() {
        return d;
    }
    let zombies = ours
        .zombies
        .iter()
        .map(|z| {
            let f = vec![
                n("x", z.x),
                n("y", z.y),
                n("hp", z.hp as f64),
                n("facing", z.facing),
                n("moves", z.moves),
                n("idle", z.idle),
                n("scent", z.scent),
            ];
            (z.id, f)
        })
        .collect();
    let d = diff_rows("zombie", &["x", "y", "hp", "facing", "moves", "idle", "scent"], &theirs["zombies"], zombies);
    if d.is_some() {
        return d;
    }
    let walls = ours.walls.iter().map(|w| (w.id, vec![n("x", w.x), n("y", w.y), n("hp", w.hp as f64)])).collect();
    let d = diff_rows("wall", &["x", "y", "hp"], &theirs["walls"], walls);
    if d.is_some() {
        return d;
    }
    let crates = ours
        .crates
        .iter()
        .map(|c| (c.id, vec![n("x", c.x), n("y", c.y), n("hp", c.hp as f64), ("contents", Val::Contents(c.contents))]))
        .collect();
    let d = diff_rows("crate", &["x", "y", "hp", "contents"], &theirs["crates"], crates);
    if d.is_some() {
        return d;
    }
    let strikes = ours
        .airstrikes
        .iter()
        .map(|a| (a.id, vec![n("x", a.x), n("y", a.y), n("delay", a.delay), ("contents", Val::Contents(a.contents))]))
        .collect();
    diff_rows("airstrike", &["x", "y", "delay", "contents"], &theirs["airstrikes"], strikes)
}

/// Replay one trace; `Err` holds the first difference. Returns the number of half-turns checked.
fn replay(num: u32) -> Result<usize, String> {
    let tr = load(num);
    let mut g = Engine::new();
    if let Some(d) = diff_state(&tr["initial_state"], &g.snapshot()) {
        return Err(format!("trace_{num:02} initial state: {d}"));
    }
    let hts = tr["half_turns"].as_array().expect("half_turns");
    for ht in hts {
        let t = int(ht, "t");
        if g.t() as i64 != t {
            return Err(format!("trace_{num:02} t={t}: our engine is at t={}", g.t()));
        }
        let cmds = ht["commands"].as_array().expect("commands");
        let acc = ht["accepted"].as_array().expect("accepted");
        for (k, (c, a)) in cmds.iter().zip(acc).enumerate() {
            let (side, cmd) = command(c);
            let got = g.apply(side, &cmd);
            if Some(got) != a.as_bool() {
                return Err(format!("trace_{num:02} t={t} command #{k} {c}: trace accepted={a}, ours {got}"));
            }
        }
        g.end_half_turn();
        if let Some(d) = diff_state(&ht["state"], &g.snapshot()) {
            return Err(format!("trace_{num:02} t={t} state after the boundary: {d}"));
        }
    }
    let res = &tr["result"];
    if let Some(w) = res["winner"].as_str() {
        let want = (if w == "humans" { Side::Humans } else { Side::Zombies }, int(res, "t") as u32);
        if g.result() != Some(want) {
            return Err(format!("trace_{num:02}: result trace {res}, ours {:?}", g.result()));
        }
    } else if g.is_over() {
        return Err(format!("trace_{num:02}: truncated trace but our game is over: {:?}", g.result()));
    }
    Ok(hts.len())
}

#[test]
fn all_20_golden_traces_replay_exactly() {
    let mut report = String::new();
    let mut failed = 0;
    for num in 1..=20 {
        match replay(num) {
            Ok(n) => writeln!(report, "trace_{num:02}: ok ({n} half-turns)").unwrap(),
            Err(e) => {
                failed += 1;
                writeln!(report, "FAIL {e}").unwrap();
            }
        }
    }
    println!("{report}");
    assert_eq!(failed, 0, "{failed} of 20 traces diverge:\n{report}");
}
