//! Long-lived workers and limits enforced from outside: a call stuck where no hook
//! reaches it (a Lua pattern, a C loop) costs about its call limit; a verdict the worker
//! reaches itself costs no second game; a worker that dies is replaced and the other
//! games are unchanged.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::util::{compile_c, data, lib_name, root};

fn arena(plugins: &Path, scripts: &Path, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("--plugins")
        .arg(plugins)
        .arg("--scripts")
        .arg(scripts)
        .arg("--logs")
        .arg(scripts.join("logs"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out, started.elapsed())
}

fn results(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn standing<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["leaderboard"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()
}

/// A scripts directory with `coward.lua` and `extra` files.
fn scripts(dir: &Path, extra: &[(&str, &str)]) -> std::path::PathBuf {
    let scripts = dir.join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    std::fs::copy(root().join("scripts/zombies/coward.lua"), scripts.join("coward.lua")).unwrap();
    for (name, text) in extra {
        std::fs::write(scripts.join(name), text).unwrap();
    }
    scripts
}

#[test]
fn a_lua_pattern_bomb_costs_about_its_call_limit_not_its_time_bank() {
    // The instruction hook never fires inside Lua's C pattern matcher.
    let bomb = "function do_turn(ctx)\n  string.find(string.rep('a', 6000), '.-.-.-.-.-.-b')\n  return 'STAY'\nend\n";
    let dir = tempfile::tempdir().unwrap();
    let scripts = scripts(dir.path(), &[("bomb.lua", bomb)]);
    let json = dir.path().join("r.json");
    let (_, took) = arena(
        &scripts,
        &scripts,
        &["--call-timeout-ms", "400", "tournament", "--rounds", "1", "--set", "players_per_entry=3"]
            .into_iter()
            .chain(["--max-turns", "20", "--json", json.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    let v = results(&json);
    let bomb = standing(&v, "bomb");
    assert_eq!(bomb["disqualified"], 1, "{bomb}");
    let message = bomb["messages"][0].as_str().unwrap();
    assert!(message.contains("hung in a call past its time limit"), "{bomb}");
    assert_eq!(standing(&v, "coward")["disqualified"], 0);
    // Caught at about its 0.4 s of own time (limit, 5% grace, a look every 5 ms), far
    // from the 30 s bank.
    assert_caught_within_10_percent(message, 0.4);
    let _ = took;
}

/// The own time a watchdog's verdict says the call had used ("(0.42 s of its own
/// time; its limit 0.40 s)") is within 10% of the limit.
fn assert_caught_within_10_percent(message: &str, limit: f64) {
    let used: f64 = message
        .split(" s of its own time")
        .next()
        .and_then(|before| before.rsplit('(').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no own time in {message:?}"));
    assert!(used >= limit && used <= limit * 1.1, "caught after {used} s of its own time, limit {limit} s: {message}");
}

#[test]
fn a_c_busy_loop_is_stopped_at_about_its_call_limit() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    compile_c(
        &data("native/misbehave.c"),
        &plugins.join(lib_name("endless")),
        &["-DENDLESS_LOOP", "-DBOT_NAME=\"Endless\""],
    );
    let scripts = scripts(dir.path(), &[]);
    let json = dir.path().join("r.json");
    let args = ["--call-timeout-ms", "500", "tournament", "--rounds", "2", "--max-turns", "15", "--json"];
    let json = json.to_str().unwrap();
    // Quiet, and beside six busy processes per core: the same verdict, at the same
    // own time.
    for loaded in [false, true] {
        let _hogs = loaded.then(|| crate::load::Hogs::per_core(6, Duration::from_secs(300)));
        arena(&plugins, &scripts, &args.into_iter().chain([json]).collect::<Vec<_>>());
        let v = results(Path::new(json));
        let endless = standing(&v, "Endless");
        assert_eq!(endless["disqualified"], 2, "once per game: {endless}");
        let message = endless["messages"][0].as_str().unwrap();
        assert!(message.contains("hung in a call past its time limit at its call 2"), "{message}");
        assert_caught_within_10_percent(message, 0.5);
    }
}

#[test]
fn a_script_that_drains_its_bank_costs_one_game_not_two() {
    // Some tens of milliseconds of computing per call: the bank (0.5 s, nothing per
    // turn) runs out between calls, which the worker sees itself ("at turn", where the
    // watchdog would say "in a call"): no kill, no second game. The work is counted,
    // not timed, so the verdict is the same on a loaded machine.
    let slow = "fn do_turn(ctx) {\n  let n = 0;\n  while n < 200000 { n += 1; }\n  \"STAY\"\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let scripts = scripts(dir.path(), &[("slow.rhai", slow)]);
    let json = dir.path().join("r.json");
    let args = ["--isolate", "on", "--time-bank", "0.5", "--time-per-turn", "0", "--op-budget", "100000000"];
    let args: Vec<&str> = ["tournament", "--rounds", "1", "--jobs", "1", "--set", "players_per_entry=10"]
        .into_iter()
        .chain(args)
        .chain(["--json", json.to_str().unwrap()])
        .collect();
    arena(&scripts, &scripts, &args);
    let v = results(&json);
    let slow = standing(&v, "slow");
    assert_eq!(slow["disqualified"], 1, "{slow}");
    assert!(slow["messages"][0].as_str().unwrap().contains("ran out of its time bank at turn"), "{slow}");
}

#[test]
fn a_worker_that_crashes_is_replaced_and_the_other_games_are_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    compile_c(
        &data("native/misbehave.c"),
        &plugins.join(lib_name("segfault")),
        &["-DSEGFAULT", "-DBOT_NAME=\"Segfault\""],
    );
    compile_c(&root().join("plugins/c-wanderer/wanderer.c"), &plugins.join(lib_name("wanderer")), &[]);
    let scripts = scripts(dir.path(), &[]);
    let json = dir.path().join("r.json");
    let args = ["tournament", "--rounds", "4", "--seed", "11", "--jobs", "1", "--set", "players_per_entry=5", "--json"];
    arena(&plugins, &scripts, &args.into_iter().chain([json.to_str().unwrap()]).collect::<Vec<_>>());
    let v = results(&json);
    assert_eq!(v["played"], 4);
    assert_eq!(standing(&v, "Segfault")["disqualified"], 4, "it crashes in every game, its worker each time");
    // Each game is the game `play --seed` plays alone, in a worker of its own.
    for g in v["games"].as_array().unwrap() {
        let seed = g["seed"].as_u64().unwrap().to_string();
        let (out, _) =
            arena(&plugins, &scripts, &["play", "--set", "players_per_entry=5", "--isolate", "on", "--seed", &seed]);
        let text = String::from_utf8_lossy(&out.stdout);
        for name in ["Wanderer", "coward", "Segfault"] {
            let line = text.lines().find(|l| l.trim_start().starts_with(name)).unwrap_or_else(|| panic!("{text}"));
            let score: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
            assert_eq!(Some(score), g["scores"][name].as_u64(), "game {}: {name}", g["index"]);
        }
    }
}

#[test]
fn a_strict_seat_that_crashes_inside_its_turns_batch_is_out_from_the_batchs_first_call() {
    // Served lockstep (zombies under `--isolate strict`): a seat's calls of a turn are
    // asked for together and answered together, so a crash at its 3rd call (inside the
    // first turn's batch) puts it out from that batch's first call: every run plays the
    // same game, quiet or beside six hogs per core, and the verdict names the call.
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    compile_c(&data("native/misbehave.c"), &plugins.join(lib_name("crash")), &["-DSEGFAULT", "-DBOT_NAME=\"Crash\""]);
    let scripts = scripts(dir.path(), &[]);
    let json = dir.path().join("r.json");
    let json = json.to_str().unwrap();
    let args = ["tournament", "--isolate", "strict", "--rounds", "3", "--max-turns", "20", "--json", json];
    let mut seen = Vec::new();
    for loaded in [false, true] {
        let _hogs = loaded.then(|| crate::load::Hogs::per_core(6, Duration::from_secs(300)));
        arena(&plugins, &scripts, &args);
        let v = results(Path::new(json));
        let crash = standing(&v, "Crash");
        assert_eq!(crash["disqualified"], 3, "once per game: {crash}");
        let message = crash["messages"][0].as_str().unwrap();
        assert!(message.contains("crashed (killed by signal 11") && message.contains("at its call 2"), "{message}");
        // The honest entry is charged with nothing.
        assert_eq!(standing(&v, "coward")["errors"], 0, "{v}");
        let games: Vec<_> = v["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| (g["seed"].clone(), g["turns"].clone(), g["scores"].clone()))
            .collect();
        seen.push(games);
    }
    assert_eq!(seen[0], seen[1], "the same games quiet and loaded");
}
