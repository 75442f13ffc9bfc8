//! Golden games: every game plays the same games for the same seeds.
//!
//! For each game, [`SETS`] names a few seeded games between bundled bots (native plugins,
//! which `cargo test` builds, and the Lua and Rhai scripts of `scripts/<game>/`), kept
//! short by the game's options. Each is played by the `arena` binary with its bots in its
//! own process (`arena play --isolate off`: no worker, no box, limits too high for any bot
//! to reach, so that nothing depends on timing or load) and recorded to a replay, read
//! back through `arena replay --json`. What a game gives is compared with
//! `tests/data/golden/<game>.json`:
//!
//! - the seed, the entries (in seat order), the options the replay's header stores, the
//!   number of turns (as the game counts them) and the scores;
//! - `calls`: a digest (FNV-1a, 64 bits) of the replay's calls as the game writes them
//!   (each call's effective answer and random draws; and what bots said, in a replay of
//!   format 2), decompressed, so that the compression does not count;
//! - `states`: a digest of the game turn by turn as `arena replay --json` writes it
//!   (every state between turns; `docs/replays.md`), with the keys of its objects
//!   sorted, so that the encoder's order does not count;
//! - the game's rules version and the replay's format, once per game.
//!
//! The test reads everything through the binary and the replay file's documented layout,
//! not through the library's types, so that a refactoring of the library (its crates,
//! its types' names) leaves it as it is: only a change of behaviour fails it.
//!
//! **Blessing.** A change of the games is a bug unless it is meant. When it is meant
//! (a change of the rules, which also bumps that game's `RULES_VERSION`; or a bundled
//! bot's play changed), rewrite the fixtures and commit them with the change:
//!
//! ```text
//! ARENA_BLESS=1 cargo test -p arena-cli --test integration golden
//! ```
//!
//! Blessing writes every game's file from the games just played and passes (under `CI` it
//! fails: CI checks the fixtures); without it the test fails naming each game and seed
//! that differs, and what differs.

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use crate::util::{plugin_lib, root, stdout};

/// The environment variable that rewrites the fixtures instead of checking them.
const BLESS: &str = "ARENA_BLESS";

/// The command that rewrites the fixtures, as the failure message gives it.
const BLESS_COMMAND: &str = "ARENA_BLESS=1 cargo test -p arena-cli --test integration golden";

/// One game's golden games: its options, its bots, and the games played.
struct Set {
    game: &'static str,
    /// The game's options on `arena play`, to keep each game short.
    options: &'static [&'static str],
    /// Native plugins (dev-dependencies of `arena-cli`, built by `cargo test`).
    plugins: &'static [&'static str],
    /// Scripts under `scripts/<game>/`.
    scripts: &'static [&'static str],
    /// Each game: its seed and the entries to seat, by name (empty: every entry found,
    /// in the order the loaders find them).
    games: &'static [(u64, &'static [&'static str])],
}

/// The games pinned: a few seeds per game, every bundled kind of bot (native, Lua,
/// Rhai) that draws from the game's generator.
const SETS: &[Set] = &[
    Set {
        game: "zombies",
        options: &["--set", "players_per_entry=6", "--max-turns", "80"],
        plugins: &["standstill", "random-walker", "sharpshooter", "phalanx"],
        scripts: &["zombies/coward.lua", "zombies/drifter.rhai", "zombies/gunslinger.lua", "zombies/sentinel.rhai"],
        games: &[(1, &[]), (2, &[]), (20251126, &[])],
    },
    Set {
        game: "eggs",
        options: &["--max-turns", "20"],
        plugins: &["egg-hunter", "egg-random"],
        scripts: &["eggs/lua-hunter.lua", "eggs/rhai-hunter.rhai"],
        games: &[(1, &[]), (2, &[]), (20251126, &[])],
    },
    Set {
        game: "target",
        options: &["--set", "max_rounds=20", "--set", "q=0.3"],
        plugins: &["target-random", "target-seeker"],
        scripts: &["target/lua-seeker.lua"],
        games: &[(1, &[]), (2, &[]), (20251126, &[])],
    },
    Set {
        game: "hex",
        options: &["--max-turns", "120"],
        plugins: &["hex-basic", "hex-smart", "hex-legion"],
        scripts: &["hex/basic.lua", "hex/legion.lua", "hex/rhai-basic.rhai", "hex/fortress.lua"],
        games: &[
            (1, &["HexBasic", "basic"]),
            (2, &["legion", "HexSmart"]),
            (3, &["rhai-basic", "HexLegion"]),
            (20251126, &["HexSmart", "fortress"]),
        ],
    },
];

/// The fixture of one game.
fn fixture(game: &str) -> PathBuf {
    root().join("tests/data/golden").join(format!("{game}.json"))
}

#[test]
fn every_game_plays_the_same_games_for_the_same_seeds() {
    let bless = std::env::var_os(BLESS).is_some_and(|v| !v.is_empty() && v != "0");
    assert!(!bless || std::env::var_os("CI").is_none(), "{BLESS} is set under CI, which checks the fixtures");
    // The games are played one game's set per thread: each game is a process of its own,
    // and what they give does not depend on when they run.
    let played: Vec<Value> = std::thread::scope(|s| {
        SETS.iter()
            .map(|set| s.spawn(|| play_set(set)))
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect()
    });
    let mut differences = Vec::new();
    for (set, played) in SETS.iter().zip(played) {
        let path = fixture(set.game);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let text = serde_json::to_string_pretty(&played).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
            // On the real standard error: the harness captures a passing test's.
            let _ = writeln!(std::io::stderr(), "golden: {BLESS} is set: wrote {}", path.display());
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(text) => match serde_json::from_str::<Value>(&text) {
                Ok(expected) => differences.extend(compare(set.game, &expected, &played)),
                Err(e) => differences.push(format!("{}: not JSON: {e}", path.display())),
            },
            Err(e) => differences.push(format!("{}: cannot read: {e}", path.display())),
        }
    }
    assert!(
        differences.is_empty(),
        "the games differ from those of tests/data/golden/ (the same seeds must give the same games):\n  {}\n\n\
         If no game was meant to change, this is a bug of the change. If it was meant (a change of a game's \
         rules, which also bumps that game's RULES_VERSION, or of a bundled bot's play), rewrite the fixtures \
         and commit them with the change:\n  {BLESS_COMMAND}",
        differences.join("\n  ")
    );
}

/// Plays a set's games; what the fixture holds for them.
fn play_set(set: &Set) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let mut rules_version = None;
    let mut format = None;
    let mut games = Vec::new();
    for &(seed, entries) in set.games {
        let replay = dir.path().join(format!("{seed}.zrpl"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_arena"));
        cmd.current_dir(dir.path())
            .args(["--game", set.game, "--trust-bots", "--call-timeout-ms", "3600000"])
            .args(["--logs"])
            .arg(dir.path().join("logs"));
        for plugin in set.plugins {
            cmd.arg("--plugins").arg(plugin_lib(plugin));
        }
        for script in set.scripts {
            cmd.arg("--scripts").arg(root().join("scripts").join(script));
        }
        cmd.args(["play", "--isolate", "off", "--time-bank", "3600", "--time-per-turn", "3600"])
            .args(["--seed", &seed.to_string()])
            .args(set.options)
            .arg("--replay")
            .arg(&replay);
        if !entries.is_empty() {
            cmd.arg("--entries").arg(entries.join(","));
        }
        stdout(&cmd.output().unwrap());
        let bytes = std::fs::read(&replay).unwrap();
        let file = ReplayFile::read(&bytes).unwrap_or_else(|why| panic!("{} seed {seed}: {why}", set.game));
        let json = stdout(
            &Command::new(env!("CARGO_BIN_EXE_arena"))
                .arg("replay")
                .arg(&replay)
                .args(["--json", "-"])
                .output()
                .unwrap(),
        );
        let states: Value = serde_json::from_str(&json).unwrap();
        let header = &file.header;
        assert_eq!(header["seed"], json!(seed), "{} seed {seed}: the replay's header", set.game);
        rules_version = Some(file.rules_version);
        format = Some(file.format);
        games.push(json!({
            "seed": seed,
            "entries": header["names"],
            "options": options(header),
            "turns": header["turns"],
            "scores": header["scores"],
            "calls": fnv1a(&file.calls),
            "states": fnv1a(canonical(&states).as_bytes()),
        }));
    }
    json!({
        "game": set.game,
        "rules_version": rules_version,
        "replay_format": format,
        "options": set.options,
        "games": games,
    })
}

/// The game's options a replay's header stores: its fields but the game's facts.
fn options(header: &Value) -> Value {
    let mut options = header.as_object().cloned().unwrap_or_default();
    for key in ["game", "seed", "names", "turns", "scores"] {
        options.remove(key);
    }
    Value::Object(options)
}

/// Each difference between the fixture and the games played, one line each, naming the
/// game and the seed.
fn compare(game: &str, expected: &Value, played: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["rules_version", "replay_format", "options"] {
        if expected[key] != played[key] {
            out.push(format!("{game}: {key} {} in the fixture, {} now", expected[key], played[key]));
        }
    }
    let by_seed = |v: &Value| -> BTreeMap<u64, Value> {
        let games = v["games"].as_array().cloned().unwrap_or_default();
        games.into_iter().filter_map(|g| Some((g["seed"].as_u64()?, g))).collect()
    };
    let (want, got) = (by_seed(expected), by_seed(played));
    let mut changed = false;
    for (seed, now) in &got {
        let Some(was) = want.get(seed) else {
            out.push(format!("{game} seed {seed}: played, but not in the fixture"));
            continue;
        };
        let what: Vec<String> = ["entries", "options", "turns", "scores", "calls", "states"]
            .into_iter()
            .filter(|key| was[key] != now[key])
            .map(|key| format!("{key} {} -> {}", was[key], now[key]))
            .collect();
        if !what.is_empty() {
            changed = true;
            out.push(format!("{game} seed {seed}: {}", what.join("; ")));
        }
    }
    for seed in want.keys().filter(|s| !got.contains_key(s)) {
        out.push(format!("{game} seed {seed}: in the fixture, but not played"));
    }
    if changed && expected["rules_version"] == played["rules_version"] {
        out.push(format!(
            "{game}: its rules version is still {}: a change of its rules bumps it",
            played["rules_version"]
        ));
    }
    out
}

/// A replay file as `core/src/replay/` writes it: `ZRPL`, the format (u16 LE), the
/// game's rules version (u16 LE), the header's length (u32 LE), the header (JSON), then
/// the deflated calls (and, in format 2, what the bots said).
struct ReplayFile {
    format: u16,
    rules_version: u16,
    header: Value,
    /// Everything after the header, inflated.
    calls: Vec<u8>,
}

impl ReplayFile {
    fn read(bytes: &[u8]) -> Result<ReplayFile, String> {
        let u16_at = |at: usize| bytes.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
        if bytes.get(..4) != Some(b"ZRPL") {
            return Err("the replay does not start with ZRPL".to_owned());
        }
        let (Some(format), Some(rules_version), Some(len)) =
            (u16_at(4), u16_at(6), bytes.get(8..12).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        else {
            return Err("the replay is cut short".to_owned());
        };
        if !(1..=2).contains(&format) {
            return Err(format!("replay format {format}: this test reads formats 1 and 2 (see its doc)"));
        }
        let end = 12 + len as usize;
        let header = bytes.get(12..end).ok_or("the replay's header is cut short")?;
        let header = serde_json::from_slice(header).map_err(|e| format!("the replay's header: {e}"))?;
        let mut calls = Vec::new();
        flate2::read::DeflateDecoder::new(&bytes[end..])
            .read_to_end(&mut calls)
            .map_err(|e| format!("the replay's calls: {e}"))?;
        Ok(ReplayFile { format, rules_version, header, calls })
    }
}

/// JSON with every object's keys sorted and no spaces.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let sorted: BTreeMap<&String, &Value> = map.iter().collect();
            let fields: Vec<String> =
                sorted.into_iter().map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), canonical(v))).collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(canonical).collect::<Vec<_>>().join(",")),
        leaf => leaf.to_string(),
    }
}

/// FNV-1a (64 bits) of `bytes`, with their length: `fnv1a64:<hex>:<length>`.
fn fnv1a(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("fnv1a64:{hash:016x}:{}", bytes.len())
}
