//! Hostile bots against the host's own channels and verdicts (`docs/hardening.md`):
//! a program bot that writes forged results to every descriptor it might have inherited
//! changes nothing.

use std::path::Path;
use std::process::Command;

use crate::util::{plugin_lib, root};

/// An eggs program bot named `sneaky` that always stays; with `forge`, before each
/// answer it also writes made-up result lines (in every shape a worker's answer has
/// had) to every descriptor from 3 to 1023.
fn sneaky(dir: &Path, forge: bool) -> std::path::PathBuf {
    let scripts = dir.join(if forge { "forging" } else { "plain" });
    std::fs::create_dir_all(&scripts).unwrap();
    let forgery = if forge {
        r#"
forged = []
for nonce in [0, 1]:
    outcome = {"seed": 0, "turns": 1, "scores": [1000] * 8, "stats": [], "tiebreak": []}
    forged.append(json.dumps({"nonce": nonce, "response": {"Played": outcome}}))
forged.append(json.dumps({"Played": {"seed": 0, "turns": 1, "scores": [1000] * 8, "stats": [], "tiebreak": []}}))
text = ("\n".join(forged) + "\n").encode()
written = 0
for fd in range(3, 1024):
    try:
        os.write(fd, text)
        written += 1
    except OSError:
        pass
print("descriptors written:", written, file=sys.stderr)
"#
    } else {
        ""
    };
    let program = format!(
        "#!/usr/bin/env python3\n# arena: eggs\nimport json, os, sys\nfor _ in range(6):\n    sys.stdin.readline()\n{forgery}\nprint('9')\nprint('N')\nprint('')\n"
    );
    let path = scripts.join("sneaky.py");
    std::fs::write(&path, program).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&scripts, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    scripts
}

fn eggs_tournament(plugins: &Path, scripts: &Path, sandbox: &str, json: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["--game", "eggs", "--plugins"])
        .arg(plugins)
        .arg("--scripts")
        .arg(scripts)
        .arg("--scripts")
        .arg(root().join("scripts/eggs/lua-hunter.lua"))
        .arg("--logs")
        .arg(scripts.join("logs"))
        .args(["tournament", "--rounds", "3", "--seed", "5", "--isolate", "on", "--sandbox", sandbox])
        .args(["--set", "max_turns=12", "--json"])
        .arg(json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap()
}

fn games(v: &serde_json::Value) -> Vec<String> {
    v["games"].as_array().unwrap().iter().map(|g| format!("{} {} {}", g["seed"], g["turns"], g["scores"])).collect()
}

#[test]
fn a_program_that_writes_forged_results_to_every_descriptor_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    let hunter = plugin_lib("egg-hunter");
    std::os::unix::fs::symlink(&hunter, plugins.join(hunter.file_name().unwrap())).unwrap();
    let plain = sneaky(dir.path(), false);
    let forging = sneaky(dir.path(), true);
    let sandboxes: &[&str] = if arena::process::bwrap_available().is_ok() { &["none", "bwrap"] } else { &["none"] };
    for sandbox in sandboxes {
        let honest = eggs_tournament(&plugins, &plain, sandbox, &dir.path().join("plain.json"));
        let forged = eggs_tournament(&plugins, &forging, sandbox, &dir.path().join("forged.json"));
        assert_eq!(games(&honest), games(&forged), "--sandbox {sandbox}: the forger changed the games");
        assert_eq!(forged["played"], 3);
        assert!(forged.get("failed").is_none(), "{forged}");
        // No descriptor of the host's reached the program at all.
        let log = std::fs::read_to_string(forging.join("logs/sneaky.log")).unwrap();
        assert!(log.contains("descriptors written: 0"), "--sandbox {sandbox}: {log}");
        assert!(!log.contains("descriptors written: 1"), "--sandbox {sandbox}: {log}");
    }
}

#[test]
fn a_rhai_replace_that_would_make_a_huge_string_fails_before_it_starts() {
    // Run in the host process (no native or Lua bot plays, so no worker): one built-in
    // call on a large value must not pass the memory cap or the deadline.
    let dir = tempfile::tempdir().unwrap();
    let scripts = dir.path().join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    std::fs::write(
        scripts.join("bomb.rhai"),
        "fn do_turn(ctx) {\n  let s = \"a\";\n  while s.len < 500000 { s += s; }\n  s.replace(\"a\", s);\n  \"STAY\"\n}\n",
    )
    .unwrap();
    std::fs::write(scripts.join("calm.rhai"), "fn do_turn(ctx) { \"STAY\" }\n").unwrap();
    let json = dir.path().join("r.json");
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("--plugins")
        .arg(&scripts)
        .arg("--scripts")
        .arg(&scripts)
        .arg("--logs")
        .arg(dir.path().join("logs"))
        .args(["tournament", "--rounds", "1", "--max-turns", "3", "--set", "players_per_entry=2", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let bomb = v["leaderboard"].as_array().unwrap().iter().find(|s| s["name"] == "bomb").unwrap();
    assert!(bomb["errors"].as_u64().unwrap() > 0, "{bomb}");
    assert!(bomb["messages"][0].as_str().unwrap().contains("replace would make a string of"), "{bomb}");
}

#[test]
fn a_bot_that_times_out_every_call_is_out_after_three_in_a_row() {
    // The bank grows by a turn's allowance each turn (here as much as a call may take),
    // so it alone would never stop a bot that uses its whole limit every call.
    let dir = tempfile::tempdir().unwrap();
    let scripts = dir.path().join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    std::fs::write(scripts.join("spin.lua"), "-- arena: eggs\nfunction do_turn(ctx)\n  while true do end\nend\n")
        .unwrap();
    std::fs::copy(root().join("scripts/eggs/lua-hunter.lua"), scripts.join("lua-hunter.lua")).unwrap();
    let json = dir.path().join("r.json");
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["--game", "eggs", "--plugins"])
        .arg(&scripts)
        .arg("--scripts")
        .arg(&scripts)
        .arg("--logs")
        .arg(dir.path().join("logs"))
        .args(["tournament", "--rounds", "2", "--call-timeout-ms", "150", "--op-budget", "1000000000000"])
        .args(["--time-per-turn", "0.15", "--set", "max_turns=40", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let spin = v["leaderboard"].as_array().unwrap().iter().find(|s| s["name"] == "spin").unwrap();
    // Out in each game: after three overruns in a row, or (on a loaded machine, where
    // the worker's watchdog may look before the script's own hook fires) killed as hung
    // past its limit, with fewer overruns in that game.
    assert_eq!(spin["disqualified"], 2, "{spin}");
    let (overruns, messages) = (spin["overruns"].as_u64().unwrap(), spin["messages"].to_string());
    assert!(overruns <= 6, "at most three per game: {spin}");
    if overruns == 6 {
        assert!(messages.contains("over its time limit in 3 calls in a row"), "{spin}");
    } else {
        assert!(messages.contains("hung in a call past its time limit"), "{spin}");
    }
}

/// An eggs tournament of program bots only (played by the host itself, no worker), in
/// `scripts`, with `extra` options; its results.
fn programs_only(scripts: &Path, extra: &[&str]) -> serde_json::Value {
    let json = scripts.join("r.json");
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["--game", "eggs", "--plugins"])
        .arg(scripts)
        .arg("--scripts")
        .arg(scripts)
        .arg("--logs")
        .arg(scripts.join("logs"))
        .args(["tournament", "--rounds", "2", "--set", "max_turns=6"])
        .args(extra)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

/// A readable scripts directory holding the bundled `py-random.py` and `extra` programs.
fn program_dir(dir: &Path, extra: &[(&str, &str)]) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let scripts = dir.join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&scripts, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::copy(root().join("scripts/eggs/py-random.py"), scripts.join("py-random.py")).unwrap();
    for (name, text) in extra {
        std::fs::write(scripts.join(name), text).unwrap();
        std::fs::set_permissions(scripts.join(name), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    scripts
}

fn running(pattern: &str) -> bool {
    Command::new("pgrep").args(["-f", pattern]).output().is_ok_and(|o| o.status.success())
}

#[test]
fn a_daemon_that_leaves_its_process_group_ends_with_its_game() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = "#!/usr/bin/env python3\n# arena: eggs persistent\nimport subprocess, sys\nsubprocess.Popen(['sleep', '4243.5'], start_new_session=True)\nwhile True:\n    for _ in range(6):\n        if not sys.stdin.readline():\n            sys.exit(0)\n    print('9'); print('N'); print('', flush=True)\n";
    let scripts = program_dir(dir.path(), &[("daemon.py", daemon)]);
    let v = programs_only(&scripts, &[]);
    assert_eq!(v["played"], 2, "{v}");
    if arena::process::ProcessCap::new(8).is_ok() {
        // Where the host can give each program a process cap of its own, the daemon is
        // found there and killed with its program.
        assert!(!running("sleep 4243.5"), "the detached child outlived the tournament");
    } else {
        let _ = Command::new("pkill").args(["-f", "sleep 4243.5"]).status();
        eprintln!("no pids control group here: a daemon that leaves its group is not followed");
    }
}

#[test]
fn programs_are_not_starved_by_other_processes_of_their_user() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 || arena::process::ProcessCap::new(8).is_err() {
        crate::util::skip("skipped: needs root and a pids control group (the fallback is RLIMIT_NPROC per user)");
        return;
    }
    let (uid, _) = arena::process::default_run_as().unwrap();
    // 300 unrelated processes of the user program bots run as, over its old 256 limit.
    let mut sleepers: Vec<std::process::Child> = (0..300)
        .map(|_| {
            std::os::unix::process::CommandExt::uid(&mut Command::new("sleep"), uid).arg("4244.5").spawn().unwrap()
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let scripts = program_dir(dir.path(), &[]);
    let v = programs_only(&scripts, &[]);
    for s in &mut sleepers {
        let _ = s.kill();
        let _ = s.wait();
    }
    let bot = v["leaderboard"].as_array().unwrap().iter().find(|s| s["name"] == "py-random").unwrap();
    assert_eq!((bot["errors"].as_u64(), bot["disqualified"].as_u64()), (Some(0), Some(0)), "{bot}");
}

/// A zombies tournament in a fresh directory: the C libraries `natives` (source under
/// `tests/data` or the repository, library stem, compiler flags) and a copy of `plugin`
/// (a built crate) in its plugins, the Lua `script` (a path under the repository) in its
/// scripts, played with `args` after `tournament`; the directory (logs in `logs/`) and
/// the results.
fn zombies(
    natives: &[(&Path, &str, &[&str])],
    plugin: Option<&str>,
    script: &Path,
    args: &[&str],
) -> (tempfile::TempDir, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let (plugins, scripts) = (dir.path().join("plugins"), dir.path().join("scripts"));
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::create_dir_all(&scripts).unwrap();
    for (source, stem, flags) in natives {
        crate::util::compile_c(source, &plugins.join(crate::util::lib_name(stem)), flags);
    }
    if let Some(name) = plugin {
        let lib = plugin_lib(name);
        std::fs::copy(&lib, plugins.join(lib.file_name().unwrap())).unwrap();
    }
    std::fs::copy(root().join(script), scripts.join(script.file_name().unwrap())).unwrap();
    let json = dir.path().join("r.json");
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("--plugins")
        .arg(&plugins)
        .arg("--scripts")
        .arg(&scripts)
        .arg("--logs")
        .arg(dir.path().join("logs"))
        .arg("tournament")
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (dir, v)
}

/// A zombies tournament of `bad` (misbehave.c built with `flags`), the honest C
/// wanderer and the Lua coward, one thread, three games.
fn beside_honest_bots(flags: &[&str]) -> serde_json::Value {
    let misbehave = crate::util::data("native/misbehave.c");
    let wanderer = root().join("plugins/c-wanderer/wanderer.c");
    let args = ["--rounds", "3", "--seed", "5", "--jobs", "1", "--set", "players_per_entry=4", "--max-turns", "30"];
    let natives: [(&Path, &str, &[&str]); 2] = [(&misbehave, "bad", flags), (&wanderer, "wanderer", &[])];
    zombies(&natives, None, Path::new("scripts/zombies/coward.lua"), &args).1
}

fn standing<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["leaderboard"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("{name}: {v}"))
}

#[test]
fn a_native_bot_that_frames_another_entry_is_blamed_itself() {
    let v = beside_honest_bots(&["-DFRAME", "-DBOT_NAME=\"Framer\""]);
    assert_eq!(v["played"], 3, "{v}");
    assert_eq!(v["failed"].as_array().map_or(0, Vec::len), 0, "{v}");
    let framer = standing(&v, "Framer");
    assert_eq!(framer["disqualified"], 3, "{framer}");
    assert!(framer["messages"].to_string().contains("SIGSEGV"), "{framer}");
    for honest in ["Wanderer", "coward"] {
        assert_eq!(standing(&v, honest)["disqualified"], 0, "{honest} was framed: {v}");
    }
}

#[test]
fn a_native_thread_that_crashes_outside_any_call_costs_only_its_entry() {
    let v = beside_honest_bots(&["-DTHREAD_CRASH", "-D_DEFAULT_SOURCE", "-DBOT_NAME=\"Arsonist\"", "-pthread"]);
    assert_eq!(v["played"], 3, "{v}");
    assert_eq!(v["failed"].as_array().map_or(0, Vec::len), 0, "{v}");
    // Its games go on while its thread sleeps; a game its players left before the
    // thread crashed is one it is not out of.
    let arsonist = standing(&v, "Arsonist");
    assert!(arsonist["disqualified"].as_u64().unwrap() >= 1, "{arsonist}");
    assert!(arsonist["messages"].to_string().contains("SIGSEGV"), "{arsonist}");
    for honest in ["Wanderer", "coward"] {
        assert_eq!(standing(&v, honest)["disqualified"], 0, "{honest}: {v}");
    }
}

#[test]
fn the_lines_of_a_play_stopped_by_a_crash_are_kept_in_the_log() {
    let misbehave = crate::util::data("native/misbehave.c");
    let flags: &[&str] = &["-DSEGFAULT", "-DBOT_NAME=\"Crasher\""];
    // In a shared worker (`--isolate on`): the crash stops its play, and the game is
    // played again in lockstep. (A seed whose game reaches the Crasher's third call and
    // keeps chatty's players to the last turn: under rules 4, seed 3's Crasher died first.)
    let args = [
        "--rounds",
        "1",
        "--seed",
        "2",
        "--jobs",
        "1",
        "--set",
        "players_per_entry=2",
        "--max-turns",
        "5",
        "--isolate",
        "on",
    ];
    let (dir, _) = zombies(&[(&misbehave, "bad", flags)], None, Path::new("tests/data/scripts/chatty.lua"), &args);
    let logs = dir.path().join("logs");
    let log = std::fs::read_to_string(logs.join("chatty.log")).unwrap();
    // The crash at the Crasher's third call ended the shared worker's play in its first
    // turn or second: what chatty printed there is kept, then the whole game again.
    let stopped = log.find("[this play was stopped here").unwrap_or_else(|| panic!("{log}"));
    assert!(log[..stopped].starts_with("--- game seed"), "{log}");
    assert!(log[..stopped].contains("turn\t0"), "{log}");
    let again = &log[stopped..];
    assert!(again.contains("--- game seed") && again.contains("turn\t4"), "{log}");
}

#[test]
fn what_a_native_bot_leaves_running_is_charged_to_it_and_reported() {
    // It forks a sleeping child in its first game in a process.
    let (forker, wanderer) = (crate::util::data("native/forker.c"), root().join("plugins/c-wanderer/wanderer.c"));
    let natives: [(&Path, &str, &[&str]); 2] = [(&forker, "forker", &[]), (&wanderer, "wanderer", &[])];
    let args = ["--rounds", "3", "--jobs", "1", "--isolate", "on", "--max-turns", "3"];
    let (_dir, v) = zombies(&natives, None, Path::new("scripts/zombies/coward.lua"), &args);
    assert_eq!(v["played"], 3, "{v}");
    // Seen after its first game (played with everyone in one worker), it plays the
    // others in a process of its own, where what it leaves is its own.
    let forker = standing(&v, "Forker");
    assert!(
        forker["messages"]
            .to_string()
            .contains("left running at the end of the game (ended with it): 1 process(es), 0 other thread(s)"),
        "{forker}"
    );
    assert_eq!(forker["disqualified"], 0, "{forker}");
    for honest in ["Wanderer", "coward"] {
        assert_eq!(standing(&v, honest)["messages"], serde_json::json!([]), "{honest}: {v}");
    }
}

#[test]
fn a_native_bot_over_the_memory_cap_is_out_for_its_memory() {
    let args = ["--rounds", "2", "--jobs", "1", "--max-turns", "10", "--worker-memory-mib", "512"];
    let (_dir, v) = zombies(&[], Some("hungry-bot"), Path::new("scripts/zombies/coward.lua"), &args);
    assert_eq!(v["played"], 2, "{v}");
    let hungry = standing(&v, "Hungry");
    assert_eq!(hungry["disqualified"], 2, "{hungry}");
    let message = hungry["messages"][0].as_str().unwrap();
    assert!(message.contains("over its memory limit") && message.contains("memory allocation of"), "{message}");
    assert_eq!(standing(&v, "coward")["disqualified"], 0, "{v}");
}
