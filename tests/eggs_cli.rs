//! The `arena` binary playing Easter Egg Hunt end to end: bots of both games side by
//! side, tournaments (isolated or not) ranked by mean, replays and their pages.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::stdout;

const LUA: &str = r#"-- arena: eggs
function do_turn(ctx)
  -- step onto a neighbouring egg, else wander
  for r = 2, 4 do
    for c = 2, 4 do
      if ctx.view[r]:sub(c, c) == "o" then
        local dirs = {{1, 2, 3}, {8, 9, 4}, {7, 6, 5}}
        return {dir = dirs[r - 1][c - 1], action = "N", memory = ctx.memory .. "e"}
      end
    end
  end
  return {dir = 1 + random(9), action = "N", memory = ""}
end
"#;

const RHAI: &str = r#"// arena: eggs
fn do_turn(ctx) {
    #{dir: 1 + random(9), action: "A"}
}
"#;

fn arena(scripts: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["--game", "eggs", "--scripts"])
        .arg(scripts)
        .arg("--plugins")
        .arg(scripts)
        .arg("--logs")
        .arg(scripts.join("logs"))
        .args(args)
        .output()
        .unwrap()
}

/// Two eggs bots, and a zombies bot beside them.
fn bots() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("picker.lua"), LUA).unwrap();
    std::fs::write(dir.path().join("brute.rhai"), RHAI).unwrap();
    std::fs::create_dir(dir.path().join("zombies")).unwrap();
    std::fs::copy(crate::util::root().join("scripts/zombies/coward.lua"), dir.path().join("zombies/coward.lua"))
        .unwrap();
    dir
}

#[test]
fn list_shows_the_games_bots_and_not_the_other_games() {
    let dir = bots();
    let text = stdout(&arena(dir.path(), &["list"]));
    assert!(text.contains("2 entries (eggs)"), "{text}");
    assert!(text.contains("picker") && text.contains("brute") && !text.contains("coward"), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_arena")).arg("--scripts").arg(dir.path()).arg("list").output().unwrap();
    let text = stdout(&out);
    assert!(text.contains("1 entries (zombies)") && text.contains("coward"), "{text}");
    assert!(text.contains("picker.lua: plays eggs; this is a zombies tournament"), "{text}");
}

#[test]
fn an_eggs_tournament_ranks_by_mean_and_is_the_same_isolated_or_not() {
    let dir = bots();
    let run = |isolate: &str, json: &str| {
        let path = dir.path().join(json);
        let args =
            ["tournament", "--rounds", "4", "--seed", "3", "--isolate", isolate, "--json", path.to_str().unwrap()];
        let text = stdout(&arena(dir.path(), &args));
        assert!(text.contains("ranked by mean score"), "{text}");
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(v["game"], "eggs");
        assert_eq!(v["ranking"], "mean");
        assert_eq!(v["played"], 4);
        v["games"].clone()
    };
    let strip = |mut games: serde_json::Value| {
        for g in games.as_array_mut().unwrap() {
            for s in g["stats"].as_object_mut().unwrap().values_mut() {
                s["timed_calls"] = 0.into();
                s["timed_nanos"] = 0.into();
            }
        }
        games
    };
    assert_eq!(strip(run("off", "a.json")), strip(run("on", "b.json")), "the same games, isolated or not");
}

#[test]
fn play_records_a_replay_that_becomes_a_page_and_knows_its_game() {
    let dir = bots();
    let replay = dir.path().join("game.zrpl");
    let text = stdout(&arena(dir.path(), &["play", "--seed", "9", "--replay", replay.to_str().unwrap()]));
    assert!(text.contains("picker") && text.contains("brute"), "{text}");
    let page = dir.path().join("game.html");
    // `replay` reads the game from the file: no --game needed.
    let out =
        Command::new(env!("CARGO_BIN_EXE_arena")).arg("replay").arg(&replay).arg("--html").arg(&page).output().unwrap();
    let text = stdout(&out);
    assert!(text.contains("eggs replay, seed 9"), "{text}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<title>eggs replay, seed 9</title>"));
}

#[test]
fn game_options_are_checked_by_name() {
    let dir = bots();
    let out = arena(dir.path(), &["play", "--set", "players_per_entry=3"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("eggs has no option \"players_per_entry\" (its options: max_turns)"), "{err}");
    let text = stdout(&arena(dir.path(), &["play", "--set", "max_turns=5"]));
    assert!(text.contains("5 turns"), "{text}");
}
