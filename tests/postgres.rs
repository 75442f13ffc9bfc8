//! The ladder on PostgreSQL, on a server this module starts itself from Debian's
//! binaries (`/usr/lib/postgresql/<version>/bin`: `initdb` into a temporary directory, as
//! the user `postgres` when the tests run as root, and `pg_ctl start` on a free port of
//! 127.0.0.1 with its socket in that directory; stopped when the test ends, even when it
//! fails):
//!
//! - `the_store_on_postgres_...`: the ladder's store tests that cost nothing to run there:
//!   the schema made, an older one upgraded, a newer one refused in one line, an
//!   unreachable server and a password kept out of the messages, the ladder locks, the
//!   same games rated as on SQLite, the contest server's queries, and the queue's leases;
//! - `two_workers_one_killed_...`: a ladder of the bundled zombies bots (4 native, 4
//!   scripts) played by two `arena ladder work` processes, one killed with SIGKILL while it
//!   plays: every scheduled game is stored exactly once (the killed worker's games played
//!   again by the other after their lease expired), and the games and ratings are those of
//!   the same ladder played on SQLite by one `arena ladder run`;
//! - `serve_on_postgres_...`: `arena serve` of a PostgreSQL ladder names the directory of
//!   submitted bots, or says in one line that it must (no server needed).
//!
//! The server's programs come from Debian's `postgresql` package, which `.ci/run`
//! installs: no test installs anything. Where they are missing the tests skip through
//! `util::skip`, saying why, and fail under `CI`. Not tested here: a server on another
//! machine, TLS, several databases' clocks.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use arena::games::zombies::Zombies;
use arena::tournament::game_seed;
use arena_ladder::LadderError;
use arena_ladder::queue::Queued;
use arena_ladder::run::rerate;
use arena_ladder::store::{Found, GameRow, MIGRATOR, Store};
use sqlx::migrate::Migrator;

use crate::util::{plugin_lib, root, skip};

/// The newest `/usr/lib/postgresql/<version>/bin` holding the server's programs.
pub(crate) fn bin_dir() -> Option<PathBuf> {
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|d| Some((d.file_name().to_str()?.parse().ok()?, d.path().join("bin"))))
        .filter(|(_, bin)| ["initdb", "pg_ctl", "postgres", "createdb"].iter().all(|p| bin.join(p).exists()))
        .collect();
    dirs.sort();
    dirs.pop().map(|(_, bin)| bin)
}

/// Why PostgreSQL cannot be started here, if it cannot.
pub(crate) fn skip_reason() -> Option<String> {
    if bin_dir().is_none() {
        return Some(
            "no PostgreSQL server programs in /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql; \
             .ci/run installs it)"
                .to_owned(),
        );
    }
    if is_root() && user_id("postgres").is_none() {
        return Some("running as root and there is no user postgres to run the server as".to_owned());
    }
    None
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The uid and gid of `user`.
fn user_id(user: &str) -> Option<(u32, u32)> {
    let out = |flag: &str| -> Option<u32> {
        let o = Command::new("id").args([flag, user]).output().ok()?;
        String::from_utf8_lossy(&o.stdout).trim().parse().ok().filter(|_| o.status.success())
    };
    Some((out("-u")?, out("-g")?))
}

/// A PostgreSQL server of one test, stopped when dropped.
pub(crate) struct Postgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
}

impl Postgres {
    pub(crate) fn start() -> Postgres {
        let bin = bin_dir().expect("checked by skip_reason");
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        if is_root() {
            let (uid, gid) = user_id("postgres").expect("checked by skip_reason");
            std::os::unix::fs::chown(&data, Some(uid), Some(gid)).unwrap();
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).unwrap();
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let pg = Postgres { dir, bin, port };
        let init = pg.program("initdb").args(["-A", "trust", "-U", "postgres", "-E", "UTF8", "-D"]).arg(&data).output();
        check(&init.unwrap(), "initdb");
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50",
            pg.dir.path().display()
        );
        let log = pg.dir.path().join("server.log");
        let mut pg_ctl = pg.program("pg_ctl");
        pg_ctl.args(["-w", "-t", "60", "-D"]).arg(&data).arg("-l").arg(&log).args(["-o", &options, "start"]);
        let started = pg_ctl.output().unwrap();
        if !started.status.success() {
            panic!("pg_ctl start failed: {}\n{}", text(&started), std::fs::read_to_string(&log).unwrap_or_default());
        }
        pg
    }

    /// One of the server's programs, run as `postgres` when the tests run as root.
    fn program(&self, name: &str) -> Command {
        let path = self.bin.join(name);
        let mut c = if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        };
        c.current_dir(self.dir.path());
        c
    }

    /// A new database `name`, and its URL.
    pub(crate) fn database(&self, name: &str) -> String {
        let mut createdb = self.program("createdb");
        createdb.args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "postgres", name]);
        check(&createdb.output().unwrap(), "createdb");
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let _ = self.program("pg_ctl").args(["-m", "immediate", "-w", "-D"]).arg(&data).arg("stop").output();
    }
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn check(out: &Output, what: &str) {
    assert!(out.status.success(), "{what} failed: {}", text(out));
}

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
        result: Ok((10, scores.iter().map(|&s| (s, r#"{"disqualified":0}"#.to_owned())).collect())),
        replay: Some(vec![0, 1, 2, 255]),
    }
}

/// The same games stored into `store` (in a shuffled order, one lost): its leaderboard.
fn rate_games(store: &Store) -> Vec<arena_ladder::store::Standing> {
    let names = ["a", "b", "c", "d"];
    let s = store.sync("zombies", &names.map(|n| found(n, "1")), &[]).unwrap();
    assert_eq!(s.versions, [1, 2, 3, 4]);
    let mut order: Vec<i64> = (1..=30).collect();
    order.reverse();
    order.swap(3, 17);
    for i in order {
        let mut g = game_row(i, &[1 + i % 4, 1 + (i + 1) % 4, 1 + (i + 2) % 4], &[(i * 7 % 5) as u32, 3, 2]);
        if i == 9 {
            g.result = Err("its worker failed".into());
        }
        store.commit_game(&g).unwrap();
    }
    rerate::<Zombies>(store).unwrap();
    store.leaderboard("zombies", true).unwrap()
}

#[test]
fn the_store_on_postgres_upgrades_refuses_rates_locks_and_leases_as_on_sqlite() {
    if let Some(why) = skip_reason() {
        return skip(&format!("postgres test skipped: {why}"));
    }
    let pg = Postgres::start();

    // The schema: every migration on a new database; one a migration behind, upgraded.
    let all: Vec<i64> = MIGRATOR.iter().map(|m| m.version).collect();
    let url = pg.database("fresh");
    let store = Store::open(Path::new(&url), true).unwrap();
    assert_eq!(store.schema_versions().unwrap(), all);
    let older = Migrator {
        migrations: std::borrow::Cow::Owned(MIGRATOR.migrations[..all.len() - 1].to_vec()),
        ..Migrator::DEFAULT
    };
    let old_url = pg.database("old");
    let old = Store::open_with(Path::new(&old_url), true, &older).unwrap();
    assert_eq!(old.schema_versions().unwrap(), all[..all.len() - 1]);
    drop(old);
    assert_eq!(Store::open(Path::new(&old_url), false).unwrap().schema_versions().unwrap(), all);

    // A newer schema is refused in one line naming the URL.
    let newer_url = pg.database("newer");
    let newer = Store::open(Path::new(&newer_url), true).unwrap();
    newer.with_pool(async |pool| {
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
             VALUES (99990101000000, 'from the future', TRUE, decode('00', 'hex'), 0)",
        )
        .execute(pool)
        .await
        .unwrap();
    });
    drop(newer);
    let err = Store::open(Path::new(&newer_url), false).unwrap_err();
    assert!(matches!(err, LadderError::Newer { version: 99990101000000, .. }), "{err:?}");
    let line = err.to_string();
    assert!(line.starts_with(&newer_url) && !line.contains('\n') && line.contains("newer than this arena"), "{line}");

    // A server that does not answer, a database that does not exist: one line at once,
    // the password never shown.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let nowhere = format!("postgres://postgres:secret@127.0.0.1:{closed}/x");
    let started = Instant::now();
    let line = Store::open(Path::new(&nowhere), false).unwrap_err().to_string();
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert!(line.starts_with(&format!("postgres://postgres:***@127.0.0.1:{closed}/x: ")), "{line}");
    assert!(!line.contains("secret") && !line.contains('\n') && line.contains("refused"), "{line}");
    let missing = url.replace("/fresh", "/missing");
    let line = Store::open(Path::new(&missing), false).unwrap_err().to_string();
    assert!(line.starts_with(&missing) && line.contains("does not exist"), "{line}");

    // The ladder lock: one `ladder run`, or workers together.
    let run = store.ladder_lock(false).unwrap();
    assert!(matches!(store.ladder_lock(false), Err(LadderError::Busy { .. })));
    let err = store.ladder_lock(true).unwrap_err().to_string();
    assert!(err.contains("another ladder is running") && err.starts_with(&url), "{err}");
    drop(run);
    let (w1, w2) = (store.ladder_lock(true).unwrap(), store.ladder_lock(true).unwrap());
    assert!(matches!(store.ladder_lock(false), Err(LadderError::Busy { .. })));
    drop((w1, w2));
    drop(store.ladder_lock(false).unwrap());

    // The same games give the same ratings as on SQLite; a game is stored once; what the
    // commands and the contest server read.
    let dir = tempfile::tempdir().unwrap();
    let lite = Store::open(&dir.path().join("same.sqlite"), true).unwrap();
    let on_pg = rate_games(&store);
    assert_eq!(on_pg, rate_games(&lite), "the same games rated on PostgreSQL and on SQLite");
    assert!(on_pg.iter().any(|s| s.mu != on_pg[0].mu), "the games tell the versions apart: {on_pg:?}");
    assert!(store.commit_game(&game_row(3, &[1, 2], &[1, 1])).is_err(), "game 3 is stored already");
    assert_eq!(store.games("zombies", None, 100).unwrap(), lite.games("zombies", None, 100).unwrap());
    assert_eq!(store.entry("zombies", "b", 5).unwrap(), lite.entry("zombies", "b", 5).unwrap());
    assert_eq!(store.replay(4).unwrap(), ("zombies".to_owned(), vec![0, 1, 2, 255]));
    assert_eq!(store.totals("zombies").unwrap(), lite.totals("zombies").unwrap());
    assert_eq!(store.totals("zombies").unwrap().lost, 1);
    assert_eq!(store.against("zombies", "a", false).unwrap(), lite.against("zombies", "a", false).unwrap());

    // The queue: leases go to one worker at a time; an expired one is taken over, and only
    // its new holder may commit the game.
    let queued = |id: i64| Queued {
        id,
        game: "zombies".into(),
        seed: game_seed(7, id as u64),
        ladder_seed: 7,
        rules_version: 1,
        options: "{}".into(),
        pairing: None,
        lineup: vec![1, 2],
        leases: 0,
        worker: None,
        held: false,
    };
    assert_eq!(store.next_game_id().unwrap(), 31);
    store.enqueue(&[queued(31), queued(32), queued(33)]).unwrap();
    assert_eq!(store.next_game_id().unwrap(), 34, "the queue's ids are taken");
    let lease = |who: &str, ms: u64, n: usize| {
        let got = store.lease("zombies", 1, "{}", who, Duration::from_millis(ms), n).unwrap();
        got.iter().map(|q| q.id).collect::<Vec<_>>()
    };
    assert_eq!(lease("a", 300, 1), [31]);
    assert_eq!(lease("b", 60_000, 1), [32], "31 is a's");
    assert!(store.lease("zombies", 2, "{}", "b", Duration::from_secs(60), 3).unwrap().is_empty(), "other rules");
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(lease("b", 60_000, 5), [31, 33], "a's lease expired");
    assert_eq!(store.renew("a", &[31], Duration::from_secs(60)).unwrap(), 0, "a holds it no more");
    assert!(!store.commit_leased(&game_row(31, &[1, 2], &[1, 2]), "a").unwrap(), "a's commit refused");
    assert!(store.commit_leased(&game_row(31, &[1, 2], &[1, 2]), "b").unwrap());
    assert!(!store.commit_leased(&game_row(31, &[1, 2], &[1, 2]), "b").unwrap(), "committed once");
    store.release("b", &[32]).unwrap();
    assert_eq!(lease("c", 60_000, 5), [32], "released: leased at once");
    let left = store.queued("zombies").unwrap();
    assert_eq!(left.iter().map(|q| (q.id, q.leases)).collect::<Vec<_>>(), [(32, 2), (33, 1)]);
    assert_eq!(left[0].worker.as_deref(), Some("c"));
    assert!(left.iter().all(|q| q.held), "32 is c's and 33 b's, for a minute: {left:?}");
    assert_eq!(store.game_count("zombies").unwrap(), 31);
}

/// A copy of the bundled zombies bots: the four native plugins this test build made and
/// the four scripts. (The directory is readable by the boxes' users.)
pub(crate) fn bundled_bots() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (plugins, scripts) = (dir.path().join("plugins"), dir.path().join("scripts"));
    std::fs::create_dir(&plugins).unwrap();
    std::fs::create_dir(&scripts).unwrap();
    for p in ["standstill", "random-walker", "sharpshooter", "phalanx"] {
        let lib = plugin_lib(p);
        std::fs::copy(&lib, plugins.join(lib.file_name().unwrap())).unwrap();
    }
    for f in std::fs::read_dir(root().join("scripts/zombies")).unwrap().flatten() {
        std::fs::copy(f.path(), scripts.join(f.file_name())).unwrap();
    }
    dir
}

/// Games, batch, seats of the ladder, and how it plays: quick games that still tell the
/// bots apart.
pub(crate) const GAMES: u64 = 24;
pub(crate) const PLAY: [&str; 10] =
    ["--batch", "6", "--seats", "4", "--seed", "5", "--max-turns", "100", "--set", "players_per_entry=10"];

fn arena(bots: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arena"));
    c.args(["ladder"]).args(args).args(PLAY).arg("--plugins").arg(bots.join("plugins"));
    c.arg("--scripts").arg(bots.join("scripts"));
    c
}

/// A worker, its output into `log`.
fn worker(url: &str, bots: &Path, log: &Path) -> Child {
    let out = std::fs::File::create(log).unwrap();
    let until = GAMES.to_string();
    arena(bots, &["work", "--db", url, "--until-games", &until, "--jobs", "1", "--lease", "3"])
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap()
}

/// Waits for `child` at most `secs` seconds (killing it then).
fn wait(child: &mut Child, secs: u64, log: &Path) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {secs} s:\n{}", std::fs::read_to_string(log).unwrap_or_default());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A stored game without what differs from run to run (the calls' timings): id, seed,
/// status, turns, and each seat's entry, version and score.
fn untimed(g: &arena_ladder::store::GameView) -> String {
    let seats: Vec<String> = g.seats.iter().map(|s| format!("{}@{} {:?}", s.entry, s.sha256, s.score)).collect();
    format!("{} {} {} {:?} {}", g.id, g.seed, g.status, g.turns, seats.join(", "))
}

#[test]
fn two_workers_one_killed_play_every_game_once_and_rate_as_one_machine_on_sqlite() {
    if let Some(why) = skip_reason() {
        return skip(&format!("postgres workers test skipped: {why}"));
    }
    let pg = Postgres::start();
    let url = pg.database("ladder");
    let bots = bundled_bots();
    let logs = tempfile::tempdir().unwrap();
    let (log_a, log_b) = (logs.path().join("a.log"), logs.path().join("b.log"));
    let mut a = worker(&url, bots.path(), &log_a);
    let mut b = worker(&url, bots.path(), &log_b);
    let store = Store::open(Path::new(&url), false).unwrap();

    // Worker a is killed while it holds a lease (a game in flight), after a few games.
    let mark = format!(":{}:", a.id());
    let start = Instant::now();
    let held: Vec<i64> = loop {
        if store.game_count("zombies").unwrap() >= 3 && !leased_by(&store, &mark).is_empty() {
            // Frozen first, so that the games it holds are those it holds when killed
            // (a commit it was making is rolled back with its connection).
            if let Some(held) = kill_holding(a.id() as i32, &store, &mark) {
                break held;
            }
        }
        assert!(a.try_wait().unwrap().is_none(), "worker a ended:\n{}", std::fs::read_to_string(&log_a).unwrap());
        assert!(start.elapsed() < Duration::from_secs(120), "no game in flight for worker a to be killed in");
        std::thread::sleep(Duration::from_millis(20));
    };
    a.wait().unwrap();
    // The leaderboard shows the queue: the killed worker's lease runs for 3 s yet.
    let status = Command::new(env!("CARGO_BIN_EXE_arena")).args(["ladder", "status", "--db", &url]).output().unwrap();
    check(&status, "ladder status");
    let line = text(&status).lines().find(|l| l.starts_with("queue: ")).map(str::to_owned);
    assert!(line.as_deref().is_some_and(|l| l.contains("scheduled for workers, ")), "{}", text(&status));
    let status = wait(&mut b, 300, &log_b);
    let said = std::fs::read_to_string(&log_b).unwrap();
    assert!(status.success(), "worker b failed:\n{said}");
    assert!(said.contains("games played, 0 lost"), "{said}");
    check_workers_ladder(&store, bots.path(), &held, &said);
}

/// Stops process `pid` (a worker named with `mark`), and kills it with SIGKILL if it holds
/// games then: those games; else lets it go on.
pub(crate) fn kill_holding(pid: i32, store: &Store, mark: &str) -> Option<Vec<i64>> {
    // SAFETY: kill has no memory preconditions; pid is a worker this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0, "SIGSTOP {pid}");
    let held = leased_by(store, mark);
    let signal = if held.is_empty() { libc::SIGCONT } else { libc::SIGKILL };
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0, "signal {signal} to {pid}");
    (!held.is_empty()).then_some(held)
}

/// The games of worker `mark` (a part of its name: `:PID:`) in the queue.
pub(crate) fn leased_by(store: &Store, mark: &str) -> Vec<i64> {
    let queued = store.queued("zombies").unwrap();
    queued.iter().filter(|q| q.worker.as_deref().is_some_and(|w| w.contains(mark))).map(|q| q.id).collect()
}

/// Checks the ladder of the bundled bots in `bots` that workers played into `store`
/// (`PLAY`, until `GAMES`): every game once, `held` (the games of a killed worker) among
/// them, played by the others (whose output is `said`), and the games and ratings those
/// of the same ladder played on SQLite by one `ladder run`.
pub(crate) fn check_workers_ladder(store: &Store, bots: &Path, held: &[i64], said: &str) {
    // Every scheduled game exactly once, the killed worker's games among them (played
    // again by b after their lease expired), and none left in the queue.
    let games = store.games("zombies", None, 1000).unwrap();
    let mut ids: Vec<i64> = games.iter().map(|g| g.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=GAMES as i64).collect::<Vec<_>>(), "every game once");
    assert!(store.queued("zombies").unwrap().is_empty());
    for id in held {
        assert!(
            said.contains(&format!("game {id} played")),
            "another worker played the killed one's game {id}:\n{said}"
        );
    }
    for g in &games {
        assert_eq!(g.status, "played", "{g:?}");
        assert_eq!(g.seed, game_seed(5, g.id as u64));
        assert!(g.replay && g.seats.iter().all(|s| s.score.is_some()), "{g:?}");
    }

    // The same ladder on SQLite, played by one machine.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("one.sqlite");
    let games_arg = GAMES.to_string();
    let out =
        arena(bots, &["run", "--db", db.to_str().unwrap(), "--games", &games_arg, "--jobs", "2"]).output().unwrap();
    check(&out, "ladder run on SQLite");
    let one = Store::open(&db, false).unwrap();
    let theirs = one.games("zombies", None, 1000).unwrap();
    let (ours, theirs): (Vec<String>, Vec<String>) =
        (games.iter().map(untimed).collect(), theirs.iter().map(untimed).collect());
    assert_eq!(ours, theirs, "the same games");
    let board = store.leaderboard("zombies", true).unwrap();
    assert_eq!(board, one.leaderboard("zombies", true).unwrap(), "the same ratings");
    assert_eq!(board.len(), 8, "the eight bundled bots: {board:?}");
    assert!(board.iter().any(|s| s.mu != board[0].mu), "the games tell the bots apart: {board:?}");
    // The stored ratings are those of the games (brought up to date by the last worker).
    assert!(store.ratings_fresh("zombies").unwrap());
    rerate::<Zombies>(store).unwrap();
    assert_eq!(store.leaderboard("zombies", true).unwrap(), board);
}

#[test]
fn serve_on_postgres_asks_for_the_directory_of_submitted_bots_in_one_line() {
    // A PostgreSQL ladder has no file beside which to keep the bots entrants submit.
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["serve", "--db", "postgres://host:s3cret@127.0.0.1:1/contest"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.trim().lines().count() == 1, "{err}");
    assert!(err.contains("postgres://host:***@127.0.0.1:1/contest: ") && err.contains("--bots DIR"), "{err}");
    assert!(!err.contains("s3cret"), "{err}");
}
