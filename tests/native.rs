//! Native bots: the real example plugins, a C bot built here, and broken libraries.

use arena::games::zombies::Zombies;
use std::path::{Path, PathBuf};

use arena::bot::EntryKind;
use arena::games::zombies;
use arena::loaders::{Discovery, ScriptLimits, SearchPaths, discover};
use arena::tournament::play_game;

use crate::util::{compile_c, data, lib_name, plugin_lib, root, tournament, untimed};
use arena::abi::{Action, Context};
use arena::bot::{Bot, BotError};
use arena::games::zombies::Engine;

fn discover_plugins(dir: &Path) -> Discovery<Zombies> {
    discover(&SearchPaths { plugins: vec![dir.to_owned()], scripts: vec![] }, &ScriptLimits::default())
}

fn copy_in(dir: &Path, lib: &Path, as_name: &str) -> PathBuf {
    let to = dir.join(as_name);
    std::fs::copy(lib, &to).unwrap();
    to
}

fn reason_for<'a>(found: &'a Discovery<Zombies>, file: &str) -> &'a str {
    found
        .skipped
        .iter()
        .find(|s| s.path.file_name().is_some_and(|f| f == file))
        .map(|s| s.reason.as_str())
        .unwrap_or_else(|| panic!("{file} was not skipped: {:?}", found.skipped))
}

#[test]
fn the_example_plugins_load_and_play_a_tournament() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["standstill", "sharpshooter", "phalanx"] {
        copy_in(dir.path(), &plugin_lib(name), &lib_name(name));
    }
    let found = discover_plugins(dir.path());
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    let names: Vec<&str> = found.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["Phalanx", "Sharpshooter", "StandStill"], "sorted by file name");
    assert!(found.entries.iter().all(|e| e.kind == EntryKind::Native));
    let result = tournament(&found.entries, 5, 2);
    for s in &result.leaderboard {
        assert!(s.stats.calls > 0, "{} was called", s.name);
        assert_eq!(s.stats.errors, 0, "{}: {:?}", s.name, s.stats.messages);
    }
}

#[test]
fn a_c_bot_is_compiled_with_the_system_compiler_loaded_and_played() {
    let dir = tempfile::tempdir().unwrap();
    compile_c(&root().join("plugins/c-wanderer/wanderer.c"), &dir.path().join(lib_name("wanderer")), &[]);
    let found = discover_plugins(dir.path());
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    assert_eq!(found.entries.len(), 1);
    let entry = &found.entries[0];
    assert_eq!((entry.name.as_str(), entry.kind), ("Wanderer", EntryKind::NativeC));
    let out = play_game(&found.entries, 3, &zombies::Config::default());
    assert!(out.turns > 0 && out.stats[0].calls > 0);
    assert_eq!(out.stats[0].errors, 0, "{:?}", out.stats[0].messages);
    // The C bot draws from the game's generator: the game replays exactly.
    assert_eq!(untimed(out), untimed(play_game(&found.entries, 3, &zombies::Config::default())));
}

#[test]
fn broken_libraries_are_skipped_with_one_line_naming_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy_in(d, &data("plugins/not_a_library.so"), &lib_name("not_a_library"));
    compile_c(&data("native/no_entry.c"), &d.join(lib_name("no_entry")), &[]);
    compile_c(&data("native/wrong_version.c"), &d.join(lib_name("wrong_version")), &[]);
    compile_c(&data("native/unresolved.c"), &d.join(lib_name("unresolved")), &[]);
    compile_c(&data("native/named.c"), &d.join(lib_name("reserved")), &["-DBOT_NAME=\"Zombie\""]);
    compile_c(&data("native/named.c"), &d.join(lib_name("empty_name")), &["-DBOT_NAME=\"\""]);
    compile_c(&data("native/named.c"), &d.join(lib_name("a_named")), &[]);
    compile_c(&data("native/named.c"), &d.join(lib_name("b_named_again")), &[]);
    copy_in(d, &plugin_lib("wrong-abi-bot"), &lib_name("wrong_abi_rust"));
    copy_in(d, &plugin_lib("standstill"), &lib_name("standstill"));
    std::fs::write(d.join("README.txt"), "not a library name: ignored").unwrap();

    let found = discover_plugins(d);
    let names: Vec<&str> = found.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["Named", "StandStill"], "the good ones still load");
    for s in &found.skipped {
        assert!(!s.reason.contains('\n') && s.reason.len() < 300, "one short line: {s}");
        assert!(s.to_string().contains(&*s.path.to_string_lossy()), "the line names the file: {s}");
    }
    assert_eq!(found.skipped.len(), 8, "{:#?}", found.skipped);
    assert!(reason_for(&found, &lib_name("not_a_library")).starts_with("not a loadable library"));
    assert!(reason_for(&found, &lib_name("no_entry")).contains("not an arena bot"));
    assert!(reason_for(&found, &lib_name("wrong_version")).contains("ABI version 999"));
    assert!(reason_for(&found, &lib_name("unresolved")).contains("no_such_function_anywhere"));
    assert!(reason_for(&found, &lib_name("reserved")).contains("reserved"));
    assert!(reason_for(&found, &lib_name("empty_name")).contains("empty"));
    assert!(reason_for(&found, &lib_name("b_named_again")).contains("already loaded"));
    assert!(reason_for(&found, &lib_name("wrong_abi_rust")).contains("ABI version 2"));

    // And they play.
    let out = play_game(&found.entries, 1, &zombies::Config::default());
    assert_eq!(out.scores.len(), 2);
}

#[test]
fn a_panicking_bot_makes_its_player_stay_and_counts_one_error_per_fresh_instance() {
    let dir = tempfile::tempdir().unwrap();
    copy_in(dir.path(), &plugin_lib("panicky-bot"), &lib_name("panicky"));
    let found = discover_plugins(dir.path());
    assert_eq!(found.entries.len(), 1, "{:?}", found.skipped);
    let result = tournament(&found.entries, 8, 3);
    let stats = &result.leaderboard[0].stats;
    // The fixture panics on the first call of each bot instance: one per game.
    assert_eq!(stats.errors, 3, "a fresh instance per game: {stats:?}");
    assert!(stats.calls > 3);
    assert!(stats.messages[0].contains("first call of the game"), "{:?}", stats.messages);
    assert!(stats.messages[0].contains("panicked at"), "the place is reported: {:?}", stats.messages);
}

#[test]
fn native_bots_log_through_the_abi_one_block_per_game_after_its_marker() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    compile_c(&data("native/logging.c"), &plugins.join(lib_name("logging")), &[]);
    copy_in(&plugins, &plugin_lib("panicky-bot"), &lib_name("panicky"));
    let logs = dir.path().join("logs");
    let limits = ScriptLimits { log_dir: Some(logs.clone()), ..ScriptLimits::default() };
    let found = discover::<Zombies>(&SearchPaths { plugins: vec![plugins], scripts: vec![] }, &limits);
    assert_eq!(found.entries.len(), 2, "{:?}", found.skipped);
    let result = tournament(&found.entries, 11, 3);
    let seeds: Vec<String> = result.games.iter().map(|g| format!("--- game seed {} ---", g.seed)).collect();
    assert_eq!(seeds.len(), 3);

    // C: the line written at load comes first, then each game's block after its marker.
    let c_log = std::fs::read_to_string(logs.join("Logger.log")).unwrap();
    let blocks: Vec<&str> = c_log.split("--- game seed ").collect();
    assert_eq!(blocks[0], "loaded\n", "{c_log}");
    assert_eq!(blocks.len(), 4, "one block per game: {c_log}");
    let logger = result.leaderboard.iter().find(|s| s.name == "Logger").unwrap();
    for (block, marker) in blocks[1..].iter().zip(&seeds) {
        let mut lines = block.lines();
        assert_eq!(format!("--- game seed {}", lines.next().unwrap()), *marker, "games in order");
        assert_eq!(lines.next(), Some("new game"), "create logs inside its game: {block}");
        let players: Vec<&str> = lines.collect();
        assert!(!players.is_empty() && players.iter().all(|l| l.starts_with("player ") && l.contains(" at (")));
    }
    assert!(logger.stats.errors == 0, "{:?}", logger.stats.messages);

    // Rust: `log!` before the panic, once per game.
    let rust_log = std::fs::read_to_string(logs.join("Panicky.log")).unwrap();
    let expected: String = seeds.iter().map(|m| format!("{m}\nabout to panic on turn 0\n")).collect();
    assert_eq!(rust_log, expected);
}

#[test]
fn a_rust_library_built_against_abi_1_0_loads_and_plays_zombies() {
    let dir = tempfile::tempdir().unwrap();
    copy_in(dir.path(), &plugin_lib("abi-1-0-bot"), &lib_name("old"));
    copy_in(dir.path(), &plugin_lib("standstill"), &lib_name("standstill"));
    let found = discover_plugins(dir.path());
    let names: Vec<&str> = found.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["OldTimer", "StandStill"], "{:?}", found.skipped);
    let out = play_game(&found.entries, 4, &zombies::Config { max_turns: Some(20), ..zombies::Config::default() });
    assert!(out.stats.iter().all(|s| s.calls > 0 && s.errors == 0), "{:?}", out.stats);
}

#[test]
fn c_tables_of_older_versions_load_by_their_declared_size() {
    let dir = tempfile::tempdir().unwrap();
    // 1.0 (no game: plays zombies) and 1.1 (no set_logger: not asked to log), with
    // traps past their declared sizes: a game of "eggs", a set_logger that breaks them.
    let (old, mid) =
        (["-DTABLE_SIZE=40", "-DBOT_NAME=\"Old\"", "-DTRAPS"], ["-DTABLE_SIZE=72", "-DBOT_NAME=\"Mid\"", "-DTRAPS"]);
    compile_c(&data("native/named.c"), &dir.path().join(lib_name("v1_0")), &old);
    compile_c(&data("native/named.c"), &dir.path().join(lib_name("v1_1")), &mid);
    let logs = dir.path().join("logs");
    let limits = ScriptLimits { log_dir: Some(logs.clone()), ..ScriptLimits::default() };
    let found = discover::<Zombies>(&SearchPaths { plugins: vec![dir.path().to_owned()], scripts: vec![] }, &limits);
    let names: Vec<&str> = found.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["Old", "Mid"], "{:?}", found.skipped);
    let out = play_game(&found.entries, 2, &zombies::Config::default());
    assert!(out.stats.iter().all(|s| s.calls > 0 && s.errors == 0), "{:?}", out.stats);
    assert!(!logs.exists(), "neither logs");
}

#[test]
fn the_same_library_file_under_two_names_loads_once_and_the_copy_is_a_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    copy_in(dir.path(), &plugin_lib("sharpshooter"), &lib_name("one"));
    copy_in(dir.path(), &plugin_lib("sharpshooter"), &lib_name("two"));
    let found = discover_plugins(dir.path());
    assert_eq!(found.entries.len(), 1);
    assert!(reason_for(&found, &lib_name("two")).contains("already loaded"));
}

/// A bot seen through its per-player calls only: `Bot::turn_all` is the default, one
/// `turn` per call, whatever the bot inside can do.
struct PerPlayer(Box<dyn Bot<Zombies>>);

impl Bot<Zombies> for PerPlayer {
    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        self.0.turn(ctx)
    }
}

#[test]
fn one_call_per_entry_plays_the_same_games_as_one_call_per_player() {
    // ABI 1.6 libraries (Rust and C, a panicking one among them) beside a 1.0 library,
    // which gets one call per player either way.
    let dir = tempfile::tempdir().unwrap();
    for name in ["standstill", "random-walker", "sharpshooter", "phalanx", "panicky-bot", "abi-1-0-bot"] {
        copy_in(dir.path(), &plugin_lib(name), &lib_name(&name.replace('-', "_")));
    }
    compile_c(&root().join("plugins/c-wanderer/wanderer.c"), &dir.path().join(lib_name("wanderer")), &[]);
    let found = discover_plugins(dir.path());
    assert_eq!(found.entries.len(), 7, "{:?}", found.skipped);
    let names: Vec<String> = found.entries.iter().map(|e| e.name.clone()).collect();
    let per_player: Vec<&str> =
        found.entries.iter().filter(|e| !e.create_bot().unwrap().whole_entry()).map(|e| e.name.as_str()).collect();
    assert_eq!(per_player, ["OldTimer"], "the 1.6 libraries answer whole entries");
    for seed in [3, 17] {
        let config = zombies::Config { players_per_entry: 20, max_turns: None };
        let mut whole: Vec<Box<dyn Bot<Zombies>>> = found.entries.iter().map(|e| e.create_bot().unwrap()).collect();
        let mut single: Vec<Box<dyn Bot<Zombies>>> = found
            .entries
            .iter()
            .map(|e| Box::new(PerPlayer(e.create_bot().unwrap())) as Box<dyn Bot<Zombies>>)
            .collect();
        let (mut a, mut b) = (Engine::new(names.clone(), seed, config), Engine::new(names.clone(), seed, config));
        while !a.is_over() && a.clock() < 200 {
            a.turn(&mut whole);
            b.turn(&mut single);
            let (ea, eb): (Vec<_>, Vec<_>) = (a.entities().collect(), b.entities().collect());
            assert_eq!(ea, eb, "seed {seed}: the same board after turn {}", a.clock());
        }
        assert!(a.clock() > 20, "seed {seed}: a game of {} turns", a.clock());
        let (oa, ob) = (untimed(a.outcome()), untimed(b.outcome()));
        assert_eq!(oa, ob, "seed {seed}: the same outcome and call counts");
        let panicky = names.iter().position(|n| n == "Panicky").unwrap();
        assert_eq!(oa.stats[panicky].errors, 1, "its one panic is one player's error: {:?}", oa.stats[panicky]);
        assert!(oa.stats.iter().all(|s| s.calls > 0));
    }
}

/// A bot that answers whole entries, spending `spin` of its own time per whole call.
struct Slow {
    spin: std::time::Duration,
}

impl Bot<Zombies> for Slow {
    fn turn(&mut self, _ctx: &Context<'_>) -> Result<Action, BotError> {
        Ok(Action::stay())
    }

    fn whole_entry(&self) -> bool {
        true
    }

    fn turn_all(&mut self, calls: &[Context<'_>], answers: &mut Vec<Result<Action, BotError>>) {
        let start = arena::clock::thread_cpu_nanos();
        while arena::clock::thread_cpu_nanos() - start < self.spin.as_nanos() as u64 {
            std::hint::spin_loop();
        }
        answers.clear();
        answers.extend(calls.iter().map(|_| Ok(Action::stay())));
    }
}

#[test]
fn a_whole_entry_call_of_n_players_gets_n_limits_per_call_and_each_call_its_verdict() {
    use arena::limits::Guarded;
    use std::time::Duration;
    let limit = Some(Duration::from_millis(20));
    arena::games::zombies::bench::with_sample_context(|ctx| {
        let calls = [*ctx; 3];
        let mut answers = Vec::new();
        // 30 ms for 3 calls: over one limit, within three.
        let mut bot =
            Guarded::new(Box::new(Slow { spin: Duration::from_millis(30) }), 0, None, None).with_call_limit(limit);
        assert!(Bot::<Zombies>::whole_entry(&bot));
        bot.turn_all(&calls, &mut answers);
        assert_eq!(answers, vec![Ok(Action::stay()); 3]);
        // 90 ms: over the three limits; each call is an overrun, and three late calls in
        // a row put the entry out.
        let mut bot =
            Guarded::new(Box::new(Slow { spin: Duration::from_millis(90) }), 0, None, None).with_call_limit(limit);
        bot.turn_all(&calls, &mut answers);
        assert_eq!(answers, vec![Err(BotError::Timeout); 3]);
        bot.turn_all(&calls[..1], &mut answers);
        assert!(matches!(answers[..], [Err(BotError::Disqualified(_))]), "{answers:?}");
    });
}
