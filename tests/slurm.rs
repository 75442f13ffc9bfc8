//! The README's Slurm job array, run for real on a one-node cluster started by
//! `scripts/slurm/cluster.sh`: `scripts/slurm/tournament.sbatch` plays a tournament of the
//! bundled zombies bots as an array of shards; one task is requeued while it plays (as
//! Slurm does when a node is lost), another is cancelled while it plays and submitted
//! again; `arena merge` refuses the shards while one is incomplete, missing, given twice
//! or of another seed, and then gives exactly the results of the same tournament played
//! on one machine (compared as JSON, wall-clock timings excluded).
//!
//! It runs where it can: as root on Debian (the script installs `slurm-wlm` and `munge`
//! when missing, so a first run as root installs them; `.ci/run` does it beforehand).
//! Elsewhere it says in one line why it is skipped. Its cluster has its own directory
//! and free ports, and is stopped (jobs cancelled, daemons ended) even when the test
//! fails. It does not test Slurm itself, several nodes, or a shared file system.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{plugin_lib, root, stdout};

/// Rounds of the tournament, shards, and its seed: small, quick games (40 turns, 10
/// players per entry), enough of them that a task is caught while it plays.
const ROUNDS: u64 = 40;
const SHARDS: u64 = 4;
const SEED: u64 = 7;

/// Why the test cannot run here, if it cannot.
fn skip_reason() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some("not Linux".to_owned());
    }
    let uid = Command::new("id").arg("-u").output().ok().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    if uid.as_deref() != Some("0") {
        return Some("not root (the cluster script installs packages and starts daemons)".to_owned());
    }
    if !Path::new("/etc/debian_version").exists() {
        return Some("not Debian (the cluster script installs slurm-wlm and munge with apt-get)".to_owned());
    }
    let installed = ["/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/sbatch"]
        .iter()
        .all(|p| Path::new(p).exists());
    if !installed && !Path::new("/usr/bin/apt-get").exists() {
        return Some("slurm-wlm and munge are not installed and there is no apt-get".to_owned());
    }
    None
}

/// Says a line (why the test is skipped, how long it took) where the harness does not
/// swallow it (the standard error itself, not the captured `eprintln!`), so that
/// `.ci/run`'s log shows it.
fn say(line: &str) {
    let _ = std::io::stderr().lock().write_all(format!("{line}\n").as_bytes());
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
        return say(&format!("slurm test skipped: {why}"));
    }
    let started = Instant::now();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    // The bundled zombies bots: the four Rust plugins and the four scripts.
    let (plugins, scripts) = (w.join("plugins"), w.join("scripts"));
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::create_dir_all(&scripts).unwrap();
    for p in ["standstill", "random-walker", "sharpshooter", "phalanx"] {
        let lib = plugin_lib(p);
        std::fs::copy(&lib, plugins.join(lib.file_name().unwrap())).unwrap();
    }
    for f in std::fs::read_dir(root().join("scripts/zombies")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, scripts.join(f.file_name().unwrap())).unwrap();
    }
    let arena = env!("CARGO_BIN_EXE_arena");
    let bots = format!(
        "--plugins {} --scripts {} --logs {} --max-turns 40 --set players_per_entry=10",
        plugins.display(),
        scripts.display(),
        w.join("logs").display()
    );
    let (results, replays) = (w.join("results"), w.join("replays"));
    let path = |f: &str| results.join(f).display().to_string();

    // The same tournament on one machine.
    let one = w.join("one.json");
    let mut args: Vec<String> =
        ["tournament", "--rounds", &ROUNDS.to_string(), "--seed", &SEED.to_string()].map(String::from).to_vec();
    args.extend(["--jobs".to_owned(), "2".to_owned(), "--json".to_owned(), one.display().to_string()]);
    args.extend(bots.split(' ').map(String::from));
    stdout(&Command::new(arena).args(&args).output().unwrap());

    let cluster = Cluster::start(w.join("cluster"));
    let daemons = cluster.daemons();
    assert_eq!(daemons.len(), 3, "munged, slurmctld and slurmd run");
    // The file as it is, with its settings from the environment; one CPU per task
    // instead of its 8, so that the machine's cores run several tasks.
    let submit = |array: &str| -> String {
        let out = cluster
            .slurm("sbatch")
            .args(["--parsable", "--cpus-per-task=1", &format!("--array={array}")])
            .arg(format!("--chdir={}", w.display()))
            .arg(root().join("scripts/slurm/tournament.sbatch"))
            .env("ARENA", arena)
            .env("ROUNDS", ROUNDS.to_string())
            .env("SEED", SEED.to_string())
            .env("SHARDS", SHARDS.to_string())
            .env("RESULTS", &results)
            .env("ARENA_ARGS", format!("{bots} --replay-dir {}", replays.display()))
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
    // A requeued job waits two minutes before it may start again; not here.
    wait_for(60, "task 2 to be pending again", || {
        cluster.state(&task(2)).as_deref() == Some("PENDING")
            && cluster
                .slurm("scontrol")
                .args(["update", &format!("jobid={}", task(2)), "StartTime=now"])
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
    wait_for(120, "the job array to end", || cluster.state(&job).is_none());
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
    wait_for(120, "task 3 submitted again to end", || cluster.state(&again).is_none());

    // The requeued task ran twice, its log kept (--open-mode=append).
    let log = std::fs::read_to_string(w.join(format!("slurm-{job}_2.out"))).unwrap();
    assert!(log.contains("task 2 of job") && log.contains("(restart 0)"), "{log}");
    assert!(log.contains("(restart 1)"), "task 2 ran again after its requeue:\n{log}");

    let all = path("all.json");
    let out = merge(&[shards.clone(), vec!["--json".to_owned(), all.clone()]].concat());
    assert!(stdout(&out).contains("40 of 40 games merged"), "{}", stdout(&out));
    let (merged, alone) = (untimed(Path::new(&all)), untimed(&one));
    assert_eq!(merged["games"], alone["games"], "the games");
    assert_eq!(merged["leaderboard"], alone["leaderboard"], "the leaderboard");
    assert_eq!(merged, alone, "the whole results file, timings excluded");

    // No daemon is left running.
    drop(cluster);
    for pid in daemons {
        assert!(!Path::new(&format!("/proc/{pid}")).exists(), "daemon {pid} still runs after stop");
    }
    say(&format!("slurm test: {:.0} s", started.elapsed().as_secs_f64()));
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
