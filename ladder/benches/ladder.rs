//! The ladder's speed (issue #31, Must 7), in two benchmarks:
//!
//! - `per_game`: the ladder's own cost per game, everything it does around playing: record
//!   the scan (`Store::sync`), bring the ratings up to date (`Store::update_ratings`), read
//!   the matchmaking's inputs and schedule a batch (`Store::candidates`, `schedule`), and
//!   commit each game with its seats and a replay of a full zombies game's size
//!   (`Store::commit_game`, one transaction each, synchronous). One iteration is a batch
//!   of 16 games of 8 seats; criterion's throughput is in games. Measured on a young
//!   ladder (20 versions) and on the generated season below (1,000 versions, 1,000,000
//!   games), and split in its planning and its commits on the young ladder. The goal, at most 5% of playing the bundled zombies bots, is checked against
//!   the time of a game (`arena tournament --isolate on`: 0.44 s a game of the 8 bundled
//!   bots on 2 jobs, on a quiet 2-core machine; numbers in `docs/ladder.md`).
//! - `leaderboard`: `Store::leaderboard` on a generated database of 1,000 versions (100
//!   entries of 10 versions each, the last one active) and 1,000,000 played games of two
//!   seats, rated; goal: under 100 ms. Also `Store::ratings_fresh` and the incremental
//!   update with nothing new (what `ladder status` does before reading it).
//!
//! The generated database is made once by SQL (recursive common table expressions) and
//! rated from scratch (a minute or so), and kept in `CARGO_TARGET_TMPDIR` for the next
//! runs. `cargo bench -p arena-ladder --bench ladder`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arena::game::Ranking;
use arena_ladder::schedule::schedule;
use arena_ladder::store::{Found, GameRow, Store};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Games per batch (the ladder's default).
const BATCH: usize = 16;
/// Seats per game (the ladder's default for free-for-all games).
const SEATS: usize = 8;
/// The bytes of a stored replay of a full zombies game of 8 bots (about 25 bytes per bot
/// and turn, 220 turns).
const REPLAY_BYTES: usize = 44_000;

const VERSIONS: i64 = 1_000;
const GAMES: i64 = 1_000_000;

fn found(name: String, version: i64) -> Found {
    Found {
        path: PathBuf::from(format!("bots/{name}.rhai")),
        name,
        kind: "rhai".into(),
        sha256: format!("{version:064x}"),
        size: 1000,
    }
}

/// One batch of the ladder, without playing: scan recorded, ratings updated, lineups
/// scheduled, each game committed.
fn batch(store: &Store, entries: &[Found], replay: &[u8]) {
    let lineups = plan(store, entries);
    commit(store, lineups, replay);
}

/// A batch's planning: scan recorded, ratings updated, lineups scheduled.
fn plan(store: &Store, entries: &[Found]) -> Vec<Vec<i64>> {
    let synced = store.sync("zombies", entries, &[]).unwrap();
    store.update_ratings("zombies", Ranking::Median, false).unwrap();
    let (candidates, meetings) = store.candidates("zombies", &synced.versions).unwrap();
    schedule(&candidates, &meetings, SEATS, false, BATCH)
}

/// A batch's commits, one transaction per game.
fn commit(store: &Store, lineups: Vec<Vec<i64>>, replay: &[u8]) {
    let first = store.next_game_id().unwrap();
    for (i, lineup) in lineups.into_iter().enumerate() {
        let id = first + i as i64;
        // Scores of the versions' strength and a little of the game's.
        let scores: Vec<u32> = lineup.iter().map(|&v| ((v * 37 % 100) + (id * 13 + v) % 40) as u32).collect();
        store
            .commit_game(&GameRow {
                id,
                game: "zombies".into(),
                seed: id as u64,
                ladder_seed: 0,
                rules_version: 1,
                options: "{}".into(),
                pairing: None,
                lineup,
                result: Ok((220, scores.into_iter().map(|s| (s, r#"{"calls":1000,"errors":0}"#.to_owned())).collect())),
                replay: Some(replay.to_vec()),
            })
            .unwrap();
    }
}

/// The generated season: made once, then kept.
fn season() -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ladder-season-1m.sqlite");
    if path.exists() {
        let store = Store::open(&path, false).unwrap();
        if store.next_game_id().unwrap() > GAMES {
            // Rated again when a new schema asks it.
            if !store.ratings_fresh("zombies").unwrap() {
                store.update_ratings("zombies", Ranking::Median, false).unwrap();
            }
            return path;
        }
        drop(store);
        std::fs::remove_file(&path).unwrap();
    }
    let started = Instant::now();
    let store = Store::open(&path, true).unwrap();
    store.with_pool(async |pool| {
        let statements = [
            format!(
                "INSERT INTO entrants (id, name) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
                 WHERE i < {e}) SELECT i, 'bot' || i FROM n",
                e = VERSIONS / 10
            ),
            format!(
                "INSERT INTO entries (id, entrant_id, game, name, kind, path) WITH RECURSIVE n(i) AS (SELECT 1 \
                 UNION ALL SELECT i + 1 FROM n WHERE i < {e}) SELECT i, i, 'zombies', 'bot' || i, 'rhai', \
                 'bots/bot' || i || '.rhai' FROM n",
                e = VERSIONS / 10
            ),
            format!(
                "INSERT INTO versions (id, entry_id, sha256, size, active, retired) WITH RECURSIVE n(i) AS \
                 (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {VERSIONS}) SELECT i, (i - 1) / 10 + 1, \
                 printf('%064x', i), 1000, i % 10 = 0, CASE WHEN i % 10 = 0 THEN NULL ELSE \
                 'replaced by a new version' END FROM n"
            ),
            format!(
                "INSERT INTO games (id, game, seed, ladder_seed, rules_version, options, status, turns, committed) \
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {GAMES}) \
                 SELECT i, 'zombies', i, 0, 1, '{{}}', 'played', 220, i FROM n"
            ),
            // Two seats per game: a = i mod 1000 + 1, b another version.
            format!(
                "INSERT INTO seats (game_id, seat, version_id, score, stats) WITH RECURSIVE n(i) AS (SELECT 1 \
                 UNION ALL SELECT i + 1 FROM n WHERE i < {GAMES}), s(i, seat, v) AS (SELECT i, 0, i % 1000 + 1 \
                 FROM n UNION ALL SELECT i, 1, (i % 1000 + 1 + i * 31 % 999) % 1000 + 1 FROM n) \
                 SELECT i, seat, v, v * 37 % 200 + (i * 13 + v) % 50, '{{}}' FROM s"
            ),
        ];
        for sql in statements {
            sqlx::query(&sql).execute(pool).await.unwrap();
        }
    });
    let rated = store.update_ratings("zombies", Ranking::Median, true).unwrap();
    assert_eq!(rated.played, GAMES as u64);
    eprintln!("generated {} ({GAMES} games, {VERSIONS} versions) in {:.1?}", path.display(), started.elapsed());
    path
}

/// The active versions of the generated season, as a scan finds them.
fn season_entries() -> Vec<Found> {
    (1..=VERSIONS / 10).map(|e| found(format!("bot{e}"), e * 10)).collect()
}

fn per_game(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let replay: Vec<u8> = (0..REPLAY_BYTES).map(|i| (i * 7919 % 251) as u8).collect();
    let mut group = c.benchmark_group("per_game");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.sample_size(10).measurement_time(Duration::from_secs(20));

    // A young ladder: 20 versions, 800 games before the measure.
    let young = Store::open(&dir.path().join("young.sqlite"), true).unwrap();
    let entries: Vec<Found> = (1..=20).map(|v| found(format!("v{v}"), v)).collect();
    for _ in 0..50 {
        batch(&young, &entries, &replay);
    }
    group.bench_function("young ladder (20 versions)", |b| b.iter(|| batch(&young, &entries, &replay)));
    // Its parts: the planning alone (a batch's games committed outside the measure), and
    // the commits alone.
    group.bench_function("young ladder: scan, rating, matchmaking", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let started = Instant::now();
                let lineups = plan(&young, &entries);
                spent += started.elapsed();
                commit(&young, lineups, &replay);
            }
            spent
        })
    });
    group.bench_function("young ladder: commits", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let lineups = plan(&young, &entries);
                let started = Instant::now();
                commit(&young, lineups, &replay);
                spent += started.elapsed();
            }
            spent
        })
    });

    // The season: a copy of the generated database, so that it stays as generated.
    let copy = dir.path().join("season.sqlite");
    std::fs::copy(season(), &copy).unwrap();
    let season = Store::open(&copy, false).unwrap();
    let entries = season_entries();
    batch(&season, &entries, &replay);
    group.bench_function("season (1,000 versions, 1,000,000 games)", |b| b.iter(|| batch(&season, &entries, &replay)));
    group.finish();
}

fn leaderboard(c: &mut Criterion) {
    let store = Store::open(&season(), false).unwrap();
    let mut group = c.benchmark_group("leaderboard");
    group.sample_size(20);
    group.bench_function("1,000 versions, 1,000,000 games: active versions", |b| {
        b.iter(|| black_box(store.leaderboard("zombies", false).unwrap()))
    });
    group.bench_function("1,000 versions, 1,000,000 games: all versions", |b| {
        b.iter(|| black_box(store.leaderboard("zombies", true).unwrap()))
    });
    group.bench_function("1,000 versions, 1,000,000 games: freshness, update and board", |b| {
        b.iter(|| {
            if !store.ratings_fresh("zombies").unwrap() {
                store.update_ratings("zombies", Ranking::Median, false).unwrap();
            }
            black_box(store.leaderboard("zombies", true).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, leaderboard, per_game);
criterion_main!(benches);
