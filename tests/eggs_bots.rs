//! The bundled Easter Egg Hunt bots: each loads and plays, and the smart ones beat random.

use std::path::{Path, PathBuf};

use arena::bot::Entry;
use arena::games::eggs::{self, Eggs};
use arena::loaders::{ScriptLimits, SearchPaths, discover};
use arena::tournament::play_game;

use crate::util::{compile_c, lib_name, plugin_lib, root};

/// Games per comparison, and the seeds of its games.
const GAMES: u64 = 40;

fn seeds() -> impl Iterator<Item = u64> {
    (0..GAMES).map(|i| 0xE66_5EED ^ (i * 0x9E37_79B9))
}

/// A directory holding copies of `files`, each under its given name.
fn dir_of(files: &[(&Path, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (from, name) in files {
        std::fs::copy(from, dir.path().join(name)).unwrap();
    }
    dir
}

/// The eggs entries found in `plugins` and `scripts`; fails on any skipped file.
fn entries(plugins: &[PathBuf], scripts: &[PathBuf]) -> Vec<Entry<Eggs>> {
    let found = discover::<Eggs>(
        &SearchPaths { plugins: plugins.to_vec(), scripts: scripts.to_vec() },
        &ScriptLimits::default(),
    );
    assert!(found.skipped.is_empty(), "skipped: {:?}", found.skipped);
    found.entries
}

/// The one entry of a directory.
fn entry(plugins: &[PathBuf], scripts: &[PathBuf]) -> Entry<Eggs> {
    let mut all = entries(plugins, scripts);
    assert_eq!(all.len(), 1, "{:?}", all.iter().map(|e| &e.name).collect::<Vec<_>>());
    all.pop().unwrap()
}

/// Plays `games` games of `entries` and returns each entry's total eggs; every call
/// must have answered validly.
fn play(entries: &[Entry<Eggs>], games: impl Iterator<Item = u64>) -> Vec<u64> {
    play_with(entries, games, &eggs::Config::default())
}

fn play_with(entries: &[Entry<Eggs>], games: impl Iterator<Item = u64>, config: &eggs::Config) -> Vec<u64> {
    let mut totals = vec![0u64; entries.len()];
    for seed in games {
        let outcome = play_game(entries, seed, config);
        assert!(outcome.turns > 0, "seed {seed}: no turn was played");
        for (i, e) in entries.iter().enumerate() {
            let s = &outcome.stats[i];
            assert_eq!(s.errors, 0, "seed {seed}: {} made errors: {s:?}", e.name);
            assert!(s.calls > 0, "seed {seed}: {} was never called", e.name);
            totals[i] += u64::from(outcome.scores[i]);
        }
    }
    totals
}

/// The entry of a plugin crate built as a dev-dependency, loaded as discovery does.
fn native(crate_name: &str) -> Entry<Eggs> {
    let lib = plugin_lib(crate_name);
    arena::loaders::native::load::<Eggs>(&lib, &Default::default()).unwrap_or_else(|e| panic!("{}: {e}", lib.display()))
}

fn random_entry() -> Entry<Eggs> {
    native("egg-random")
}

/// `smart` against the random baseline over [`GAMES`] games, two entries a game: the
/// smart bot's mean eggs must be at least `factor` times random's, plus a margin.
fn beats_random(smart: Entry<Eggs>, factor: f64) {
    let name = smart.name.clone();
    let both = [smart, random_entry()];
    let totals = play(&both, seeds());
    let (mean_smart, mean_random) = (totals[0] as f64 / GAMES as f64, totals[1] as f64 / GAMES as f64);
    eprintln!("{name}: {mean_smart:.2} eggs a game; random: {mean_random:.2}");
    assert!(
        mean_smart >= factor * mean_random + 3.0,
        "{name} ({mean_smart:.2} eggs a game) does not clearly beat random ({mean_random:.2})"
    );
}

#[test]
fn rust_plugins_load_play_and_the_hunter_beats_random() {
    let hunter = native("egg-hunter");
    assert_eq!(hunter.name, "EggHunter");
    assert_eq!(random_entry().name, "EggRandom");
    // A game of many entries (a bigger board), then the head-to-head.
    let crowd: Vec<_> = (0..4)
        .flat_map(|i| [hunter.renamed(format!("Hunter{i}")), random_entry().renamed(format!("Random{i}"))])
        .collect();
    play(&crowd, seeds().take(3));
    beats_random(hunter, 5.0);
}

#[test]
fn lua_hunter_loads_plays_and_beats_random() {
    let dir = dir_of(&[(&root().join("scripts/eggs/lua-hunter.lua"), "lua-hunter.lua")]);
    let hunter = entry(&[], &[dir.path().to_owned()]);
    beats_random(hunter, 5.0);
}

#[test]
fn rhai_hunter_loads_plays_and_beats_random() {
    let dir = dir_of(&[(&root().join("scripts/eggs/rhai-hunter.rhai"), "rhai-hunter.rhai")]);
    let hunter = entry(&[], &[dir.path().to_owned()]);
    // Rhai is the slowest: fewer games, the same bar.
    let both = [hunter, random_entry()];
    let totals = play(&both, seeds().take(6));
    assert!(totals[0] >= 5 * totals[1] + 18, "rhai-hunter.rhai {} eggs, random {}", totals[0], totals[1]);
}

#[test]
fn bundled_scripts_all_load_for_eggs() {
    // The scripts directory as the CLI sees it (`--scripts scripts`): every eggs bot in
    // scripts/eggs loads (zombies scripts are skipped as another game's).
    let found = discover::<Eggs>(
        &SearchPaths { plugins: vec![], scripts: vec![root().join("scripts")] },
        &ScriptLimits::default(),
    );
    let names: Vec<&str> = found.entries.iter().map(|e| e.name.as_str()).collect();
    assert!(!names.is_empty(), "no eggs script found; skipped: {:?}", found.skipped);
    for s in &found.skipped {
        let in_eggs = s.path.parent().is_some_and(|p| p.ends_with("eggs"));
        assert!(!in_eggs, "{} skipped: {}", s.path.display(), s.reason);
    }
    play(&found.entries, seeds().take(1));
}

fn python() -> Option<&'static str> {
    ["/usr/bin/python3", "/usr/local/bin/python3"].into_iter().find(|p| Path::new(p).exists())
}

#[test]
fn python_programs_load_play_and_the_hunter_beats_random() {
    if python().is_none() {
        crate::util::skip("skipped: no python3");
        return;
    }
    let dir = dir_of(&[
        (&root().join("scripts/eggs/py-hunter.py"), "py-hunter.py"),
        (&root().join("scripts/eggs/py-random.py"), "py-random.py"),
    ]);
    {
        use std::os::unix::fs::PermissionsExt;
        for f in ["py-hunter.py", "py-random.py"] {
            std::fs::set_permissions(dir.path().join(f), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let both = entries(&[], &[dir.path().to_owned()]);
    let names: Vec<&str> = both.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["py-hunter", "py-random"]);
    // A process per turn (tens of milliseconds each): two short games only.
    let totals = play_with(&both, seeds().take(2), &eggs::Config { max_turns: Some(60) });
    assert!(totals[0] >= 3 * totals[1] + 4, "py-hunter.py {} eggs, py-random.py {}", totals[0], totals[1]);
}

#[test]
fn c_example_compiles_loads_and_plays() {
    let dir = tempfile::tempdir().unwrap();
    compile_c(&root().join("plugins/c-egg/egg.c"), &dir.path().join(lib_name("c_egg")), &["-Wextra"]);
    let c_egg = entry(&[dir.path().to_owned()], &[]);
    assert_eq!(c_egg.name, "CEgg");
    let both = [c_egg, random_entry()];
    let totals = play(&both, seeds());
    assert!(totals[0] >= 3 * totals[1] + 40, "CEgg {} eggs, random {}", totals[0], totals[1]);
}

#[test]
fn c_header_eggs_layouts_match() {
    // The header's _Static_asserts are the check: compiling them is the test (the C
    // example includes it too, but this one needs no bot).
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("layout.c");
    std::fs::write(
        &src,
        "#include \"eggs_bot.h\"\n\
         _Static_assert(sizeof(zb_bot_table) >= 56, \"table (later games append fields)\");\n\
         _Static_assert(offsetof(zb_bot_table, eggs_turn) == 48, \"eggs_turn\");\n\
         int layout_probe(void) { return (int)sizeof(eb_context); }\n",
    )
    .unwrap();
    compile_c(&src, &dir.path().join(lib_name("layout")), &[]);
}
