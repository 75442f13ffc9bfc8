//! The `zombies` binary end to end.

use std::path::Path;
use std::process::{Command, Output};

use crate::util::{data, root, stdout};

fn zombies(plugins: &Path, scripts: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
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

/// A scripts directory with two quick bots and one broken file.
fn scripts_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["coward.lua", "sentinel.rhai"] {
        std::fs::copy(root().join("scripts/zombies").join(f), dir.path().join(f)).unwrap();
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
    assert!(text.contains("syntax_error.lua: syntax_error.lua:") && text.contains(": syntax error:"), "{text}");
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

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The deterministic part of a leaderboard line.
fn ranking(v: &serde_json::Value) -> Vec<String> {
    v["leaderboard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let keys = ["name", "median", "median_ci_low", "median_ci_high", "mean", "min", "max", "calls", "errors"];
            keys.iter().map(|k| s[k].to_string()).collect::<Vec<_>>().join(" ")
        })
        .collect()
}

#[test]
fn shards_run_apart_and_merged_give_the_one_machine_leaderboard() {
    let scripts = scripts_dir();
    let d = scripts.path();
    let path = |f: &str| d.join(f).to_str().unwrap().to_owned();
    let run = |args: &[&str]| stdout(&zombies(d, d, args));
    run(&["tournament", "--rounds", "5", "--seed", "3", "--jobs", "2", "--json", &path("full.json")]);
    // Shards count from 1: 1/2 and 2/2.
    run(&["tournament", "--rounds", "5", "--seed", "3", "--shard", "1/2", "--json", &path("a.json")]);
    let b = run(&["tournament", "--rounds", "5", "--seed", "3", "--shard", "2/2", "--json", &path("b.json")]);
    assert!(b.contains("2 of 2 games played"), "{b}");
    let merged =
        run(&["merge", &path("a.json"), &path("b.json"), "--json", &path("all.json"), "--csv", &path("all.csv")]);
    assert!(merged.contains("5 of 5 games merged"), "{merged}");
    // A shard missing: refused in one line, or merged as it is with --partial.
    let alone = zombies(d, d, &["merge", &path("a.json")]);
    let err = String::from_utf8_lossy(&alone.stderr);
    assert!(!alone.status.success() && err.contains("shard 2 of 2 missing"), "{err}");
    let partial = run(&["merge", &path("a.json"), "--partial"]);
    assert!(partial.contains("3 of 5 games merged -- 2 missing"), "{partial}");
    assert_eq!(ranking(&json(&d.join("all.json"))), ranking(&json(&d.join("full.json"))));
    let csv = std::fs::read_to_string(d.join("all.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
}

#[test]
fn a_bad_shard_is_refused_in_one_line_naming_the_reason() {
    let scripts = scripts_dir();
    let d = scripts.path();
    for (shard, says) in [
        ("0/2", "shard 0/2: shards count from 1: K is 1 to 2 (1/2 is the first shard)"),
        ("3/2", "shard 3/2: K is at most N: 2 shards are 1/2 to 2/2"),
        ("1/0", "shard 1/0: N, the number of shards, must be at least 1"),
        ("2", "shard \"2\": give K/N, e.g. 1/4 (shard 1 of 4)"),
    ] {
        let out = zombies(d, d, &["tournament", "--rounds", "4", "--shard", shard]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "--shard {shard} was accepted");
        // One error line naming the reason (clap adds its usual hint to try --help).
        let first = err.lines().next().unwrap_or_default();
        assert!(first.starts_with("error: invalid value") && first.contains(says), "--shard {shard}: {err}");
        assert_eq!(err.lines().filter(|l| l.contains("error")).count(), 1, "--shard {shard}: {err}");
    }
}

#[test]
fn results_written_when_shards_counted_from_0_still_merge() {
    // Before shards counted from 1, results recorded shard K/N as {"k": K - 1, "n": N}.
    let scripts = scripts_dir();
    let d = scripts.path();
    let path = |f: &str| d.join(f).to_str().unwrap().to_owned();
    let run = |args: &[&str]| stdout(&zombies(d, d, args));
    run(&["tournament", "--rounds", "4", "--seed", "5", "--json", &path("full.json")]);
    for (k, file) in [(1, "a.json"), (2, "b.json")] {
        let shard = format!("{k}/2");
        run(&["tournament", "--rounds", "4", "--seed", "5", "--shard", &shard, "--json", &path(file)]);
        let mut v = json(&d.join(file));
        assert_eq!(v["shard"], shard.as_str(), "written as --shard takes it");
        v["shard"] = serde_json::json!({"k": k - 1, "n": 2});
        std::fs::write(d.join(file), v.to_string()).unwrap();
    }
    let merged = run(&["merge", &path("b.json"), &path("a.json"), "--json", &path("all.json")]);
    assert!(merged.contains("4 of 4 games merged"), "{merged}");
    assert_eq!(ranking(&json(&d.join("all.json"))), ranking(&json(&d.join("full.json"))));
    let alone = zombies(d, d, &["merge", &path("a.json")]);
    let err = String::from_utf8_lossy(&alone.stderr);
    assert!(err.contains("shard 2 of 2 missing"), "the old shard 0 is shard 1: {err}");
}

#[test]
fn ctrl_c_stops_after_the_games_in_flight_and_keeps_the_finished_ones() {
    let scripts = scripts_dir();
    let d = scripts.path();
    let out_json = d.join("out.json");
    let child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["--plugins"])
        .arg(d)
        .arg("--scripts")
        .arg(d)
        .args(["tournament", "--rounds", "100000", "--jobs", "2", "--json"])
        .arg(&out_json)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    // An interrupted tournament says so in its status, 130, once everything is written.
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("of 100000 games played") && text.contains("interrupted"), "{text}");
    let v = json(&out_json);
    let played = v["played"].as_u64().unwrap();
    assert!(played < 100000);
    assert_eq!(v["games"].as_array().unwrap().len() as u64, played);
    assert_eq!(v["rounds"], 100000);
}

#[test]
fn tournaments_record_replays_and_plots_and_replays_become_pages() {
    let scripts = scripts_dir();
    let d = scripts.path();
    let reps = d.join("replays");
    let plot = d.join("scores.svg");
    stdout(&zombies(
        d,
        d,
        &["tournament", "--rounds", "2", "--replay-dir", reps.to_str().unwrap(), "--plot", plot.to_str().unwrap()],
    ));
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("coward") && svg.contains("sentinel"), "{svg:.200}");
    let mut files: Vec<_> = std::fs::read_dir(&reps).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert_eq!(files.len(), 2);
    assert!(files[0].file_name().unwrap().to_str().unwrap().starts_with("game-00000-"));
    let page = d.join("game.html");
    let out = stdout(&zombies(d, d, &["replay", files[0].to_str().unwrap(), "--html", page.to_str().unwrap()]));
    assert!(out.contains("viewer written"), "{out}");
    assert!(std::fs::read_to_string(&page).unwrap().contains("<canvas id=\"board\""));

    // A damaged replay: one line naming the file, exit code 1, no page.
    let bytes = std::fs::read(&files[0]).unwrap();
    let broken = d.join("broken.zrpl");
    std::fs::write(&broken, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let out = zombies(d, d, &["replay", broken.to_str().unwrap(), "--html", d.join("no.html").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("broken.zrpl") && err.contains("replay"), "{err}");
    assert!(!d.join("no.html").exists());
}

#[test]
fn isolated_games_add_every_game_to_the_script_logs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(data("scripts/chatty.lua"), d.join("chatty.lua")).unwrap();
    let logs = d.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(logs.join("chatty.log"), "left over from an earlier run\n").unwrap();
    let json = d.join("r.json");
    stdout(&zombies(
        d,
        d,
        &[
            "tournament",
            "--rounds",
            "3",
            "--jobs",
            "2",
            "--isolate",
            "on",
            "--max-turns",
            "5",
            "--json",
            json.to_str().unwrap(),
        ],
    ));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let calls = v["leaderboard"][0]["calls"].as_u64().unwrap();
    assert_eq!(v["games"].as_array().unwrap().len(), 3);
    assert!(calls >= 3 * 50, "50 players called in each of 3 games: {calls}");
    let log = std::fs::read_to_string(logs.join("chatty.log")).unwrap();
    assert!(!log.contains("left over"), "a run starts its logs afresh");
    // One line per call of all three games (workers append), none lost or mixed, each
    // game's lines after its marker.
    assert_eq!(log.lines().filter(|l| l.starts_with("player\t")).count() as u64, calls);
    let markers: Vec<&str> = log.lines().filter(|l| l.starts_with("--- game seed ")).collect();
    assert_eq!(markers.len(), 3, "{log}");
    for g in v["games"].as_array().unwrap() {
        assert!(markers.contains(&format!("--- game seed {} ---", g["seed"]).as_str()), "{markers:?}");
    }
    assert!(log.lines().all(|l| l.starts_with("player\t") || l.starts_with("--- game seed ")), "{log}");
}

#[test]
fn only_the_commands_that_load_bots_list_the_bot_options() {
    let bot_options =
        ["--plugins", "--scripts", "--op-budget", "--call-timeout-ms", "--memory-mib", "--sandbox", "--logs"];
    for (command, loads_bots) in [
        ("play", true),
        ("tournament", true),
        ("check", true),
        ("list", true),
        ("bench", true),
        ("serve", true),
        ("merge", false),
        ("replay", false),
        ("new-bot", false),
    ] {
        let help = stdout(&Command::new(env!("CARGO_BIN_EXE_arena")).args([command, "--help"]).output().unwrap());
        for option in bot_options {
            assert_eq!(help.contains(option), loads_bots, "`{command} --help` and {option}: {help}");
        }
        // A replay and a results file know their game.
        assert_eq!(help.contains("--game <GAME>"), loads_bots || command == "new-bot", "`{command} --help`: {help}");
    }
}

#[test]
fn bot_options_work_before_and_after_the_subcommand_and_after_wins() {
    let (a, b, empty) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::copy(root().join("scripts/zombies/coward.lua"), a.path().join("coward.lua")).unwrap();
    std::fs::copy(root().join("scripts/eggs/lua-hunter.lua"), b.path().join("lua-hunter.lua")).unwrap();
    let arena = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_arena")).args(args).output().unwrap();
    let (a, b, empty) = (a.path().to_str().unwrap(), b.path().to_str().unwrap(), empty.path().to_str().unwrap());
    // Directories add up; the game after the subcommand overrides the one before it.
    let zombies = stdout(&arena(&["--plugins", empty, "--scripts", a, "list", "--scripts", b]));
    assert!(zombies.contains("coward") && zombies.contains("plays eggs"), "{zombies}");
    let eggs = stdout(&arena(&[
        "--game",
        "zombies",
        "--scripts",
        a,
        "list",
        "--scripts",
        b,
        "--game",
        "eggs",
        "--plugins",
        empty,
    ]));
    assert!(eggs.contains("lua-hunter") && eggs.contains("plays zombies"), "{eggs}");
    // A limit after the subcommand wins: a budget of 1 instruction overruns.
    let json = std::path::Path::new(empty).join("r.json");
    let args = ["--op-budget", "1000000", "--plugins", empty, "--scripts", a, "tournament", "--rounds", "1"];
    let more = ["--max-turns", "3", "--op-budget", "1", "--logs", empty, "--json", json.to_str().unwrap()];
    stdout(&arena(&[&args[..], &more[..]].concat()));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let row = &v["leaderboard"][0];
    assert_eq!(row["name"], "coward");
    assert!(row["overruns"].as_u64().unwrap() > 0 && row["messages"][0] == "over its instruction budget", "{row}");
}

/// A directory holding `plugins/`, with the C test bot `tests/data/native/{stem}.c`
/// compiled into it (`defines` passed to the compiler): (the directory, its path, the
/// plugins directory).
fn with_c_bot(stem: &str, defines: &[&str]) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_owned();
    let plugins = d.join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    let source = data(&format!("native/{stem}.c"));
    crate::util::compile_c(&source, &plugins.join(crate::util::lib_name(stem)), defines);
    (dir, d, plugins)
}

#[test]
fn isolated_native_bots_log_every_game_through_the_abi() {
    let (_dir, d, plugins) = with_c_bot("logging", &[]);
    let d = d.as_path();
    let logs = d.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(logs.join("Logger.log"), "left over from an earlier run\n").unwrap();
    let json = d.join("r.json");
    let rounds = ["tournament", "--rounds", "4", "--jobs", "2", "--isolate", "on", "--max-turns", "3"];
    stdout(&zombies(&plugins, d, &[&rounds[..], &["--json", json.to_str().unwrap()]].concat()));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let log = std::fs::read_to_string(logs.join("Logger.log")).unwrap();
    assert!(!log.contains("left over"), "a run starts its logs afresh");
    // Each worker logs "loaded" once; every game is one block: its marker, `create`'s
    // line, then the first turn's players.
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    for g in games {
        let marker = format!("--- game seed {} ---\nnew game\nplayer ", g["seed"]);
        assert_eq!(log.matches(&marker).count(), 1, "{marker:?} in {log}");
    }
    assert!(log.lines().filter(|l| *l == "loaded").count() >= 1, "{log}");
    let known = |l: &str| ["loaded", "new game"].contains(&l) || l.starts_with("player ") || l.starts_with("--- game");
    assert!(log.lines().all(known), "{log}");
    // Listing the entries, even in-process, leaves the log of that tournament alone.
    stdout(&zombies(&plugins, d, &["list", "--isolate", "off"]));
    assert_eq!(std::fs::read_to_string(logs.join("Logger.log")).unwrap(), log);
}

#[test]
fn workers_run_under_an_address_space_cap_set_from_outside() {
    let (_dir, d, plugins) = with_c_bot("hog", &[]);
    let d = d.as_path();
    let log = d.join("logs").join("Hog.log");
    let run = |cap: &str| {
        let args = ["tournament", "--rounds", "1", "--isolate", "on", "--max-turns", "2", "--worker-memory-mib", cap];
        stdout(&zombies(&plugins, d, &args));
        std::fs::read_to_string(&log).unwrap()
    };
    assert!(run("1024").contains("3 GiB: refused"), "a 1 GiB worker cannot map 3 GiB");
    // Untouched memory is granted under a cap above it, unless the kernel counts every
    // mapping (strict overcommit) or the machine has too little memory for 3 GiB.
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kib = |key: &str| -> u64 {
        meminfo.lines().find_map(|l| l.strip_prefix(key)?.split_whitespace().next()?.parse().ok()).unwrap_or(0)
    };
    let roomy = kib("MemTotal:") + kib("SwapTotal:") > 4 << 20;
    if roomy && std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|m| m.trim() != "2") {
        assert!(run("8192").contains("3 GiB: granted"), "an 8 GiB worker can");
    }
}

#[test]
fn workers_run_under_a_process_cap_set_from_outside() {
    let (_dir, d, plugins) = with_c_bot("spawner", &[]);
    let d = d.as_path();
    let args = ["tournament", "--rounds", "1", "--isolate", "on", "--max-turns", "2", "--worker-processes", "64"];
    stdout(&zombies(&plugins, d, &args));
    let log = std::fs::read_to_string(d.join("logs").join("Spawner.log")).unwrap();
    let got: u32 = log.lines().find_map(|l| l.strip_prefix("forked ")).expect("the bot logged").parse().unwrap();
    // As root without a pids control group to make, nothing caps it (docs/hardening.md).
    if arena::process::ProcessCap::new(64).is_ok() {
        assert!(got < 64, "a worker capped at 64 tasks forked {got}");
    } else if !is_root() {
        // RLIMIT_NPROC: 64 over the user's count when it started, which other processes
        // of the user move meanwhile.
        assert!(got < 600, "a worker capped at 64 more tasks forked {got}");
    }
    // Either way every child ended with its worker: no live process names this test's
    // directory (the children are copies of a worker, whose arguments do).
    let gone = (0..200).any(|_| {
        processes_naming(&d.to_string_lossy()) == 0 || {
            std::thread::sleep(std::time::Duration::from_millis(10));
            false
        }
    });
    assert!(gone, "the bot's children outlived the tournament");
}

/// Live (not zombie) processes whose command line contains `text`.
fn processes_naming(text: &str) -> usize {
    let live = |p: &std::path::Path| {
        let stat = std::fs::read_to_string(p.join("stat")).unwrap_or_default();
        stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z'))
    };
    let names = |p: &std::path::Path| {
        std::fs::read(p.join("cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(text))
    };
    std::fs::read_dir("/proc").unwrap().flatten().filter(|e| live(&e.path()) && names(&e.path())).count()
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(2) == Some("0")))
        .unwrap_or(false)
}

#[test]
fn under_bwrap_a_native_bot_has_no_network_and_writes_nothing_but_its_log() {
    if let Err(why) = arena::process::bwrap_available() {
        crate::util::skip(&format!("skipped: {why}"));
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let target = std::env::temp_dir().join(format!("arena-escaped-{}", std::process::id()));
    let _ = std::fs::remove_file(&target);
    let defines = [format!("-DTARGET_FILE=\"{}\"", target.display()), format!("-DPORT={port}")];
    let defines: Vec<&str> = defines.iter().map(String::as_str).collect();
    let (_dir, d, plugins) = with_c_bot("escape", &defines);
    let d = d.as_path();
    let log = d.join("logs").join("Escape.log");
    let run = |sandbox: &str| {
        let args = ["tournament", "--rounds", "1", "--isolate", "on", "--max-turns", "2", "--sandbox", sandbox];
        stdout(&zombies(&plugins, d, &args));
        std::fs::read_to_string(&log).unwrap()
    };
    let jailed = run("bwrap");
    // In its box, /tmp is a private one: a write there (if any) never reaches the host's.
    assert!(jailed.contains("connect: refused"), "{jailed}");
    assert!(jailed.contains("write: refused") || jailed.contains("write: done"), "{jailed}");
    assert!(!target.exists());
    // The same bot without the sandbox does both: the refusals came from it.
    let free = run("none");
    assert!(free.contains("write: done") && free.contains("connect: done"), "{free}");
    assert!(target.exists());
    std::fs::remove_file(&target).unwrap();
}

#[test]
fn what_a_native_bot_forks_ends_with_its_worker() {
    let (_dir, d, plugins) = with_c_bot("forker", &[]);
    let d = d.as_path();
    // Unboxed: the pid the bot logs is the host's (in a box it is its PID namespace's,
    // and the namespace ends with the box: tests/boxes.rs).
    stdout(&zombies(
        &plugins,
        d,
        &["tournament", "--rounds", "2", "--jobs", "1", "--isolate", "on", "--max-turns", "2", "--trust-bots"],
    ));
    let log = std::fs::read_to_string(d.join("logs").join("Forker.log")).unwrap();
    let pid = log.lines().find_map(|l| l.strip_prefix("child ")).expect("the bot forked");
    // The child is killed with the worker's process group (then reaped by init).
    let gone = (0..200).any(|_| {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let ended = state.is_empty() || state.split(") ").nth(1).is_some_and(|s| s.starts_with('Z'));
        ended || {
            std::thread::sleep(std::time::Duration::from_millis(10));
            false
        }
    });
    assert!(gone, "child {pid} still runs: {log}");
}

#[test]
fn bench_reports_turns_per_second_and_the_time_of_each_step() {
    let plugins = tempfile::tempdir().unwrap();
    for name in ["standstill", "random-walker"] {
        let lib = crate::util::plugin_lib(name);
        std::fs::copy(&lib, plugins.path().join(lib.file_name().unwrap())).unwrap();
    }
    let scripts = tempfile::tempdir().unwrap();
    let args = ["bench", "--seconds", "0", "--only", "W20 native", "--games", "0", "--steps"];
    let text = stdout(&zombies(plugins.path(), scripts.path(), &args));
    let row = |after: &str| -> Vec<f64> {
        let tail = &text[text.find(after).unwrap_or_else(|| panic!("{text}"))..];
        let line = tail.lines().find(|l| l.starts_with("W20 native")).unwrap_or_else(|| panic!("{text}"));
        line["W20 native".len()..].split_whitespace().map(|v| v.parse().unwrap()).collect()
    };
    // workload, games, turns, calls, turns/s, us/call, peak MiB
    let whole = row("turns/s");
    assert_eq!(whole.len(), 6, "{text}");
    assert!(whole[0] >= 1.0 && whole[1] > 0.0 && whole[3] > 0.0, "{text}");
    // One column per step of the turn.
    let steps = row("microseconds per turn");
    assert_eq!(steps.len(), 8, "{text}");
    assert!(steps.iter().sum::<f64>() > 0.0, "{text}");
}

#[test]
fn a_second_ctrl_c_quits_at_once_and_still_writes_the_finished_games() {
    let scripts = scripts_dir();
    let d = scripts.path();
    // A bot that takes 15 ms a call: games long enough to be in flight at the second
    // Ctrl-C, short enough that some finish first.
    let slow = "fn do_turn(ctx) {\n  let t = timestamp();\n  while t.elapsed < 0.015 {}\n  \"STAY\"\n}\n";
    std::fs::write(d.join("slow.rhai"), slow).unwrap();
    let out_json = d.join("out.json");
    let child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["--plugins"])
        .arg(d)
        .arg("--scripts")
        .arg(d)
        .args(["tournament", "--rounds", "100000", "--jobs", "2", "--set", "players_per_entry=4", "--json"])
        .arg(&out_json)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5000));
    for _ in 0..2 {
        assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out_json);
    let played = v["played"].as_u64().unwrap();
    assert!(played > 0 && played < 100000, "{played}");
    assert_eq!(v["games"].as_array().unwrap().len() as u64, played);
}

#[test]
fn every_output_is_checked_before_the_first_game() {
    let scripts = scripts_dir();
    let ok_csv = scripts.path().join("ok.csv");
    let out = zombies(
        scripts.path(),
        scripts.path(),
        &["tournament", "--rounds", "2", "--json", "/nonexistent/r.json", "--csv", ok_csv.to_str().unwrap()]
            .into_iter()
            .chain(["--plot", "/nonexistent/p.svg"])
            .collect::<Vec<_>>(),
    );
    assert!(!out.status.success());
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!stdout.contains("games played"), "nothing is played: {stdout}");
    assert!(
        stderr.contains("/nonexistent/r.json: cannot write there") && stderr.contains("/nonexistent/p.svg"),
        "{stderr}"
    );
}

#[test]
fn an_output_that_fails_after_the_games_costs_only_itself() {
    let scripts = scripts_dir();
    // A file name the system takes but whose temporary file's name is too long: only
    // found when writing it (a directory in its place is found before the games).
    let json = scripts.path().join(format!("{}.json", "r".repeat(248)));
    let csv = scripts.path().join("board.csv");
    let out = zombies(
        scripts.path(),
        scripts.path(),
        &["tournament", "--rounds", "2", "--set", "players_per_entry=3", "--json", json.to_str().unwrap(), "--csv"]
            .into_iter()
            .chain([csv.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the results"));
    assert!(std::fs::read_to_string(&csv).unwrap().starts_with("rank,name,"), "the CSV is still written");
}

#[test]
fn counts_of_zero_and_missing_directories_are_errors() {
    let scripts = scripts_dir();
    for args in [["tournament", "--rounds", "0"], ["tournament", "--jobs", "0"]] {
        let out = zombies(scripts.path(), scripts.path(), &args);
        assert!(!out.status.success(), "{args:?}");
    }
    let out = zombies(scripts.path(), &scripts.path().join("typo"), &["tournament"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--scripts")
            && String::from_utf8_lossy(&out.stderr).contains("no such directory")
    );
}

#[test]
fn results_carry_seeds_as_text_too() {
    let scripts = scripts_dir();
    let path = scripts.path().join("r.json");
    let args =
        ["tournament", "--rounds", "2", "--seed", "13309476754707697221", "--set", "players_per_entry=3", "--json"];
    stdout(&zombies(
        scripts.path(),
        scripts.path(),
        &args.into_iter().chain([path.to_str().unwrap()]).collect::<Vec<_>>(),
    ));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"seed_text\": \"13309476754707697221\""), "{text}");
    let v = json(&path);
    for g in v["games"].as_array().unwrap() {
        assert_eq!(g["seed_text"].as_str().unwrap(), g["seed"].as_u64().unwrap().to_string());
    }
}

#[test]
fn play_reports_each_entrys_errors_like_a_tournament() {
    let scripts = scripts_dir();
    std::fs::write(scripts.path().join("broken.lua"), "function do_turn(ctx) return nil + 1 end\n").unwrap();
    let text =
        stdout(&zombies(scripts.path(), scripts.path(), &["play", "--set", "players_per_entry=3", "--max-turns", "5"]));
    let line = text.lines().find(|l| l.starts_with("broken (")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("broken.lua") && line.contains("errors") && line.contains("arithmetic"), "{line}");
}

#[test]
fn replay_without_html_writes_the_page_beside_it() {
    let scripts = scripts_dir();
    let replay = scripts.path().join("g.zrpl");
    stdout(&zombies(
        scripts.path(),
        scripts.path(),
        &["play", "--set", "players_per_entry=3", "--replay", replay.to_str().unwrap()],
    ));
    let text = stdout(&zombies(scripts.path(), scripts.path(), &["replay", replay.to_str().unwrap()]));
    assert!(scripts.path().join("g.html").exists(), "{text}");
}

#[test]
fn a_duplicate_name_says_which_file_has_it() {
    let scripts = scripts_dir();
    let other = scripts.path().join("zombies");
    std::fs::create_dir(&other).unwrap();
    std::fs::copy(scripts.path().join("coward.lua"), other.join("coward.lua")).unwrap();
    let text = stdout(&zombies(scripts.path(), scripts.path(), &["list"]));
    assert!(text.contains("an entry named \"coward\" was already loaded, from"), "{text}");
}

#[test]
fn check_reports_a_good_bot_and_fails_a_broken_one() {
    let scripts = scripts_dir();
    let d = scripts.path();
    let good = root().join("scripts/zombies/gunslinger.lua");
    let args = ["check", good.to_str().unwrap(), "--games", "2", "--set", "players_per_entry=4"];
    let text = stdout(&zombies(d, d, &args));
    for part in [
        "loaded: gunslinger (lua)",
        "played 2 games against 2 other entries",
        "calls:",
        "errors: 0",
        "worst game:",
        "log: nothing written",
        "ok",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    // A native bot that logs: the report points at its log.
    let lib = crate::util::compile_c(&data("native/logging.c"), &d.join(crate::util::lib_name("logging")), &[]);
    let text =
        stdout(&zombies(d, d, &["check", lib.to_str().unwrap(), "--games", "1", "--set", "players_per_entry=2"]));
    let log = d.join("logs").join("Logger.log");
    assert!(text.contains(&format!("log: {}", log.display())), "{text}");
    assert!(std::fs::read_to_string(&log).unwrap().contains("new game"));
    let broken = d.join("broken.lua");
    std::fs::write(&broken, "function do_turn(ctx) return nil + 1 end\n").unwrap();
    let out = zombies(d, d, &["check", broken.to_str().unwrap(), "--games", "1", "--set", "players_per_entry=3"]);
    assert!(!out.status.success());
    let (text, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("arithmetic") && err.contains("broken"), "{text}\n{err}");
    let out = zombies(d, d, &["check", d.join("nothing.txt").to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not loaded"));
}

#[test]
fn bots_can_be_named_by_file() {
    let scripts = scripts_dir();
    let coward = scripts.path().join("coward.lua");
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("--scripts")
        .arg(&coward)
        .arg("--scripts")
        .arg(root().join("scripts/zombies/sentinel.rhai"))
        .args(["--logs"])
        .arg(scripts.path().join("logs"))
        .args(["list"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(text.contains("2 entries (zombies)") && text.contains("coward") && text.contains("sentinel"), "{text}");
}

/// A pipe whose reading end is already closed: whatever is written to it fails with
/// `EPIPE` (and raises SIGPIPE in the writer).
fn closed_pipe() -> std::process::Stdio {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two fresh descriptors, each owned exactly once below.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: fds[0] and fds[1] were just opened and are owned by nothing else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    write.into()
}

#[test]
fn a_closed_standard_output_stops_the_printing_not_the_tournament() {
    // The host ignores SIGPIPE: it writes to workers and programs that may die at any
    // moment, and once died itself of such a write (a worker ended by its native bot's
    // crashing thread while the host sent it a call). `arena ... | head` must not end
    // the run either: the results are still written.
    let scripts = scripts_dir();
    let json = scripts.path().join("results.json");
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("--scripts")
        .arg(scripts.path())
        .arg("--logs")
        .arg(scripts.path().join("logs"))
        .args(["tournament", "--rounds", "2", "--seed", "5", "--json"])
        .arg(&json)
        .stdout(closed_pipe())
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(!err.contains("panicked") && !err.contains("warning: cannot write"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["played"], 2, "{v}");
}

/// A scripts directory with a quick Lua bot and a program bot that takes 0.9 s of
/// every call (a game of it lasts minutes), for the stopping tests.
fn slow_scripts_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(root().join("scripts/zombies/coward.lua"), dir.path().join("coward.lua")).unwrap();
    let slow = dir.path().join("slow.sh");
    std::fs::write(&slow, "#!/bin/sh\nwhile read line; do sleep 0.9; echo STAY; done\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// The arguments of a tournament of the slow bots that would last hours.
fn slow_tournament(d: &Path) -> Vec<String> {
    let json = d.join("out.json").display().to_string();
    let logs = d.join("logs").display().to_string();
    let d = d.display().to_string();
    [
        "--plugins",
        &d,
        "--scripts",
        &d,
        "--logs",
        &logs,
        "tournament",
        "--rounds",
        "6",
        "--jobs",
        "2",
        "--time-bank",
        "100000",
        "--json",
        &json,
    ]
    .map(str::to_owned)
    .to_vec()
}

/// Waits up to `limit` for process `pid` to be gone; true if it is.
fn gone_within(pid: u32, limit: std::time::Duration) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat.is_empty() || stat.rsplit(") ").next().is_some_and(|s| s.starts_with('Z')) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

#[test]
fn sigterm_ends_a_tournament_of_slow_bots_in_seconds_with_the_finished_games_and_status_130() {
    let dir = slow_scripts_dir();
    let d = dir.path();
    let child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(slow_tournament(d))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    let started = std::time::Instant::now();
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    // The games in flight get 10 s, then the finished ones are written (none, here).
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(60), "took {took:?} to stop");
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(d.join("out.json")).unwrap()).unwrap();
    assert_eq!(v["rounds"], 6);
    assert!(v["games"].as_array().unwrap().len() < 6);
}

#[test]
fn a_tournament_whose_parent_dies_stops_by_itself() {
    let dir = slow_scripts_dir();
    let d = dir.path();
    // A shell starts the arena in the background, says its pid and exits.
    let mut command = format!("'{}'", env!("CARGO_BIN_EXE_arena"));
    for a in slow_tournament(d) {
        command.push_str(&format!(" '{a}'"));
    }
    let out =
        Command::new("sh").arg("-c").arg(format!("{command} >/dev/null 2>&1 & echo $!; sleep 2")).output().unwrap();
    let pid: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert!(gone_within(pid, std::time::Duration::from_secs(60)), "the arena {pid} runs on without its parent");
    assert!(d.join("out.json").exists(), "the finished games were not written");
}

/// A tournament whose plugins directory is reached through a link to another directory
/// made in `base` (a checkout whose `target` is a link to a scratch disk, common on
/// clusters) plays in its boxes.
fn plays_through_a_link(base: &std::path::Path) {
    if let Err(why) = arena::process::bwrap_available() {
        crate::util::skip(&format!("skipped: {why}"));
        return;
    }
    let dir = tempfile::Builder::new().prefix("linked-").tempdir_in(base).unwrap();
    // Readable by the boxes' own uids, as a checkout is.
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let real = dir.path().join("scratch/release");
    std::fs::create_dir_all(&real).unwrap();
    for bot in ["standstill", "random-walker"] {
        let lib = crate::util::plugin_lib(bot);
        std::fs::copy(&lib, real.join(lib.file_name().unwrap())).unwrap();
    }
    std::os::unix::fs::symlink(dir.path().join("scratch"), dir.path().join("target")).unwrap();
    let scripts = dir.path().join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    let plugins = dir.path().join("target/release");
    let args = ["--sandbox", "bwrap", "tournament", "--rounds", "2", "--max-turns", "5", "--isolate", "strict"];
    let out = stdout(&zombies(&plugins, &scripts, &args));
    assert!(out.contains("2 of 2 games played"), "{out}");
    assert!(out.contains("StandStill") && out.contains("RandomWalker"), "{out}");
}

// The box mounts over the real directories, not the link's path (bwrap cannot make a
// mount point through a link); the link, in the box's read-only view, leads there.
#[test]
fn a_plugins_directory_reached_through_a_link_outside_tmp_plays_in_its_box() {
    plays_through_a_link(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")));
}

// A box's `/tmp` is its own, where the link is missing: the files are bound at the path
// as given too.
#[test]
fn a_plugins_directory_reached_through_a_link_under_tmp_plays_in_its_box() {
    plays_through_a_link(std::path::Path::new("/tmp"));
}
