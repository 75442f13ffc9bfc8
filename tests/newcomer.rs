//! The defects a first-time entrant hit (issue 23), each through the `arena` binary as
//! they met it: options the rules cannot play, an output path that is a directory, the
//! words of the CLI (rounds, who played which side), hex `check`'s games, and the
//! lines about bots of other games.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::root;

fn arena(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(dir)
        .arg("--logs")
        .arg(dir.join("logs"))
        .args(args)
        .output()
        .unwrap()
}

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A directory holding copies of the bundled bots `files` (paths under `scripts/`).
fn bots(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        let to = dir.path().join("bots").join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root().join("scripts").join(f), &to).unwrap();
    }
    dir
}

#[test]
fn option_values_the_rules_cannot_play_are_errors_before_any_game() {
    let dir = bots(&["target/lua-seeker.lua", "zombies/coward.lua", "eggs/lua-hunter.lua", "hex/basic.lua"]);
    let cases: [(&str, &[&str], &str); 6] = [
        ("target", &["--set", "q=2"], "q = 2"),
        ("target", &["--set", "max_rounds=0"], "max_rounds = 0"),
        ("zombies", &["--set", "players_per_entry=0"], "players_per_entry = 0"),
        ("zombies", &["--max-turns", "0"], "max_turns = 0"),
        ("eggs", &["--set", "max_turns=0"], "max_turns = 0"),
        ("hex", &["--max-turns", "0"], "max_turns = 0"),
    ];
    for (game, set, says) in cases {
        let args = [&["--game", game, "--scripts", "bots", "tournament", "--rounds", "2"][..], set].concat();
        let out = arena(dir.path(), &args);
        let (stdout, stderr) = text(&out);
        assert!(!out.status.success(), "{game} {set:?} was accepted: {stdout}");
        assert!(stderr.contains("bad game option") && stderr.contains(says), "{game} {set:?}: {stderr}");
        assert!(!stdout.contains("games played"), "{game} {set:?}: games were played: {stdout}");
    }
}

#[test]
fn max_turns_on_target_names_max_rounds() {
    let dir = bots(&["target/lua-seeker.lua"]);
    let out = arena(dir.path(), &["--game", "target", "--scripts", "bots", "play", "--max-turns", "5"]);
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(stderr.contains("--set max_rounds=N"), "{stderr}");
}

#[test]
fn a_results_path_that_is_a_directory_is_an_error_before_the_first_game() {
    let dir = bots(&["zombies/coward.lua"]);
    let out = arena(dir.path(), &["--scripts", "bots", "tournament", "--rounds", "3", "--json", "bots", "--csv", "."]);
    let (stdout, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(!stdout.contains("games played"), "games were played: {stdout}");
    assert!(stderr.contains("bots: is a directory") && stderr.contains(".: is a directory"), "{stderr}");
}

#[test]
fn target_counts_rounds_in_its_words_and_ranks_as_its_docs_say() {
    let dir = bots(&["target/lua-seeker.lua"]);
    let out = arena(
        dir.path(),
        &["--game", "target", "--scripts", "bots", "tournament", "--rounds", "1", "--set", "max_rounds=3"],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("3 rounds") && !stdout.contains(" turns"), "{stdout}");
    assert!(stdout.contains("the mean distance of the best copy"), "{stdout}");
    let out = arena(dir.path(), &["--game", "target", "--scripts", "bots", "play", "--set", "max_rounds=2"]);
    assert!(text(&out).0.contains("game seed 0: 2 rounds"), "{}", text(&out).0);
}

#[test]
fn bots_of_other_games_are_counted_in_one_line() {
    let dir = bots(&["zombies/coward.lua", "eggs/lua-hunter.lua", "eggs/rhai-hunter.rhai", "target/lua-seeker.lua"]);
    for f in ["eggs/lua-hunter.lua", "eggs/rhai-hunter.rhai", "target/lua-seeker.lua"] {
        let name = Path::new(f).file_name().unwrap();
        std::fs::rename(dir.path().join("bots").join(f), dir.path().join("bots").join(name)).unwrap();
    }
    let out = arena(dir.path(), &["--scripts", "bots", "play", "--set", "players_per_entry=3", "--max-turns", "3"]);
    let (_, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("plays eggs"), "one line each: {stderr}");
    assert!(stderr.contains("skipped 3 bots of other games (2 eggs, 1 target;"), "{stderr}");
}

#[test]
fn hex_play_says_who_played_which_side() {
    let dir = bots(&["hex/basic.lua", "hex/fortress.lua"]);
    let out = arena(dir.path(), &["--game", "hex", "--scripts", "bots", "play", "--set", "max_turns=6"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("basic") && stdout.contains("(played the humans)"), "{stdout}");
    assert!(stdout.contains("fortress") && stdout.contains("(played the zombies)"), "{stdout}");
}

#[test]
fn hex_check_plays_only_the_checked_bots_pairs_and_says_how_many_first() {
    let dir = bots(&["hex/basic.lua", "hex/fortress.lua"]);
    std::fs::copy(root().join("scripts/hex/basic.lua"), dir.path().join("bots/hex/other.lua")).unwrap();
    let out = arena(
        dir.path(),
        &["--game", "hex", "check", "bots/hex/basic.lua", "--vs", "bots/hex", "--games", "1", "--set", "max_turns=6"],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    // Three entries: the bot's pairs are 2 opponents x 2 sides, not all 6 ordered pairs.
    assert!(stdout.contains("playing 4 games: 1 round as the humans and as the zombies against each of 2"), "{stdout}");
    assert!(stdout.contains("played 4 games against 2 other entries"), "{stdout}");
    // Per opponent and per side (issue 34): one line per opponent, both sides, one game each.
    assert!(stdout.contains("by opponent and side"), "{stdout}");
    for opponent in ["fortress", "other"] {
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("vs {opponent} ")))
            .unwrap_or_else(|| panic!("{stdout}"));
        assert!(
            line.contains("as the humans ")
                && line.contains("as the zombies ")
                && line.matches("(1 game)").count() == 2,
            "{line}"
        );
    }
}

/// `arena replay FILE --json OUT`: every game, turn by turn, as docs/replays.md says.
#[test]
fn replay_json_writes_every_game_turn_by_turn() {
    let dir = bots(&["zombies/coward.lua", "eggs/lua-hunter.lua", "target/lua-seeker.lua", "hex/basic.lua"]);
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.path().join(name)).unwrap()).unwrap()
    };
    let games: [(&str, &[&str]); 4] = [
        ("zombies", &["--set", "players_per_entry=4", "--max-turns", "6"]),
        ("eggs", &["--max-turns", "5"]),
        ("target", &["--set", "max_rounds=3"]),
        ("hex", &["--set", "max_turns=4"]),
    ];
    for (game, options) in games {
        let args =
            [&["--game", game, "--scripts", "bots", "play", "--seed", "9", "--replay", "r.zrpl"][..], options].concat();
        let out = arena(dir.path(), &args);
        assert!(out.status.success(), "{game}: {}", text(&out).1);
        let out = arena(dir.path(), &["replay", "r.zrpl", "--json", "r.json"]);
        assert!(out.status.success(), "{game}: {}", text(&out).1);
        assert!(!dir.path().join("r.html").exists(), "--json alone writes no page");
        let v = read("r.json");
        assert_eq!(
            (v["format"].as_u64(), v["game"].as_str(), v["seed_text"].as_str()),
            (Some(1), Some(game), Some("9"))
        );
        let length = v["length"].as_u64().unwrap() as usize;
        match game {
            "zombies" | "eggs" => {
                let turns = v["turns"].as_array().unwrap();
                assert_eq!(turns.len(), length + 1, "{game}: the start and every turn");
                assert_eq!(turns[length]["scores"], v["scores"], "{game}");
                assert_eq!(turns[0]["turn"], 0);
            }
            "target" => {
                let moves = v["moves"].as_array().unwrap();
                assert_eq!(moves.len(), 3 * v["players"].as_array().unwrap().len(), "3 rounds, every player");
                assert_eq!(moves.last().unwrap()[1], 2, "the last move's round (from 0)");
                assert_eq!(v["counted_in"], "rounds");
            }
            _ => {
                let states = v["half_turns"].as_array().unwrap();
                assert_eq!(states.len(), length + 1, "hex: the start and every half-turn");
                assert_eq!(states[0]["t"], 1);
                assert_eq!(v["humans_entry"], "basic");
            }
        }
    }
    // A damaged file is one line, no panic.
    std::fs::write(dir.path().join("bad.zrpl"), b"ZRPL\x01\x00").unwrap();
    let out = arena(dir.path(), &["replay", "bad.zrpl", "--json", "bad.json"]);
    assert!(!out.status.success());
    assert_eq!(text(&out).1.lines().count(), 1, "{}", text(&out).1);
}
