//! The leaderboard page's answer on a contest of 1,000 versions and 1,000,000 games (the
//! issue's goal: under 50 ms), through the server's router as a request is served (the
//! query, the template, the body; no socket), and its JSON twin, computed and as kept
//! between games; the newest game's id,
//! which the live pages' clock reads twice a second; and an entry's page with its rating
//! plot and its JSON twin, once the server's rating history has folded the games (the
//! time that fold takes when the server starts is printed, once).
//!
//! The database is generated once (minutes) into the target directory and reused: 1,000 entries of one version
//! each, 1,000,000 played games of 8 seats (two of them chosen by the game's id), and the
//! ratings stored as the ladder stores them (the `rated` mark through the last game).

use std::sync::Arc;

use arena_ladder::store::Store;
use arena_server::{Checked, Checker, Config};
use axum::body::Body;
use axum::http::Request;
use criterion::{Criterion, criterion_group, criterion_main};
use tower::ServiceExt as _;

const VERSIONS: i64 = 1_000;
const GAMES: i64 = 1_000_000;

#[derive(Debug)]
struct NoCheck;

impl Checker for NoCheck {
    fn check(&self, _: &str, _: &std::path::Path) -> Result<Checked, String> {
        Err("no checks in a benchmark".to_owned())
    }
}

/// Fills a new database with the contest.
fn generate(store: &Store) {
    store.with_pool(async |pool| {
        let mut tx = pool.begin().await.unwrap();
        for sql in [
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {VERSIONS}) \
                 INSERT INTO entrants (id, name) SELECT i, 'entrant-' || i FROM n"
            ),
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {VERSIONS}) \
                 INSERT INTO entries (id, entrant_id, game, name, kind, path) \
                 SELECT i, i, 'zombies', 'bot-' || i, 'lua', '/bots/bot-' || i || '.lua' FROM n"
            ),
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {VERSIONS}) \
                 INSERT INTO versions (id, entry_id, sha256, size, active) \
                 SELECT i, i, printf('%064x', i), 1000, 1 FROM n"
            ),
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {GAMES}) \
                 INSERT INTO games (id, game, seed, ladder_seed, rules_version, options, status, turns, committed) \
                 SELECT i, 'zombies', i, 0, 2, '{{}}', 'played', 100, i FROM n"
            ),
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {GAMES}), \
                 s(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM s WHERE k < 7) \
                 INSERT INTO seats (game_id, seat, version_id, score, stats) \
                 SELECT i, k, ((i * 7 + k * 131) % {VERSIONS}) + 1, (i * 31 + k * 17) % 200, \
                 '{{\"calls\":100,\"errors\":0,\"overruns\":0,\"disqualified\":0,\"messages\":[]}}' FROM n, s"
            ),
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {VERSIONS}) \
                 INSERT INTO ratings (version_id, mu, sigma, rated_games, mean_score) \
                 SELECT i, 25.0 + (i % 97) / 10.0, 1.0 + (i % 13) / 10.0, 8000, 100.0 FROM n"
            ),
            format!(
                "INSERT INTO rated (game, played, through, committed) VALUES ('zombies', {GAMES}, {GAMES}, {GAMES})"
            ),
        ] {
            sqlx::query(&sql).execute(&mut *tx).await.unwrap();
        }
        tx.commit().await.unwrap();
    });
}

/// The generated contest: made once (minutes) and kept in the target directory, reused
/// while it holds the games it should.
fn contest() -> std::path::PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"), Into::into);
    let dir = target.join("bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join(format!("server-leaderboard-{VERSIONS}-{GAMES}-v2.sqlite"));
    if let Ok(store) = Store::open(&db, false)
        && store.last_game("zombies").unwrap_or(0) == GAMES
    {
        return db;
    }
    let tmp = dir.join("server-leaderboard.tmp.sqlite");
    for f in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{f}", tmp.display()));
    }
    let started = std::time::Instant::now();
    {
        let store = Store::open(&tmp, true).unwrap();
        generate(&store);
        store.with_pool(async |pool| sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(pool).await.unwrap());
    }
    std::fs::rename(&tmp, &db).unwrap();
    eprintln!("generated {VERSIONS} versions and {GAMES} games in {:.1} s", started.elapsed().as_secs_f64());
    db
}

fn leaderboard(c: &mut Criterion) {
    let db = contest();
    let mut config = Config::new(&db, "zombies");
    config.rates.per_second = 1e9;
    config.rates.burst = u32::MAX;
    let started = std::time::Instant::now();
    let app = arena_server::app(config, Arc::new(NoCheck)).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let router = arena_server::pages::router(Arc::clone(&app));
    let get = |path: &'static str| {
        rt.block_on(async {
            let r = router.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
            assert!(r.status().is_success(), "{path}: {}", r.status());
            axum::body::to_bytes(r.into_body(), usize::MAX).await.unwrap().len()
        })
    };
    // The first entry page waits for the rating history's first fold (begun by `app`).
    assert!(get("/entry/bot-1") > 1_000);
    eprintln!(
        "the rating history's first fold of {GAMES} games, and the first entry page: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(get("/") > 100_000, "the page holds the 1,000 versions");
    let mut g = c.benchmark_group("leaderboard 1000 versions 1000000 games");
    g.sample_size(20);
    // The leaderboard computed (its JSON kept between games is forgotten first), and
    // served again as kept.
    let forget = || *app.board.blocking_lock() = None;
    g.bench_function("GET /", |b| b.iter(|| (forget(), get("/"))));
    g.bench_function("GET /api/leaderboard", |b| b.iter(|| (forget(), get("/api/leaderboard"))));
    g.bench_function("GET /api/leaderboard (kept between games)", |b| b.iter(|| get("/api/leaderboard")));
    g.bench_function("last game (the live clock)", |b| b.iter(|| app.store.last_game("zombies").unwrap()));
    g.bench_function("GET /entry/bot-1 (rating plot)", |b| b.iter(|| get("/entry/bot-1")));
    g.bench_function("GET /api/entry/bot-1", |b| b.iter(|| get("/api/entry/bot-1")));
    g.finish();
}

criterion_group!(benches, leaderboard);
criterion_main!(benches);
