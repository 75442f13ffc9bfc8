//! "Invisible target" as a hosted game (`--game target`): the play loop's rules beyond
//! the engine's own tests (`target_rules`), determinism through `play_game`, every kind
//! of bot, the program protocol (one process per copy, 50 ms), libraries of another
//! game, replays and the viewer page.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use arena::abi::target::{NO_WALL, TargetContext};
use arena::bot::{Entry, EntryKind};
use arena::game::Recorded;
use arena::games::invisible_target::engine::Engine;
use arena::games::invisible_target::{self, InvisibleTarget, play, viewer};
use arena::games::zombies::Zombies;
use arena::loaders::{ScriptLimits, SearchPaths, discover};
use arena::play::play_recorded;
use arena::replay::Replay;
use arena::tournament::play_game;

use crate::util::{compile_c, lib_name, plugin_lib, root};

fn config(max_rounds: u32) -> invisible_target::Config {
    invisible_target::Config { max_rounds: Some(max_rounds), ..invisible_target::Config::default() }
}

/// A bot answering uniformly at random from the game's generator.
fn random_entry(name: &str) -> Entry<InvisibleTarget> {
    Entry::builtin(name, || |ctx: &TargetContext<'_>| ctx.random(5))
}

fn python() -> Option<&'static str> {
    ["/usr/bin/python3", "/usr/local/bin/python3"].into_iter().find(|p| Path::new(p).exists())
}

/// Writes an executable script `name` into `dir` (readable by all: as root, program
/// bots run as `nobody`).
fn program(dir: &Path, name: &str, text: &str) -> PathBuf {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The target entries found in `plugins` and `scripts`; fails on any skipped file.
fn entries(plugins: &[PathBuf], scripts: &[PathBuf]) -> Vec<Entry<InvisibleTarget>> {
    let found = discover::<InvisibleTarget>(
        &SearchPaths { plugins: plugins.to_vec(), scripts: scripts.to_vec() },
        &ScriptLimits::default(),
    );
    assert!(found.skipped.is_empty(), "skipped: {:?}", found.skipped);
    found.entries
}

fn native(crate_name: &str) -> Entry<InvisibleTarget> {
    let lib = plugin_lib(crate_name);
    arena::loaders::native::load::<InvisibleTarget>(&lib, &Default::default())
        .unwrap_or_else(|e| panic!("{}: {e}", lib.display()))
}

/// Plays one game of `entries` and checks that every entry was called, without errors.
fn assert_plays_cleanly(entries: &[Entry<InvisibleTarget>], seed: u64, config: &invisible_target::Config) -> Vec<u32> {
    let outcome = play_game(entries, seed, config);
    assert!(outcome.turns > 0);
    for (e, s) in entries.iter().zip(&outcome.stats) {
        assert!(s.calls > 0, "{} was never called", e.name);
        assert_eq!(s.errors + s.overruns, 0, "{}: {:?}", e.name, s.messages);
    }
    outcome.scores
}

#[test]
fn copies_per_entry_for_1_5_16_and_17_entries_and_each_copy_is_called_in_turn() {
    for (entries, k) in [(1usize, 16u32), (5, 4), (16, 1), (17, 1)] {
        assert_eq!(Engine::copies(entries), k);
        // Each entry's bot checks what it is told: its copies count, copy indices, the
        // others' count, and that it is called once per copy per round.
        let mut bots: Vec<Box<dyn arena::bot::Bot<InvisibleTarget>>> = (0..entries)
            .map(|_| {
                let mut seen: Vec<u32> = Vec::new();
                let bot = move |ctx: &TargetContext<'_>| {
                    assert_eq!(ctx.copies, k);
                    assert!(ctx.copy < k);
                    assert_eq!(ctx.players(), entries * k as usize);
                    assert!(!ctx.others.contains(&(ctx.me as u16)));
                    seen.push(ctx.copy);
                    if seen.len() as u32 == k {
                        let mut all = std::mem::take(&mut seen);
                        all.sort_unstable();
                        assert!(all.iter().copied().eq(0..k), "one call per copy per round: {all:?}");
                    }
                    ctx.random(5)
                };
                Box::new(bot) as Box<dyn arena::bot::Bot<InvisibleTarget>>
            })
            .collect();
        let mut turns = 0u64;
        let outcome = play(entries, 9, &config(5), &mut bots, |_, step| turns += u64::from(step.is_some()));
        assert_eq!(outcome.turns, 5);
        assert_eq!(turns, 5 * u64::from(k) * entries as u64);
        assert!(outcome.stats.iter().all(|s| s.errors == 0 && s.calls == 5 * u64::from(k)), "{:?}", outcome.stats);
        assert!(outcome.scores.iter().sum::<u32>() >= 1, "someone wins");
    }
}

#[test]
fn every_player_keeps_a_route_to_the_target_and_walls_obey_the_rules_in_whole_games() {
    let mut bots: Vec<Box<dyn arena::bot::Bot<InvisibleTarget>>> = (0..4)
        .map(|_| Box::new(|ctx: &TargetContext<'_>| ctx.random(5)) as Box<dyn arena::bot::Bot<InvisibleTarget>>)
        .collect();
    let cfg = invisible_target::Config { q: 0.5, max_rounds: Some(400) };
    let (mut walls, mut last_wall_turn, mut turn) = (0usize, None::<u64>, 0u64);
    let mut players = 0u64;
    let outcome = play(4, 77, &cfg, &mut bots, |game, step| {
        game.check_invariants().unwrap_or_else(|e| panic!("turn {turn}: {e}"));
        players = game.players() as u64;
        if let Some(s) = step {
            turn += 1;
            if let Some(w) = s.wall {
                walls += 1;
                assert_ne!(w, game.target());
                assert!(game.player_at(w).is_none());
                if let Some(t) = last_wall_turn {
                    assert!(turn - t >= players, "walls {t} and {turn} less than N turns apart");
                }
                last_wall_turn = Some(turn);
            }
        }
    });
    assert!(walls > 50, "{walls} walls");
    assert!(outcome.turns > 0);
}

#[test]
fn a_bad_answer_or_a_failing_bot_stays_and_counts_one_error() {
    let entries = vec![Entry::<InvisibleTarget>::builtin("Bad", || |_: &TargetContext<'_>| 7), random_entry("Random")];
    let outcome = play_game(&entries, 3, &config(3));
    let bad = &outcome.stats[0];
    assert_eq!(bad.errors, bad.calls, "{bad:?}");
    assert!(bad.messages.iter().any(|m| m.contains("move 7 is not 0..4")), "{:?}", bad.messages);
    assert_eq!(outcome.stats[1].errors, 0);
}

#[test]
fn a_game_is_a_function_of_its_seed_and_ends_by_itself() {
    let entries: Vec<_> = (0..3).map(|i| random_entry(&format!("R{i}"))).collect();
    let a = play_game(&entries, 1234, &invisible_target::Config::default());
    let b = play_game(&entries, 1234, &invisible_target::Config::default());
    let key =
        |o: &arena::game::Outcome| (o.turns, o.scores.clone(), o.stats.iter().map(|s| s.calls).collect::<Vec<_>>());
    assert_eq!(key(&a), key(&b));
    assert!(a.turns < 10_000, "a random game ends before the cap: {} rounds", a.turns);
    let c = play_game(&entries, 1235, &invisible_target::Config::default());
    assert_ne!((a.turns, &a.scores), (c.turns, &c.scores));
    // q = 0: no wall ever; the round cap ends it.
    let none = play_game(&entries, 1, &invisible_target::Config { q: 0.0, max_rounds: Some(40) });
    assert_eq!(none.turns, 40);
}

#[test]
fn an_impossible_game_is_refused_in_one_message() {
    let bad_q = play_game(&[random_entry("R")], 1, &invisible_target::Config { q: 1.5, max_rounds: None });
    assert_eq!(bad_q.turns, 0);
    assert!(bad_q.stats[0].messages.iter().any(|m| m.contains("not a probability")), "{:?}", bad_q.stats);
}

#[test]
fn the_bundled_native_bots_play_and_the_seeker_beats_random() {
    let seeker = native("target-seeker");
    let random = native("target-random");
    assert_eq!((seeker.name.as_str(), random.name.as_str()), ("TargetSeeker", "TargetRandom"));
    assert_eq!(seeker.kind, EntryKind::Native);
    let both = [seeker, random];
    let mut totals = [0u32; 2];
    for seed in 0..24 {
        let scores = assert_plays_cleanly(&both, seed, &invisible_target::Config::default());
        totals[0] += scores[0];
        totals[1] += scores[1];
    }
    eprintln!("TargetSeeker {} points, TargetRandom {} over 24 games", totals[0], totals[1]);
    assert!(totals[0] > totals[1], "the seeker ({}) beats random ({})", totals[0], totals[1]);
}

#[test]
fn a_c_bot_plays_target_through_the_c_table() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("east.c");
    std::fs::write(
        &source,
        r#"#include "target_bot.h"
#include <stdlib.h>
typedef struct { uint32_t calls; } bot;
static void *create(void) { return calloc(1, sizeof(bot)); }
static void destroy(void *b) { free(b); }
static uint32_t turn(void *b, const tb_context *ctx) {
    ((bot *)b)->calls++;
    if (ctx->copy >= ctx->copies || ctx->others_len + 1 < 16) return 9; /* an error */
    return ctx->round % 2 ? TB_EAST : (uint32_t)tb_random_below(ctx, 5);
}
static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table), .name = "CEast",
    .create = create, .destroy = destroy, .game = "target", .target_turn = turn,
};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
"#,
    )
    .unwrap();
    let lib = compile_c(&source, &dir.path().join(lib_name("ceast")), &["-Wextra"]);
    let entry = arena::loaders::native::load::<InvisibleTarget>(&lib, &Default::default()).unwrap();
    assert_eq!((entry.name.as_str(), entry.kind), ("CEast", EntryKind::NativeC));
    assert_plays_cleanly(&[entry, random_entry("R")], 5, &config(50));
    // The same library is skipped by a zombies tournament, in one line.
    let err = arena::loaders::native::load::<Zombies>(&lib, &Default::default()).err().unwrap();
    assert_eq!(err, "plays target; this is a zombies tournament");
}

#[test]
fn a_library_of_another_game_is_skipped_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(plugin_lib("egg-random"), dir.path().join(lib_name("egg_random"))).unwrap();
    std::fs::copy(plugin_lib("target-random"), dir.path().join(lib_name("target_random"))).unwrap();
    let found = discover::<InvisibleTarget>(
        &SearchPaths { plugins: vec![dir.path().to_owned()], scripts: vec![] },
        &ScriptLimits::default(),
    );
    assert_eq!(found.entries.len(), 1);
    assert_eq!(found.entries[0].name, "TargetRandom");
    assert_eq!(found.skipped.len(), 1, "{:?}", found.skipped);
    assert_eq!(found.skipped[0].reason, "plays eggs; this is a target tournament");
    assert!(!found.skipped[0].to_string().contains('\n'));
    // And a target library in a zombies tournament.
    let zombies = discover::<Zombies>(
        &SearchPaths { plugins: vec![dir.path().to_owned()], scripts: vec![] },
        &ScriptLimits::default(),
    );
    assert!(zombies.skipped.iter().any(|s| s.reason == "plays target; this is a zombies tournament"));
}

#[test]
fn lua_and_rhai_bots_see_the_context_and_play() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("checker.lua"),
        r#"-- arena: target
function do_turn(ctx)
  assert(ctx.copies == 8 and ctx.copy >= 0 and ctx.copy < 8, "copies")
  assert(#ctx.others == 15, "others")
  assert(ctx.me >= 0 and ctx.me < 4096 and ctx.new_wall <= 4096 and ctx.round >= 0)
  return random(5)
end
"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("rhai-checker.rhai"),
        r#"// arena: target
fn do_turn(ctx) {
    if ctx.copies != 8 || ctx.others.len() != 15 || ctx.me < 0 || ctx.me >= 4096 || ctx.new_wall > 4096 { throw "bad context"; }
    random(5)
}
"#,
    )
    .unwrap();
    let found = entries(&[], &[dir.path().to_owned()]);
    assert_eq!(found.len(), 2);
    assert_plays_cleanly(&found, 8, &config(30));
}

#[test]
fn the_bundled_lua_seeker_plays_without_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(root().join("scripts/target/lua-seeker.lua"), dir.path().join("lua-seeker.lua")).unwrap();
    let mut found = entries(&[], &[dir.path().to_owned()]);
    found.push(native("target-random"));
    assert_plays_cleanly(&found, 2, &config(300));
}

#[test]
fn bundled_scripts_all_load_for_target() {
    let found = discover::<InvisibleTarget>(
        &SearchPaths { plugins: vec![], scripts: vec![root().join("scripts")] },
        &ScriptLimits::default(),
    );
    let names: Vec<&str> = found.entries.iter().map(|e| e.name.as_str()).collect();
    for n in ["lua-seeker", "py-seeker", "py-random"] {
        assert!(names.contains(&n), "{n} missing from {names:?}; skipped {:?}", found.skipped);
    }
}

#[test]
fn program_bots_speak_the_seed_protocol_one_process_per_copy() {
    let Some(py) = python() else {
        crate::util::skip("skipped: no python3");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Checks each line (N + 2 integers: N + 1, me, wall, N - 1 others), and that this
    // process only ever plays one player: its position changes by at most one step.
    program(
        dir.path(),
        "liner.py",
        &format!(
            r#"#!{py}
# arena: target
import sys
last = None
for line in sys.stdin:
    v = [int(x) for x in line.split()]
    assert v[0] == len(v) - 1 == 17, v
    assert 0 <= v[1] < 4096 and 0 <= v[2] <= 4096, v
    if last is not None:
        d = abs(v[1] - last)
        assert d in (0, 1, 63, 64, 4032), (last, v[1])
    last = v[1]
    print(last % 5, flush=True)
"#
        ),
    );
    let found = entries(&[], &[dir.path().to_owned()]);
    assert_eq!(found[0].kind, EntryKind::Program);
    assert_plays_cleanly(&[found[0].clone(), random_entry("R")], 4, &config(40));
}

#[test]
fn a_late_program_answer_is_discarded_and_the_next_answer_is_in_sync() {
    let Some(py) = python() else {
        crate::util::skip("skipped: no python3");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Answers each line with its own count as a move code: 0, 1, 2, 3, 4, 0, ... but
    // sleeps 150 ms (over the 50 ms limit) on its third line. A stale answer taken for
    // the next call would shift every later answer by one.
    program(
        dir.path(),
        "sleepy.py",
        &format!(
            r#"#!{py}
# arena: target
import sys, time
n = 0
for line in sys.stdin:
    n += 1
    if n == 3:
        time.sleep(0.15)
    print((n - 1) % 5, flush=True)
"#
        ),
    );
    let found = entries(&[], &[dir.path().to_owned()]);
    let mut answers = Vec::new();
    let mut bot = found[0].create_bot().unwrap();
    let others: Vec<u16> = (1..16).map(|i| i * 200).collect();
    for turn in 0..6u32 {
        let mut rng = <arena::game::GameRng as rand::SeedableRng>::seed_from_u64(1);
        let ctx = TargetContext {
            me: 5,
            new_wall: NO_WALL,
            copy: 0,
            copies: 1,
            round: turn,
            others: arena::abi::abi_stable::std_types::RSlice::from_slice(&others),
            random: arena::game::random_source(&mut rng),
        };
        answers.push(bot.turn(&ctx));
        if turn == 2 {
            // Let the late line arrive before the next call.
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
    let shown: Vec<String> = answers.iter().map(|a| format!("{a:?}")).collect();
    assert_eq!(answers[0].as_ref().ok(), Some(&0), "{shown:?}");
    assert_eq!(answers[1].as_ref().ok(), Some(&1), "{shown:?}");
    assert!(matches!(answers[2], Err(arena::bot::BotError::Timeout)), "{shown:?}");
    // The late answer "2" is discarded; the fourth call gets the fourth line's answer.
    assert_eq!(answers[3].as_ref().ok(), Some(&3), "{shown:?}");
    assert_eq!(answers[4].as_ref().ok(), Some(&4), "{shown:?}");
    assert_eq!(answers[5].as_ref().ok(), Some(&0), "{shown:?}");
}

#[test]
fn the_bundled_python_bots_play_without_errors() {
    if python().is_none() {
        crate::util::skip("skipped: no python3");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for f in ["py-seeker.py", "py-random.py"] {
        let to = dir.path().join(f);
        std::fs::copy(root().join("scripts/target").join(f), &to).unwrap();
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let found = entries(&[], &[dir.path().to_owned()]);
    assert_eq!(found.len(), 2);
    let outcome = play_game(&found, 6, &config(60));
    for (e, s) in found.iter().zip(&outcome.stats) {
        assert_eq!(s.calls, 60 * 8, "{}", e.name);
        assert_eq!(s.errors, 0, "{}: {:?}", e.name, s.messages);
        // A loaded machine may make a rare answer late; never many.
        assert!(s.overruns <= 5, "{}: {} late answers", e.name, s.overruns);
    }
}

/// The text of a page's data element.
fn embedded(page: &str) -> serde_json::Value {
    let open = r#"<script id="data" type="application/json">"#;
    let start = page.find(open).expect("the data element") + open.len();
    let len = page[start..].find("</script>").expect("the data element ends");
    serde_json::from_str(&page[start..start + len]).expect("JSON")
}

#[test]
fn a_replay_round_trips_and_its_page_is_self_contained() {
    let entries = vec![random_entry("Random"), random_entry("Still </script>"), native("target-seeker")];
    let (outcome, replay) = play_recorded(&entries, 11, &invisible_target::Config::default());
    assert!(outcome.turns > 20, "{} rounds", outcome.turns);
    let bytes = replay.to_bytes();
    let back = Replay::<InvisibleTarget>::from_bytes(&bytes).unwrap();
    assert_eq!(back.calls, replay.calls);
    let again = viewer::replay_turns(&back, |_, _| {}).unwrap();
    assert_eq!(again.scores, outcome.scores);
    assert_eq!(again.turns, outcome.turns);
    // A replay of another game is refused in one line.
    let as_zombies = Replay::<Zombies>::from_bytes(&bytes).err().unwrap().to_string();
    assert!(!as_zombies.contains('\n') && as_zombies.contains("target"), "{as_zombies}");
    // A damaged one is an error, never a panic.
    for cut in [bytes.len() / 2, bytes.len() - 3] {
        assert!(Replay::<InvisibleTarget>::from_bytes(&bytes[..cut]).is_err());
    }

    let page = InvisibleTarget::viewer_page(&back).unwrap();
    for outside in ["http://", "https://", "src=", "href=", "@import", "url("] {
        assert!(!page.contains(outside), "the page loads nothing from outside: {outside}");
    }
    assert_eq!(page.matches("</script>").count(), 2);
    assert!(page.contains("<title>target replay, seed 11</title>"));
    let data = embedded(&page);
    assert_eq!(data, viewer::viewer_data(&back).unwrap());
    // Following the moves as the page does gives the engine's positions and walls.
    let order: Vec<usize> = data["order"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as usize).collect();
    let mut pos: Vec<u16> = data["start"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u16).collect();
    let mv = data["mv"].as_str().unwrap().as_bytes();
    let walls = data["walls"].as_array().unwrap();
    let mut turn = 0usize;
    let mut nwalls = 0;
    viewer::replay_turns(&back, |game, step| {
        if step.is_some() {
            let p = order[turn % order.len()];
            pos[p] = arena::games::invisible_target::engine::neighbour(pos[p], mv[turn] - b'0');
            turn += 1;
            while nwalls * 2 < walls.len() && walls[nwalls * 2].as_u64().unwrap() as usize <= turn {
                nwalls += 1;
            }
        }
        let engine: Vec<u16> = (0..game.players()).map(|p| game.position(p)).collect();
        assert_eq!(pos, engine, "turn {turn}");
        assert_eq!(nwalls, game.walls(), "turn {turn}");
    })
    .unwrap();
    assert_eq!(data["target"].as_u64().unwrap(), u64::from(Engine::new(3, 11, Default::default()).target()));
    assert_eq!(data["scores"], serde_json::json!(outcome.scores));
}

#[test]
fn entries_tied_on_points_are_ranked_by_their_best_copys_mean_distance() {
    use arena::game::Ranking;
    use arena::tournament::{GameRecord, summarise};
    use std::collections::BTreeMap;
    // "Aa" and "Zz" both score 1 point over two games; Zz's best copy ended nearer the
    // target (mean 2 against 5), so Zz ranks first whatever the names say.
    let game = |index: u64, aa: (u32, f64), zz: (u32, f64)| GameRecord {
        index,
        seed: index,
        turns: 10,
        scores: BTreeMap::from([("Aa".to_owned(), aa.0), ("Zz".to_owned(), zz.0)]),
        stats: BTreeMap::new(),
        seats: Vec::new(),
        tiebreak: BTreeMap::from([("Aa".to_owned(), aa.1), ("Zz".to_owned(), zz.1)]),
    };
    let names = ["Aa".to_owned(), "Zz".to_owned()];
    let games = vec![game(0, (1, 4.0), (0, 1.0)), game(1, (0, 6.0), (1, 3.0))];
    let result = summarise("target", Ranking::Total, &names, 0, 2, games);
    let order: Vec<&str> = result.leaderboard.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(order, ["Zz", "Aa"]);
    assert_eq!((result.leaderboard[0].total, result.leaderboard[0].tiebreak), (1, 2.0));
    assert_eq!(result.leaderboard[1].tiebreak, 5.0);
}

#[test]
fn a_games_outcome_carries_each_entrys_best_distance() {
    use arena::game::Rules as _;
    let entries: Vec<arena::bot::Entry<arena::games::invisible_target::InvisibleTarget>> = (0..2)
        .map(|i| arena::bot::Entry::builtin(format!("Still{i}"), || |_: &arena::abi::target::TargetContext<'_>| 2u32))
        .collect();
    let out = arena::tournament::play_game(&entries, 5, &arena::games::invisible_target::Config::default());
    assert_eq!(out.tiebreak.len(), 2);
    assert!(out.tiebreak.iter().all(|&d| (0.0..=64.0).contains(&d)), "{:?}", out.tiebreak);
    let _ = arena::games::invisible_target::InvisibleTarget::NAME;
}
