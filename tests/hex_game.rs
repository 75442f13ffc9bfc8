//! Hex humans vs zombies as a hosted game: the pairs schedule and ranking, every kind of
//! bot playing it, the time bank's effect, replays and the page, shards and merge.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use arena::abi::hex::{CALL_SPAWN_HUMANS, HexAnswer, HexCommand, HexContext};
use arena::bot::{Entry, EntryKind};
use arena::game::{Game, Ranking, Recorded};
use arena::games::hex::{self, Hex, HexCall};
use arena::limits::TimeBank;
use arena::loaders::{ScriptLimits, SearchPaths, discover};
use arena::replay::Replay;
use arena::tournament::{GameRecord, Plan, Shard, TournamentResult, merge, play_game, play_here, run, summarise};

use crate::util::{plugin_lib, root};

/// The baseline (as plugins/hex-basic) compiled in.
fn basic(name: &str) -> Entry<Hex> {
    Entry::<Hex>::builtin(name, arena::games::hex::bench::baseline)
}

/// A bot that answers nothing: as humans it places nobody (result 1), as zombies it
/// never spawns (the humans live to 1000).
fn null(name: &str) -> Entry<Hex> {
    Entry::builtin(name, || |_: &HexContext<'_>| HexAnswer::default())
}

/// A bot that sleeps `ms` in every call, else plays the baseline.
fn slow(name: &str, ms: u64) -> Entry<Hex> {
    Entry::builtin(name, move || {
        let mut inner = arena::games::hex::bench::baseline();
        move |ctx: &HexContext<'_>| {
            std::thread::sleep(Duration::from_millis(ms));
            inner(ctx)
        }
    })
}

fn untimed(mut r: TournamentResult) -> TournamentResult {
    for g in &mut r.games {
        for s in g.stats.values_mut() {
            (s.timed_calls, s.timed_nanos) = (0, 0);
        }
    }
    for s in &mut r.leaderboard {
        (s.stats.timed_calls, s.stats.timed_nanos, s.mean_call_micros) = (0, 0, 0.0);
    }
    r
}

fn tournament(entries: &[Entry<Hex>], rounds: u64, shard: Shard, jobs: usize) -> TournamentResult {
    let games = rounds * Hex::games_per_round(entries.len());
    let plan = Plan { shard, jobs, ..Plan::new(5, games) };
    untimed(run(entries, &plan, &AtomicBool::new(false), |_, _| {}))
}

#[test]
fn the_lineup_is_every_ordered_pair_once_per_round() {
    assert_eq!(Hex::games_per_round(1), 0);
    assert_eq!(Hex::games_per_round(4), 12);
    let mut seen = std::collections::BTreeMap::new();
    for i in 0..36 {
        let l = Hex::lineup(4, i);
        assert_eq!(l.len(), 2);
        assert_ne!(l[0], l[1], "game {i} seats an entry against itself");
        *seen.entry((l[0], l[1])).or_insert(0) += 1;
    }
    assert_eq!(seen.len(), 12);
    assert!(seen.values().all(|&n| n == 3), "{seen:?}");
    // Other games seat everyone.
    assert_eq!(arena::games::eggs::Eggs::lineup(3, 7), vec![0, 1, 2]);
}

#[test]
fn a_tournament_plays_every_ordered_pair_and_ranks_by_match_points() {
    let entries = [basic("Basic"), null("Null"), null("Void")];
    let r = tournament(&entries, 2, Shard::ALL, 3);
    assert_eq!((r.played, r.rounds), (12, 12));
    assert_eq!(r.ranking, Ranking::Pairs);
    let mut pairs = std::collections::BTreeMap::new();
    for g in &r.games {
        assert_eq!(g.seats.len(), 2, "game {}", g.index);
        assert_eq!(g.scores.len(), 2, "only the seated entries score");
        assert!(g.seats.iter().all(|s| g.scores.contains_key(s)));
        *pairs.entry(g.seats.clone()).or_insert(0) += 1;
        // The humans' score is the result, the zombies' what was left to 1000.
        assert_eq!(g.scores[&g.seats[0]], g.turns);
        assert_eq!(g.scores[&g.seats[1]], 1000 - g.turns);
    }
    assert_eq!(pairs.len(), 6);
    assert!(pairs.values().all(|&n| n == 2));
    let board: Vec<(&str, f64, f64, f64)> =
        r.leaderboard.iter().map(|s| (s.name.as_str(), s.points, s.margin, s.survival)).collect();
    // Basic's humans live to 1000 against zombies that never come; Null's and Void's
    // place nobody (result 1). Null and Void draw.
    assert_eq!(board[0], ("Basic", 2.0, 2.0 * 999.0, 2000.0));
    assert_eq!(board[1], ("Null", 0.5, -999.0, 2.0));
    assert_eq!(board[2], ("Void", 0.5, -999.0, 2.0));
    let csv = arena::tournament::leaderboard_csv(&r);
    assert!(csv.lines().next().unwrap().ends_with(",points,margin,survival"), "{csv}");
    assert!(csv.lines().nth(1).unwrap().ends_with(",2,1998.000,2000.000"), "{csv}");
}

fn record(index: u64, humans: &str, zombies: &str, t: u32) -> GameRecord {
    GameRecord {
        index,
        seed: index,
        turns: t,
        scores: [(humans.to_owned(), t), (zombies.to_owned(), 1000 - t)].into_iter().collect(),
        stats: Default::default(),
        seats: vec![humans.to_owned(), zombies.to_owned()],
        tiebreak: Default::default(),
    }
}

#[test]
fn the_pairs_ranking_on_hand_made_results() {
    // A beats B (mean 300 vs 200), A draws C (150 vs 150), B beats C (500 vs 100);
    // C vs B has two rounds: (100 + 100) / 2. D played only one side against A: it
    // counts for survival but not for points or margin.
    let games = vec![
        record(0, "A", "B", 200),
        record(1, "A", "B", 400),
        record(2, "B", "A", 200),
        record(3, "A", "C", 150),
        record(4, "C", "A", 150),
        record(5, "B", "C", 500),
        record(6, "C", "B", 50),
        record(7, "C", "B", 150),
        record(8, "D", "A", 900),
    ];
    let names: Vec<String> = ["A", "B", "C", "D"].iter().map(|s| s.to_string()).collect();
    let r = summarise("hex", Ranking::Pairs, &names, 1, 9, games.clone());
    let row = |n: &str| {
        let s = r.leaderboard.iter().find(|s| s.name == n).unwrap();
        (s.points, s.margin, s.survival)
    };
    assert_eq!(row("A"), (1.5, 100.0, 450.0));
    assert_eq!(row("B"), (1.0, -100.0 + 400.0, 200.0 + 500.0));
    assert_eq!(row("C"), (0.5, -400.0, 150.0 + 100.0));
    assert_eq!(row("D"), (0.0, 0.0, 900.0));
    let order: Vec<&str> = r.leaderboard.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(order, ["A", "B", "C", "D"]);
    // Ties on points go to the margin: with the B-C pair reversed, B and D both have 0
    // points, and D (margin 0) is ahead of B (−100 − 90).
    let mut flipped = games.clone();
    flipped[5] = record(5, "B", "C", 10);
    let r = summarise("hex", Ranking::Pairs, &names, 1, 9, flipped);
    let order: Vec<(&str, f64)> = r.leaderboard.iter().map(|s| (s.name.as_str(), s.points)).collect();
    assert_eq!(order, [("A", 1.5), ("C", 1.5), ("D", 0.0), ("B", 0.0)]);
    // The order of the games changes nothing.
    let mut reversed = games.clone();
    reversed.reverse();
    assert_eq!(
        summarise("hex", Ranking::Pairs, &names, 1, 9, reversed),
        summarise("hex", Ranking::Pairs, &names, 1, 9, games)
    );
}

#[test]
fn shards_merge_into_the_one_machine_result() {
    let entries = [basic("Basic"), null("Null"), slow("Slow", 0)];
    let whole = tournament(&entries, 2, Shard::ALL, 2);
    let parts: Vec<TournamentResult> = (1..=3).map(|k| tournament(&entries, 2, Shard { k, n: 3 }, 1)).collect();
    assert_eq!(parts.iter().map(|p| p.played).sum::<u64>(), 12);
    assert_eq!(merge(parts.clone()).unwrap(), whole);
    let through_json: Vec<TournamentResult> =
        parts.iter().map(|p| serde_json::from_str(&serde_json::to_string(p).unwrap()).unwrap()).collect();
    assert_eq!(merge(through_json).unwrap(), whole);
}

/// Plays `entries` (humans, zombies) once and checks that both were called without errors.
fn plays_cleanly(entries: &[Entry<Hex>], config: &hex::Config) -> u32 {
    let outcome = play_game(entries, 7, config);
    for (i, e) in entries.iter().enumerate() {
        let s = &outcome.stats[i];
        assert_eq!((s.errors, s.overruns, s.disqualified), (0, 0, 0), "{}: {s:?}", e.name);
        assert!(s.calls > 0, "{} was never called", e.name);
    }
    eprintln!("{} vs {}: humans survived {} half-turns", entries[0].name, entries[1].name, outcome.turns);
    outcome.turns
}

fn scripts_in(files: &[&str]) -> (tempfile::TempDir, Vec<Entry<Hex>>) {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        let to = dir.path().join(Path::new(f).file_name().unwrap());
        std::fs::copy(root().join(f), &to).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&to).unwrap().permissions().mode();
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(mode | 0o100)).unwrap();
        }
    }
    let found = discover::<Hex>(
        &SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] },
        &ScriptLimits::default(),
    );
    assert!(found.skipped.is_empty(), "skipped: {:?}", found.skipped);
    (dir, found.entries)
}

fn native(crate_name: &str) -> Entry<Hex> {
    let lib = plugin_lib(crate_name);
    arena::loaders::native::load::<Hex>(&lib, &Default::default()).unwrap_or_else(|e| panic!("{}: {e}", lib.display()))
}

#[test]
fn native_and_lua_bots_play_full_games_on_both_sides() {
    let rust = native("hex-basic");
    assert_eq!((rust.name.as_str(), rust.kind), ("HexBasic", EntryKind::Native));
    let (_dir, lua) = scripts_in(&["scripts/hex/basic.lua"]);
    let lua = lua.into_iter().next().unwrap();
    assert_eq!(lua.kind, EntryKind::Lua);
    // Full games in release builds; shorter ones in debug builds, where a Lua side of
    // hundreds of zombies takes minutes.
    let config = hex::Config { max_turns: if cfg!(debug_assertions) { Some(200) } else { None } };
    plays_cleanly(&[rust.clone(), lua.clone()], &config);
    plays_cleanly(&[lua, rust], &config);
}

#[test]
fn a_rhai_bot_plays_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("rhai-basic.rhai"),
        r#"// arena: hex
fn do_turn(ctx) {
    if ctx.kind == "spawn_humans" {
        return [#{cmd: "spawn", x: 2, y: 2, weapon: 5}, #{cmd: "spawn", x: 3, y: 2, weapon: 1}];
    }
    if ctx.kind == "spawn_zombies" {
        return [#{cmd: "spawn_zombie", zone: 7, facing: 0}];
    }
    if ctx.side == "humans" {
        for z in ctx.zombies { return [#{cmd: "attack", id: z.id}, #{cmd: "attack", id: z.id}]; }
        return [#{cmd: "build", x: ctx.me.x + 1, y: ctx.me.y - 1}];
    }
    [#{cmd: "forward"}, #{cmd: "turn", by: 1}]
}
"#,
    )
    .unwrap();
    let found = discover::<Hex>(
        &SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] },
        &ScriptLimits::default(),
    );
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    let rhai = found.entries[0].clone();
    let short = hex::Config { max_turns: Some(120) };
    plays_cleanly(&[rhai.clone(), basic("Basic")], &short);
    plays_cleanly(&[basic("Basic"), rhai], &short);
}

#[test]
fn a_program_bot_plays_both_sides_over_json_lines() {
    if !Path::new("/usr/bin/python3").exists() && !Path::new("/usr/local/bin/python3").exists() {
        crate::util::skip("skipped: no python3");
        return;
    }
    let (_dir, found) = scripts_in(&["scripts/hex/py-basic.py"]);
    let py = found.into_iter().next().unwrap();
    assert_eq!(py.kind, EntryKind::Program);
    let short = hex::Config { max_turns: Some(60) };
    plays_cleanly(&[py.clone(), basic("Basic")], &short);
    plays_cleanly(&[basic("Basic"), py], &short);
}

#[test]
fn answers_past_the_limits_and_unknown_commands_are_skipped() {
    // Humans mix in zombie commands (skipped, no error); zombies answer 16 commands of
    // which 4 run: each such call is one error.
    let greedy = Entry::builtin("Greedy", || {
        let mut inner = arena::games::hex::bench::baseline();
        move |ctx: &HexContext<'_>| {
            let mut a = inner(ctx);
            if ctx.call != CALL_SPAWN_HUMANS {
                while a.len < 16 {
                    a.push(HexCommand::forward());
                }
            }
            a
        }
    });
    let outcome = play_game(&[basic("Basic"), greedy.clone()], 7, &hex::Config { max_turns: Some(100) });
    let s = &outcome.stats[1];
    assert!(s.errors > 0 && s.errors < s.calls, "{s:?}");
    assert!(s.messages.iter().any(|m| m.contains("16 commands, at most 4")), "{s:?}");
    let outcome = play_game(&[greedy, basic("Basic")], 7, &hex::Config { max_turns: Some(100) });
    assert_eq!(outcome.stats[0].errors, 0, "{:?}", outcome.stats[0]);
}

/// The command cap, one rule for every kind of bot: the humans' spawn call answers 20
/// placements; the first 6 place the humans (the game goes on past t = 1), the 7th to
/// 16th are executed and rejected by the rules, the last 4 are refused, and the call
/// counts as one error.
#[test]
fn the_command_cap_runs_the_first_commands_and_counts_one_error_for_every_kind() {
    let rust = Entry::builtin("Rust20", || {
        |ctx: &HexContext<'_>| {
            let mut a = HexAnswer::default();
            if ctx.call == CALL_SPAWN_HUMANS {
                for i in 1..=20 {
                    a.push(HexCommand::spawn_human(i, 1, 5));
                }
            }
            a
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "lua20.lua",
            "-- arena: hex\nfunction do_turn(ctx)\n  local a = {}\n  if ctx.kind == \"spawn_humans\" then\n    for i = 1, 20 do a[i] = {cmd = \"spawn\", x = i, y = 1, weapon = 5} end\n  end\n  return a\nend\n",
        ),
        (
            "rhai20.rhai",
            "// arena: hex\nfn do_turn(ctx) {\n  let a = [];\n  if ctx.kind == \"spawn_humans\" {\n    for i in 1..21 { a.push(#{cmd: \"spawn\", x: i, y: 1, weapon: 5}); }\n  }\n  a\n}\n",
        ),
        (
            "py20.py",
            "#!/usr/bin/env python3\n# arena: hex\nimport json, sys\nfor line in sys.stdin:\n    ctx = json.loads(line)\n    a = [{\"cmd\": \"spawn\", \"x\": i, \"y\": 1, \"weapon\": 5} for i in range(1, 21)] if ctx[\"kind\"] == \"spawn_humans\" else []\n    print(json.dumps(a), flush=True)\n",
        ),
    ];
    let python = Path::new("/usr/bin/python3").exists() || Path::new("/usr/local/bin/python3").exists();
    for (name, text) in files {
        if name.ends_with(".py") && !python {
            crate::util::skip(&format!("skipped {name}: no python3"));
            continue;
        }
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let found = discover::<Hex>(
        &SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] },
        &ScriptLimits::default(),
    );
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    let mut entries = found.entries;
    entries.push(rust);
    assert_eq!(entries.len(), if python { 4 } else { 3 });
    for e in &entries {
        let outcome = play_game(&[e.clone(), null("Null")], 1, &hex::Config { max_turns: Some(5) });
        let s = &outcome.stats[0];
        assert_eq!(outcome.turns, 5, "{}: the first commands did not run", e.name);
        assert_eq!(s.errors, 1, "{}: {s:?}", e.name);
        assert!(s.messages[0].contains("20 commands, at most 16"), "{}: {s:?}", e.name);
    }
}

fn banked(entries: &[Entry<Hex>], ms: u64) -> (arena::game::Outcome, Option<Replay<Hex>>) {
    let plan = Plan {
        bank: Some(TimeBank { initial: Duration::from_millis(ms), per_turn: Duration::ZERO }),
        record: true,
        ..Plan::new(0, 1)
    };
    play_here(entries, &plan, 3)
}

#[test]
fn a_spent_time_bank_kills_the_humans_or_ends_the_game_for_the_zombies() {
    // Humans out of time on t = 1: every human dies at the boundary, result 1.
    let (o, replay) = banked(&[slow("SlowHumans", 4), null("Null")], 10);
    assert_eq!(o.turns, 1);
    assert_eq!(o.scores, vec![1, 999]);
    assert_eq!(o.stats[0].disqualified, 1, "{:?}", o.stats[0]);
    assert_eq!(replay.unwrap().verify().unwrap().turns, 1);
    // Zombies out of time on t = 2: t := 1000, the humans win with result 1000.
    let (o, replay) = banked(&[basic("Basic"), slow("SlowZombies", 4)], 10);
    assert_eq!(o.turns, 1000);
    assert_eq!(o.scores, vec![1000, 0]);
    assert_eq!(o.stats[1].disqualified, 1, "{:?}", o.stats[1]);
    assert_eq!(replay.unwrap().verify().unwrap().turns, 1000);
}

#[test]
fn replays_round_trip_and_the_page_is_self_contained() {
    let entries = [basic("Basic"), basic("Other")];
    let (outcome, replay) = arena::play::play_recorded(&entries, 11, &hex::Config::default());
    assert!(outcome.turns > 10);
    let bytes = replay.to_bytes();
    let back = Replay::<Hex>::from_bytes(&bytes).unwrap();
    assert_eq!(back, replay);
    assert_eq!(back.verify().unwrap().scores, outcome.scores);
    assert_eq!(arena::replay::game_of(&bytes).unwrap(), "hex");
    let page = Hex::viewer_page(&back).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<title>hex replay, seed 11</title>"));
    for outside in ["http://", "https://", "<link", "src="] {
        assert!(!page.contains(outside), "the page loads {outside}");
    }
    // A damaged replay is one error, never a panic.
    for cut in [bytes.len() / 2, bytes.len() - 3] {
        assert!(Replay::<Hex>::from_bytes(&bytes[..cut]).and_then(|r| r.verify()).is_err());
    }
    // A replay of one entry playing itself (arena play with one entry).
    let (_, solo) = arena::play::play_recorded(&[basic("Solo")], 2, &hex::Config { max_turns: Some(50) });
    solo.verify().unwrap();
    Hex::viewer_page(&solo).unwrap();
}

#[test]
fn games_are_functions_of_the_seed() {
    let entries = [basic("A"), basic("B")];
    let a = play_game(&entries, 99, &hex::Config::default());
    let b = play_game(&entries, 99, &hex::Config::default());
    assert_eq!((a.turns, &a.scores), (b.turns, &b.scores));
}

#[test]
fn a_c_bot_compiles_against_hex_bot_h_and_plays_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("chex.c");
    std::fs::write(
        &src,
        r#"#include "hex_bot.h"
#include <stdlib.h>
static void *create(void) { return calloc(1, 1); }
static void destroy(void *b) { free(b); }
static void hex_turn(void *bot, const struct hb_context *ctx, struct hb_answer *a) {
    (void)bot;
    if (ctx->call == HB_CALL_SPAWN_HUMANS) {
        for (int i = 0; i < 6; i++) hb_push(a, HB_SPAWN_HUMAN, HB_PISTOL, 1 + i % 3, 1 + i / 3, 0);
        return;
    }
    if (ctx->call == HB_CALL_SPAWN_ZOMBIES) { hb_push(a, HB_SPAWN_ZOMBIE, 7 + ctx->t % 4, 0, 0, hb_zone_inward(7 + ctx->t % 4)); return; }
    if (ctx->side == HB_HUMANS) {
        const hb_human *me = &ctx->humans.ptr[ctx->unit_index];
        if (me->id != ctx->unit) abort();
        for (size_t i = 0; i < ctx->zombies.len; i++) {
            const hb_zombie *z = &ctx->zombies.ptr[i];
            if (hb_distance(me->x, me->y, z->x, z->y) <= hb_weapon_range(me->weapon) && hb_weapon_delay(me->weapon) < 1.0) {
                hb_push(a, HB_ATTACK, z->id, 0, 0, 0);
                hb_push(a, HB_ATTACK, z->id, 0, 0, 0);
                return;
            }
        }
    } else {
        if (ctx->zombies.ptr[ctx->unit_index].id != ctx->unit) abort();
        const hb_zombie *me = &ctx->zombies.ptr[ctx->unit_index];
        int32_t fx = me->x + hb_dir_x(me->facing), fy = me->y + hb_dir_y(me->facing);
        if (fx < -HB_BOUND || fx > HB_BOUND || fy < -HB_BOUND || fy > HB_BOUND) hb_push(a, HB_TURN, 0, 0, 0, hb_random(ctx, 2) ? 1 : -1);
        else hb_push(a, HB_FORWARD, 0, 0, 0, 0);
    }
}
static const zb_bot_table TABLE = { .abi_version = ZOMBIES_BOT_ABI_VERSION,
    .struct_size = sizeof(zb_bot_table), .name = "CHex", .create = create, .destroy = destroy,
    .game = "hex", .hex_turn = hex_turn };
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
"#,
    )
    .unwrap();
    crate::util::compile_c(&src, &dir.path().join(crate::util::lib_name("chex")), &["-Wextra"]);
    let c = arena::loaders::native::load::<Hex>(&dir.path().join(crate::util::lib_name("chex")), &Default::default())
        .unwrap();
    assert_eq!((c.name.as_str(), c.kind), ("CHex", EntryKind::NativeC));
    let short = hex::Config { max_turns: Some(300) };
    plays_cleanly(&[c.clone(), basic("Basic")], &short);
    plays_cleanly(&[basic("Basic"), c], &short);
}

/// As in the original server, a zombie may be spawned at any point of the zombies'
/// half-turn, and the cap counts the zombies living at that moment: a zombie eaten in a
/// unit call frees room for a spawn later in the same half-turn (here, in the same call).
#[test]
fn spawn_after_eat_in_the_same_half_turn() {
    use arena::abi::hex::{CALL_SPAWN_ZOMBIES, CALL_UNIT, HUMANS};
    use arena::bot::Bot;
    use arena::games::hex::{Command, Event, Side, play};
    use std::cell::Cell;

    // One pistol near the middle that never acts; zombies spawned in zone 7 facing in, and
    // never moving, so that they fill the cap (t ≈ 66) and stack (the zone's 27 hexes
    // repeat).
    let humans = |ctx: &HexContext<'_>| {
        let mut a = HexAnswer::default();
        if ctx.call == CALL_SPAWN_HUMANS {
            a.push(HexCommand::spawn_human(1, 1, 5));
        }
        a
    };
    let tried = Cell::new(false);
    let zombies = |ctx: &HexContext<'_>| {
        let mut a = HexAnswer::default();
        if ctx.side == HUMANS {
            return a;
        }
        if ctx.call == CALL_SPAWN_ZOMBIES {
            for _ in 0..ctx.zombies_to_spawn {
                a.push(HexCommand::spawn_zombie(7, 0));
            }
        } else if ctx.call == CALL_UNIT
            && !tried.get()
            && ctx.zombies.len() as u32 == ctx.zombie_cap
            && ctx.zombies_ready >= 1.0
        {
            assert_eq!(ctx.zombies_to_spawn, 0, "at the cap, nothing can be spawned");
            let me = ctx.me_zombie().unwrap();
            if let Some(other) = ctx.zombies.iter().find(|z| z.id != me.id && (z.x, z.y) == (me.x, me.y)) {
                tried.set(true);
                a.push(HexCommand::eat(other.id));
                a.push(HexCommand::spawn_zombie(7, 0));
            }
        }
        a
    };
    let mut bots: Vec<Box<dyn Bot<Hex> + '_>> = vec![Box::new(humans), Box::new(zombies)];
    // (half-turn, accepted) of every eat and spawn outside the spawn calls' half-turns' starts.
    let mut eaten_at = None;
    let mut respawned = None;
    let config = hex::Config { max_turns: Some(120) };
    play(2, 5, &config, &mut bots, |event| {
        if let Event::Command { game, side: Side::Zombies, command, accepted: true, .. } = event {
            match command {
                Command::Eat { .. } => eaten_at = Some(game.t()),
                Command::SpawnZombie { .. } if eaten_at == Some(game.t()) && respawned.is_none() => {
                    // Back at the cap: the spawn used the room the eaten zombie left.
                    assert_eq!(game.zombies().count() as u32, game.zombie_cap());
                    respawned = Some(game.t());
                }
                _ => {}
            }
        }
    });
    assert!(tried.get(), "the zombies never reached the cap with a stacked pair");
    assert!(eaten_at.is_some(), "the eat was refused");
    assert_eq!(respawned, eaten_at, "the spawn after the eat was refused");
}

/// A digest of the sight as the host lists it: the same polynomial hash over the same
/// integers as `digest` in the Python program of the test below (floats by their bits).
fn sight_digest(ctx: &HexContext<'_>) -> i64 {
    const P: u128 = (1 << 61) - 1;
    let mut h: u128 = 0;
    let mut add = |v: u64| h = (h * 1_000_003 + u128::from(v) % P) % P;
    let i = |v: i64| v as u64;
    add(ctx.humans.len() as u64);
    for o in ctx.humans.iter() {
        for v in [i(o.id.into()), i(o.x.into()), i(o.y.into()), i(o.hp), i(o.ammo), i(o.weapon.into())] {
            add(v);
        }
        for v in [i(o.specialty.into()), i(o.moves.into()), o.idle.to_bits()] {
            add(v);
        }
    }
    add(ctx.zombies.len() as u64);
    for o in ctx.zombies.iter() {
        for v in [i(o.id.into()), i(o.x.into()), i(o.y.into()), i(o.hp), i(o.facing.into()), i(o.moves.into())] {
            add(v);
        }
        add(o.idle.to_bits());
        add(o.scent.to_bits());
    }
    add(ctx.walls.len() as u64);
    for o in ctx.walls.iter() {
        for v in [i(o.id.into()), i(o.x.into()), i(o.y.into()), i(o.hp), i(o.cap)] {
            add(v);
        }
    }
    add(ctx.crates.len() as u64);
    for o in ctx.crates.iter() {
        for v in [i(o.id.into()), i(o.x.into()), i(o.y.into()), i(o.hp), i(o.cap), i(o.contents.into())] {
            add(v);
        }
    }
    add(ctx.airstrikes.len() as u64);
    for o in ctx.airstrikes.iter() {
        for v in [i(o.id.into()), i(o.x.into()), i(o.y.into()), i(o.delay.into()), i(o.contents.into())] {
            add(v);
        }
    }
    h as i64
}

/// The delta protocol against the full world: the bundled Python bot's `World`, fed the
/// first call's world and then only deltas, equals the host's view of the side at every
/// call of long games (300 half-turns), on both sides. The program answers, besides its moves, a
/// digest of its copy (as a `give` to no one, which the test takes out again).
#[test]
fn a_program_rebuilding_the_world_from_deltas_sees_what_the_engine_shows() {
    use arena::abi::hex::{CALL_UNIT, HUMANS, cmd};
    use arena::bot::{Bot, BotError};
    use arena::games::hex::play;

    if !Path::new("/usr/bin/python3").exists() && !Path::new("/usr/local/bin/python3").exists() {
        crate::util::skip("skipped: no python3");
        return;
    }
    let bundled = std::fs::read_to_string(root().join("scripts/hex/py-basic.py")).unwrap();
    let body = bundled.trim_end().strip_suffix("main()").expect("py-basic.py ends with main()");
    let program = format!(
        r#"{body}
import struct

P = (1 << 61) - 1
FIELDS = {{
    "humans": ("id", "x", "y", "hp", "ammo", "weapon", "specialty", "moves", "idle"),
    "zombies": ("id", "x", "y", "hp", "facing", "moves", "idle", "scent"),
    "walls": ("id", "x", "y", "hp", "cap"),
    "crates": ("id", "x", "y", "hp", "cap", "contents"),
    "airstrikes": ("id", "x", "y", "delay", "contents"),
}}


def digest(world):
    h = 0
    for name in LISTS:
        objects = world.sorted(name)
        values = [len(objects)]
        for o in objects:
            for f in FIELDS[name]:
                v = o[f]
                if f == "contents" and v == "ammo":
                    v = 7
                if isinstance(v, float):
                    v = struct.unpack("<Q", struct.pack("<d", v))[0]
                values.append(v & ((1 << 64) - 1))
        for v in values:
            h = (h * 1000003 + v % P) % P
    return h


def test_main():
    state = {{"zone": 0}}
    world = World()
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            break
        ctx = json.loads(line)
        world.update(ctx)
        out = answer(ctx, world, state)
        if ctx["kind"] == "unit" and ctx["side"] == "humans":
            me = ctx["me"]
            if ctx["airdrops_held"] >= 1:
                out.append({{"cmd": "call_drop", "x": me["x"] + 2, "y": me["y"], "contents": "ammo"}})
            if not out:
                out.append({{"cmd": "build", "x": me["x"] + 1, "y": me["y"] - 1}})
        out.append({{"cmd": "give", "id": 4294967295, "amount": digest(world)}})
        send(json.dumps(out))


test_main()
"#
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("py-deltas.py");
    std::fs::write(&path, program).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let found = discover::<Hex>(
        &SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] },
        &ScriptLimits::default(),
    );
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    let entry = found.entries[0].clone();

    /// Checks the digest the program answered against the host's sight, and takes it out.
    struct Checked {
        inner: Box<dyn Bot<Hex>>,
        calls: std::rc::Rc<std::cell::Cell<u64>>,
    }
    impl Bot<Hex> for Checked {
        fn turn(&mut self, call: &HexCall<'_>) -> Result<HexAnswer, BotError> {
            let a = self.inner.turn(call)?;
            let ctx = &call.ctx;
            let (last, rest) = a.commands().split_last().expect("the digest");
            assert_eq!((last.kind, last.id), (cmd::GIVE, u32::MAX), "no digest at t = {}", ctx.t);
            assert_eq!(
                last.amount,
                sight_digest(ctx),
                "the program's world differs from the host's at t = {}, unit {}",
                ctx.t,
                ctx.unit
            );
            self.calls.set(self.calls.get() + u64::from(ctx.call == CALL_UNIT));
            let mut out = HexAnswer::default();
            for &c in rest {
                out.push(c);
            }
            Ok(out)
        }
    }
    for program_side in [HUMANS, 1 - HUMANS] {
        let calls = std::rc::Rc::new(std::cell::Cell::new(0));
        let checked: Box<dyn Bot<Hex>> = Box::new(Checked { inner: entry.create_bot().unwrap(), calls: calls.clone() });
        let baseline: Box<dyn Bot<Hex>> = Box::new(arena::games::hex::bench::baseline());
        let (mut bots, at) =
            if program_side == HUMANS { (vec![checked, baseline], 0) } else { (vec![baseline, checked], 1) };
        // 300 half-turns: thousands of calls, spawns, deaths, crates, walls and airdrops
        // (a whole game of hundreds of zombies takes minutes in a debug build).
        let outcome = play(2, 3, &hex::Config { max_turns: Some(300) }, &mut bots, |_| {});
        let s = &outcome.stats[at];
        assert_eq!((s.errors, s.overruns, s.disqualified), (0, 0, 0), "{s:?}");
        eprintln!("program side {program_side}: {} unit calls checked, result {}", calls.get(), outcome.turns);
        assert!(calls.get() > 500 && outcome.turns > 50, "too short a game to tell: {}", outcome.turns);
    }
}

/// docs/games/hex.md shows the complete Python bot: it is scripts/hex/py-basic.py.
#[test]
fn the_python_bot_in_the_docs_is_the_bundled_one() {
    let doc = std::fs::read_to_string(root().join("docs/games/hex.md")).unwrap();
    let start = doc.find("```python\n").expect("a Python block in hex.md") + "```python\n".len();
    let len = doc[start..].find("```").unwrap();
    let file = std::fs::read_to_string(root().join("scripts/hex/py-basic.py")).unwrap();
    assert_eq!(&doc[start..start + len], file);
}

/// The bundled baselines in Lua, Rhai and Python are the same logic: from the same seed
/// they play the same games, command for command (the programs draw their random numbers
/// from the game's generator too).
#[test]
fn the_lua_rhai_and_python_baselines_make_the_same_decisions() {
    let python = Path::new("/usr/bin/python3").exists() || Path::new("/usr/local/bin/python3").exists();
    let mut files = vec!["scripts/hex/basic.lua", "scripts/hex/rhai-basic.rhai"];
    if python {
        files.push("scripts/hex/py-basic.py");
    }
    let (_dir, entries) = scripts_in(&files);
    assert_eq!(entries.len(), files.len());
    let config = hex::Config { max_turns: Some(150) };
    let games: Vec<_> = entries
        .iter()
        .map(|e| {
            let (outcome, replay) = arena::play::play_recorded(&[e.clone(), e.renamed("copy")], 4, &config);
            for s in &outcome.stats {
                assert_eq!((s.errors, s.overruns), (0, 0), "{}: {s:?}", e.name);
            }
            (e.name.clone(), outcome.turns, replay.calls)
        })
        .collect();
    assert!(games[0].2.len() > 1000, "{} calls", games[0].2.len());
    for g in &games[1..] {
        assert_eq!((g.1, &g.2), (games[0].1, &games[0].2), "{} and {} differ", g.0, games[0].0);
    }
}

/// What the 2009 client could read is in every kind's context: the board's radius, the
/// weapons table and the spawn zones (`ctx.game`, a program's first line's `game`), and
/// the game's random numbers. Each bot places its humans only if it read them right.
#[test]
fn scripts_and_programs_read_the_weapons_table_zones_and_radius() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "lua-static.lua",
            r#"-- arena: hex
function do_turn(ctx)
  local g = ctx.game
  local ok = g.radius == 13 and #g.weapons == 7 and g.weapons[6].name == "Pistol" and g.weapons[6].range == 5
    and g.weapons[7].delay == 0.33 and g.zones[1].id == 7 and g.zones[1].inward == 0 and g.zones[2].from[1] == -13
    and random(1) == 0
  if ctx.kind == "spawn_humans" and ok then return {{cmd = "spawn", x = 1, y = 1, weapon = 5}} end
  return {}
end
"#,
        ),
        (
            "rhai-static.rhai",
            r#"// arena: hex
fn do_turn(ctx) {
    let g = ctx.game;
    let ok = g.radius == 13 && g.weapons.len() == 7 && g.weapons[5].name == "Pistol" && g.weapons[5].range == 5
        && g.weapons[6].delay == 0.33 && g.zones[0].id == 7 && g.zones[0].inward == 0 && g.zones[1].from[0] == -13
        && random(1) == 0;
    if ctx.kind == "spawn_humans" && ok { return [#{cmd: "spawn", x: 1, y: 1, weapon: 5}]; }
    []
}
"#,
        ),
        (
            "py-static.py",
            r#"#!/usr/bin/env python3
# arena: hex
import json, sys
game = None
while True:
    line = sys.stdin.readline()
    if not line:
        break
    ctx = json.loads(line)
    game = ctx.get("game", game)
    w, z = game["weapons"], game["zones"]
    print(json.dumps({"random": 1}), flush=True)
    ok = json.loads(sys.stdin.readline())["random"] == 0
    ok = ok and game["radius"] == 13 and len(w) == 7 and w[5]["name"] == "Pistol" and w[5]["range"] == 5
    ok = ok and w[6]["delay"] == 0.33 and z[0]["id"] == 7 and z[0]["inward"] == 0 and z[1]["from"][0] == -13
    out = [{"cmd": "spawn", "x": 1, "y": 1, "weapon": 5}] if ctx["kind"] == "spawn_humans" and ok else []
    print(json.dumps(out), flush=True)
"#,
        ),
    ];
    let python = Path::new("/usr/bin/python3").exists() || Path::new("/usr/local/bin/python3").exists();
    for (name, text) in files {
        if name.ends_with(".py") && !python {
            continue;
        }
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let found = discover::<Hex>(
        &SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] },
        &ScriptLimits::default(),
    );
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    assert_eq!(found.entries.len(), if python { 3 } else { 2 });
    for e in &found.entries {
        let outcome = play_game(&[e.clone(), null("Null")], 1, &hex::Config { max_turns: Some(5) });
        assert_eq!(outcome.stats[0].errors, 0, "{}: {:?}", e.name, outcome.stats[0]);
        assert_eq!(outcome.turns, 5, "{} did not read the static data", e.name);
    }
}

/// Humans should never live to the turn limit: a bundled zombie bot of each kind (Rust
/// `HexSmart`, Lua `fortress.lua`, Python `py-horde.py`) ends the baseline humans well
/// before it, and plays without an error (the command cap included).
#[test]
fn bundled_zombie_bots_end_the_baseline_humans_well_before_the_limit() {
    let python = Path::new("/usr/bin/python3").exists() || Path::new("/usr/local/bin/python3").exists();
    let mut files = vec!["scripts/hex/fortress.lua"];
    if python {
        files.push("scripts/hex/py-horde.py");
    }
    let (_dir, mut entries) = scripts_in(&files);
    entries.insert(0, native("hex-smart"));
    for zombies in &entries {
        let outcome = play_game(&[basic("Basic"), zombies.clone()], 1, &hex::Config::default());
        let s = &outcome.stats[1];
        assert_eq!((s.errors, s.overruns, s.disqualified), (0, 0, 0), "{}: {s:?}", zombies.name);
        eprintln!("{} ends the baseline humans at t = {}", zombies.name, outcome.turns);
        assert!(outcome.turns < 500, "{}: the baseline humans lived to t = {}", zombies.name, outcome.turns);
    }
}

/// Rhai's `ctx` is kept between calls, so a script must not be able to change it: the
/// lists and their objects are read-only (writing one in place is the call's error; a
/// copy, such as a loop's variable, is the script's own), and no later call sees a
/// changed object.
#[test]
fn a_rhai_script_cannot_change_the_kept_context() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mutator.rhai"),
        r#"// arena: hex
fn do_turn(ctx) {
    for z in ctx.zombies { if z.hp == -1 { throw "saw a changed zombie"; } }
    for h in ctx.humans { if h.hp == -1 { throw "saw a changed human"; } }
    if ctx.kind == "spawn_humans" { return [#{cmd: "spawn", x: 1, y: 1, weapon: 5}]; }
    if ctx.kind == "spawn_zombies" { return [#{cmd: "spawn_zombie", zone: 7, facing: 0}]; }
    for z in ctx.zombies { z.hp = -1; }
    for h in ctx.humans { h.hp = -1; }
    ctx.me.hp = -1;
    if ctx.side == "humans" { ctx.humans[0].hp = -1; } else { ctx.zombies[0].hp = -1; }
    []
}
"#,
    )
    .unwrap();
    let found = discover::<Hex>(
        &SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] },
        &ScriptLimits::default(),
    );
    let e = found.entries[0].clone();
    let outcome = play_game(&[e.clone(), e.renamed("other")], 1, &hex::Config { max_turns: Some(30) });
    for s in &outcome.stats {
        assert!(s.errors > 0, "{s:?}");
        assert!(s.messages.iter().all(|m| m.contains("Cannot modify constant")), "{s:?}");
    }
}

/// A Rhai script may call methods on the context's lists (`ctx.walls.len()`, `filter`):
/// the lists are shared with the host's cache, and Rhai once panicked measuring them. A
/// method on the context map itself still cannot measure them: that call fails, and
/// only it (the host goes on, the script plays its next calls).
#[test]
fn a_rhai_script_may_call_methods_on_the_context_lists() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lists.rhai"),
        r#"// arena: hex
fn do_turn(ctx) {
    let n = ctx.walls.len() + ctx.humans.len() + ctx.zombies.filter(|z| z.hp > 0).len();
    if ctx.walls.len() < 10 || n < 10 { throw "the walls are missing"; }
    if ctx.t == 5 { return [#{cmd: "attack", id: ctx.len()}]; }
    if ctx.kind == "spawn_humans" { return [#{cmd: "spawn", x: 1, y: 1, weapon: 5}, #{cmd: "spawn", x: 2, y: 1, weapon: 5}]; }
    []
}
"#,
    )
    .unwrap();
    let found = discover::<Hex>(
        &SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] },
        &ScriptLimits::default(),
    );
    let e = found.entries[0].clone();
    let outcome = play_game(&[e, basic("Basic")], 1, &hex::Config { max_turns: Some(20) });
    let s = &outcome.stats[0];
    assert_eq!(outcome.turns, 20);
    // The two unit calls of half-turn 5 fail, every other call plays.
    assert_eq!((s.calls, s.errors), (1 + 2 * 10, 2), "{s:?}");
    assert!(s.messages[0].contains("call no function on ctx or side themselves"), "{s:?}");
}
