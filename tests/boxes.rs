//! The attack corpus of issue #30 (Must 6): a box per entry. Each test plays a small
//! eggs tournament of the honest bundled bots (the `egg-hunter` plugin and
//! `scripts/eggs/py-hunter.py`) beside an attacker from `tests/data/boxes/` (a C bot,
//! `attack.c` built with `-D<ATTACK>`, or a Python program, `attack.py`), boxed as by
//! default (no `--sandbox`, no `--trust-bots`), in the default isolation (one shared
//! worker) and in `--isolate strict` (a worker per entry and a referee), and checks:
//!
//! - the games are those of a reference tournament where each attacker is replaced by a
//!   stand-in of the same name that only stays (as the attackers' players do): no score
//!   changed, every game played, none lost, exit status 0;
//! - the honest entries were never blamed (no error, overrun or disqualification);
//! - nothing of the attacker is left: no process of the uid it logged (a box uid, when
//!   the host is root) nor any whose command line names the test's directory, no file it
//!   tried to write outside its box, no SysV segment it made;
//! - what the attacker itself logged about its attack (refused, or nothing visible);
//! - where the host can know it, the attacker's own verdict.
//!
//! Every attack but the noisy neighbour and the forged lines (which the clock and the
//! host's protocol stop, not the box) succeeds without boxes (`--trust-bots`; tried by
//! hand with `ARENA_BOXES_TRUST=1`, which plays the attack tournaments unboxed and fails
//! them: see each test's comment for what happened); the committed tests assert only the
//! boxed outcome, in the default isolation (`auto`: with a native bot playing, each entry
//! in a worker and a box of its own, as `--isolate strict`) and in `--isolate strict`
//! itself. A shared worker (`--isolate on`, for trusted runs) holds every entry in one
//! box: six of these attacks get through there (docs/hardening.md). Each
//! host is killed after 120 s (the test then fails): no test hangs. The tests run side by
//! side, as two contests on one machine would: what each finds left behind is told apart
//! by its attackers' uids and its own directory (`processes_of`).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{compile_c, data, lib_name, plugin_lib, root};

/// The key of the SysV segment `attack.py`'s `shm_maker` makes.
const SHM_KEY: u32 = 0x41524E41;
/// The host's secret, in its environment and its session keyring (`Corpus::play`).
const SECRET_ENV: &str = "ARENA_BOXES_SECRET";
const SECRET: &str = "hunter2-token";
/// How the name of each test's directory starts.
const TEST_DIR_PREFIX: &str = "arena-boxes-";
/// The longest a tournament here may take before the test kills it and fails.
const HOST_DEADLINE: Duration = Duration::from_secs(120);

fn python() -> Option<&'static str> {
    ["/usr/bin/python3", "/usr/local/bin/python3"].into_iter().find(|p| Path::new(p).exists())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The default isolation (`auto`: strict, since a native bot plays).
    Default,
    /// `--isolate strict`: a worker per entry, and a referee.
    Strict,
    /// `--isolate on`: one shared worker (and box) for every entry's code, for trusted
    /// runs.
    Shared,
}

/// An attack: native attackers (entry name, `-D` of `attack.c`) and program attackers
/// (entry name, `attack.py`'s behaviour).
#[derive(Clone, Copy)]
struct Attack {
    natives: &'static [(&'static str, &'static str)],
    programs: &'static [(&'static str, &'static str)],
    call_timeout_ms: u64,
    /// How the honest native bot is given to the host.
    honest: Honest,
    /// `--worker-memory-mib`, if not the default.
    worker_memory_mib: Option<u64>,
}

/// How the honest native bot's library is given to the host.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Honest {
    /// A copy in the plugins directory.
    Copy,
    /// As a file of its own, `--plugins <base>/honest/libegg_hunter.so`.
    File,
    /// A link in the plugins directory to `<base>/honest/libegg_hunter.so`.
    Link,
}

/// What an attack is unless it says otherwise: no attacker, a 1 s limit per call, the
/// honest library copied in, the default memory of a worker.
const PLAIN: Attack =
    Attack { natives: &[], programs: &[], call_timeout_ms: 1000, honest: Honest::Copy, worker_memory_mib: None };

impl Attack {
    fn names(&self) -> Vec<&'static str> {
        self.natives.iter().map(|n| n.0).chain(self.programs.iter().map(|p| p.0)).collect()
    }
}

/// One test's directory: `reference/` and `attack/`, each a tournament's bots, logs and
/// results.
struct Setup {
    dir: tempfile::TempDir,
    python: &'static str,
}

impl Setup {
    fn new() -> Setup {
        let keep = std::env::var_os("ARENA_BOXES_KEEP").is_some();
        // Not under /tmp, which every box has a private one of (a write there lands in
        // the box's own /tmp): the attackers' target must be on the real file system. A
        // checkout under /tmp has its target there too; /var/tmp then.
        let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let base = if target.starts_with("/tmp") { Path::new("/var/tmp") } else { target };
        let dir = tempfile::Builder::new().prefix(TEST_DIR_PREFIX).disable_cleanup(keep).tempdir_in(base).unwrap();
        if keep {
            eprintln!("kept in {}", dir.path().display());
        }
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        Setup { dir, python: python().expect("python3") }
    }

    fn marker(&self) -> String {
        self.dir.path().display().to_string()
    }

    /// The file attackers try to write: in the attack tournament's own directory (the
    /// parent of its plugins, scripts and logs), which a box sees read-only.
    fn target(&self) -> PathBuf {
        self.dir.path().join("attack/attacker-was-here")
    }

    /// The other entries' files and logs the reading attackers try.
    fn read_paths(&self) -> String {
        let base = self.dir.path().join("attack");
        [
            "logs/EggHunter.log",
            "logs/py-hunter.log",
            "plugins/libegg_hunter.so",
            "scripts/py-hunter.py",
            "honest/libegg_hunter.so",
            "home/.ssh/id_rsa",
            "home/.pgpass",
        ]
        .iter()
        .map(|p| base.join(p).display().to_string())
        .collect::<Vec<_>>()
        .join(":")
    }

    /// Writes `name/` with the honest bots and `attack`'s attackers (or, `stand_in`,
    /// bots of the same names that only stay).
    fn corpus(&self, name: &str, attack: &Attack, stand_in: bool) -> Corpus {
        let base = self.dir.path().join(name);
        let corpus =
            Corpus { plugins: base.join("plugins"), scripts: base.join("scripts"), logs: base.join("logs"), base };
        for d in [&corpus.base, &corpus.plugins, &corpus.scripts] {
            std::fs::create_dir_all(d).unwrap();
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        // The tournament's directory is writable by every user (as /tmp is), so that
        // only a box keeps an attacker's processes from writing there: unboxed, a program
        // of a root host runs as `nobody`.
        std::fs::set_permissions(&corpus.base, std::fs::Permissions::from_mode(0o1777)).unwrap();
        // A copy, not a link: the file is then only under the plugins directory, which
        // a box hides from the other entries.
        // The host's home directory (`HOME` of the host in `Corpus::play`), with a key and
        // a password file that every user may read (as a careless user's would be, or as
        // its own files are to a box of a host that is not root).
        let home = corpus.base.join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        for (file, text) in
            [(".ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n"), (".pgpass", "db:5432:*:admin:S3cret\n")]
        {
            std::fs::write(home.join(file), text).unwrap();
        }
        for d in [&home, &home.join(".ssh")] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let honest = plugin_lib("egg-hunter");
        let name = honest.file_name().unwrap();
        match attack.honest {
            Honest::Copy => {
                std::fs::copy(&honest, corpus.plugins.join(name)).unwrap();
            }
            Honest::File | Honest::Link => {
                let dir = corpus.base.join("honest");
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
                std::fs::copy(&honest, dir.join(name)).unwrap();
                if attack.honest == Honest::Link {
                    std::os::unix::fs::symlink(dir.join(name), corpus.plugins.join(name)).unwrap();
                }
            }
        }
        let hunter = std::fs::read_to_string(root().join("scripts/eggs/py-hunter.py")).unwrap();
        write_executable(
            &corpus.scripts.join("py-hunter.py"),
            &hunter.replacen("#!/usr/bin/env python3", &format!("#!{}", self.python), 1),
        );
        let (marker, target, read) = (self.marker(), self.target().display().to_string(), self.read_paths());
        for &(entry, define) in attack.natives {
            let mut flags = vec![
                format!("-DBOT_NAME=\"{entry}\""),
                format!("-DMARKER=\"{marker}\""),
                format!("-DTARGET_FILE=\"{target}\""),
                format!("-DREAD_PATHS=\"{read}\""),
                "-pthread".to_owned(),
            ];
            if !stand_in {
                flags.push(format!("-D{define}"));
            }
            let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
            compile_c(&data("boxes/attack.c"), &corpus.plugins.join(lib_name(entry)), &flags);
        }
        for &(entry, behaviour) in attack.programs {
            let text = std::fs::read_to_string(data("boxes/attack.py")).unwrap();
            let text = text
                .replacen("#!/usr/bin/env python3", &format!("#!{}", self.python), 1)
                .replace("@BEHAVIOUR@", if stand_in { "stay" } else { behaviour })
                .replace("@MARKER@", &marker)
                .replace("@TARGET@", &target)
                .replace("@READ@", &read);
            write_executable(&corpus.scripts.join(format!("{entry}.py")), &text);
        }
        corpus
    }
}

impl Drop for Setup {
    /// Ends what an attacker left running (only processes naming this test's
    /// directory, by pid) and its SysV segment, even when a check failed.
    fn drop(&mut self) {
        for pid in processes_naming(&self.marker()) {
            // SAFETY: a plain syscall, on a process of this test's tournaments.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        if shm_segment().is_some() {
            let _ = Command::new("ipcrm").args(["-M", &SHM_KEY.to_string()]).status();
        }
        let _ = std::fs::remove_file(self.target());
    }
}

fn write_executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

struct Corpus {
    base: PathBuf,
    plugins: PathBuf,
    scripts: PathBuf,
    logs: PathBuf,
}

/// A tournament played: its results, outputs and wall time.
struct Played {
    v: serde_json::Value,
    stdout: String,
    stderr: String,
    took: Duration,
}

impl Corpus {
    /// Plays the tournament (killed, and the test failed, past [`HOST_DEADLINE`]).
    fn play(&self, mode: Mode, attack: &Attack, trust: bool) -> Played {
        let json = self.base.join("results.json");
        let (out, err) = (self.base.join("stdout"), self.base.join("stderr"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_arena"));
        cmd.args(["--game", "eggs", "--plugins"]).arg(&self.plugins);
        if attack.honest == Honest::File {
            cmd.arg("--plugins").arg(self.base.join("honest/libegg_hunter.so"));
        }
        // Secrets a contest host may hold, which no box may see: one in its environment,
        // one in its session keyring (made for it here, as a login's would be).
        cmd.env(SECRET_ENV, SECRET).env("HOME", self.base.join("home"));
        // SAFETY: the closure makes two system calls on data prepared before the fork,
        // and does not allocate.
        let (kind, description) = (c"user", c"arena-boxes-secret");
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(move || {
                libc::syscall(libc::SYS_keyctl, 1 as libc::c_long, std::ptr::null::<libc::c_char>());
                libc::syscall(
                    libc::SYS_add_key,
                    kind.as_ptr(),
                    description.as_ptr(),
                    SECRET.as_ptr(),
                    SECRET.len(),
                    -3 as libc::c_long,
                );
                Ok(())
            });
        }
        cmd.arg("--scripts")
            .arg(&self.scripts)
            .arg("--logs")
            .arg(&self.logs)
            .args(["--call-timeout-ms", &attack.call_timeout_ms.to_string()]);
        if trust {
            cmd.arg("--trust-bots");
        }
        cmd.args(["tournament", "--seed", "7", "--jobs", "2", "--rounds", "2", "--set", "max_turns=8"]);
        if let Some(mib) = attack.worker_memory_mib {
            cmd.args(["--worker-memory-mib", &mib.to_string()]);
        }
        match mode {
            Mode::Default => {}
            Mode::Strict => {
                cmd.args(["--isolate", "strict"]);
            }
            Mode::Shared => {
                cmd.args(["--isolate", "on"]);
            }
        }
        cmd.arg("--json").arg(&json);
        cmd.stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap());
        let started = Instant::now();
        let mut child = cmd.spawn().unwrap();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > HOST_DEADLINE {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "{mode:?}: the tournament had not ended after {} s (killed):\n{}\n{}",
                    HOST_DEADLINE.as_secs(),
                    std::fs::read_to_string(&out).unwrap_or_default(),
                    std::fs::read_to_string(&err).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let took = started.elapsed();
        let (stdout, stderr) =
            (std::fs::read_to_string(&out).unwrap_or_default(), std::fs::read_to_string(&err).unwrap_or_default());
        eprintln!("{mode:?}{}: {:.1} s of wall time", if trust { " --trust-bots" } else { "" }, took.as_secs_f64());
        assert_eq!(status.code(), Some(0), "{mode:?}: {status}\n{stdout}\n{stderr}");
        assert!(!stderr.contains("skipped"), "{mode:?}: an entry was not loaded:\n{stderr}");
        let v = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        Played { v, stdout, stderr, took }
    }

    fn log(&self, entry: &str) -> String {
        std::fs::read_to_string(self.logs.join(format!("{entry}.log"))).unwrap_or_default()
    }
}

fn standing<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["leaderboard"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("{name}: {v}"))
}

/// What decides each game: index, seed, seats, turns, scores, tie-break.
fn games(v: &serde_json::Value) -> Vec<String> {
    v["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            format!("{} {} {} {} {} {}", g["index"], g["seed"], g["seats"], g["turns"], g["scores"], g["tiebreak"])
        })
        .collect()
}

/// The pids of the processes whose command line names `marker`.
fn processes_naming(marker: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else { continue };
        if cmdline(&e.path()).contains(marker) {
            found.push(pid);
        }
    }
    found
}

/// The command line of the process whose `/proc` directory is `proc`, its arguments
/// joined by spaces (empty when it is gone).
fn cmdline(proc: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(proc.join("cmdline")).unwrap_or_default()).replace('\0', " ")
}

/// The processes (pid and command) whose real or effective uid is one of `uids`, but for
/// those of another test here (their command line names its directory, not `marker`):
/// a uid an attacker of this test had may be leased again to a box of a test running
/// beside it once this test's box has ended.
fn processes_of(uids: &[u32], marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().parse::<i32>().is_err() {
            continue;
        }
        let cmdline = cmdline(&e.path());
        if cmdline.contains(TEST_DIR_PREFIX) && !cmdline.contains(marker) {
            continue;
        }
        let status = std::fs::read_to_string(e.path().join("status")).unwrap_or_default();
        let ids: Vec<u32> = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .map(|l| l.split_whitespace().filter_map(|n| n.parse().ok()).collect())
            .unwrap_or_default();
        if ids.iter().any(|u| uids.contains(u)) {
            let name = status.lines().next().unwrap_or("").to_owned();
            found.push(format!("{} {name}", e.file_name().to_string_lossy()));
        }
    }
    found
}

/// The line of `/proc/sysvipc/shm` of the attackers' segment, if there is one.
fn shm_segment() -> Option<String> {
    let table = std::fs::read_to_string("/proc/sysvipc/shm").unwrap_or_default();
    table.lines().skip(1).find(|l| l.split_whitespace().next() == Some(&SHM_KEY.to_string())).map(str::to_owned)
}

/// What one attack left for its own checks.
struct Outcome<'a> {
    mode: Mode,
    setup: &'a Setup,
    corpus: Corpus,
    played: Played,
}

impl Outcome<'_> {
    fn log(&self, entry: &str) -> String {
        self.corpus.log(entry)
    }

    fn context(&self) -> String {
        format!("{:?}:\n{}\n{}", self.mode, self.played.stdout, self.played.stderr)
    }
}

/// Plays `attack` in `mode` beside the honest bots and checks what every attack must
/// (see the module's documentation); then `check` checks the attack's own outcome.
fn attack_test(attack: Attack, mode: Mode, check: impl FnOnce(&Outcome)) {
    if python().is_none() {
        return crate::util::skip("skipped: no /usr/bin/python3");
    }
    if let Err(why) = arena::process::bwrap_available() {
        // The host refuses native and program bots then (unless trusted): nothing to try.
        return crate::util::skip(&format!("skipped: this machine cannot box ({why})"));
    }
    let trust = std::env::var_os("ARENA_BOXES_TRUST").is_some();
    let setup = Setup::new();
    let reference = setup.corpus("reference", &attack, true).play(mode, &attack, true);
    let corpus = setup.corpus("attack", &attack, false);
    let played = corpus.play(mode, &attack, trust);
    let ctx = format!("{mode:?}:\n{}\n{}", played.stdout, played.stderr);
    for name in attack.names() {
        // What each attacker says it did, first (for a failure below).
        let log = corpus.log(name);
        let lines: Vec<&str> = log.lines().filter(|l| !l.starts_with("---")).collect();
        eprintln!("{mode:?}: {name}'s log ends: {:?}", &lines[lines.len().saturating_sub(4)..]);
    }
    // No result changed or lost.
    let v = &played.v;
    assert_eq!(v["played"], reference.v["played"], "{ctx}");
    assert!(v.get("failed").is_none_or(|f| f.as_array().is_some_and(Vec::is_empty)), "games failed: {ctx}");
    assert!(!played.stdout.contains("failed"), "{ctx}");
    assert_eq!(games(v), games(&reference.v), "the games differ from the reference: {ctx}");
    let attackers = attack.names();
    for s in v["leaderboard"].as_array().unwrap() {
        assert_eq!(s["lost"], 0, "{ctx}");
        let name = s["name"].as_str().unwrap();
        if attackers.contains(&name) {
            eprintln!("{mode:?}: attacker {name}: {s}");
            continue;
        }
        // An honest entry: never blamed.
        assert!(s["calls"].as_u64().unwrap() > 0, "{name}: {ctx}");
        let counted = (s["errors"].as_u64(), s["overruns"].as_u64(), s["disqualified"].as_u64());
        assert_eq!(counted, (Some(0), Some(0), Some(0)), "{name} was charged: {s}\n{ctx}");
        assert_eq!(s["messages"].as_array().map_or(0, Vec::len), 0, "{name} was blamed: {s}\n{ctx}");
    }
    // Nothing of the attackers left running: no process of their uids (each logged it),
    // none naming the test's directory (a dying one gets some seconds).
    let mut uids = Vec::new();
    for name in &attackers {
        let log = corpus.log(name);
        let theirs: Vec<u32> = log.lines().filter_map(|l| l.strip_prefix("uid ")?.trim().parse().ok()).collect();
        assert!(!theirs.is_empty(), "{name} logged no uid: {log}\n{ctx}");
        uids.extend(theirs);
    }
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 && !trust {
        // The box uids' range (system/src/process/uids.rs, docs/hardening.md).
        let range = 0x7000_0000..0x7000_0000 + (1 << 16);
        assert!(uids.iter().all(|u| range.contains(u)), "attackers ran outside the box uids: {uids:?}\n{ctx}");
    }
    uids.retain(|&u| u != 0);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (of_uid, naming) = (processes_of(&uids, &setup.marker()), processes_naming(&setup.marker()));
        if of_uid.is_empty() && naming.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "left running: uids {uids:?}: {of_uid:?}; naming the test: {naming:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Nothing written outside a box, no SysV segment left.
    assert!(!setup.target().exists(), "{} was written: {ctx}", setup.target().display());
    assert_eq!(shm_segment(), None, "a SysV segment of the attackers is left: {ctx}");
    let outcome = Outcome { mode, setup: &setup, corpus, played };
    check(&outcome);
    eprintln!(
        "{mode:?}: took {:.1} s (reference {:.1} s)",
        outcome.played.took.as_secs_f64(),
        reference.took.as_secs_f64()
    );
}

/// The counts of a native attacker's line `ptrace: N processes; attached a, seized b,
/// mem read c, fd 0 written d`: (a, b, c, d).
fn ptrace_counts(log: &str) -> Option<[u32; 4]> {
    let line = log.lines().rfind(|l| l.starts_with("ptrace: "))?;
    let nums: Vec<u32> =
        line.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).filter_map(|s| s.parse().ok()).collect();
    // "fd 0 written d": the 0 of "fd 0" is in the list.
    (nums.len() == 6).then(|| [nums[1], nums[2], nums[3], nums[5]])
}

const NATIVE_SIGNALS: Attack =
    Attack { natives: &[("attacker", "SIGNALS")], programs: &[], call_timeout_ms: 1000, ..PLAIN };
const PROGRAM_SIGNALS: Attack =
    Attack { natives: &[], programs: &[("py-attacker", "signals")], call_timeout_ms: 1000, ..PLAIN };

fn signals_reach_nobody(o: &Outcome, entry: &str) {
    let log = o.log(entry);
    let last = log.lines().rfind(|l| l.starts_with("signals: "));
    assert!(last.is_some(), "the attack did not run: {log}\n{}", o.context());
    eprintln!("{:?}: {entry}: {}", o.mode, last.unwrap());
}

// Unboxed (ARENA_BOXES_TRUST=1) the native signaller kills the host itself (exit status
// not 0), in both modes.
// In a shared worker (`--isolate on`) the worker's box holds py-hunter too: it gets through.
#[test]
fn a_native_bot_cannot_signal_another_entrys_processes() {
    attack_test(NATIVE_SIGNALS, Mode::Default, |o| signals_reach_nobody(o, "attacker"));
}

#[test]
fn a_native_bot_cannot_signal_another_entrys_worker_in_strict_mode() {
    attack_test(NATIVE_SIGNALS, Mode::Strict, |o| {
        signals_reach_nobody(o, "attacker");
        // Alone in its box: nothing but itself, its parent and the box's init to see.
        assert!(o.log("attacker").contains("signals: 0 of 0 reached"), "{}", o.log("attacker"));
    });
}

// Unboxed: it kills py-hunter's processes (a program of a root host runs as nobody, as
// they all do), in both modes: the games differ.
#[test]
fn a_program_bot_cannot_signal_another_entrys_processes() {
    attack_test(PROGRAM_SIGNALS, Mode::Default, |o| signals_reach_nobody(o, "py-attacker"));
}

#[test]
fn a_program_bot_cannot_signal_another_entrys_processes_in_strict_mode() {
    // Its box holds its own worker (its parent), which it may kill: that costs only
    // itself.
    attack_test(PROGRAM_SIGNALS, Mode::Strict, |o| signals_reach_nobody(o, "py-attacker"));
}

const PTRACE: Attack = Attack { natives: &[("attacker", "PTRACE")], programs: &[], call_timeout_ms: 1000, ..PLAIN };

fn nothing_traced(o: &Outcome) {
    let log = o.log("attacker");
    let counts = ptrace_counts(&log).unwrap_or_else(|| panic!("the attack did not run: {log}\n{}", o.context()));
    assert_eq!(counts, [0; 4], "attached, seized, /proc/<pid>/mem read, fd 0 written: {log}");
}

// Unboxed: its forged lines in the others' stdin stall the tournament (killed at 120 s),
// in both modes. In a shared worker (`--isolate on`) it attaches py-hunter, reads its
// memory and writes its stdin (the worker's children, in the worker's box).
#[test]
fn a_native_bot_cannot_ptrace_read_the_memory_of_or_write_to_another_process() {
    attack_test(PTRACE, Mode::Default, nothing_traced);
}

#[test]
fn a_native_bot_cannot_ptrace_read_the_memory_of_or_write_to_another_process_in_strict_mode() {
    attack_test(PTRACE, Mode::Strict, nothing_traced);
}

const NATIVE_DAEMON: Attack =
    Attack { natives: &[("attacker", "DAEMON")], programs: &[], call_timeout_ms: 1000, ..PLAIN };
const PROGRAM_DAEMON: Attack =
    Attack { natives: &[], programs: &[("py-attacker", "daemon")], call_timeout_ms: 1000, ..PLAIN };

/// The daemon started; a few seconds after the host ended, it has written nothing (the
/// common checks found no process of it).
fn daemon_dies_with_its_box(o: &Outcome, entry: &str) {
    let log = o.log(entry);
    assert!(log.contains("daemon: started"), "the attack did not run: {log}\n{}", o.context());
    std::thread::sleep(Duration::from_secs(3));
    assert!(!o.setup.target().exists(), "the daemon wrote {} after the host ended", o.setup.target().display());
}

// Unboxed: the daemon outlives the tournament and writes attacker-was-here in its
// directory (the program's too, run as nobody: the directory is writable by all).
#[test]
fn a_native_bots_daemon_does_not_outlive_its_box() {
    attack_test(NATIVE_DAEMON, Mode::Default, |o| daemon_dies_with_its_box(o, "attacker"));
}

#[test]
fn a_native_bots_daemon_does_not_outlive_its_box_in_strict_mode() {
    attack_test(NATIVE_DAEMON, Mode::Strict, |o| daemon_dies_with_its_box(o, "attacker"));
}

#[test]
fn a_program_bots_daemon_does_not_outlive_its_box() {
    attack_test(PROGRAM_DAEMON, Mode::Default, |o| daemon_dies_with_its_box(o, "py-attacker"));
}

#[test]
fn a_program_bots_daemon_does_not_outlive_its_box_in_strict_mode() {
    attack_test(PROGRAM_DAEMON, Mode::Strict, |o| daemon_dies_with_its_box(o, "py-attacker"));
}

const ESCAPE: Attack = Attack { natives: &[("attacker", "ESCAPE")], programs: &[], call_timeout_ms: 1000, ..PLAIN };

fn no_way_out(o: &Outcome) {
    let log = o.log("attacker");
    assert!(log.contains("setns: "), "the attack did not run: {log}\n{}", o.context());
    eprintln!("{:?}: {log}", o.mode);
    assert!(log.contains("CapEff: 0000000000000000"), "capabilities in the box: {log}");
    // In its call, nothing but itself and its box's init is alive in its box (the other
    // entries' processes run in theirs, or, in the shared worker, between its calls).
    assert!(log.lines().filter(|l| l.starts_with("visible: ")).all(|l| l == "visible: 0"), "{log}");
    assert!(log.contains("remount: refused"), "{log}");
    assert!(log.contains("write: refused"), "{log}");
    assert!(log.contains("write after: refused"), "{log}");
    assert!(log.lines().any(|l| l.starts_with("root writes: 0 of")), "{log}");
    assert!(log.contains("pdeathsig: refused"), "{log}");
}

// Unboxed as root: CapEff is full, the writes (direct and through /proc/<pid>/root) and
// the setns succeed (the remount is not tried as uid 0: it would be the machine's /).
#[test]
fn a_native_bot_has_no_capabilities_and_cannot_remount_or_write_outside() {
    attack_test(ESCAPE, Mode::Default, no_way_out);
}

#[test]
fn a_native_bot_has_no_capabilities_and_cannot_remount_or_write_outside_in_strict_mode() {
    attack_test(ESCAPE, Mode::Strict, no_way_out);
}

const SHM: Attack = Attack {
    natives: &[],
    programs: &[("py-shm-maker", "shm_maker"), ("py-shm-seeker", "shm_seeker")],
    call_timeout_ms: 1000,
    ..PLAIN
};

fn no_shared_segment(o: &Outcome) {
    let (maker, seeker) = (o.log("py-shm-maker"), o.log("py-shm-seeker"));
    assert!(maker.contains("shm: made"), "the attack did not run: {maker}\n{}", o.context());
    assert!(seeker.contains("shm: "), "the attack did not run: {seeker}\n{}", o.context());
    assert!(
        !seeker.contains("shm: attached") && !seeker.contains("shm: seen"),
        "one box saw another's segment: {seeker}"
    );
}

// Unboxed: the seeker attaches the maker's segment and reads its marker, and the segment
// outlives the tournament. In a shared worker (`--isolate on`), the same but for the
// leftover: the two programs share the worker's box.
#[test]
fn two_program_bots_cannot_share_sysv_memory() {
    attack_test(SHM, Mode::Default, no_shared_segment);
}

#[test]
fn two_program_bots_cannot_share_sysv_memory_in_strict_mode() {
    attack_test(SHM, Mode::Strict, no_shared_segment);
}

const READ: Attack =
    Attack { natives: &[("attacker", "READ")], programs: &[("py-attacker", "read")], call_timeout_ms: 1000, ..PLAIN };

fn nothing_read(o: &Outcome) {
    let mut got = Vec::new();
    for entry in ["attacker", "py-attacker"] {
        let log = o.log(entry);
        let reads: Vec<&str> = log.lines().filter(|l| l.starts_with("read ")).collect();
        assert!(!reads.is_empty(), "the attack did not run: {log}\n{}", o.context());
        got.extend(reads.iter().filter(|l| !l.ends_with(": refused")).map(|l| format!("{entry}: {l}")));
    }
    assert!(got.is_empty(), "{:?}: other entries' files read:\n{}", o.mode, got.join("\n"));
}

// Unboxed: both read libegg_hunter.so and py-hunter.py (the logs are refused either
// way). In a shared worker (`--isolate on`), the same: its box shows every entry's files.
#[test]
fn a_bot_cannot_read_other_entries_logs_or_files() {
    attack_test(READ, Mode::Default, nothing_read);
}

#[test]
fn a_bot_cannot_read_other_entries_logs_or_files_in_strict_mode() {
    attack_test(READ, Mode::Strict, nothing_read);
}

const SECRETS: Attack = Attack {
    natives: &[("attacker", "SECRETS")],
    programs: &[("py-attacker", "secrets")],
    call_timeout_ms: 3000,
    ..PLAIN
};

/// Neither attacker saw the host's secret (environment, its init's environment, the
/// session keyring), and neither could write more than its box's 64 MiB `/dev/shm`
/// nor anything in `/dev` itself.
fn no_secret_and_no_room(o: &Outcome) {
    for entry in ["attacker", "py-attacker"] {
        let log = o.log(entry);
        let line = |prefix: &str| {
            log.lines()
                .rfind(|l| l.starts_with(prefix))
                .unwrap_or_else(|| panic!("{entry}: the attack did not run ({prefix}): {log}\n{}", o.context()))
                .to_owned()
        };
        for what in ["env secret: ", "init environ secret: ", "keyring secret: "] {
            assert!(line(what).ends_with("none"), "{entry}: {}\n{}", line(what), o.context());
        }
        let mib: u32 = line("shm fill: ").trim_start_matches("shm fill: ").trim_end_matches(" MiB").parse().unwrap();
        assert!(mib <= 64, "{entry}: wrote {mib} MiB to /dev/shm\n{}", o.context());
        assert_eq!(line("dev write: "), "dev write: refused", "{entry}\n{}", o.context());
    }
}

// Unboxed (and before the box cleared them): both saw the secret in their environment
// and in the session keyring they shared with the host, and wrote 256 MiB to /dev/shm.
#[test]
fn a_bot_sees_none_of_the_hosts_secrets_and_has_a_bounded_dev_shm() {
    attack_test(SECRETS, Mode::Default, no_secret_and_no_room);
}

#[test]
fn a_bot_sees_none_of_the_hosts_secrets_and_has_a_bounded_dev_shm_in_strict_mode() {
    attack_test(SECRETS, Mode::Strict, no_secret_and_no_room);
}

const READ_FILE: Attack = Attack { honest: Honest::File, ..READ };
const READ_LINK: Attack = Attack { honest: Honest::Link, ..READ };

// The honest library given as a file of its own (`--plugins .../honest/libegg_hunter.so`)
// or through a link in the plugins directory: before, a box read it where it really is.
#[test]
fn a_bot_cannot_read_an_entry_given_as_a_file() {
    attack_test(READ_FILE, Mode::Default, nothing_read);
}

#[test]
fn a_bot_cannot_read_the_file_an_entrys_link_leads_to() {
    attack_test(READ_LINK, Mode::Strict, nothing_read);
}

const BLAME: Attack = Attack { natives: &[("attacker", "BLAME")], programs: &[], call_timeout_ms: 300, ..PLAIN };

fn hung_attacker_is_out(o: &Outcome) {
    let log = o.log("attacker");
    assert!(log.contains("blame page: "), "the attack did not run: {log}\n{}", o.context());
    eprintln!("{:?}: {}", o.mode, log.lines().find(|l| l.starts_with("blame page")).unwrap());
    let s = standing(&o.played.v, "attacker");
    assert_eq!(s["disqualified"], s["games"], "not out of every game: {s}\n{}", o.context());
    for m in s["messages"].as_array().unwrap() {
        assert!(m.as_str().unwrap().contains("hung in a call past its time limit"), "{s}");
    }
}

// Unboxed the same (the host times the call the referee awaits itself); the issue's
// version hung for ever. In a shared worker (`--isolate on`) the worker is ended once its
// playing thread has run no code for a call's wall-clock backstop, and the game is played
// again in lockstep, where the attacker is out.
#[test]
fn a_native_bot_that_clears_its_blame_page_and_blocks_does_not_hang_a_shared_worker() {
    attack_test(BLAME, Mode::Shared, hung_attacker_is_out);
}

#[test]
fn a_native_bot_that_clears_its_blame_page_and_blocks_is_out_in_strict_mode() {
    attack_test(BLAME, Mode::Strict, hung_attacker_is_out);
}

#[test]
fn a_native_bot_that_clears_its_blame_page_and_blocks_is_out() {
    attack_test(BLAME, Mode::Default, hung_attacker_is_out);
}

const NEIGHBOUR: Attack =
    Attack { natives: &[("attacker", "NEIGHBOUR")], programs: &[], call_timeout_ms: 1000, ..PLAIN };

fn spun(o: &Outcome) {
    let log = o.log("attacker");
    assert!(log.contains("spinning in 4 threads"), "the attack did not run: {log}\n{}", o.context());
}

// The honest bots' own time is their own: 4 spinning threads beside them cost them no
// verdict (the common checks). Unboxed the same: a box does not share out the CPU.
#[test]
fn a_native_bot_busy_looping_in_4_threads_costs_its_neighbours_no_time_verdict() {
    attack_test(NEIGHBOUR, Mode::Default, spun);
}

#[test]
fn a_native_bot_busy_looping_in_4_threads_costs_its_neighbours_no_time_verdict_in_strict_mode() {
    attack_test(NEIGHBOUR, Mode::Strict, spun);
}

const INJECT: Attack = Attack { natives: &[("attacker", "INJECT")], programs: &[], call_timeout_ms: 1000, ..PLAIN };

fn injected(o: &Outcome) {
    let log = o.log("attacker");
    assert!(log.contains("inject: "), "the attack did not run: {log}\n{}", o.context());
}

// A box cannot reach another process's input, but its own worker's descriptors are in its
// box: forged lines there must cost only the attacker (the common checks: same games,
// nobody else charged, the tournament ends). Boxed, its input pipe cannot be opened for
// writing; unboxed (as root) it can, and still nothing changes: what stops the rest is
// the host's protocol (nonces, a seat's lines taken only from its own process), not the
// box, so this test passes unboxed too. (A `C` line of its own seat is taken: it changes
// its own move, and so the game; attack.c leaves its own seat out.)
#[test]
fn forged_lines_in_its_own_workers_input_change_no_other_result() {
    attack_test(INJECT, Mode::Default, injected);
}

#[test]
fn forged_lines_in_its_own_workers_input_change_no_other_result_in_strict_mode() {
    attack_test(INJECT, Mode::Strict, injected);
}

const SHMHOG: Attack = Attack {
    natives: &[("attacker", "SHMHOG")],
    programs: &[],
    call_timeout_ms: 3000,
    worker_memory_mib: Some(128),
    ..PLAIN
};

/// The attacker touched less than its 300 MiB of shared memory (or was refused the
/// mapping) and, where it got it, is out of every game "over its memory limit" (its
/// box's memory group: 128 MiB for its worker, 128 MiB for its /tmp and /dev/shm).
fn shared_memory_is_capped(o: &Outcome) {
    let log = o.log("attacker");
    let refused = log.contains("shm map: refused");
    let touched: Option<u32> = log
        .lines()
        .rfind(|l| l.starts_with("shm touched: "))
        .and_then(|l| l.trim_start_matches("shm touched: ").trim_end_matches(" MiB").parse().ok());
    assert!(refused || touched.is_some(), "the attack did not run: {log}\n{}", o.context());
    eprintln!("{:?}: attacker touched {touched:?} MiB (mapping refused: {refused})", o.mode);
    assert!(touched.is_none_or(|mib| mib < 300), "it touched 300 MiB of shared memory: {log}\n{}", o.context());
    let s = standing(&o.played.v, "attacker");
    if !refused {
        assert_eq!(s["disqualified"], s["games"], "not out of every game: {s}\n{}", o.context());
        for m in s["messages"].as_array().unwrap() {
            assert!(m.as_str().unwrap().contains("over its memory limit"), "{s}\n{}", o.context());
        }
    }
}

// Before the memory groups: RLIMIT_DATA (the worker's 128 MiB) does not count shared
// mappings, and the attacker touched all 300 MiB (red team, hole 6). In a shared worker
// (`--isolate on`) its box's group also holds py-hunter's 2 GiB: it gets the 300 MiB.
#[test]
fn a_native_bots_shared_memory_counts_against_its_box() {
    attack_test(SHMHOG, Mode::Default, shared_memory_is_capped);
}

#[test]
fn a_native_bots_shared_memory_counts_against_its_box_in_strict_mode() {
    attack_test(SHMHOG, Mode::Strict, shared_memory_is_capped);
}

/// Starts an eggs tournament of the bots in `bots` (`--plugins` or `--scripts`, as
/// `flag` says) with `args` after `tournament`, its logs in `base/logs` and its results
/// in `base/results.json`.
fn eggs_host(flag: &str, bots: &Path, base: &Path, args: &[&str]) -> std::process::Child {
    eggs_command(flag, bots, base, args).spawn().unwrap()
}

/// The command [`eggs_host`] starts.
fn eggs_command(flag: &str, bots: &Path, base: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_arena"));
    cmd.args(["--game", "eggs", flag])
        .arg(bots)
        .arg("--logs")
        .arg(base.join("logs"))
        .arg("tournament")
        .args(args)
        .arg("--json")
        .arg(base.join("results.json"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Waits for an [`eggs_host`] to end well: its results, the victim's log, and what a
/// failed assertion shows (its output and that log).
fn victims_results(host: std::process::Child, base: &Path) -> (serde_json::Value, String, String) {
    let out = host.wait_with_output().unwrap();
    let log = std::fs::read_to_string(base.join("logs/victim.log")).unwrap_or_default();
    let context =
        format!("{}\n{}\nvictim's log:\n{log}", crate::util::stdout(&out), String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(base.join("results.json")).unwrap()).unwrap();
    (v, log, context)
}

/// Whether no entry of `results` was charged with anything.
fn nobody_charged(results: &serde_json::Value, context: &str) {
    for s in results["leaderboard"].as_array().unwrap() {
        let counted = (s["errors"].as_u64(), s["overruns"].as_u64(), s["disqualified"].as_u64(), s["lost"].as_u64());
        assert_eq!(counted, (Some(0), Some(0), Some(0), Some(0)), "{} was charged: {s}\n{context}", s["name"]);
    }
}

/// The Python of the program victims, where this machine has one and can box it; else
/// `None`, after saying why (which fails the test under CI: `util::skip`).
fn boxed_python() -> Option<&'static str> {
    let Some(python) = python() else {
        crate::util::skip("skipped: no /usr/bin/python3");
        return None;
    };
    if let Err(why) = arena::process::bwrap_available() {
        crate::util::skip(&format!("skipped: this machine cannot box ({why})"));
        return None;
    }
    Some(python)
}

/// A program bot that plays the whole game and stays, slowly (30 ms of sleep a call):
/// the victim of a kill from outside its box.
const VICTIM: &str = "# arena: eggs persistent\nimport sys, time\nwhile True:\n    lines = [sys.stdin.readline() for _ in range(6)]\n    if not lines[-1]:\n        break\n    time.sleep(0.03)\n    sys.stdout.write(\"5\\nN\\nx\\n\")\n    sys.stdout.flush()\n";

/// [`VICTIM`] that first tries to kill itself with SIGKILL, once per call, and says in
/// its log (its standard error) what came of it the first time.
const SELF_KILLER: &str = "# arena: eggs persistent\nimport os, sys, time\nsaid = False\nwhile True:\n    lines = [sys.stdin.readline() for _ in range(6)]\n    if not lines[-1]:\n        break\n    try:\n        os.kill(os.getpid(), 9)\n        what = 'sent'\n    except PermissionError:\n        what = 'refused'\n    if not said:\n        print('selfkill: ' + what, file=sys.stderr, flush=True)\n        said = True\n    time.sleep(0.03)\n    sys.stdout.write(\"5\\nN\\nx\\n\")\n    sys.stdout.flush()\n";

/// [`VICTIM`] that kills itself with SIGKILL by the id of a second thread of its own at
/// its first call, a way its guard does not see.
const TID_KILLER: &str = "# arena: eggs persistent\nimport os, sys, threading, time\nwhile True:\n    lines = [sys.stdin.readline() for _ in range(6)]\n    if not lines[-1]:\n        break\n    ids = []\n    threading.Thread(target=lambda: (ids.append(threading.get_native_id()), time.sleep(5)), daemon=True).start()\n    while not ids:\n        time.sleep(0.001)\n    os.kill(ids[0], 9)\n    time.sleep(1)\n";

/// The directory `name` in `setup` of a tournament of `py-hunter` and the program
/// `victim.py` (`victim`, its source after the shebang of `python`), readable by all:
/// the directory, its scripts and the victim's file.
fn program_victim_dir(setup: &Setup, python: &str, name: &str, victim: &str) -> (PathBuf, PathBuf, PathBuf) {
    let base = setup.dir.path().join(name);
    let scripts = base.join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    for d in [&base, &scripts] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let hunter = std::fs::read_to_string(root().join("scripts/eggs/py-hunter.py")).unwrap();
    let shebang = format!("#!{python}");
    write_executable(&scripts.join("py-hunter.py"), &hunter.replacen("#!/usr/bin/env python3", &shebang, 1));
    let victim_file = scripts.join("victim.py");
    write_executable(&victim_file, &format!("{shebang}\n{victim}"));
    (base, scripts, victim_file)
}

/// A tournament (`name`, in `setup`) of `py-hunter` and the program `victim` (its source
/// after the shebang), 4 eggs games with `extra` arguments, where the test, as an
/// administrator's stray `kill -9` (or `kill -STOP`) would, signals processes of the
/// victim from outside their box, one after the other as `kills` says: each the first
/// process of the victim found alive whose executable's path names the given part
/// (`python`: its program; `bwrap`: its box), at least 0.3 s into its game, a later
/// process each time. Returns the results, the victim's log and a context for messages.
fn program_victim_tournament(
    setup: &Setup,
    python: &str,
    name: &str,
    victim: &str,
    kills: &[(&str, i32)],
    extra: &[&str],
) -> (serde_json::Value, String, String) {
    let (base, scripts, victim_file) = program_victim_dir(setup, python, name, victim);
    let args: Vec<&str> = ["--seed", "7", "--jobs", "2", "--rounds", "4", "--set", "max_turns=40"]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    let host = eggs_host("--scripts", &scripts, &base, &args);
    let victim_path = victim_file.display().to_string();
    let started = Instant::now();
    let (mut killed, mut done): (Vec<i32>, usize) = (Vec::new(), 0);
    while let Some(&(part, signal)) = kills.get(done)
        && started.elapsed() < HOST_DEADLINE
    {
        let found: Vec<i32> = processes_naming(&victim_path).into_iter().filter(|p| !killed.contains(p)).collect();
        let exe = |p: &i32| std::fs::read_link(format!("/proc/{p}/exe")).unwrap_or_default().display().to_string();
        match found.iter().find(|p| exe(p).contains(part)).copied() {
            Some(pid) => {
                std::thread::sleep(Duration::from_millis(300));
                // SAFETY: a plain syscall, on a process of this test's tournament.
                if unsafe { libc::kill(pid, signal) } == 0 {
                    // Every process of that box is gone before the next is looked for.
                    killed.extend(found);
                    done += 1;
                    std::thread::sleep(Duration::from_millis(300));
                }
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    victims_results(host, &base)
}

/// Issue #30 Must 3: a signal from outside is not the victim's fault. A tournament of
/// program bots alone (boxed by the host itself, no workers) where the victim's program
/// is killed from outside its box in a game: that game is played again (the results are
/// those of a tournament without the kill), the victim is not charged, and its log says
/// why. The host believes that once per entry (a program can fake such a death by
/// exiting with 137): a second kill, of its bwrap this time, is charged as its crash.
#[test]
fn a_program_killed_from_outside_its_box_is_not_charged_and_its_game_is_played_again() {
    let Some(python) = boxed_python() else { return };
    let setup = Setup::new();
    let play = |name: &str, kills: &[(&str, i32)]| program_victim_tournament(&setup, python, name, VICTIM, kills, &[]);
    let (reference, _, _) = play("reference", &[]);
    let (once, log, context) = play("once", &[("python", libc::SIGKILL)]);
    assert_eq!(games(&once), games(&reference), "{context}");
    assert!(
        log.contains("its program was killed from outside its box") && log.contains("the game is played again"),
        "{context}"
    );
    nobody_charged(&once, &context);
    let (twice, _, context) = play("twice", &[("python", libc::SIGKILL), ("bwrap", libc::SIGKILL)]);
    assert_eq!(twice["played"], reference["played"], "{context}");
    let victim = twice["leaderboard"].as_array().unwrap().iter().find(|s| s["name"] == "victim").unwrap();
    assert!(victim["errors"].as_u64() > Some(0), "{context}");
    assert!(victim["messages"].to_string().contains("believed once per entry"), "{victim}\n{context}");
}

/// The same in strict mode, where each program runs in its entry's worker, in the
/// worker's box: the worker guards its program as its filter guards the worker
/// (`process::guard_programs`: no other process of the box may kill or stop it), so the
/// program's death by SIGKILL, or its stop, came from outside; the worker says so to
/// the host, which plays the game again, once per entry: a second kill is charged, and
/// its log says that the game was not played again. And a program that tries to kill
/// itself with SIGKILL is refused (`PermissionError`): the tournament is the
/// reference's.
#[test]
fn a_program_in_its_entrys_worker_killed_from_outside_is_not_charged_and_its_game_is_played_again() {
    let Some(python) = boxed_python() else { return };
    let setup = Setup::new();
    let strict = ["--isolate", "strict"];
    let play = |name: &str, victim: &str, kills: &[(&str, i32)]| {
        program_victim_tournament(&setup, python, name, victim, kills, &strict)
    };
    let (reference, _, _) = play("reference", VICTIM, &[]);
    for (name, signal) in [("killed", libc::SIGKILL), ("stopped", libc::SIGSTOP)] {
        let (once, log, context) = play(name, VICTIM, &[("python", signal)]);
        assert_eq!(games(&once), games(&reference), "{context}");
        assert!(
            log.contains("its program was killed from outside its box") && log.contains("the game is played again"),
            "{context}"
        );
        nobody_charged(&once, &context);
    }
    let (twice, log, context) = play("twice", VICTIM, &[("python", libc::SIGKILL), ("python", libc::SIGKILL)]);
    assert_eq!(twice["played"], reference["played"], "{context}");
    let victim = twice["leaderboard"].as_array().unwrap().iter().find(|s| s["name"] == "victim").unwrap();
    assert!(victim["disqualified"].as_u64() > Some(0), "{context}");
    assert!(victim["messages"].to_string().contains("believed once per entry"), "{victim}\n{context}");
    assert!(log.contains("not played again"), "{context}");
    let (own, log, context) = play("own", SELF_KILLER, &[]);
    assert!(log.contains("selfkill: refused"), "{context}");
    assert_eq!(games(&own), games(&reference), "{context}");
    nobody_charged(&own, &context);
}

/// A program in its entry's worker (strict mode) that brings a SIGKILL on itself by a way
/// its guard does not see (a `kill` of one of its threads' ids, [`TID_KILLER`]) makes
/// its worker say that it was killed from outside; where the host has the kernel's
/// word (`process::SignalWitness`, a root host), no task outside its box sent any of
/// the box's tasks a signal, so the claim is not taken: the seat is out of the game, its
/// log says that the game was not played again, and the tournament is played once.
/// (Its worker believes the claim once itself, as a program's loader does, and says so
/// to the host; later deaths in the same worker are its errors there.)
#[test]
fn a_program_that_kills_itself_by_a_thread_id_is_charged_where_the_kernel_can_tell() {
    let Some(python) = boxed_python() else { return };
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return crate::util::skip("skipped: the kernel's word on a signal's sender needs a root host");
    }
    let setup = Setup::new();
    let (results, log, context) =
        program_victim_tournament(&setup, python, "tidkill", TID_KILLER, &[], &["--isolate", "strict"]);
    let victim = standing(&results, "victim");
    assert!(victim["disqualified"].as_u64() > Some(0), "{victim}\n{context}");
    assert_eq!(victim["total"].as_u64(), Some(0), "{victim}\n{context}");
    assert!(victim["messages"].to_string().contains("no task outside its box sent it a signal"), "{victim}\n{context}");
    assert!(log.contains("not played again"), "{context}");
    assert_eq!(results["played"].as_u64(), Some(4), "{context}");
    nobody_else_charged(&results, "victim", &context);
}

/// A worker cannot make its own end pass for a kill from outside its box: a native
/// victim (strict mode: a worker and a box per entry) that exits with 137 (bwrap's
/// status for a process killed by SIGKILL, `attack.c -DEXIT137`) dies of SIGSYS under
/// the boxes' exit rule, its crash; one that lowers its worker's CPU limit to 1 s to
/// have the kernel's SIGKILL at it (`-DCPULIMIT`) is refused that limit and is charged
/// with its hung call. Neither is taken for a kill from outside, and each is charged
/// in every game.
#[test]
fn a_worker_that_exits_with_137_or_lowers_its_cpu_limit_is_charged_not_killed_from_outside() {
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped: this machine cannot box ({why})"));
    }
    if !arena::process::boxes_guarded() {
        return crate::util::skip("skipped: this machine's boxes are not guarded");
    }
    let setup = Setup::new();
    for (define, charge, said) in [("EXIT137", "SIGSYS", None), ("CPULIMIT", "time limit", Some("cpulimit: refused"))] {
        let (base, plugins, _) = victim_tournament(&setup, &define.to_lowercase(), define);
        let args = ["--isolate", "strict", "--seed", "7", "--jobs", "1", "--rounds", "2", "--set", "max_turns=40"];
        let host = eggs_command("--plugins", &plugins, &base, &args).spawn().unwrap();
        let (results, log, context) = victims_results(host, &base);
        assert!(!context.contains("killed from outside"), "{define}: {context}");
        let victim = standing(&results, "victim");
        assert_eq!(victim["disqualified"].as_u64(), results["played"].as_u64(), "{define}: {victim}\n{context}");
        assert!(victim["messages"].to_string().contains(charge), "{define}: {victim}\n{context}");
        if let Some(said) = said {
            assert!(log.contains(said), "{define}: {context}");
        }
    }
}

/// A worker killed from outside its box before it said it was ready (its native bot's
/// library is still in its initializer, `attack.c -DSLOWLOAD`) is not charged either:
/// its game is played again and the results are those of a tournament without the
/// kill. Where the host has the signal witness (a root host) the kernel says that a task
/// outside every box sent a task of its box the SIGKILL (the worker's own pids are not
/// known before it is ready); without it, a boxed worker's SIGKILL is from outside.
#[test]
fn a_worker_killed_from_outside_before_it_is_ready_is_not_charged() {
    if !guarded_boxes_as_root() {
        return;
    }
    let setup = Setup::new();
    let play = |name: &str, kill: bool, witness: bool| {
        let (base, plugins, victim) = victim_tournament(&setup, name, "SLOWLOAD");
        let args = ["--isolate", "strict", "--seed", "7", "--jobs", "1", "--rounds", "1", "--set", "max_turns=20"];
        let mut cmd = eggs_command("--plugins", &plugins, &base, &args);
        with_witness(&mut cmd, witness);
        let host = cmd.spawn().unwrap();
        // The victim's first worker, killed 0.3 s after it is first seen: within its
        // library's 1.5 s initializer.
        if kill {
            signal_first_worker(&victim, libc::SIGKILL);
        }
        let (v, _, context) = victims_results(host, &base);
        (v, context)
    };
    let (reference, _) = play("reference", false, true);
    for witness in [true, false] {
        let (killed, context) = play(&format!("early-{witness}"), true, witness);
        worker_played_again(&killed, &reference, &format!("witness {witness}: {context}"));
    }
}

/// A boxed worker that brings a SIGKILL on itself by ways its guard does not see, a
/// `kill` of the id of a second thread of its own (`attack.c -DTIDKILL`) or a timer
/// whose signal is SIGKILL (`-DTIMERKILL`), is never taken for one killed from outside.
/// Where the host has the kernel's word on who sent a SIGKILL (a root host:
/// `process::SignalWitness`), the bot may do it, and its death is its own crash,
/// charged in every game. Without that word (`ARENA_NO_SIGNAL_WITNESS`, as on a host
/// that is not root), its worker refuses it those calls (`process::refuse_self_kills`):
/// the bot waits to die, and its hung call is charged in every game. A bot that sends
/// its own process SIGSEGV by `kill` (`-DSELFSEGV`, twice: Rust's handler lets the
/// first pass) dies of it as its crash either way: the witness traces the box's tasks
/// as the box's (its worker was started by a thread that joined the witness), and
/// without it the worker's handler sees a sender inside its box.
#[test]
fn a_worker_that_kills_itself_by_a_thread_id_or_a_timer_is_charged_not_killed_from_outside() {
    if !guarded_boxes_as_root() {
        return;
    }
    let setup = Setup::new();
    // Per attack and witness: what the victim is charged with, and what its log says.
    let cases = [
        ("TIDKILL", true, "SIGKILL", None),
        ("TIDKILL", false, "time limit", Some("tidkill: refused")),
        ("TIMERKILL", true, "SIGKILL", None),
        ("TIMERKILL", false, "time limit", Some("timerkill: refused")),
        ("SELFSEGV", true, "SIGSEGV", None),
        ("SELFSEGV", false, "SIGSEGV", None),
    ];
    for (define, witness, charged, said) in cases {
        let name = format!("{}-{witness}", define.to_lowercase());
        let (base, plugins, _) = victim_tournament(&setup, &name, define);
        let args = ["--isolate", "strict", "--seed", "7", "--jobs", "1", "--rounds", "2", "--set", "max_turns=40"];
        let mut cmd = eggs_command("--plugins", &plugins, &base, &args);
        with_witness(&mut cmd, witness);
        let (results, log, context) = victims_results(cmd.spawn().unwrap(), &base);
        let context = format!("{define}, witness {witness}: {context}");
        let victim = standing(&results, "victim");
        assert_eq!(victim["disqualified"].as_u64(), results["played"].as_u64(), "{victim}\n{context}");
        let messages = victim["messages"].to_string();
        assert!(messages.contains(charged), "{victim}\n{context}");
        if let Some(said) = said {
            assert!(log.contains(said) && !messages.contains("SIGKILL"), "{victim}\n{context}");
        }
        assert!(!context.contains("killed from outside"), "{context}");
        nobody_else_charged(&results, "victim", &context);
    }
}

/// Whether no entry of `results` but `charged` was charged with anything.
fn nobody_else_charged(results: &serde_json::Value, charged: &str, context: &str) {
    for s in results["leaderboard"].as_array().unwrap().iter().filter(|s| s["name"] != charged) {
        let counted = (s["errors"].as_u64(), s["overruns"].as_u64(), s["disqualified"].as_u64(), s["lost"].as_u64());
        assert_eq!(counted, (Some(0), Some(0), Some(0), Some(0)), "{} was charged: {s}\n{context}", s["name"]);
    }
}

/// The victim's worker was killed from outside its box in a game of `killed`: the game
/// was played again (the games are `reference`'s), its host said why, and nobody was
/// charged.
fn worker_played_again(killed: &serde_json::Value, reference: &serde_json::Value, context: &str) {
    assert_eq!(games(killed), games(reference), "{context}");
    assert!(
        context.contains("victim's worker was killed from outside its box")
            && context.contains("the game is played again"),
        "{context}"
    );
    nobody_charged(killed, context);
}

/// Whether this machine boxes with a guard and the host is root (where the kernel's word
/// on a signal's sender can be had); if not, says so (`util::skip`, which fails under
/// CI).
fn guarded_boxes_as_root() -> bool {
    if let Err(why) = arena::process::bwrap_available() {
        crate::util::skip(&format!("skipped: this machine cannot box ({why})"));
        return false;
    }
    if !arena::process::boxes_guarded() {
        crate::util::skip("skipped: this machine's boxes are not guarded");
        return false;
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        crate::util::skip("skipped: the kernel's word on a signal's sender needs a root host");
        return false;
    }
    true
}

/// Runs `cmd`'s host with the signal witness (`witness`, a root host's) or without it,
/// as on a host that is not root (`ARENA_NO_SIGNAL_WITNESS`).
fn with_witness(cmd: &mut std::process::Command, witness: bool) {
    match witness {
        true => cmd.env_remove("ARENA_NO_SIGNAL_WITNESS"),
        false => cmd.env("ARENA_NO_SIGNAL_WITNESS", "1"),
    };
}

/// Sends `sig` once, from this test (outside every box), to the first worker found
/// loading `victim`, 0.3 s after it is first seen.
fn signal_first_worker(victim: &Path, sig: i32) {
    let started = Instant::now();
    while started.elapsed() < HOST_DEADLINE {
        if let Some(&pid) = workers_loading(victim).first() {
            std::thread::sleep(Duration::from_millis(300));
            // SAFETY: a plain syscall, on a process of this test's tournament.
            if unsafe { libc::kill(pid, sig) } == 0 {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A tournament's directory `name` in `setup`: its plugins the honest `egg-hunter` and
/// the victim, `attack.c` built with `-D<define>`. Returns the directory, its plugins and
/// the victim's library.
fn victim_tournament(setup: &Setup, name: &str, define: &str) -> (PathBuf, PathBuf, PathBuf) {
    let base = setup.dir.path().join(name);
    let plugins = base.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    for d in [&base, &plugins] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::copy(plugin_lib("egg_hunter"), plugins.join(lib_name("egg_hunter"))).unwrap();
    let victim = plugins.join(lib_name("victim"));
    compile_c(&data("boxes/attack.c"), &victim, &["-DBOT_NAME=\"victim\"", &format!("-D{define}"), "-pthread"]);
    (base, plugins, victim)
}

/// The workers loading `library`: the processes of the arena's binary whose command
/// line names it and `__worker` (not its probe, which names it too and ends at once).
fn workers_loading(library: &Path) -> Vec<i32> {
    let arena_exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_arena")).unwrap();
    processes_naming(&library.display().to_string())
        .into_iter()
        .filter(|p| std::fs::read_link(format!("/proc/{p}/exe")).is_ok_and(|e| e == arena_exe))
        .filter(|p| cmdline(Path::new(&format!("/proc/{p}"))).contains(" __worker "))
        .collect()
}

/// A host that dies at once (SIGKILL) leaves no box behind, even one whose bot cleared
/// its worker's parent-death signal, then replaced its worker by `/bin/sleep` from a
/// second thread, which drops that signal whatever a filter refuses (`attack.c
/// -DUNDYING`): the worker runs under bwrap's own process 1, which dies with bwrap
/// (`--die-with-parent`), and so with the host, ending the box.
#[test]
fn a_box_whose_bot_clears_its_parent_death_signal_ends_with_a_host_killed_at_once() {
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped: this machine cannot box ({why})"));
    }
    let setup = Setup::new();
    let (base, plugins, victim) = victim_tournament(&setup, "undying", "UNDYING");
    // A call limit far beyond the test's wait: the host never ends the hung call itself.
    let args = ["--isolate", "strict", "--seed", "7", "--jobs", "1", "--rounds", "1", "--set", "max_turns=40"]
        .into_iter()
        .chain(["--call-timeout-ms", "60000"])
        .collect::<Vec<_>>();
    let host = eggs_host("--plugins", &plugins, &base, &args);
    let workers = || workers_loading(&victim);
    let started = Instant::now();
    let mut found = workers();
    while found.is_empty() && started.elapsed() < HOST_DEADLINE {
        std::thread::sleep(Duration::from_millis(20));
        found = workers();
    }
    assert!(!found.is_empty(), "the victim's worker never started");
    // Its third call (the attack) comes within milliseconds of its first, the exec 0.1 s
    // later.
    assert_ends_with_its_host(host, &found);
}

/// Waits (10 s at most) until each of `found` (the victim's processes) is `sleep`,
/// under the same pid, kills `host` at once (SIGKILL), and checks that none of them is
/// left 10 s later (ending any that is).
fn assert_ends_with_its_host(mut host: std::process::Child, found: &[i32]) {
    let alive = |p: &i32| Path::new(&format!("/proc/{p}")).exists();
    let sleeping = |p: &i32| std::fs::read_link(format!("/proc/{p}/exe")).is_ok_and(|e| e.ends_with("sleep"));
    let deadline = Instant::now() + Duration::from_secs(10);
    while !found.iter().all(sleeping) && found.iter().all(alive) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let became_sleep = found.iter().all(sleeping);
    host.kill().unwrap();
    host.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while found.iter().any(alive) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<i32> = found.iter().copied().filter(alive).collect();
    for &p in &left {
        // SAFETY: kill only sends a signal, to what this test's victim left.
        unsafe {
            libc::kill(p, libc::SIGKILL);
        }
    }
    assert!(became_sleep, "the victim's process never became sleep (pids {found:?})");
    assert_eq!(left, Vec::<i32>::new(), "the victim's box outlived its host");
}

/// A program bot that, at its first call, replaces itself by `/bin/sleep 600` from a
/// second thread (which drops the parent-death signal the kernel keeps per thread),
/// then answers no more.
const UNDYING_PROGRAM: &str = "# arena: eggs persistent\nimport os, sys, threading, time\ndef undying():\n    time.sleep(0.1)\n    os.execv('/bin/sleep', ['sleep', '600'])\nstarted = False\nwhile True:\n    lines = [sys.stdin.readline() for _ in range(6)]\n    if not lines[-1]:\n        break\n    if not started:\n        started = True\n        threading.Thread(target=undying).start()\n    sys.stdout.write(\"5\\nN\\nx\\n\")\n    sys.stdout.flush()\n";

/// The same for a program the host boxes itself (program bots alone: no workers): it
/// runs under bwrap's own process 1 too, so a host killed at once (SIGKILL) leaves no
/// box behind even when the program replaced itself by `/bin/sleep` from a second thread.
#[test]
fn a_programs_box_ends_with_a_host_killed_at_once_whatever_the_program_execs() {
    let Some(python) = boxed_python() else { return };
    let setup = Setup::new();
    let (base, scripts, victim) = program_victim_dir(&setup, python, "undying-program", UNDYING_PROGRAM);
    let args = ["--seed", "7", "--jobs", "1", "--rounds", "1", "--set", "max_turns=40", "--call-timeout-ms", "60000"];
    let host = eggs_host("--scripts", &scripts, &base, &args);
    let victim_path = victim.display().to_string();
    let exe = |p: &i32| std::fs::read_link(format!("/proc/{p}/exe")).unwrap_or_default();
    let started = Instant::now();
    let mut found: Vec<i32> = Vec::new();
    while found.is_empty() && started.elapsed() < HOST_DEADLINE {
        found = processes_naming(&victim_path)
            .into_iter()
            .filter(|p| exe(p).to_string_lossy().contains("python"))
            .collect();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!found.is_empty(), "the victim's program never started");
    assert_ends_with_its_host(host, &found);
}

/// A worker runs under bwrap's own process 1, which reaps every orphan of its box; or
/// each would stay a zombie until the box ended, counted against its processes. The
/// victim (`attack.c -DORPHANS`) leaves 19 orphans, then counts its box's zombies 2.5 s
/// later: none.
#[test]
fn a_workers_box_reaps_the_orphans_its_bot_leaves() {
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped: this machine cannot box ({why})"));
    }
    let setup = Setup::new();
    let (base, plugins, _) = victim_tournament(&setup, "orphans", "ORPHANS");
    let args = ["--isolate", "strict", "--seed", "7", "--jobs", "1", "--rounds", "1", "--set", "max_turns=60"];
    let (results, log, context) = victims_results(eggs_host("--plugins", &plugins, &base, &args), &base);
    assert!(log.contains("zombies: 0"), "{context}");
    nobody_charged(&results, &context);
}

/// Issue #30 Must 3, for workers: a tournament in strict mode (a worker and a box per
/// entry) of the honest `egg-hunter` and a slow native victim (`attack.c -DSLOW`), where
/// the test, as an administrator's stray `kill -9` or `kill -SEGV` would, signals the
/// victim's worker from outside its box in a game. A SIGKILL cannot be caught; the
/// boxes' filter keeps every other process of a worker's box from sending it one
/// (`process::helper_command`), so its death by one came from outside; a SIGSEGV sent
/// from outside its box the worker tells apart itself (exit status 86) where the host
/// has no signal witness, and the kernel tells where it has one. Either way the game
/// is played again (the results are those of a tournament without the signal) and
/// nobody is charged: without the kernel's tracing (`ARENA_NO_SIGNAL_WITNESS`, as on a
/// host that is not root) and, as root, with it (`process::SignalWitness`). A victim
/// whose own child sends its worker SIGKILL (`-DSELFKILL`) is not freed by it: the
/// signal is refused, and the victim, waiting to die, is charged with its hung call. A
/// victim that exits with 86 itself (`-DEXIT86`), its worker's word for a signal from
/// outside, is charged with its crash in every game where the host has the witness,
/// which then asks the kernel and not the worker; without it, it is believed once.
#[test]
fn a_worker_killed_from_outside_its_box_is_not_charged_and_its_game_is_played_again() {
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped: this machine cannot box ({why})"));
    }
    let setup = Setup::new();
    let play = |name: &str, define: &str, signal: Option<i32>, witness: bool| {
        let (base, plugins, victim) = victim_tournament(&setup, name, define);
        let args = ["--isolate", "strict", "--seed", "7", "--jobs", "1", "--rounds", "2", "--set", "max_turns=40"];
        let mut cmd = eggs_command("--plugins", &plugins, &base, &args);
        with_witness(&mut cmd, witness);
        let host = cmd.spawn().unwrap();
        // The victim's worker, signalled once, 0.3 s after it is first seen.
        if let Some(sig) = signal {
            signal_first_worker(&victim, sig);
        }
        let (v, _, context) = victims_results(host, &base);
        (v, context)
    };
    let (reference, _) = play("reference", "SLOW", None, false);
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        crate::util::skip("the signal witness's half skipped: not root");
    }
    for witness in [false, true].into_iter().filter(|&w| !w || root) {
        for sig in [libc::SIGKILL, libc::SIGSEGV] {
            let (killed, context) = play(&format!("killed-{sig}-{witness}"), "SLOW", Some(sig), witness);
            worker_played_again(&killed, &reference, &format!("signal {sig}, witness {witness}: {context}"));
        }
        // Its own word for a signal from outside: believed without the witness (once
        // per entry, the rest charged), never with it.
        let (own, context) = play(&format!("exit86-{witness}"), "EXIT86", None, witness);
        let context = format!("exit 86, witness {witness}: {context}");
        let victim = standing(&own, "victim");
        assert_eq!(victim["disqualified"].as_u64(), own["played"].as_u64(), "{victim}\n{context}");
        assert!(victim["messages"].to_string().contains("exit status 86"), "{victim}\n{context}");
        let believed = context.matches("victim's worker was killed from outside its box").count();
        assert_eq!(believed, usize::from(!witness), "{context}");
    }
    // Its own SIGKILL, sent by a process of its box, never arrives: its hung call is
    // charged, in every game, and nothing is taken for a kill from outside.
    let (own, context) = play("own", "SELFKILL", None, false);
    let victim = standing(&own, "victim");
    assert_eq!(victim["disqualified"].as_u64(), own["played"].as_u64(), "{victim}\n{context}");
    let messages = victim["messages"].to_string();
    assert!(messages.contains("time limit") && !messages.contains("SIGKILL"), "{victim}\n{context}");
    assert!(!context.contains("killed from outside"), "{context}");
}
