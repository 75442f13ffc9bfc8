//! The `zombies` binary end to end.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::{data, root};

fn zombies(plugins: &Path, scripts: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zombies"))
        .arg("--plugins")
        .arg(plugins)
        .arg("--scripts")
        .arg(scripts)
        .arg("--logs")
        .arg(scripts.join("logs"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A scripts directory with two quick bots and one broken file.
fn scripts_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["coward.lua", "sentinel.rhai"] {
        std::fs::copy(root().join("scripts").join(f), dir.path().join(f)).unwrap();
    }
    std::fs::copy(data("scripts/syntax_error.lua"), dir.path().join("syntax_error.lua")).unwrap();
    dir
}

#[test]
fn play_without_entries_fails_with_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = zombies(dir.path(), dir.path(), &["play", "--seed", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no entries found"), "{err}");
}

#[test]
fn list_shows_entries_with_their_kind_and_skipped_files_with_the_reason() {
    let scripts = scripts_dir();
    let text = stdout(&zombies(scripts.path(), scripts.path(), &["list"]));
    assert!(text.contains("2 entries"), "{text}");
    assert!(text.contains("coward") && text.contains("lua"), "{text}");
    assert!(text.contains("sentinel") && text.contains("rhai"), "{text}");
    assert!(text.contains("syntax_error.lua: syntax error"), "{text}");
}

#[test]
fn a_tournament_writes_json_and_play_replays_any_of_its_games() {
    let scripts = scripts_dir();
    let json = scripts.path().join("results.json");
    let text = stdout(&zombies(
        scripts.path(),
        scripts.path(),
        &["tournament", "--rounds", "3", "--seed", "5", "--json", json.to_str().unwrap()],
    ));
    assert!(text.contains("median"), "{text}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["seed"], 5);
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 3);
    let board = v["leaderboard"].as_array().unwrap();
    assert_eq!(board.len(), 2);
    for s in board {
        for key in ["name", "median", "mean", "min", "max", "calls", "errors"] {
            assert!(s.get(key).is_some(), "{key} in {s}");
        }
    }
    assert!(board[0]["median"].as_f64() >= board[1]["median"].as_f64(), "ranked by median");

    let game = &games[1];
    let seed = game["seed"].as_u64().unwrap().to_string();
    let replay = stdout(&zombies(scripts.path(), scripts.path(), &["play", "--seed", &seed]));
    assert!(replay.contains(&format!("{} turns", game["turns"])), "{replay}");
    for (name, score) in game["scores"].as_object().unwrap() {
        let line = replay.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap();
        assert_eq!(line.split_whitespace().nth(1).unwrap(), score.to_string(), "{name} in {replay}");
    }
}
