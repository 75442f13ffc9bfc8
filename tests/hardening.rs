//! The broken-bot corpus: one tournament, isolated, with every kind of broken bot in
//! `tests/data` and two good ones. It must complete; each broken bot is reported in one
//! line naming its file and the reason; the good bots' results are complete.

use std::path::Path;
use std::process::Command;

use crate::util::{compile_c, data, lib_name, plugin_lib, root};

/// Builds the corpus: (plugins dir, scripts dir).
fn corpus(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let plugins = dir.join("plugins");
    let scripts = dir.join("scripts");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::create_dir_all(&scripts).unwrap();
    let c = |src: &str, lib: &str, flags: &[&str]| {
        compile_c(&data(&format!("native/{src}")), &plugins.join(lib_name(lib)), flags);
    };
    // Native: broken at load.
    std::fs::copy(data("plugins/not_a_library.so"), plugins.join(lib_name("not_a_library"))).unwrap();
    c("wrong_version.c", "wrong_version", &[]);
    c("unresolved.c", "missing_symbol", &[]);
    c("load_crash.c", "load_crash", &[]);
    std::fs::copy(plugin_lib("wrong-abi-bot"), plugins.join(lib_name("wrong_abi_rust"))).unwrap();
    // Native: broken while playing.
    std::fs::copy(plugin_lib("panicky-bot"), plugins.join(lib_name("panicky"))).unwrap();
    for (what, name) in
        [("SEGFAULT", "Segfault"), ("ABORT", "Abort"), ("ENDLESS_LOOP", "Endless"), ("STACK_OVERFLOW", "Overflow")]
    {
        c("misbehave.c", &what.to_lowercase(), &[&format!("-D{what}"), &format!("-DBOT_NAME=\"{name}\"")]);
    }
    // Names: a duplicate and a reserved one.
    c("named.c", "named_a", &[]);
    c("named.c", "named_b", &[]);
    c("named.c", "reserved", &["-DBOT_NAME=\"DeadBody\""]);
    // A good native bot.
    compile_c(&root().join("plugins/c-wanderer/wanderer.c"), &plugins.join(lib_name("wanderer")), &[]);
    // Scripts.
    for f in [
        "syntax_error.lua",
        "runtime_error.lua",
        "runtime_error.rhai",
        "endless_loop.lua",
        "endless_loop.rhai",
        "pcall_loop.lua",
        "memory_bomb.lua",
        "returns_table.lua",
        "huge_print.lua",
        "escape_attempts.lua",
        "Zombie.lua",
    ] {
        std::fs::copy(data(&format!("scripts/{f}")), scripts.join(f)).unwrap();
    }
    std::fs::copy(root().join("scripts/zombies/coward.lua"), scripts.join("coward.lua")).unwrap();
    (plugins, scripts)
}

#[test]
fn a_tournament_with_every_broken_bot_completes_and_reports_each_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (plugins, scripts) = corpus(dir.path());
    let json = dir.path().join("results.json");
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("--plugins")
        .arg(&plugins)
        .arg("--scripts")
        .arg(&scripts)
        .arg("--logs")
        .arg(dir.path().join("logs"))
        .args(["--op-budget", "20000", "--memory-mib", "8"])
        .args(["tournament", "--rounds", "2", "--max-turns", "25", "--time-bank", "1", "--time-per-turn", "0.02"])
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("2 of 2 games played"), "{stdout}");

    // Broken at load: one "skipped FILE: reason" line each.
    let skipped = |file: &str, reason: &str| {
        let line = stderr
            .lines()
            .find(|l| l.starts_with("skipped ") && l.contains(file))
            .unwrap_or_else(|| panic!("{file} is not reported as skipped:\n{stderr}"));
        assert!(line.contains(reason), "{file}: {line}");
    };
    skipped(&lib_name("not_a_library"), "not a loadable library");
    skipped(&lib_name("wrong_version"), "ABI version 999");
    skipped(&lib_name("wrong_abi_rust"), "ABI version 2");
    skipped(&lib_name("missing_symbol"), "no_such_function_anywhere");
    skipped(&lib_name("load_crash"), "crashed while loading (killed by signal 6");
    skipped(&lib_name("named_b"), "already loaded");
    skipped(&lib_name("reserved"), "reserved");
    skipped("syntax_error.lua", "syntax error");
    skipped("Zombie.lua", "reserved");
    skipped("runtime_error.rhai", "already loaded");

    // Broken while playing: one report line each, naming the file and the reason.
    let reported = |name: &str, file: &str, reason: &str| {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} (")))
            .unwrap_or_else(|| panic!("{name} is not reported:\n{stdout}"));
        assert!(line.contains(file) && line.contains(reason), "{name}: {line}");
    };
    reported("Segfault", &lib_name("segfault"), "SIGSEGV");
    reported("Abort", &lib_name("abort"), "SIGABRT");
    reported("Overflow", &lib_name("stack_overflow"), "SIGABRT");
    reported("Endless", &lib_name("endless_loop"), "hung in a call past its time limit");
    reported("Panicky", &lib_name("panicky"), "panicked at");
    reported("runtime_error", "runtime_error.lua", "attempt to index a nil value");
    reported("endless_loop", "endless_loop.lua", "instruction budget");
    reported("pcall_loop", "pcall_loop.lua", "instruction budget");
    reported("memory_bomb", "memory_bomb.lua", "memory");
    reported("returns_table", "returns_table.lua", "invalid answer");
    reported("huge_print", "huge_print.lua", "printed more than 1 MiB");
    reported("escape_attempts", "escape_attempts.lua", "errors");

    // The good bots' results are complete.
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["games"].as_array().unwrap().len(), 2);
    assert!(v.get("failed").is_none(), "no game was lost: {}", v["failed"]);
    for good in ["Wanderer", "coward"] {
        let s = v["leaderboard"].as_array().unwrap().iter().find(|s| s["name"] == good).unwrap();
        assert!(s["calls"].as_u64().unwrap() > 0, "{good}: {s}");
        assert_eq!(
            (s["errors"].as_u64(), s["overruns"].as_u64(), s["disqualified"].as_u64()),
            (Some(0), Some(0), Some(0)),
            "{good}: {s}"
        );
        for g in v["games"].as_array().unwrap() {
            assert!(g["scores"][good].is_u64(), "{good} has a score in every game");
        }
    }
}

#[test]
fn an_entry_that_spends_its_time_bank_is_out_of_the_game_and_says_so() {
    use arena::abi::{Action, Context};
    use arena::bot::Entry;
    use arena::games::zombies;
    use arena::limits::TimeBank;
    use arena::tournament::{Plan, play_here};
    use std::time::Duration;

    let invoked = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = invoked.clone();
    let slow = Entry::<arena::games::zombies::Zombies>::builtin("Slow", move || {
        let counter = counter.clone();
        move |_: &Context<'_>| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(80));
            Action::stay()
        }
    });
    let quick = Entry::builtin("Quick", || |_: &Context<'_>| Action::stay());
    let bank = TimeBank { initial: Duration::from_millis(50), per_turn: Duration::ZERO };
    let plan = Plan {
        bank: Some(bank),
        config: zombies::Config { players_per_entry: 3, max_turns: Some(10) },
        ..Plan::new(1, 1)
    };
    let (outcome, _) = play_here(&[slow, quick], &plan, 4);
    let s = &outcome.stats[0];
    assert_eq!(s.disqualified, 1, "{s:?}");
    assert!(s.messages[0].contains("ran out of its time bank at turn 0"), "{:?}", s.messages);
    assert_eq!(outcome.stats[1].disqualified, 0);
    // An 80 ms call overdraws a 50 ms bank at once (a sleep never ends early); after it
    // the bot is never called again, though its players are asked for every turn.
    assert_eq!(invoked.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert!(s.calls > 1, "{s:?}");
}
