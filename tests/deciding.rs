//! Tournaments played until decided (`arena tournament --until-decided`, and target's
//! default), end to end through the binary: the last line says the verdict, the JSON
//! results carry it with its numbers, and neither depends on `--jobs`. The procedure's
//! guarantees themselves are checked by simulation in `arena::decide`'s unit tests.

use std::path::Path;
use std::process::Command;

use crate::util::{lib_name, plugin_lib, stdout};

/// A folder holding the built libraries of `crates`.
fn plugins(dir: &Path, crates: &[&str]) -> std::path::PathBuf {
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    for c in crates {
        std::fs::copy(plugin_lib(c), plugins.join(lib_name(&c.replace('-', "_")))).unwrap();
    }
    plugins
}

/// Runs a tournament of `game` with `args`; its standard output and JSON results.
fn tournament(game: &str, plugins: &Path, json: &Path, args: &[&str]) -> (String, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["--game", game, "--plugins"])
        .arg(plugins)
        .arg("tournament")
        .args(args)
        .arg("--json")
        .arg(json)
        .output()
        .unwrap();
    let text = stdout(&out);
    (text, serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap())
}

/// Each game's index and scores (its timings differ from run to run).
fn scores(results: &serde_json::Value) -> Vec<(serde_json::Value, serde_json::Value)> {
    let games = results["games"].as_array().cloned().unwrap_or_default();
    games.iter().map(|g| (g["index"].clone(), g["scores"].clone())).collect()
}

/// The last line of `out`.
fn last_line(out: &str) -> &str {
    out.lines().last().unwrap_or_default()
}

/// True when `line` is a verdict.
fn is_verdict(line: &str) -> bool {
    line.starts_with("clear winner: ") || line.starts_with("joint winners: ") || line.starts_with("undecided after ")
}

#[test]
fn target_plays_until_decided_by_default_and_its_verdict_does_not_depend_on_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins(dir.path(), &["target-random", "target-seeker"]);
    let short = ["--seed", "3", "--set", "max_rounds=3"];
    let report = dir.path().join("report");
    let with_report = [&short[..], &["--jobs", "1", "--report", report.to_str().unwrap()]].concat();
    let (one, one_json) = tournament("target", &plugins, &dir.path().join("1.json"), &with_report);
    let (two, two_json) =
        tournament("target", &plugins, &dir.path().join("2.json"), &[&short[..], &["--jobs", "2"]].concat());
    assert!(is_verdict(last_line(&one)), "{one}");
    assert_eq!(last_line(&one), last_line(&two));
    let decision = &one_json["decision"];
    assert_eq!(decision, &two_json["decision"]);
    assert_eq!(scores(&one_json), scores(&two_json));
    // The numbers behind the verdict: the games it is made on are the games played.
    assert_eq!(decision["games"], one_json["played"], "{decision}");
    assert!(decision["pairs"].as_array().is_some_and(|p| !p.is_empty()), "{decision}");
    assert!(one_json["played"].as_u64().unwrap() >= 10);
    // Exactly the first games in seed order, none past the last batch.
    let indices: Vec<u64> = scores(&one_json).iter().filter_map(|(i, _)| i.as_u64()).collect();
    assert_eq!(indices, (0..one_json["played"].as_u64().unwrap()).collect::<Vec<u64>>());
    // The report's index shows the verdict, and the games played as all there were.
    let index = std::fs::read_to_string(report.join("index.html")).unwrap();
    let verdict = arena::report::esc(last_line(&one));
    assert!(index.contains(&format!("<p id=\"verdict\"><strong>{verdict}</strong></p>")), "{verdict}");
    let played = one_json["played"].as_u64().unwrap();
    assert!(index.contains(&format!("{played} of {played} games played;")), "{played}");
    // A fixed --rounds still plays a fixed count, with no verdict.
    let (fixed, fixed_json) =
        tournament("target", &plugins, &dir.path().join("f.json"), &[&short[..], &["--rounds", "4"]].concat());
    assert_eq!(fixed_json["played"], 4);
    assert!(fixed_json.get("decision").is_none(), "{fixed_json}");
    assert!(!is_verdict(last_line(&fixed)), "{fixed}");
}

#[test]
fn until_decided_ends_with_a_verdict_line_whatever_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins(dir.path(), &["egg-random", "egg-hunter"]);
    let args = ["--until-decided", "--seed", "5", "--set", "max_turns=8", "--batch", "5", "--max-games", "200"];
    let (one, one_json) =
        tournament("eggs", &plugins, &dir.path().join("1.json"), &[&args[..], &["--jobs", "1"]].concat());
    let (two, two_json) =
        tournament("eggs", &plugins, &dir.path().join("2.json"), &[&args[..], &["--jobs", "2"]].concat());
    assert!(is_verdict(last_line(&one)), "{one}");
    assert_eq!(last_line(&one), last_line(&two));
    assert_eq!(one_json["decision"], two_json["decision"]);
    let played = one_json["played"].as_u64().unwrap();
    // Whole batches after the first stage of 10, at most the maximum.
    assert!(played <= 200 && (played - 10) % 5 == 0, "{played} games");
}

#[test]
fn until_decided_refuses_what_it_cannot_play_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins(dir.path(), &["egg-random", "egg-hunter"]);
    for (args, says) in [
        (&["--until-decided", "--max-games", "5"][..], "--max-games 5: the first stage alone is 10 games"),
        (&["--until-decided", "--confidence", "1"][..], "confidence 1: give a number strictly between 0 and 1"),
        (&["--until-decided", "--shard", "1/2"][..], "cannot be split"),
        (&["--until-decided", "--delta=-1"][..], "δ must be positive"),
        (&["--rounds", "3", "--max-games", "50"][..], "add --until-decided"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["--game", "eggs", "--plugins"])
            .arg(&plugins)
            .arg("tournament")
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{args:?}: {err}");
    }
}
