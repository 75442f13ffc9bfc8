//! The README's Slurm commands, run for real on a one-node cluster started by
//! `scripts/slurm/cluster.sh`:
//!
//! - `the_readmes_slurm_commands_work_as_written` reads the README's block (the one that
//!   starts the cluster) and runs exactly it, with `bash`, in a copy of the checkout after
//!   `cargo build --release` (the test's own `arena` and bundled bots in
//!   `target/release/`), with nothing in its environment that a fresh shell would not
//!   have: the cluster in `/tmp/arena-slurm` on Slurm's own ports, the job array of
//!   `scripts/slurm/tournament.sbatch` finding the binary and the native bots itself,
//!   `merge`, and the cluster stopped.
//! - `the_job_array_plays_shards_that_merge_into_the_one_machine_result_after_a_lost_task`:
//!   a tournament of the bundled zombies bots as an array of shards on a cluster of its
//!   own (its own directory and free ports); one task is requeued while it plays (as
//!   Slurm does when a node is lost), another is cancelled while it plays and submitted
//!   again; `arena merge` refuses the shards while one is incomplete, missing, given twice
//!   or of another seed, and then gives exactly the results of the same tournament played
//!   on one machine (compared as JSON, wall-clock timings excluded).
//! - `ladder_workers_as_a_job_array_on_postgres_lose_nothing_when_one_is_killed`: the
//!   ladder's workers as `scripts/slurm/ladder-workers.sbatch` starts them, two array
//!   tasks against a PostgreSQL server the test starts (`postgres`), one task's worker
//!   killed with SIGKILL while it holds a game: every game stored once, and the games
//!   and ratings of one `ladder run` on SQLite (`postgres::check_workers_ladder`).
//! - `the_ladder_workers_job_file_fails_fast_in_one_line_and_hides_the_password`: the
//!   workers' job file run as an array task runs it, without Slurm: no DB, no binary, no
//!   native bots, a database that cannot be reached, each in one line, no password shown.
//! - `the_job_file_fails_fast_in_one_line_when_it_cannot_run`: the job file itself, run
//!   as an array task would run it, without Slurm: no binary, no native bots, a task
//!   outside 1-SHARDS.
//!
//! The cluster tests need root and Slurm's and munge's programs (Debian's `slurm-wlm` and
//! `munge`, which `.ci/run` installs: no test installs anything); where they are missing
//! they skip through `util::skip`, saying why, and fail under `CI`. The two take a lock
//! (`/tmp/arena-slurm-tests.lock`), so that they never run at once, even from two
//! checkouts; their clusters are stopped (jobs cancelled, daemons ended) even when a test
//! fails. They do not test Slurm itself, several nodes, or a shared file system.

use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{plugin_lib, root, skip, stdout};

/// Rounds of the tournament, shards, and its seed: small, quick games (40 turns, 10
/// players per entry), enough of them that a task is caught while it plays.
const ROUNDS: u64 = 40;
const SHARDS: u64 = 4;
const SEED: u64 = 7;

/// The bundled native bots that `cargo build --release` puts into `target/release/`
/// (those built for the tests: the Rust plugins of every game).
const NATIVE: [&str; 11] = [
    "standstill",
    "random-walker",
    "sharpshooter",
    "phalanx",
    "egg-hunter",
    "egg-random",
    "target-random",
    "target-seeker",
    "hex-basic",
    "hex-smart",
    "hex-legion",
];

/// Why the cluster tests cannot run here, if they cannot.
fn skip_reason() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some("not Linux".to_owned());
    }
    let uid = Command::new("id").arg("-u").output().ok().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    if uid.as_deref() != Some("0") {
        return Some("not root (the cluster script starts Slurm's daemons as root)".to_owned());
    }
    let missing: Vec<&str> =
        ["/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/sbin/mungekey", "/usr/bin/sbatch"]
            .into_iter()
            .filter(|p| !Path::new(p).exists())
            .collect();
    if !missing.is_empty() {
        return Some(format!(
            "{} not installed (Debian: apt-get install slurm-wlm munge; .ci/run installs them)",
            missing.join(", ")
        ));
    }
    None
}

/// Says how long a test took where the harness does not swallow it (the standard error
/// itself, not the captured `eprintln!`), so that `.ci/run`'s log shows it.
fn say(line: &str) {
    let _ = std::io::stderr().lock().write_all(format!("{line}\n").as_bytes());
}

/// The lock of the cluster tests, held until dropped: one at a time, in this process
/// and in any other.
#[derive(Debug)]
struct Lock(#[allow(dead_code)] std::fs::File);

fn lock() -> Lock {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open("/tmp/arena-slurm-tests.lock")
        .unwrap();
    // SAFETY: flock on a descriptor this function owns; it blocks until the lock is ours.
    assert_eq!(unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) }, 0, "flock");
    Lock(file)
}

/// Copies the directory `from` to `to`, recursively (without any `target` directory).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in std::fs::read_dir(from).unwrap() {
        let f = f.unwrap();
        let (src, dst) = (f.path(), to.join(f.file_name()));
        if f.file_type().unwrap().is_dir() {
            if f.file_name() != "target" {
                copy_dir(&src, &dst);
            }
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// A copy of the checkout as `cargo build --release` leaves it, in a fresh directory
/// that any user can enter (the boxes' users read the bots there): `scripts/` and
/// `plugins/` as committed, and `target/release/` holding the `arena` binary and the
/// native bots `natives` that this test run built.
fn checkout(natives: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    std::fs::set_permissions(w, std::fs::Permissions::from_mode(0o755)).unwrap();
    copy_dir(&root().join("scripts"), &w.join("scripts"));
    copy_dir(&root().join("plugins"), &w.join("plugins"));
    let release = w.join("target/release");
    std::fs::create_dir_all(&release).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_arena"), release.join("arena")).unwrap();
    for p in natives {
        let lib = plugin_lib(p);
        std::fs::copy(&lib, release.join(lib.file_name().unwrap())).unwrap();
    }
    dir
}

/// `bash` as a fresh shell has it: none of the job file's settings, nor a Slurm job's or
/// `sbatch`'s variables (the test may itself run inside a Slurm job).
fn fresh_bash() -> Command {
    let mut c = Command::new("bash");
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        let setting = ["ARENA", "ARENA_ARGS", "ROUNDS", "SEED", "SHARDS", "RESULTS"].contains(&k.as_str());
        if setting || k.starts_with("SLURM_") || k.starts_with("SBATCH_") {
            c.env_remove(k);
        }
    }
    c
}

/// The cluster of one test: stopped when dropped, whatever happened.
struct Cluster {
    dir: PathBuf,
    ports: (u16, u16),
}

impl Cluster {
    fn script() -> PathBuf {
        root().join("scripts/slurm/cluster.sh")
    }

    fn start(dir: PathBuf) -> Cluster {
        let port = || std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let cluster = Cluster { dir, ports: (port(), port()) };
        let out = cluster.script_command("start").output().unwrap();
        let text = stdout(&out);
        assert!(text.contains("idle"), "{text}");
        cluster
    }

    fn script_command(&self, what: &str) -> Command {
        let mut c = Command::new(Cluster::script());
        c.arg(what)
            .arg(&self.dir)
            .env("SLURMCTLD_PORT", self.ports.0.to_string())
            .env("SLURMD_PORT", self.ports.1.to_string());
        c
    }

    /// A Slurm command (`sbatch`, `squeue`, ...) talking to this cluster.
    fn slurm(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", self.dir.join("slurm.conf"));
        c
    }

    /// The state of job `id` (`RUNNING`, `PENDING`, ...; `None` once it left the queue).
    fn state(&self, id: &str) -> Option<String> {
        let out = self.slurm("squeue").args(["-h", "-o", "%T", "-j", id]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        (out.status.success() && !text.is_empty()).then_some(text)
    }

    /// Whether job `id` (every task of an array) has left the queue: `squeue` answered
    /// and lists nothing. A `squeue` that failed (on a loaded machine the controller may
    /// not answer in time) says nothing either way: the job then seemed ended while a
    /// requeued task had still to play again.
    fn ended(&self, id: &str) -> bool {
        let out = self.slurm("squeue").args(["-h", "-o", "%T", "-j", id]).output().unwrap();
        // (A job long ended is forgotten: "Invalid job id specified".)
        (out.status.success() && String::from_utf8_lossy(&out.stdout).trim().is_empty())
            || String::from_utf8_lossy(&out.stderr).contains("Invalid job id")
    }

    /// The pids of the three daemons, from their pid files.
    fn daemons(&self) -> Vec<u32> {
        ["munged.pid", "slurmctld.pid", "slurmd.pid"]
            .iter()
            .filter_map(|f| std::fs::read_to_string(self.dir.join(f)).ok())
            .filter_map(|s| s.trim().parse().ok())
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.script_command("stop").output();
    }
}

/// Waits (at most `secs` seconds) until `done` holds, panicking with `what` otherwise.
fn wait_for(secs: u64, what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(secs), "waited {secs} s for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// True while a process runs whose command line names `file` (an arena writing it).
fn arena_runs_for(file: &str) -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else { return false };
    procs.flatten().any(|p| {
        let cmdline = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(p.path().join("stat")).unwrap_or_default();
        let zombie = stat.rsplit(") ").next().is_some_and(|s| s.starts_with('Z'));
        !zombie && String::from_utf8_lossy(&cmdline).contains(file)
    })
}

/// The results file without what differs from run to run: wall-clock timings (each
/// game's and entry's `timed_calls`, `timed_nanos`, and the entries' `mean_call_micros`).
fn untimed(path: &Path) -> serde_json::Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let strip = |o: &mut serde_json::Value| {
        let o = o.as_object_mut().unwrap();
        for k in ["timed_calls", "timed_nanos", "mean_call_micros"] {
            assert!(k == "mean_call_micros" || o.remove(k).is_some(), "{k} is recorded");
            o.remove(k);
        }
    };
    for g in v["games"].as_array_mut().unwrap() {
        g["stats"].as_object_mut().unwrap().values_mut().for_each(strip);
    }
    v["leaderboard"].as_array_mut().unwrap().iter_mut().for_each(strip);
    v
}

/// Games of shard `k` (from 1) whose replays are written (the task is playing, or done).
fn replays_of(dir: &Path, k: u64) -> usize {
    let Ok(files) = std::fs::read_dir(dir) else { return 0 };
    files
        .filter_map(|f| f.ok())
        .filter_map(|f| {
            // game-00005-<seed>.zrpl
            let name = f.file_name().to_string_lossy().into_owned();
            name.strip_prefix("game-")?.split('-').next()?.parse::<u64>().ok()
        })
        .filter(|i| i % SHARDS == k - 1)
        .count()
}

#[test]
fn the_job_array_plays_shards_that_merge_into_the_one_machine_result_after_a_lost_task() {
    if let Some(why) = skip_reason() {
        return skip(&format!("slurm test skipped: {why}"));
    }
    let _lock = lock();
    let started = Instant::now();
    // A checkout after `cargo build --release` with the bundled zombies bots: the four
    // Rust plugins in target/release and the four scripts.
    let work = checkout(&NATIVE[..4]);
    let w = work.path();
    let (release, scripts) = (w.join("target/release"), w.join("scripts/zombies"));
    let arena = env!("CARGO_BIN_EXE_arena");
    let quick = format!("--logs {} --max-turns 40 --set players_per_entry=10", w.join("logs").display());
    let (results, replays) = (w.join("results"), w.join("replays"));
    let path = |f: &str| results.join(f).display().to_string();

    // The same tournament on one machine.
    let one = w.join("one.json");
    let mut args: Vec<String> =
        ["tournament", "--rounds", &ROUNDS.to_string(), "--seed", &SEED.to_string()].map(String::from).to_vec();
    args.extend(["--jobs".to_owned(), "2".to_owned(), "--json".to_owned(), one.display().to_string()]);
    let bots = format!("--plugins {} --scripts {} {quick}", release.display(), scripts.display());
    args.extend(bots.split(' ').map(String::from));
    stdout(&Command::new(arena).args(&args).output().unwrap());

    let cluster = Cluster::start(w.join("cluster"));
    let daemons = cluster.daemons();
    assert_eq!(daemons.len(), 3, "munged, slurmctld and slurmd run");
    // The file as it is, submitted from the checkout, with its settings from the
    // environment (the binary and the native bots it finds itself, and as many CPUs as
    // each task is given: one, so that the machine's cores run several tasks).
    let submit = |array: &str| -> String {
        let out = cluster
            .slurm("sbatch")
            .args(["--parsable", &format!("--array={array}")])
            .arg(format!("--chdir={}", w.display()))
            .arg(w.join("scripts/slurm/tournament.sbatch"))
            .env_remove("ARENA")
            .env("ROUNDS", ROUNDS.to_string())
            .env("SEED", SEED.to_string())
            .env("SHARDS", SHARDS.to_string())
            .env("RESULTS", &results)
            .env("ARENA_ARGS", format!("{quick} --replay-dir {}", replays.display()))
            .output()
            .unwrap();
        stdout(&out).trim().to_owned()
    };
    let job = submit(&format!("1-{SHARDS}"));
    let task = |k: u64| format!("{job}_{k}");
    let shard_done = |k: u64| Path::new(&path(&format!("shard-{k}.json"))).exists();

    // Task 2 is requeued while it plays (what Slurm does when its node is lost): it
    // plays its shard again from the start.
    wait_for(90, "task 2 to play its first game", || replays_of(&replays, 2) > 0);
    assert!(!shard_done(2), "task 2 finished before it could be requeued: make the games longer");
    stdout(&cluster.slurm("scontrol").args(["requeue", &task(2)]).output().unwrap());
    // A requeued job waits two minutes before it may start again; here two seconds.
    // (Not at once: slurmd refuses a credential made within the second it revoked the
    // last run's in, "Killing non-startable batch job: Job credential revoked", and the
    // task would then end without playing again.)
    wait_for(60, "task 2 to be pending again", || {
        cluster.state(&task(2)).as_deref() == Some("PENDING")
            && cluster
                .slurm("scontrol")
                .args(["update", &format!("jobid={}", task(2)), "StartTime=now+2"])
                .output()
                .unwrap()
                .status
                .success()
    });

    // Task 3 is cancelled while it plays: it writes the games it finished, and merge
    // refuses them as incomplete until the task is submitted again.
    wait_for(90, "task 3 to play its first game", || replays_of(&replays, 3) > 0);
    assert!(!shard_done(3), "task 3 finished before it could be cancelled: make the games longer");
    stdout(&cluster.slurm("scancel").arg(task(3)).output().unwrap());
    wait_for(120, "the job array to end", || cluster.ended(&job));
    // A cancelled arena gives its games in flight up to 10 s, then writes what it
    // finished: Slurm may list the job as ended before that.
    wait_for(60, "the cancelled task's arena to end", || !arena_runs_for(&path("shard-3.json")));

    let merge = |files: &[String]| Command::new(arena).arg("merge").args(files).output().unwrap();
    let refused = |files: &[String], expected: &str| {
        let out = merge(files);
        let err = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        assert!(!out.status.success(), "merge of {files:?} must be refused");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.contains(expected), "{err}\nshould say: {expected}");
    };
    // shards[i] is shard i + 1's file.
    let shards: Vec<String> = (1..=SHARDS).map(|k| path(&format!("shard-{k}.json"))).collect();
    let cut = untimed(Path::new(&shards[2]));
    let cut_games = cut["games"].as_array().unwrap().len() as u64;
    assert!(cut_games < ROUNDS / SHARDS, "the cancelled task wrote only the games it finished: {cut_games}");
    refused(&shards, &format!("{}: shard 3/4 is incomplete: {cut_games} of 10 games", shards[2]));
    refused(&[shards[0].clone(), shards[1].clone(), shards[3].clone()], "shard 3 of 4 missing");
    refused(&[shards[0].clone(), shards[1].clone(), shards[3].clone(), shards[3].clone()], "both hold shard 4/4");
    // A shard of another seed.
    let other = path("other-seed.json");
    let mut args: Vec<String> =
        ["tournament", "--rounds", &ROUNDS.to_string(), "--seed", &(SEED + 1).to_string()].map(String::from).to_vec();
    args.extend(["--shard".to_owned(), "3/4".to_owned(), "--json".to_owned(), other.clone()]);
    args.extend(bots.split(' ').map(String::from));
    stdout(&Command::new(arena).args(&args).output().unwrap());
    refused(&[shards[0].clone(), shards[1].clone(), other, shards[3].clone()], "seeds differ: 7 vs 8");

    // Task 3 submitted again: the same file, only that task.
    let again = submit("3");
    wait_for(120, "task 3 submitted again to end", || cluster.ended(&again));

    // The requeued task ran twice, its log kept (--open-mode=append).
    let log = std::fs::read_to_string(w.join(format!("slurm-{job}_2.out"))).unwrap();
    assert!(log.contains("task 2 of job") && log.contains("(restart 0)"), "{log}");
    assert!(log.contains("(restart 1)"), "task 2 ran again after its requeue:\n{log}");

    let all = path("all.json");
    let out = merge(&[shards.clone(), vec!["--json".to_owned(), all.clone()]].concat());
    assert!(stdout(&out).contains("40 of 40 games merged"), "{}", stdout(&out));
    let (merged, alone) = (untimed(Path::new(&all)), untimed(&one));
    // Which games differ, if any: each with both versions (a whole results file is too
    // long to read in a failure).
    let (ours, theirs) = (merged["games"].as_array().unwrap(), alone["games"].as_array().unwrap());
    assert_eq!(ours.len(), theirs.len(), "the number of games");
    let differ: Vec<String> = ours
        .iter()
        .zip(theirs)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("game {}:\n  the array: {a}\n  one machine: {b}", a["index"]))
        .collect();
    assert!(differ.is_empty(), "{} of {ROUNDS} games differ:\n{}", differ.len(), differ.join("\n"));
    assert_eq!(merged["leaderboard"], alone["leaderboard"], "the leaderboard");
    assert_eq!(merged, alone, "the whole results file, timings excluded");

    // No daemon is left running.
    drop(cluster);
    for pid in daemons {
        assert!(!Path::new(&format!("/proc/{pid}")).exists(), "daemon {pid} still runs after stop");
    }
    say(&format!("slurm test: {:.0} s", started.elapsed().as_secs_f64()));
}

/// The README's fenced `sh` block that holds `containing`.
fn readme_block(containing: &str) -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let block =
        readme.split("```sh\n").skip(1).map(|b| b.split("```").next().unwrap()).find(|b| b.contains(containing));
    block.unwrap_or_else(|| panic!("README.md has no sh block with {containing:?}")).to_owned()
}

/// The directory of the README's cluster (`cluster.sh`'s default; Slurm's own ports).
const README_CLUSTER: &str = "/tmp/arena-slurm";

/// Why the README's cluster cannot start here, if it cannot: a cluster runs already,
/// from its directory or on its ports.
fn readme_cluster_busy() -> Option<String> {
    let pid = std::fs::read_to_string(format!("{README_CLUSTER}/slurmctld.pid")).ok();
    if pid.and_then(|p| p.trim().parse::<u32>().ok()).is_some_and(|p| Path::new(&format!("/proc/{p}")).exists()) {
        return Some(format!("a cluster of {README_CLUSTER} runs already (cluster.sh stop stops it)"));
    }
    for port in [6817, 6818] {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(format!("port {port}, which the README's cluster takes, is in use (a Slurm runs here?)"));
        }
    }
    None
}

/// Stops the README's cluster when dropped, in case its commands stopped before their
/// last line (`cluster.sh stop` of a cluster already stopped does nothing).
struct StopReadmeCluster(PathBuf);

impl Drop for StopReadmeCluster {
    fn drop(&mut self) {
        let _ = Command::new(&self.0).args(["stop", README_CLUSTER]).output();
    }
}

#[test]
fn the_readmes_slurm_commands_work_as_written() {
    if let Some(why) = skip_reason() {
        return skip(&format!("slurm README test skipped: {why}"));
    }
    let block = readme_block("scripts/slurm/cluster.sh start");
    for step in ["export SLURM_CONF=", "sbatch", "tournament.sbatch", "arena merge", "cluster.sh stop"] {
        assert!(block.contains(step), "the README's block has no {step:?}:\n{block}");
    }
    let _lock = lock();
    if let Some(why) = readme_cluster_busy() {
        return skip(&format!("slurm README test skipped: {why}"));
    }
    let started = Instant::now();
    // A fresh checkout after `cargo build --release`: the README's commands run there.
    let work = checkout(&NATIVE);
    let w = work.path();
    let _stop = StopReadmeCluster(w.join("scripts/slurm/cluster.sh"));
    let out = fresh_bash().args(["-e", "-x", "-c", &block]).current_dir(w).output().unwrap();
    let mut logs = String::new();
    for f in std::fs::read_dir(w).unwrap().flatten() {
        if f.file_name().to_string_lossy().starts_with("slurm-") {
            logs += &format!("--- {}\n{}", f.path().display(), std::fs::read_to_string(f.path()).unwrap());
        }
    }
    let (said, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let all = format!("{said}{err}\n{logs}");
    assert!(out.status.success(), "the README's commands failed:\n{block}\n{all}");
    assert!(said.contains("4 of 4 games merged"), "{all}");

    // Every bundled zombies bot played, the native ones found by the job file itself.
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(w.join("results/all.json")).unwrap()).unwrap();
    assert_eq!(results["played"], 4, "{all}");
    let mut names: Vec<&str> =
        results["leaderboard"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    names.sort();
    let bundled =
        ["Phalanx", "RandomWalker", "Sharpshooter", "StandStill", "coward", "drifter", "gunslinger", "sentinel"];
    assert_eq!(names, bundled, "{all}");
    // Each task played its shard (counted from 1) with the binary built beside it.
    for k in 1..=2 {
        assert!(logs.contains(&format!("shard {k}/2 of 4 rounds, seed 42")), "task {k}:\n{logs}");
    }
    assert!(logs.contains("target/release/arena"), "{logs}");
    // The README's last command stopped the cluster.
    assert!(!Path::new(README_CLUSTER).join("slurmctld.pid").exists(), "the README's cluster still runs");
    say(&format!("slurm README test: {:.0} s", started.elapsed().as_secs_f64()));
}

#[test]
fn the_job_file_fails_fast_in_one_line_when_it_cannot_run() {
    // The job file run as an array task runs it (Slurm gives it SLURM_ARRAY_TASK_ID and
    // SLURM_CPUS_ON_NODE), in a directory of its own: a check of its own words, here.
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let job = root().join("scripts/slurm/tournament.sbatch");
    let run = |task: Option<&str>, env: &[(&str, &str)]| {
        let mut c = fresh_bash();
        c.arg(&job).current_dir(w).env("PATH", "/usr/bin:/bin").env("SLURM_CPUS_ON_NODE", "1");
        if let Some(task) = task {
            c.env("SLURM_ARRAY_TASK_ID", task);
        }
        c.envs(env.iter().copied()).output().unwrap()
    };
    let refused = |task: Option<&str>, env: &[(&str, &str)], says: &str| {
        let out = run(task, env);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "task {task:?} {env:?}: {err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.starts_with("tournament.sbatch: ") && err.contains(says), "{err}\nshould say: {says}");
        assert!(out.stdout.is_empty() && !w.join("results").exists(), "task {task:?} {env:?} started");
    };
    refused(None, &[], "not an array task: submit it with sbatch (--array=1-10)");
    refused(Some("0"), &[], "array task 0 of 10 shards: shards count from 1, --array must stay within 1-10");
    refused(Some("5"), &[("SHARDS", "4")], "array task 5 of 4 shards");
    let release = w.join("target/release");
    refused(Some("1"), &[], &format!("no arena binary: none at {}/arena", release.display()));
    refused(Some("1"), &[("ARENA", "/nowhere/arena")], "ARENA=/nowhere/arena: no such program");
    std::fs::create_dir_all(&release).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_arena"), release.join("arena")).unwrap();
    refused(Some("1"), &[], &format!("no native bots in {}", release.display()));

    // With a native bot built beside the binary, task 2 of 2 plays shard 2/2 with it, as
    // many games at once as it has CPUs.
    let lib = plugin_lib("standstill");
    std::fs::copy(&lib, release.join(lib.file_name().unwrap())).unwrap();
    let quick = [("ROUNDS", "4"), ("SHARDS", "2"), ("ARENA_ARGS", "--max-turns 5 --logs logs")];
    let out = run(Some("2"), &quick);
    let said = stdout(&out);
    assert!(said.contains("shard 2/2 of 4 rounds, seed 42, 1 at once, target/release/arena"), "{said}");
    let shard: serde_json::Value =
        serde_json::from_slice(&std::fs::read(w.join("results/shard-2.json")).unwrap()).unwrap();
    assert_eq!((&shard["shard"], &shard["played"]), (&serde_json::json!("2/2"), &serde_json::json!(2)));
    assert_eq!(shard["leaderboard"][0]["name"], "StandStill");
}

#[test]
fn the_cluster_files_are_never_taken_for_bots() {
    // scripts/slurm/ sits in the default bot directory `scripts`, which is searched with
    // its subdirectory named after the game only: `list` of any game sees nothing there.
    for game in arena::games::NAMES {
        let out = Command::new(env!("CARGO_BIN_EXE_arena"))
            .current_dir(root())
            .args(["--game", game, "list"])
            .output()
            .unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        // (Not the bare word: the checkout's own path may contain it.)
        for name in ["scripts/slurm", "cluster.sh", "tournament.sbatch"] {
            assert!(!text.contains(name), "{game}: {text}");
        }
    }
}

#[test]
fn ladder_workers_as_a_job_array_on_postgres_lose_nothing_when_one_is_killed() {
    use crate::postgres::{GAMES, PLAY, Postgres, bundled_bots, check_workers_ladder, kill_holding};
    use arena_ladder::store::Store;
    if let Some(why) = skip_reason() {
        return skip(&format!("slurm ladder workers test skipped: {why}"));
    }
    if let Some(why) = crate::postgres::skip_reason() {
        return skip(&format!("slurm ladder workers test skipped: {why}"));
    }
    let _lock = lock();
    let started = Instant::now();
    let pg = Postgres::start();
    let url = pg.database("ladder");
    let bots = bundled_bots();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    std::fs::set_permissions(w, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cluster = Cluster::start(w.join("cluster"));

    // Two workers as the job file starts them, one CPU each, the test's own binary and bots.
    let mut args: Vec<String> = PLAY.iter().map(|a| a.to_string()).collect();
    args.extend(["--plugins".to_owned(), bots.path().join("plugins").display().to_string()]);
    args.extend(["--scripts".to_owned(), bots.path().join("scripts").display().to_string()]);
    let out = cluster
        .slurm("sbatch")
        .args(["--parsable", "--array=1-2", "--cpus-per-task=1"])
        .arg(format!("--chdir={}", w.display()))
        .arg(root().join("scripts/slurm/ladder-workers.sbatch"))
        .env("DB", &url)
        .env("UNTIL", GAMES.to_string())
        .env("LEASE", "3")
        .env("ARENA", env!("CARGO_BIN_EXE_arena"))
        .env("ARENA_ARGS", args.join(" "))
        .output()
        .unwrap();
    let job = stdout(&out).trim().to_owned();

    // One task's worker is killed with SIGKILL while it holds a lease, after a few games.
    let store = Store::open(Path::new(&url), false).unwrap();
    let mut killed = None;
    wait_for(180, "a worker holding a lease after 3 games", || {
        if store.game_count("zombies").unwrap() < 3 {
            return false;
        }
        let holder = store.queued("zombies").unwrap().into_iter().find_map(|q| q.worker);
        // Worker names are HOST:PID:NANOS.
        let Some(pid) = holder.as_deref().and_then(|w| w.split(':').nth(1)).and_then(|p| p.parse::<i32>().ok()) else {
            return false;
        };
        // Frozen first, so that the games it holds are those it holds when killed.
        match kill_holding(pid, &store, &format!(":{pid}:")) {
            Some(held) => {
                killed = Some((pid, held));
                true
            }
            None => false,
        }
    });
    let (pid, held) = killed.unwrap();
    wait_for(300, "the job array to end", || cluster.ended(&job));

    let mut logs = String::new();
    for k in 1..=2 {
        logs += &std::fs::read_to_string(w.join(format!("slurm-{job}_{k}.out"))).unwrap_or_default();
    }
    assert!(logs.contains("ladder worker on postgres://postgres@127.0.0.1:"), "{logs}");
    assert_eq!(logs.matches("games played, 0 lost").count(), 1, "one worker ended, the other was killed:\n{logs}");
    assert!(logs.contains(&format!(":{pid}:")), "{logs}");
    check_workers_ladder(&store, bots.path(), &held, &logs);
    drop(cluster);
    say(&format!("slurm ladder workers test: {:.0} s", started.elapsed().as_secs_f64()));
}

#[test]
fn the_ladder_workers_job_file_fails_fast_in_one_line_and_hides_the_password() {
    // The job file run as an array task runs it, without Slurm, in a directory of its own.
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let job = root().join("scripts/slurm/ladder-workers.sbatch");
    let run = |task: Option<&str>, env: &[(&str, &str)]| {
        let mut c = fresh_bash();
        c.env_remove("DB").env_remove("UNTIL").env_remove("LEASE");
        c.arg(&job).current_dir(w).env("PATH", "/usr/bin:/bin").env("SLURM_CPUS_ON_NODE", "1");
        if let Some(task) = task {
            c.env("SLURM_ARRAY_TASK_ID", task);
        }
        c.envs(env.iter().copied()).output().unwrap()
    };
    let refused = |task: Option<&str>, env: &[(&str, &str)], says: &str| {
        let out = run(task, env);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "task {task:?} {env:?}: {err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.starts_with("ladder-workers.sbatch: ") && err.contains(says), "{err}\nshould say: {says}");
        assert!(out.stdout.is_empty(), "task {task:?} {env:?} started");
    };
    let db = ("DB", "postgres://arena:s3cret@127.0.0.1:1/contest");
    refused(None, &[db], "not an array task: submit it with sbatch");
    refused(Some("1"), &[], "no DB: set DB=postgres://");
    refused(Some("1"), &[db], &format!("no arena binary: none at {}/target/release/arena", w.display()));
    refused(Some("1"), &[db, ("ARENA", "/nowhere/arena")], "ARENA=/nowhere/arena: no such program");
    let arena = ("ARENA", env!("CARGO_BIN_EXE_arena"));
    refused(Some("1"), &[db, arena], &format!("no native bots in {}/target/release", w.display()));

    // With bots named, the worker starts and the arena says in one line that the database
    // cannot be reached; the password is never shown.
    std::fs::create_dir_all(w.join("bots")).unwrap();
    let bots_here = format!("--plugins {0} --scripts {0}", w.join("bots").display());
    let out = run(Some("2"), &[db, arena, ("ARENA_ARGS", &bots_here), ("UNTIL", "10")]);
    let (said, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{said}{err}");
    assert!(
        said.contains("ladder worker on postgres://arena:***@127.0.0.1:1/contest, 1 at once, until 10 games"),
        "{said}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("postgres://arena:***@127.0.0.1:1/contest: cannot open the ladder database: "), "{err}");
    assert!(!said.contains("s3cret") && !err.contains("s3cret"), "{said}{err}");
}
