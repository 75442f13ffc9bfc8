//! What my bot was thinking (issue 34): every kind of bot says something at a call, the
//! replay keeps it with that call (its turn, its player), capped; `replay --json` lists
//! it; lockstep games keep it as in-process games do.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use arena::bot::Entry;
use arena::debug::{CALL_CAP, CUT_MARK, ENTRY_CAP, ENTRY_CUT_MARK};
use arena::games::eggs::{self, Eggs};
use arena::games::zombies::{self, Zombies};
use arena::loaders::{ScriptLimits, SearchPaths, discover};
use arena::play::play_recorded;
use arena::replay::Replay;

use crate::util::{compile_c, lib_name, plugin_lib, root, stdout};

fn limits() -> ScriptLimits {
    ScriptLimits { call_timeout: std::time::Duration::from_secs(5), ..Default::default() }
}

/// The entries found in a directory holding `files` (name, text; executable).
fn entries_of<G>(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<Entry<G>>)
where
    G: arena::game::Game,
{
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let found = discover::<G>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits());
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    assert_eq!(found.entries.len(), files.len());
    (dir, found.entries)
}

const LUA_SAYS: &str = r#"
function do_turn(ctx)
  debug("lua", ctx.clock, ctx.id.number)
  return "STAY"
end
"#;

const RHAI_SAYS: &str = r#"
fn do_turn(ctx) {
    if ctx.clock % 2 == 0 { debug("rhai " + ctx.clock); }
    print("printed too");
    "STAY"
}
"#;

/// The zombies player numbers of each entry's calls, by call: which entry made call k.
fn small() -> zombies::Config {
    zombies::Config { players_per_entry: 2, max_turns: Some(6) }
}

#[test]
fn lua_and_rhai_bots_say_something_at_each_call_kept_with_its_turn_and_player() {
    let (_dir, entries) = entries_of::<Zombies>(&[("a.lua", LUA_SAYS), ("b.rhai", RHAI_SAYS)]);
    // A game whose Lua entry lives to turn 5 (its score: it is called at every turn to then).
    let (outcome, replay) = (1..100)
        .map(|seed| play_recorded(&entries, seed, &small()))
        .find(|(outcome, _)| outcome.scores[0] >= 5)
        .expect("a seed below 100 where the Lua entry lives to turn 5");
    assert_eq!(outcome.stats.iter().map(|s| s.errors).sum::<u64>(), 0, "{:?}", outcome.stats);
    let lua: Vec<_> = replay.notes.iter().filter(|n| n.entry == 0).collect();
    let rhai: Vec<_> = replay.notes.iter().filter(|n| n.entry == 1).collect();
    // Every Lua call said its clock and its player's number, which the note places.
    assert_eq!(lua.len() as u64, outcome.stats[0].calls);
    for n in &lua {
        let number = n.unit.expect("a zombies call is for one player");
        assert_eq!(n.text, format!("lua\t{}\t{number}", n.turn));
    }
    assert!(lua.iter().any(|n| n.turn == 5) && lua.iter().any(|n| n.turn == 0));
    // Rhai: `debug` on even turns, `print` on every call, joined by a line break.
    assert_eq!(rhai.len() as u64, outcome.stats[1].calls);
    for n in &rhai {
        let want = if n.turn % 2 == 0 { format!("rhai {}\nprinted too", n.turn) } else { "printed too".into() };
        assert_eq!(n.text, want);
    }
    // Each note names its own call: the calls are in order, and the entry's.
    assert!(replay.notes.windows(2).all(|w| w[0].call < w[1].call));
    assert!(replay.notes.iter().all(|n| (n.call as usize) < replay.calls.len()));
    // The file keeps them (format 2), and still re-plays.
    let bytes = replay.to_bytes();
    assert_eq!(&bytes[4..6], &2u16.to_le_bytes());
    let back = Replay::<Zombies>::from_bytes(&bytes).unwrap();
    assert_eq!(back, replay);
    back.verify().unwrap();
    // A corrupt note is an error, not a panic.
    for cut in [bytes.len() - 1, bytes.len() - 5] {
        let _ = Replay::<Zombies>::from_bytes(&bytes[..cut]);
    }
}

#[test]
fn a_game_in_which_nobody_says_anything_is_written_as_before() {
    let (_dir, entries) = entries_of::<Zombies>(&[("quiet.lua", "function do_turn(ctx) return 'STAY' end")]);
    let (_, replay) = play_recorded(&entries, 7, &small());
    assert!(replay.notes.is_empty());
    let bytes = replay.to_bytes();
    assert_eq!(&bytes[4..6], &1u16.to_le_bytes(), "format 1, readable by older versions");
    assert_eq!(Replay::<Zombies>::from_bytes(&bytes).unwrap(), replay);
}

#[test]
fn a_chatty_bot_is_cut_at_one_kib_per_call_and_64_kib_per_game_and_the_cut_is_marked() {
    let chatty = r#"
function do_turn(ctx)
  debug(string.rep("é", 600))
  debug("never seen")
  return "STAY"
end
"#;
    let (_dir, entries) = entries_of::<Zombies>(&[("chatty.lua", chatty)]);
    let config = zombies::Config { players_per_entry: 60, max_turns: Some(4) };
    let (outcome, replay) = play_recorded(&entries, 3, &config);
    assert_eq!(outcome.stats[0].errors, 0, "{:?}", outcome.stats[0].messages);
    assert!(outcome.stats[0].calls >= 100);
    let total: usize = replay.notes.iter().map(|n| n.text.len()).sum();
    assert!(total <= ENTRY_CAP + ENTRY_CUT_MARK.len(), "{total}");
    let (last, kept) = replay.notes.split_last().unwrap();
    assert!(last.text.ends_with(ENTRY_CUT_MARK), "{:?}", &last.text[last.text.len() - 80..]);
    for n in kept {
        assert!(n.text.ends_with(CUT_MARK));
        let body = &n.text[..n.text.len() - CUT_MARK.len()];
        assert!(body.len() <= CALL_CAP && body.chars().all(|c| c == 'é'), "{}", body.len());
    }
    // Nothing after the game's cut, though the bot kept talking.
    assert!((replay.notes.len() as u64) < outcome.stats[0].calls);
    Replay::<Zombies>::from_bytes(&replay.to_bytes()).unwrap().verify().unwrap();
}

#[test]
fn programs_say_something_with_hash_lines_and_standard_error() {
    // Zombies: one process per game; `#` lines are never part of the answer.
    let zombie = "#!/bin/sh\nwhile read -r clock owner number rest; do\n  echo \"# turn $clock, player $number\"\n  echo '#second line'\n  echo STAY\ndone\n";
    // Eggs: one process per call; its standard error is the call's too.
    let egg = "#!/bin/sh\n# arena: eggs\necho '# looking'\necho 'thinking hard' >&2\necho 5\n";
    let (_dir, entries) = entries_of::<Zombies>(&[("talker.sh", zombie)]);
    let (outcome, replay) = play_recorded(&entries, 5, &small());
    assert_eq!(outcome.stats[0].errors, 0, "{:?}", outcome.stats[0].messages);
    assert_eq!(replay.notes.len() as u64, outcome.stats[0].calls);
    for n in &replay.notes {
        assert_eq!(n.text, format!("turn {}, player {}\nsecond line", n.turn, n.unit.unwrap()));
    }
    let (_dir, entries) = entries_of::<Eggs>(&[("egg.sh", egg)]);
    let (outcome, replay) = play_recorded(&entries, 5, &eggs::Config { max_turns: Some(4) });
    assert_eq!(outcome.stats[0].errors, 0, "{:?}", outcome.stats[0].messages);
    assert_eq!(replay.notes.len() as u64, outcome.stats[0].calls);
    assert!(replay.notes.iter().all(|n| n.text == "looking\nthinking hard"), "{:?}", replay.notes);
}

#[test]
fn a_target_program_says_something_with_hash_lines_at_each_copys_call() {
    use arena::games::invisible_target::{self, InvisibleTarget};
    let copy = "#!/bin/sh\n# arena: target\nwhile read -r line; do\n  echo \"# copy $ARENA_COPY sees $line\" | cut -c1-40\n  echo 2\ndone\n";
    let (_dir, entries) = entries_of::<InvisibleTarget>(&[("copy.sh", copy)]);
    let config = invisible_target::Config { max_rounds: Some(2), ..invisible_target::Config::default() };
    let (outcome, replay) = play_recorded(&entries, 5, &config);
    assert_eq!(outcome.stats[0].errors, 0, "{:?}", outcome.stats[0].messages);
    assert_eq!(replay.notes.len() as u64, outcome.stats[0].calls);
    for n in &replay.notes {
        assert!(n.text.starts_with(&format!("copy {} sees ", n.unit.unwrap())), "{n:?}");
    }
}

fn natives(dir: &Path) -> Vec<Entry<Zombies>> {
    let found = discover::<Zombies>(&SearchPaths { plugins: vec![dir.to_owned()], scripts: vec![] }, &limits());
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    found.entries
}

#[test]
fn native_rust_and_c_bots_say_something_through_the_abi_1_4_channel() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(plugin_lib("sharpshooter"), dir.path().join(lib_name("sharpshooter"))).unwrap();
    compile_c(&root().join("plugins/c-wanderer/wanderer.c"), &dir.path().join(lib_name("wanderer")), &[]);
    // A 1.0 library, which has no channel, still plays.
    std::fs::copy(plugin_lib("abi-1-0-bot"), dir.path().join(lib_name("abi10"))).unwrap();
    let entries = natives(dir.path());
    let index = |name: &str| entries.iter().position(|e| e.name == name).unwrap() as u32;
    let config = zombies::Config { players_per_entry: 10, max_turns: Some(30) };
    let (outcome, replay) = play_recorded(&entries, 11, &config);
    assert!(outcome.stats.iter().all(|s| s.errors == 0), "{:?}", outcome.stats);
    let said = |name: &str| replay.notes.iter().filter(|n| n.entry == index(name)).collect::<Vec<_>>();
    let wanderer = said("Wanderer");
    assert_eq!(wanderer.len() as u64, outcome.stats[index("Wanderer") as usize].calls, "a text at every call");
    assert!(wanderer.iter().all(|n| n.text == "wander" || n.text.starts_with("flee ") || n.text.starts_with("shoot ")));
    let sharp = said("Sharpshooter");
    assert!(!sharp.is_empty());
    assert!(sharp.iter().all(|n| ["shoot ", "run ", "scavenge "].iter().any(|p| n.text.starts_with(p))), "{sharp:?}");
    assert!(replay.notes.iter().all(|n| n.unit.is_some()));
    Replay::<Zombies>::from_bytes(&replay.to_bytes()).unwrap().verify().unwrap();
}

/// `arena` with a scripts directory.
fn arena(scripts: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arena")).arg("--scripts").arg(scripts).args(args).output().unwrap()
}

#[test]
fn a_lockstep_game_keeps_what_the_bots_said_as_an_in_process_game_does() {
    let dir = tempfile::tempdir().unwrap();
    let scripts = dir.path().join("bots");
    std::fs::create_dir(&scripts).unwrap();
    std::fs::write(scripts.join("a.lua"), LUA_SAYS).unwrap();
    std::fs::write(scripts.join("b.rhai"), RHAI_SAYS).unwrap();
    let mut notes = Vec::new();
    for isolate in ["strict", "on", "off"] {
        let replays = dir.path().join(isolate);
        let out = arena(
            &scripts,
            &[
                "tournament",
                "--rounds",
                "1",
                "--seed",
                "4",
                "--max-turns",
                "8",
                "--isolate",
                isolate,
                "--replay-dir",
                replays.to_str().unwrap(),
            ],
        );
        stdout(&out);
        let file = std::fs::read_dir(&replays)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "zrpl"))
            .expect("a replay");
        let json = stdout(&arena(&scripts, &["replay", file.to_str().unwrap(), "--json", "-"]));
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let debug = value["debug"].as_array().unwrap().clone();
        let first = debug.iter().find(|n| n["name"] == "a").expect("the Lua bot said something");
        assert_eq!(first["text"], format!("lua\t0\t{}", first["unit"]));
        assert!(debug.iter().any(|n| n["name"] == "b" && n["text"] == "rhai 0\nprinted too"));
        notes.push(debug);
    }
    assert_eq!(notes[0], notes[2], "lockstep (strict) and in-process (off) keep the same notes");
    assert_eq!(notes[1], notes[2], "a shared worker (on) and in-process (off) keep the same notes");
}

#[test]
fn check_prints_what_the_bot_said_in_its_worst_game() {
    let dir = tempfile::tempdir().unwrap();
    let bots = dir.path().join("bots");
    std::fs::create_dir(&bots).unwrap();
    std::fs::write(bots.join("talker.lua"), LUA_SAYS).unwrap();
    std::fs::copy(root().join("scripts/zombies/coward.lua"), bots.join("coward.lua")).unwrap();
    let logs = dir.path().join("logs");
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("--logs")
        .arg(&logs)
        .args(["check", bots.join("talker.lua").to_str().unwrap(), "--vs"])
        .arg(bots.join("coward.lua"))
        .args(["--games", "2", "--max-turns", "3"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(text.contains("what it said in that game"), "{text}");
    // The lines name the turn and the player, then the text.
    let line = text.lines().find(|l| l.trim_start().starts_with("turn 0, #")).unwrap_or_else(|| panic!("{text}"));
    let (place, said) = line.trim_start().split_once(": ").unwrap();
    assert_eq!(said, format!("lua\t0\t{}", place.rsplit('#').next().unwrap()), "{line}");
    // The bundled coward says nothing: checking it says so.
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("--logs")
        .arg(&logs)
        .args(["check", bots.join("coward.lua").to_str().unwrap(), "--vs"])
        .arg(bots.join("talker.lua"))
        .args(["--games", "1", "--max-turns", "3"])
        .output()
        .unwrap();
    assert!(stdout(&out).contains("it said nothing in that game"));
}
