//! `arena ladder` through the binary: a ladder killed with SIGKILL at random moments and
//! restarted loses only its games in flight and never stores a game twice or half; Ctrl-C
//! ends it after the games in flight; a second ladder on the same database is refused;
//! the reading commands answer from the database alone; a boxed entry can neither open
//! nor lock the database's files, and the ladder stores all its games.
//!
//! The ladder's own guarantees (schema versions, ratings, matchmaking, versions) are
//! tested in its crate (`ladder/tests/ladder.rs`).

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arena::games::zombies::Zombies;
use arena::tournament::game_seed;
use arena_ladder::run::{ensure_rated, rerate};
use arena_ladder::store::Store;

use crate::util::root;

/// A directory with three cheap zombies bots (two Rhai bots, one of them twice).
fn bots() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = root().join("scripts/zombies");
    for (src, dst) in
        [("drifter.rhai", "drifter.rhai"), ("sentinel.rhai", "sentinel.rhai"), ("drifter.rhai", "wanderer.rhai")]
    {
        std::fs::copy(from.join(src), dir.path().join(dst)).unwrap();
    }
    dir
}

fn ladder(db: &Path, bots: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arena"));
    c.args(["ladder"]).args(args).arg("--db").arg(db);
    if args.first() == Some(&"run") {
        c.arg("--scripts").arg(bots).args(["--max-turns", "15", "--isolate", "off", "--seats", "2", "--batch", "3"]);
    }
    c
}

fn start(db: &Path, bots: &Path, extra: &[&str]) -> Child {
    let mut args = vec!["run", "--jobs", "2"];
    args.extend_from_slice(extra);
    ladder(db, bots, &args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Checks that every stored game is whole: played, two seats with scores, the seed of
/// its id; and that the stored ratings are those of the stored games.
fn check_consistent(db: &Path) -> usize {
    let store = Store::open(db, false).unwrap();
    let integrity: String =
        store.with_pool(async |pool| sqlx::query_scalar("PRAGMA integrity_check").fetch_one(pool).await.unwrap());
    assert_eq!(integrity, "ok");
    let games = store.games("zombies", None, 100_000).unwrap();
    let mut seeds: Vec<u64> = games.iter().map(|g| g.seed).collect();
    seeds.sort_unstable();
    seeds.dedup();
    assert_eq!(seeds.len(), games.len(), "no game twice");
    for g in &games {
        assert_eq!(g.status, "played", "{g:?}");
        assert_eq!(g.seed, game_seed(0, g.id as u64), "{g:?}");
        assert_eq!(g.seats.len(), 2, "a game is stored whole: {g:?}");
        assert!(g.seats.iter().all(|s| s.score.is_some() && s.stats.is_some()) && g.replay, "{g:?}");
    }
    // Ratings lag the games only until a reader (or the next batch) brings them up to date.
    ensure_rated::<Zombies>(&store).unwrap();
    assert!(store.ratings_fresh("zombies").unwrap());
    let stored = store.leaderboard("zombies", true).unwrap();
    assert_eq!(stored.iter().map(|s| s.games).sum::<u64>() as usize, 2 * games.len());
    rerate::<Zombies>(&store).unwrap();
    assert_eq!(store.leaderboard("zombies", true).unwrap(), stored, "the ratings are those of the games");
    games.len()
}

#[test]
fn a_ladder_killed_at_random_moments_resumes_and_never_loses_or_doubles_a_game() {
    let bots = bots();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("contest.sqlite");
    // The moments: a fixed spread plus the clock's nanoseconds, so runs hit different points.
    let jitter = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().subsec_nanos() as u64 % 400;
    for (i, ms) in [700u64, 1900, 300, 2600, 1300].iter().enumerate() {
        let mut child = start(&db, bots.path(), &[]);
        std::thread::sleep(Duration::from_millis(ms + jitter * (i as u64 % 2)));
        if i == 1 {
            // A second ladder on the same database is refused while the first runs.
            let out = ladder(&db, bots.path(), &["run", "--games", "1"]).output().unwrap();
            assert!(!out.status.success() && text(&out).contains("another ladder is running"), "{}", text(&out));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        if db.exists() {
            check_consistent(&db);
        }
    }
    let before = check_consistent(&db);
    assert!(before > 0, "the killed ladders committed games between the kills");
    let out = ladder(&db, bots.path(), &["run", "--games", "3", "--jobs", "2"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("3 games played, 0 lost"), "{}", text(&out));
    assert_eq!(check_consistent(&db), before + 3, "the restart went on where the ladder stopped");
}

#[test]
fn ctrl_c_ends_the_ladder_after_its_games_in_flight_and_the_commands_read_the_database() {
    let bots = bots();
    std::fs::write(bots.path().join("broken.rhai"), "fn turn( {").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("contest.sqlite");
    let child = start(&db, bots.path(), &[]);
    std::thread::sleep(Duration::from_millis(2500));
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("-- stopped"), "{}", text(&out));
    let games = check_consistent(&db);
    assert!(games > 0, "{}", text(&out));

    // A file that does not load is listed with its reason, never skipped in silence.
    assert!(text(&out).contains("not loaded: ") && text(&out).contains("broken.rhai: "), "{}", text(&out));
    let table = ladder(&db, bots.path(), &["status"]).output().unwrap();
    assert!(text(&table).contains("mu-3sigma") && text(&table).contains("broken.rhai: "), "{}", text(&table));
    // Beside the rating, the game's own statistic with its interval (zombies: the median).
    assert!(text(&table).contains("median score, 95% interval"), "{}", text(&table));
    let status = ladder(&db, bots.path(), &["status", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(v["leaderboard"].as_array().unwrap().len(), 3, "{v}");
    assert_eq!(v["not_loaded"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["statistic"], "median score", "{v}");
    for s in v["leaderboard"].as_array().unwrap() {
        let (low, value, high) = (s["stat"]["low"].as_f64(), s["stat"]["value"].as_f64(), s["stat"]["high"].as_f64());
        assert!(low <= value && value <= high && high.is_some(), "{s}");
        assert_eq!(s["statistic"], "median score", "{s}");
    }
    let played: u64 = v["leaderboard"].as_array().unwrap().iter().map(|s| s["games"].as_u64().unwrap()).sum();
    assert_eq!(played as usize, 2 * games);
    let listed = ladder(&db, bots.path(), &["games", "--entry", "sentinel", "--json"]).output().unwrap();
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert!(listed.as_array().unwrap().iter().all(|g| g["seats"].to_string().contains("sentinel")), "{listed}");
    let entry = ladder(&db, bots.path(), &["entry", "wanderer"]).output().unwrap();
    assert!(text(&entry).starts_with("wanderer (rhai, ") && text(&entry).contains("active"), "{}", text(&entry));
    let page = dir.path().join("one.html");
    let replay = ladder(&db, bots.path(), &["replay", "1", "--html", page.to_str().unwrap()]).output().unwrap();
    assert!(replay.status.success(), "{}", text(&replay));
    // Its seed and the versions that played are shown.
    let seed = game_seed(0, 1).to_string();
    assert!(text(&replay).starts_with("game      1  seed ") && text(&replay).contains(&seed), "{}", text(&replay));
    assert!(text(&replay).matches('@').count() == 2, "entry@version for both seats: {}", text(&replay));
    assert!(std::fs::read_to_string(&page).unwrap().contains("<canvas id=\"board\""));
    let missing = ladder(&db, bots.path(), &["replay", "999999"]).output().unwrap();
    assert!(!missing.status.success() && text(&missing).contains("no game 999999"), "{}", text(&missing));
}

/// Issue #30, the red team's hole 1: a ladder entry, boxed as by default, tries to stop
/// the ladder through its database: it opens the database, its `-wal` and `-shm` files
/// and the two lock files read-only and takes the locks that stall SQLite's writers, the
/// scheduler and a new `ladder run` (`tests/data/boxes/ladderlock.c`). The database lies
/// in the ladder's working directory beside the bot and log directories (relative paths,
/// as a contest is laid out), not under `/tmp` (which every box has a private one of).
/// The box must see none of these files (so the entries' own files are bound back into
/// the covered directory), and the ladder stores every game and exits 0. Before the fix
/// the attacker's locks made `ladder run` fail "database is locked", storing nothing.
#[test]
fn a_boxed_entry_cannot_open_or_lock_the_ladders_database() {
    use std::os::unix::fs::PermissionsExt as _;
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped: this machine cannot box ({why})"));
    }
    let dir = tempfile::Builder::new().prefix("arena-ladderlock-").tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let base = dir.path();
    let plugins = base.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    // Readable by every user, as a contest's directory is: only the box keeps the
    // attacker (a box uid, when the host is root) out of the database.
    for d in [base, &plugins] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let honest = crate::util::plugin_lib("egg-hunter");
    std::fs::copy(&honest, plugins.join(honest.file_name().unwrap())).unwrap();
    let db = base.join("ladder.db");
    let define = format!("-DDB=\"{}\"", db.display());
    crate::util::compile_c(
        &crate::util::data("boxes/ladderlock.c"),
        &plugins.join(crate::util::lib_name("ladderlock")),
        &[&define],
    );
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(base)
        .args(["--game", "eggs", "ladder", "run", "--db", "ladder.db", "--plugins", "plugins", "--logs", "logs"])
        .args(["--games", "6", "--jobs", "2", "--batch", "3", "--max-turns", "8"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let log = std::fs::read_to_string(base.join("logs/ladderlock.log")).unwrap_or_default();
    let context = format!("{}\nladderlock's log:\n{log}", text(&out));
    // The attacker ran, and could open none of the files.
    for name in ["shm", "db", "wal", "lock", "schedule.lock"] {
        let line = log.lines().find(|l| l.starts_with(&format!("{name}: "))).unwrap_or("");
        assert!(line.starts_with(&format!("{name}: open refused")), "{name}: {line:?}\n{context}");
    }
    assert!(!log.contains("db header: read"), "{context}");
    // Every game stored, none lost, exit status 0.
    assert!(out.status.success(), "{context}");
    assert!(text(&out).contains("6 games played, 0 lost"), "{context}");
    let store = Store::open(&db, false).unwrap();
    let games = store.games("eggs", None, 100).unwrap();
    assert_eq!(games.len(), 6, "{context}");
    assert!(games.iter().all(|g| g.status == "played" && g.replay), "{games:?}\n{context}");
}
