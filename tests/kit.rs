//! `arena new-bot`: every starting bot, written by the CLI into a directory outside
//! this repository, builds there as its README says and plays with no error; and the
//! command refuses what it cannot do with one line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use crate::util::{root, stdout};

/// The games with a starting bot in `lang` that this arena hosts.
fn games(lang: &str) -> Vec<&'static str> {
    arena::games::NAMES.into_iter().filter(|g| arena::games::starter(g, lang).is_some()).collect()
}

/// Runs the arena in `dir`.
fn arena(dir: &Path, args: &[&str]) -> Output {
    // A generous call limit: these games check that the bots answer, not how fast, and
    // the suite's other tests load the machine meanwhile.
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(dir)
        .args(["--call-timeout-ms", "10000"])
        .args(args)
        .output()
        .unwrap()
}

/// A temporary directory outside the repository, readable by all (as root, program bots
/// run as `nobody`, who must reach their file).
fn outside() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    assert!(!dir.path().starts_with(root()), "{} is inside the repository", dir.path().display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

/// `new-bot NAME --lang LANG --game GAME` in `dir`; the bot's directory.
fn new_bot(dir: &Path, name: &str, lang: &str, game: &str) -> PathBuf {
    let out = stdout(&arena(dir, &["--game", game, "new-bot", name, "--lang", lang]));
    assert!(out.contains(&format!("wrote {name}/")), "{out}");
    let bot = dir.join(name);
    assert!(bot.join("README.md").is_file(), "{} has no README.md", bot.display());
    bot
}

/// Lists and plays `name` (found in `plugins` or `scripts`) alone: it is listed, plays
/// `play --seed 1`, and a one-game tournament records no error and no overrun for it.
fn plays_cleanly(dir: &Path, game: &str, name: &str, plugins: &Path, scripts: &Path) {
    let (plugins, scripts) = (plugins.to_str().unwrap(), scripts.to_str().unwrap());
    let logs = dir.join("logs");
    let mut args = vec!["--game", game, "--plugins", plugins, "--scripts", scripts, "--logs", logs.to_str().unwrap()];
    let listed = stdout(&arena(dir, &[&args[..], &["list"]].concat()));
    assert!(listed.contains("1 entries") && listed.contains(name), "{listed}");
    assert!(!listed.contains("skipped"), "{listed}");
    // Zombies games have no turn limit: 30 turns of 50 players are enough calls; hex
    // games last 1000 half-turns unless the zombies win.
    let play: &[&str] = match game {
        "zombies" => &["--max-turns", "30"],
        "hex" => &["--set", "max_turns=60"],
        _ => &[],
    };
    let played = stdout(&arena(dir, &[&args[..], &["play", "--seed", "1"], play].concat()));
    assert!(played.contains("game seed 1") && played.contains(name), "{played}");
    if game == "hex" {
        // A hex game seats two entries (a tournament of one plays no game): `play` lets
        // the bot play both sides, and reports its errors as a tournament does.
        assert!(!played.contains("error"), "{played}");
        return;
    }
    let json = dir.join(format!("{name}.json"));
    args.extend(["tournament", "--rounds", "1", "--seed", "1", "--json", json.to_str().unwrap()]);
    stdout(&arena(dir, &[&args[..], play].concat()));
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let row = &results["leaderboard"][0];
    assert_eq!(row["name"], name, "{results}");
    assert!(row["calls"].as_u64().unwrap() > 0, "{row}");
    assert_eq!((row["errors"].as_u64(), row["overruns"].as_u64()), (Some(0), Some(0)), "{row}");
}

/// The native templates log "new game" from their constructor (the ABI's log channel):
/// the games just played left those lines in the entry's log, after game markers.
fn logged_each_game(dir: &Path, name: &str) {
    let log = std::fs::read_to_string(dir.join("logs").join(format!("{name}.log"))).unwrap_or_default();
    assert!(log.starts_with("--- game seed ") && log.contains(" ---\nnew game\n"), "{name}'s log: {log:?}");
}

fn python() -> bool {
    ["/usr/bin/python3", "/usr/local/bin/python3"].into_iter().any(|p| Path::new(p).exists())
}

#[test]
fn script_and_program_bots_play_as_written() {
    let dir = outside();
    let empty = dir.path().join("no-plugins");
    std::fs::create_dir(&empty).unwrap();
    for lang in ["rhai", "lua", "python"] {
        for game in games(lang) {
            if lang == "python" && !python() {
                crate::util::skip("skipped the Python bots: no python3");
                continue;
            }
            let name = format!("kit-{game}-{lang}");
            let bot = new_bot(dir.path(), &name, lang, game);
            plays_cleanly(dir.path(), game, &name, &empty, &bot);
        }
    }
}

#[test]
fn c_bots_build_with_their_readme_line_and_play() {
    let dir = outside();
    for game in games("c") {
        let name = format!("kit-{game}-c");
        let bot = new_bot(dir.path(), &name, "c", game);
        let lib = format!("lib{name}{}", std::env::consts::DLL_SUFFIX);
        // The README's line (`make` runs the same), warnings as errors.
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
        let status = Command::new(cc)
            .current_dir(&bot)
            .args(["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-I", ".", "-o", &lib])
            .arg(format!("{name}.c"))
            .status()
            .expect("a C compiler (cc) is needed for the C ABI tests");
        assert!(status.success(), "compiling {name}.c failed");
        let scripts = dir.path().join("no-scripts");
        std::fs::create_dir_all(&scripts).unwrap();
        plays_cleanly(dir.path(), game, &name, &bot, &scripts);
        logged_each_game(dir.path(), &name);
    }
}

/// The Rust crates build outside the repository: their `Cargo.toml` names the arena's
/// `plugin-abi` by absolute path, and that crate inherits nothing from this workspace.
/// Both crates share one target directory under the repository's `target/`, so
/// abi_stable is compiled once (about a minute) and reused by later runs (seconds).
#[test]
fn rust_bots_build_outside_the_repository_and_play() {
    let dir = outside();
    let target = root().join("target/kit-bots");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    for game in games("rust") {
        let name = format!("kit-{game}-rust");
        let bot = new_bot(dir.path(), &name, "rust", game);
        let manifest = std::fs::read_to_string(bot.join("Cargo.toml")).unwrap();
        let abi = root().join("plugin-abi").canonicalize().unwrap();
        assert!(manifest.contains(&format!("path = '{}'", abi.display())), "{manifest}");
        assert!(!target.starts_with(&bot));
        let build = |offline: bool| {
            // At the lowest priority, one job: the suite's other tests keep wall-clock
            // limits, and a compiler on every core would make their bots look slow.
            let mut cmd = Command::new("nice");
            cmd.args(["-n", "19"]).arg(&cargo);
            cmd.current_dir(&bot).args(["build", "--release", "--quiet", "-j", "1"]).env("CARGO_TARGET_DIR", &target);
            if offline {
                cmd.arg("--offline");
            }
            cmd.output().unwrap()
        };
        let started = Instant::now();
        let mut out = build(false);
        if !out.status.success() {
            // No network: the registry's cache has abi_stable (this workspace uses it).
            eprintln!("cargo build failed ({}); again --offline", String::from_utf8_lossy(&out.stderr).trim());
            out = build(true);
        }
        assert!(out.status.success(), "cargo build in {}: {}", bot.display(), String::from_utf8_lossy(&out.stderr));
        eprintln!("{name}: built in {:.1} s", started.elapsed().as_secs_f64());
        let lib = format!("{}{}{}", std::env::consts::DLL_PREFIX, name.replace('-', "_"), std::env::consts::DLL_SUFFIX);
        let plugins = dir.path().join(format!("{name}-plugins"));
        std::fs::create_dir(&plugins).unwrap();
        std::fs::copy(target.join("release").join(&lib), plugins.join(&lib)).unwrap();
        let scripts = dir.path().join("no-scripts");
        std::fs::create_dir_all(&scripts).unwrap();
        plays_cleanly(dir.path(), game, &name, &plugins, &scripts);
        logged_each_game(dir.path(), &name);
    }
}

#[test]
fn new_bot_refuses_an_existing_directory_a_bad_name_and_an_unknown_language_with_one_line() {
    let dir = outside();
    std::fs::create_dir(dir.path().join("taken")).unwrap();
    std::fs::write(dir.path().join("taken/keep.txt"), "mine").unwrap();
    let refusals = [
        (vec!["new-bot", "taken", "--lang", "lua"], "already exists"),
        (vec!["new-bot", "9lives", "--lang", "lua"], "is not a bot name"),
        (vec!["new-bot", "../up", "--lang", "lua"], "is not a bot name"),
        (vec!["new-bot", "Zombie", "--lang", "lua"], "reserved"),
        (vec!["new-bot", "fine", "--lang", "cobol"], "unknown language \"cobol\""),
        (vec!["new-bot", "fine", "--lang", "rust", "--abi-path", "."], "not the arena's plugin-abi"),
    ];
    for (args, why) in refusals {
        let out = arena(dir.path(), &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read_to_string(dir.path().join("taken/keep.txt")).unwrap(), "mine");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["taken"], "a refused new-bot wrote something");
}
