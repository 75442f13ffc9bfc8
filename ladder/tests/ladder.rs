//! The ladder's guarantees, on real databases in temporary directories: the schema's
//! versions (new, older upgraded, newer refused), the lock against a second ladder, a
//! held lock waited for within a bound (then named), entries and versions, ratings that
//! depend only on the set of games (shuffled insertion, 1 job vs 2), bots joining a
//! running ladder, a newcomer settling in a bounded number of games, and workers on one
//! SQLite file (each game once, the games of one run; a worker of other game options
//! refused).
//!
//! The kill -9 test runs the binary and lives with the integration tests
//! (`tests/ladder.rs` of the workspace).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use arena::game::Rules;
use arena::games::zombies::Zombies;
use arena::loaders::{self, Discovery, ScriptLimits, SearchPaths};
use arena::tournament::Plan;
use arena_ladder::LadderError;
use arena_ladder::queue::Queued;
use arena_ladder::run::{Event, Settings, rerate, run};
use arena_ladder::store::{Found, GameRow, LoadError, MIGRATOR, Store, lock};
use arena_ladder::work::{WorkSettings, work};
use sqlx::migrate::Migrator;

fn found(name: &str, sha: &str) -> Found {
    Found {
        name: name.into(),
        kind: "rhai".into(),
        path: PathBuf::from(format!("{name}.rhai")),
        sha256: sha.into(),
        size: 1,
    }
}

fn game_row(id: i64, lineup: &[i64], scores: &[u32]) -> GameRow {
    GameRow {
        id,
        game: "zombies".into(),
        seed: u64::MAX - id as u64,
        ladder_seed: 7,
        rules_version: 1,
        options: "{}".into(),
        pairing: None,
        lineup: lineup.to_vec(),
        result: Ok((10, scores.iter().map(|&s| (s, "{}".to_owned())).collect())),
        replay: None,
    }
}

#[test]
fn a_new_database_has_every_migration_and_an_older_one_is_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let all: Vec<i64> = MIGRATOR.iter().map(|m| m.version).collect();
    let fresh = Store::open(&dir.path().join("new.sqlite"), true).unwrap();
    assert_eq!(fresh.schema_versions().unwrap(), all);
    // A database made by a program that knew one migration less.
    let older = Migrator { migrations: Cow::Owned(MIGRATOR.migrations[..all.len() - 1].to_vec()), ..Migrator::DEFAULT };
    let path = dir.path().join("old.sqlite");
    let old = Store::open_with(&path, true, &older).unwrap();
    assert_eq!(old.schema_versions().unwrap(), all[..all.len() - 1]);
    drop(old);
    let upgraded = Store::open(&path, false).unwrap();
    assert_eq!(upgraded.schema_versions().unwrap(), all);
    upgraded.sync("zombies", &[found("a", "1")], &[]).unwrap();
}

#[test]
fn a_newer_database_and_a_file_that_is_no_database_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("newer.sqlite");
    let store = Store::open(&path, true).unwrap();
    store.with_pool(async |pool| {
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
             VALUES (99990101000000, 'from the future', TRUE, X'00', 0)",
        )
        .execute(pool)
        .await
        .unwrap();
    });
    drop(store);
    let err = Store::open(&path, false).unwrap_err();
    assert!(matches!(err, LadderError::Newer { version: 99990101000000, .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.starts_with(&path.display().to_string()) && !text.contains('\n'), "{text}");
    assert!(text.contains("newer than this arena knows"), "{text}");

    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
    let text = Store::open(&junk, false).unwrap_err().to_string();
    assert!(text.starts_with(&junk.display().to_string()) && !text.contains('\n'), "{text}");
    let text = Store::open(Path::new("mysql://root@db/contest"), true).unwrap_err().to_string();
    assert_eq!(
        text,
        "mysql://root@db/contest: cannot open the ladder database: mysql:// is no database this arena knows: \
         give an SQLite file or a postgres:// URL"
    );
    let missing = dir.path().join("missing.sqlite");
    assert!(matches!(Store::open(&missing, false), Err(LadderError::Open { .. })));
    assert!(!missing.exists(), "a reading command creates no database");
}

#[test]
fn a_second_ladder_on_one_database_is_refused_until_the_first_ends() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    let first = lock(&db).unwrap();
    let err = lock(&db).unwrap_err();
    assert!(matches!(err, LadderError::Busy { .. }), "{err:?}");
    assert!(err.to_string().contains("another ladder is running"), "{err}");
    drop(first);
    lock(&db).unwrap();
}

#[test]
fn a_changed_file_is_a_new_version_and_the_old_one_is_retired_with_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.sqlite"), true).unwrap();
    let bad = LoadError { path: "broken.rhai".into(), reason: "syntax error".into() };
    let s = store.sync("zombies", &[found("a", "1"), found("b", "1")], std::slice::from_ref(&bad)).unwrap();
    assert_eq!(s.new_entries, ["a", "b"]);
    let (a1, b1) = (s.versions[0], s.versions[1]);
    assert_eq!(store.load_errors("zombies").unwrap(), [bad]);
    store.commit_game(&game_row(1, &[a1, b1], &[5, 3])).unwrap();
    // Same files: nothing changes.
    let same = store.sync("zombies", &[found("a", "1"), found("b", "1")], &[]).unwrap();
    assert_eq!((same.versions.clone(), same.new_versions.len()), (vec![a1, b1], 0));
    assert!(store.load_errors("zombies").unwrap().is_empty(), "a file that loads again leaves the list");
    // a changed, b gone, c added and then broken.
    store.sync("zombies", &[found("a", "1"), found("b", "1"), found("c", "1")], &[]).unwrap();
    let broken = LoadError { path: "c.rhai".into(), reason: "syntax error".into() };
    let s = store.sync("zombies", &[found("a", "2")], &[broken]).unwrap();
    assert_eq!(s.new_versions, ["a"]);
    let gone = [("b", "its file is gone"), ("c", "its file no longer loads: syntax error")];
    assert_eq!(s.gone, gone.map(|(n, w)| (n.to_owned(), w.to_owned())));
    assert_ne!(s.versions[0], a1);
    rerate::<Zombies>(&store).unwrap();
    let a = store.entry("zombies", "a", 10).unwrap();
    assert_eq!(a.versions.len(), 2);
    assert!(!a.versions[0].active && a.versions[0].retired.as_deref() == Some("replaced by a new version"));
    assert_eq!(a.versions[0].games, 1, "the old version keeps its game and rating");
    assert!(a.versions[1].active && a.versions[1].games == 0);
    assert_eq!(a.games.len(), 1);
    // The leaderboard shows the active versions; --all also the retired ones.
    assert_eq!(store.leaderboard("zombies", false).unwrap().len(), 1);
    assert_eq!(store.leaderboard("zombies", true).unwrap().len(), 4);
    // A game id stored once cannot be stored again.
    assert!(store.commit_game(&game_row(1, &[a1, b1], &[5, 3])).is_err());
    assert_eq!(store.games("zombies", None, 10).unwrap().len(), 1);
}

#[test]
fn ratings_do_not_depend_on_the_order_games_were_stored_in() {
    let dir = tempfile::tempdir().unwrap();
    let games: Vec<GameRow> = (1..=30)
        .map(|i| {
            let lineup = [1 + i % 4, 1 + (i + 1) % 4, 1 + (i + 2) % 4];
            game_row(i, &lineup, &[(i * 7 % 5) as u32, (i * 3 % 4) as u32, 2])
        })
        .collect();
    let mut shuffled = games.clone();
    shuffled.reverse();
    shuffled.swap(2, 20);
    shuffled.swap(5, 11);
    let tables: Vec<_> = [games, shuffled]
        .iter()
        .enumerate()
        .map(|(k, rows)| {
            let store = Store::open(&dir.path().join(format!("{k}.sqlite")), true).unwrap();
            let names = ["a", "b", "c", "d"].map(|n| found(n, "1"));
            store.sync("zombies", &names, &[]).unwrap();
            for row in rows {
                store.commit_game(row).unwrap();
            }
            rerate::<Zombies>(&store).unwrap();
            store.leaderboard("zombies", true).unwrap()
        })
        .collect();
    assert_eq!(tables[0], tables[1]);
    assert!(tables[0].iter().all(|s| s.games > 0) && tables[0][0].mu != tables[0][3].mu, "{:?}", tables[0]);
}

/// Ratings brought up to date after every few commits (the ladder's incremental update)
/// are those computed from scratch from the same games, for each kind of ranking; a game
/// committed with an id below the largest rated forces a computation from scratch.
#[test]
fn ratings_extended_by_new_games_are_those_computed_from_scratch() {
    use arena::game::Ranking;
    use arena_ladder::rating::PlayedGame;
    let dir = tempfile::tempdir().unwrap();
    for (game, ranking) in [("zombies", Ranking::Median), ("eggs", Ranking::Mean), ("hex", Ranking::Pairs)] {
        let pairs = ranking == Ranking::Pairs;
        let store = Store::open(&dir.path().join(format!("{game}.sqlite")), true).unwrap();
        let names = ["a", "b", "c", "d", "e"].map(|n| found(n, "1"));
        let v = store.sync(game, &names, &[]).unwrap().versions;
        let row = |id: i64| {
            let i = id as usize;
            let mut row = if pairs {
                // Matches of two games: (x, y) then (y, x).
                let m = (i - 1) / 2;
                let (x, y) = (v[m % 5], v[(m + 1 + m / 5) % 5]);
                let lineup = if i % 2 == 1 { [x, y] } else { [y, x] };
                game_row(id, &lineup, &[(i * 7 % 13) as u32, 0])
            } else {
                let lineup = [v[i % 5], v[(i + 1) % 5], v[(i + 3) % 5]];
                game_row(id, &lineup, &[(i * 7 % 13) as u32, (i * 3 % 5) as u32, 4])
            };
            row.game = game.to_owned();
            row.pairing = pairs.then_some(id - (id + 1) % 2);
            row
        };
        let update = || store.update_ratings(game, ranking, false).unwrap();
        let mut scratch = Vec::new();
        for chunk in [1..=7, 8..=8, 9..=20, 21..=33] {
            for id in chunk {
                store.commit_game(&row(id)).unwrap();
            }
            scratch.push(update().from_scratch);
        }
        assert_eq!(scratch, [true, false, false, false], "{game}: the first update only is from scratch");
        // A lost game moves nothing, and a game with an id below the largest rated (35,
        // then 34) forces a computation from scratch.
        let mut lost = row(36);
        lost.result = Err("worker failed".into());
        store.commit_game(&lost).unwrap();
        store.commit_game(&row(35)).unwrap();
        assert!(!update().from_scratch);
        store.commit_game(&row(34)).unwrap();
        assert!(!store.ratings_fresh(game).unwrap());
        let r = update();
        assert!(r.from_scratch && r.played == 35, "{game}: {r:?}");
        for id in 37..=60 {
            store.commit_game(&row(id)).unwrap();
            if id % 5 == 0 {
                assert!(!update().from_scratch);
            }
        }
        update();
        assert!(store.ratings_fresh(game).unwrap());
        let extended = (store.leaderboard(game, true).unwrap(), store.ratings(game).unwrap());
        let (_, met) = store.candidates(game, &v).unwrap();
        let r = store.update_ratings(game, ranking, true).unwrap();
        assert!(r.from_scratch && r.games == 59, "{game}: {r:?}");
        let from_scratch = (store.leaderboard(game, true).unwrap(), store.ratings(game).unwrap());
        assert_eq!(extended, from_scratch, "{game}");
        assert_eq!(store.candidates(game, &v).unwrap().1, met, "{game}: the meetings too");
        // And they are those of the pure fold over the stored games.
        let played = store.played_games(game).unwrap();
        let pure = arena_ladder::rating::rate_with_statistics(&played, ranking);
        assert_eq!(from_scratch.1, pure, "{game}");
        let board = &from_scratch.0;
        assert!(board.iter().all(|s| s.games > 0 && s.stat.low <= s.stat.value && s.stat.value <= s.stat.high));
        assert_eq!(board[0].statistic, arena_ladder::rating::statistic_name(ranking));
        let mut counted = std::collections::BTreeMap::new();
        for g in &played {
            for (i, &(a, _)) in g.seats.iter().enumerate() {
                for &(b, _) in &g.seats[i + 1..] {
                    *counted.entry((a.min(b), a.max(b))).or_insert(0u64) += 1;
                }
            }
        }
        assert_eq!(met, counted, "{game}");
        // The games of a few versions, with their seats only (what `settled` reads).
        let some: Vec<PlayedGame> = played
            .iter()
            .filter_map(|g| {
                let seats: Vec<(i64, u32)> = g.seats.iter().copied().filter(|s| s.0 == v[0] || s.0 == v[2]).collect();
                (!seats.is_empty()).then(|| PlayedGame { seats, ..g.clone() })
            })
            .collect();
        assert_eq!(store.played_games_of(game, &[v[2], v[0]]).unwrap(), some, "{game}");
    }
}

#[test]
fn games_of_pairs_are_stored_with_their_match_and_rated_by_it() {
    use arena_ladder::rating::rate;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("hex.sqlite"), true).unwrap();
    let s = store.sync("hex", &[found("a", "1"), found("b", "1")], &[]).unwrap();
    let (a, b) = (s.versions[0], s.versions[1]);
    // a survives 30 as humans against b; b only 20 against a: a wins the match.
    let mut first = game_row(1, &[a, b], &[30, 0]);
    let mut second = game_row(2, &[b, a], &[20, 0]);
    (first.game, second.game) = ("hex".into(), "hex".into());
    (first.pairing, second.pairing) = (Some(1), Some(1));
    store.commit_game(&second).unwrap();
    store.commit_game(&first).unwrap();
    let played = store.played_games("hex").unwrap();
    assert_eq!(played.iter().map(|g| (g.id, g.pairing)).collect::<Vec<_>>(), [(1, Some(1)), (2, Some(1))]);
    let ratings = rate(&played, true);
    assert!(ratings[&a].mu > ratings[&b].mu, "{ratings:?}");
    assert_eq!((ratings[&a].mean_score, ratings[&b].mean_score), (30.0, 20.0));
}

fn zombies_bots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/zombies")
}

fn scan(dir: &Path) -> Discovery<Zombies> {
    loaders::discover(&SearchPaths { plugins: vec![], scripts: vec![dir.to_owned()] }, &ScriptLimits::default())
}

fn settings(jobs: usize, games: u64) -> Settings<Zombies> {
    let mut plan = Plan::<Zombies>::new(11, 0);
    plan.jobs = jobs;
    plan.record = true;
    plan.config.max_turns = Some(15);
    Settings { plan, batch: 4, seats: 2, games: Some(games) }
}

#[test]
fn one_job_or_two_play_the_same_games_and_give_the_same_table() {
    let bots = tempfile::tempdir().unwrap();
    for name in ["drifter.rhai", "sentinel.rhai"] {
        std::fs::copy(zombies_bots().join(name), bots.path().join(name)).unwrap();
    }
    std::fs::copy(zombies_bots().join("drifter.rhai"), bots.path().join("wanderer.rhai")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let results: Vec<_> = [1, 2]
        .iter()
        .map(|&jobs| {
            let store = Store::open(&dir.path().join(format!("jobs{jobs}.sqlite")), true).unwrap();
            let summary =
                run(&store, &settings(jobs, 8), &mut || scan(bots.path()), &AtomicBool::new(false), &mut |_| {})
                    .unwrap();
            assert_eq!((summary.played, summary.lost, summary.batches), (8, 0, 2));
            let games: Vec<_> = store
                .games("zombies", None, 100)
                .unwrap()
                .into_iter()
                .map(|g| (g.id, g.seed, g.seats.iter().map(|s| (s.entry.clone(), s.score)).collect::<Vec<_>>()))
                .collect();
            (store.leaderboard("zombies", false).unwrap(), games)
        })
        .collect();
    assert_eq!(results[0], results[1]);
    assert_eq!(results[0].1.len(), 8);
    // Seats were 2: the 8 games cover all 3 pairs of the three entries.
    let pairs: std::collections::BTreeSet<(String, String)> = results[0]
        .1
        .iter()
        .map(|(_, _, s)| {
            let (a, b) = (s[0].0.clone(), s[1].0.clone());
            if a < b { (a, b) } else { (b, a) }
        })
        .collect();
    assert_eq!(pairs.len(), 3, "{:?}", results[0].1);
}

#[test]
fn bots_join_between_batches_and_a_changed_file_starts_a_new_version() {
    let bots = tempfile::tempdir().unwrap();
    for name in ["drifter.rhai", "sentinel.rhai"] {
        std::fs::copy(zombies_bots().join(name), bots.path().join(name)).unwrap();
    }
    std::fs::write(bots.path().join("broken.rhai"), "fn turn( {").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.sqlite"), true).unwrap();
    let mut scans = 0;
    let mut scan_dir = || {
        scans += 1;
        if scans == 2 {
            // Between the batches: a bot dropped in, and one changed.
            std::fs::copy(zombies_bots().join("drifter.rhai"), bots.path().join("newcomer.rhai")).unwrap();
            let mut text = std::fs::read_to_string(bots.path().join("sentinel.rhai")).unwrap();
            text.push_str("\n// version 2\n");
            std::fs::write(bots.path().join("sentinel.rhai"), text).unwrap();
        }
        scan(bots.path())
    };
    let mut events = Vec::new();
    let mut on_event = |e: Event<'_>| match e {
        Event::Scanned(s, errors) => events.push(format!(
            "joined {:?} new {:?} errors {:?}",
            s.new_entries,
            s.new_versions,
            errors.iter().map(|e| e.path.rsplit('/').next().unwrap_or_default().to_owned()).collect::<Vec<_>>()
        )),
        Event::Game(g) => events.push(format!("game {}", g.id)),
        Event::Scheduled { .. } | Event::Dropped(_) => unreachable!("ladder run uses no queue"),
    };
    run(&store, &settings(1, 8), &mut scan_dir, &AtomicBool::new(false), &mut on_event).unwrap();
    assert_eq!(events[0], r#"joined ["drifter", "sentinel"] new [] errors ["broken.rhai"]"#, "{events:#?}");
    assert_eq!(events[5], r#"joined ["newcomer"] new ["sentinel"] errors ["broken.rhai"]"#, "{events:#?}");
    let newcomer = store.entry("zombies", "newcomer", 10).unwrap();
    let sentinel = store.entry("zombies", "sentinel", 10).unwrap();
    assert_eq!(sentinel.versions.len(), 2);
    assert!(!sentinel.versions[0].active && sentinel.versions[0].games > 0, "{sentinel:?}");
    // The two new versions (the newcomer's, sentinel's second), with the fewest games,
    // are in every game of their first batch.
    let new = [newcomer.versions[0].id, sentinel.versions[1].id];
    for g in store.games("zombies", None, 4).unwrap() {
        assert!(g.id > 4 && g.seats.iter().any(|s| new.contains(&s.version)), "{g:?}");
    }
    assert!(newcomer.games.len() >= 2, "{newcomer:?}");
    assert_eq!(store.load_errors("zombies").unwrap().len(), 1);
    // Every stored game replays from the database alone.
    let (game, bytes) = store.replay(8).unwrap();
    assert_eq!(game, "zombies");
    let replay = arena::replay::Replay::<Zombies>::from_bytes(&bytes).unwrap();
    assert_eq!(replay.header.seed, store.game(8).unwrap().seed);
    replay.verify().unwrap();
}

/// A newcomer reaches a settled rating in a bounded number of games: in a simulated
/// ladder of versions of known strength (the stronger always scores more), a newcomer
/// of middle strength joins; after a bounded number of its games (it plays every game
/// until it has caught up), its sigma is small and it ranks where its strength puts it.
#[test]
fn a_newcomer_reaches_a_settled_rating_in_a_bounded_number_of_games() {
    use arena_ladder::rating::{PlayedGame, Rated, rate};
    use arena_ladder::schedule::{Candidate, Meetings, schedule};
    // Versions 1..=6 of strength 10, 20, ..., 60; version 7 (the newcomer) of 35.
    let strength = |v: i64| if v == 7 { 35 } else { 10 * v as u32 };
    let mut games: Vec<PlayedGame> = Vec::new();
    let play = |versions: &[i64], games: &mut Vec<PlayedGame>, batches: usize| {
        for _ in 0..batches {
            let ratings = rate(games, false);
            let mut meetings = Meetings::new();
            for g in games.iter() {
                for (i, &(a, _)) in g.seats.iter().enumerate() {
                    for &(b, _) in &g.seats[i + 1..] {
                        *meetings.entry((a.min(b), a.max(b))).or_default() += 1;
                    }
                }
            }
            let candidates: Vec<Candidate> = versions
                .iter()
                .map(|&v| {
                    let r = ratings.get(&v).copied().unwrap_or_else(Rated::prior);
                    Candidate { version: v, games: r.games, mu: r.mu, sigma: r.sigma }
                })
                .collect();
            for lineup in schedule(&candidates, &meetings, 3, false, 8) {
                let id = games.len() as i64 + 1;
                games.push(PlayedGame { id, pairing: None, seats: lineup.iter().map(|&v| (v, strength(v))).collect() });
            }
        }
    };
    play(&[1, 2, 3, 4, 5, 6], &mut games, 10);
    let before = games.len();
    play(&[1, 2, 3, 4, 5, 6, 7], &mut games, 4);
    let ratings = rate(&games, false);
    let newcomer = ratings[&7];
    let its_games = games[before..].iter().filter(|g| g.seats.iter().any(|s| s.0 == 7)).count();
    assert!(its_games <= 32, "{its_games}");
    // Settled: its uncertainty under 40% of the prior's.
    assert!(newcomer.sigma < 0.4 * Rated::prior().sigma, "settled: {newcomer:?}");
    // It ranks between the versions of strength 30 and 40.
    assert!(ratings[&3].mu < newcomer.mu && newcomer.mu < ratings[&4].mu, "{ratings:#?}");
}

fn work_settings(name: &str, until: u64) -> WorkSettings<Zombies> {
    let Settings { plan, batch, seats, .. } = settings(1, until);
    WorkSettings { plan, batch, seats, until: Some(until), lease: Duration::from_secs(5), name: name.to_owned() }
}

#[test]
fn workers_on_one_sqlite_file_play_each_game_once_and_the_games_of_one_run() {
    let bots = tempfile::tempdir().unwrap();
    for name in ["drifter.rhai", "sentinel.rhai", "coward.lua"] {
        std::fs::copy(zombies_bots().join(name), bots.path().join(name)).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let untimed = |store: &Store| {
        let games = store.games("zombies", None, 100).unwrap();
        let games: Vec<_> = games
            .into_iter()
            .map(|g| (g.id, g.seed, g.seats.iter().map(|s| (s.version, s.score)).collect::<Vec<_>>()))
            .collect();
        (store.leaderboard("zombies", true).unwrap(), games)
    };
    let one = Store::open(&dir.path().join("run.sqlite"), true).unwrap();
    run(&one, &settings(2, 10), &mut || scan(bots.path()), &AtomicBool::new(false), &mut |_| {}).unwrap();

    // Two workers, each with a store of its own on one file.
    let db = dir.path().join("workers.sqlite");
    let summaries: Vec<_> = std::thread::scope(|s| {
        let workers: Vec<_> = ["w1", "w2"]
            .map(|name| {
                let (db, bots) = (&db, bots.path());
                s.spawn(move || {
                    let store = Store::open(db, true).unwrap();
                    let _shared = store.ladder_lock(true).unwrap();
                    work(&store, &work_settings(name, 10), &mut || scan(bots), &AtomicBool::new(false), &mut |_| {})
                        .unwrap()
                })
            })
            .into_iter()
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    assert_eq!(summaries.iter().map(|s| s.played).sum::<u64>(), 10, "{summaries:?}");
    assert_eq!(summaries.iter().map(|s| s.batches).sum::<u64>(), 3, "batches of 4, 4 and 2: {summaries:?}");
    let store = Store::open(&db, false).unwrap();
    assert!(store.queued("zombies").unwrap().is_empty());
    assert_eq!(untimed(&store), untimed(&one), "the games and ratings of one ladder run");
    assert!(matches!(store.ladder_lock(true).map(|_| ()), Ok(())));
    // While workers hold the lock, no `ladder run`.
    let _worker = store.ladder_lock(true).unwrap();
    assert!(matches!(store.ladder_lock(false), Err(LadderError::Busy { .. })));
}

#[test]
fn a_worker_whose_game_options_differ_from_the_queued_games_says_so_in_one_line() {
    let bots = tempfile::tempdir().unwrap();
    for name in ["drifter.rhai", "sentinel.rhai"] {
        std::fs::copy(zombies_bots().join(name), bots.path().join(name)).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("q.sqlite"), true).unwrap();
    let synced = store.sync("zombies", &[found("drifter", "1"), found("sentinel", "2")], &[]).unwrap();
    let queued = Queued {
        id: 1,
        game: "zombies".into(),
        seed: 1,
        ladder_seed: 0,
        rules_version: arena::games::zombies::Zombies::RULES_VERSION,
        options: r#"{"max_turns":999}"#.into(),
        pairing: None,
        lineup: synced.versions.clone(),
        leases: 0,
        worker: None,
        held: false,
    };
    store.enqueue(&[queued]).unwrap();
    let err = work(&store, &work_settings("w", 5), &mut || scan(bots.path()), &AtomicBool::new(false), &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("scheduled with other game options") && !err.contains('\n'), "{err}");
    assert!(err.contains(r#"{"max_turns":999}"#), "{err}");
}

/// Issue #30: a lock held on the database or on the scheduling lock file (a bot once took
/// them through read-only descriptors) is waited for a bounded time, then named in one
/// line; one released within the bound is taken, the write tried again past SQLite's
/// own wait. The lock files are their owner's alone.
#[test]
fn a_held_lock_is_waited_for_within_a_bound_then_named_and_a_released_one_is_taken() {
    use std::os::unix::fs::PermissionsExt as _;
    use std::time::Instant;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    let wait = Duration::from_secs(2);
    let store = Store::open_waiting(&db, true, &MIGRATOR, wait).unwrap();
    assert_eq!(store.lock_wait(), wait);
    let versions = store.sync("zombies", &[found("a", "1"), found("b", "2")], &[]).unwrap().versions;
    // Another connection holds SQLite's write lock for `hold`.
    let hold_write = |hold: Duration| {
        let (taken, is_taken) = std::sync::mpsc::channel();
        let db = db.clone();
        let holder = std::thread::spawn(move || {
            let other = Store::open(&db, false).unwrap();
            other.with_pool(async |pool| {
                let tx = pool.begin_with("BEGIN IMMEDIATE").await.unwrap();
                taken.send(()).unwrap();
                std::thread::sleep(hold);
                tx.rollback().await.unwrap();
            });
        });
        is_taken.recv().unwrap();
        holder
    };
    // Held past the bound: the commit gives up after about the bound, naming the file.
    let holder = hold_write(Duration::from_secs(6));
    let started = Instant::now();
    let err = store.commit_game(&game_row(1, &versions, &[1, 2])).unwrap_err();
    let took = started.elapsed();
    assert!(matches!(err, LadderError::Locked { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.starts_with(&format!("{}: still locked after ", db.display())) && !text.contains('\n'), "{text}");
    assert!(took >= wait && took < wait * 2, "gave up after {took:?}, the bound is {wait:?}");
    holder.join().unwrap();
    // Held past SQLite's own wait (a quarter of the bound) but within the bound: the
    // commit is tried again, and goes through.
    let holder = hold_write(Duration::from_millis(1200));
    store.commit_game(&game_row(1, &versions, &[1, 2])).unwrap();
    holder.join().unwrap();
    assert_eq!(store.games("zombies", None, 10).unwrap().len(), 1);

    // The scheduling lock held (shared, as a bot took it): given up after the bound,
    // naming the lock file; taken once released.
    let path = dir.path().join("c.sqlite.schedule.lock");
    let held = std::fs::File::open(&path).unwrap();
    held.lock_shared().unwrap();
    let started = Instant::now();
    let err = store.schedule_lock().unwrap_err();
    assert!(matches!(err, LadderError::Locked { .. }), "{err:?}");
    assert!(err.to_string().starts_with(&format!("{}: still locked after ", path.display())), "{err}");
    assert!(started.elapsed() >= wait && started.elapsed() < wait * 2, "{:?}", started.elapsed());
    drop(held);
    drop(store.schedule_lock().unwrap());
    // The lock files: readable and writable by their owner only.
    let _ladder = store.ladder_lock(false).unwrap();
    for file in [path, dir.path().join("c.sqlite.lock")] {
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", file.display());
    }
}
