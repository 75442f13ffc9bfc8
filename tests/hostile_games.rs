//! The hostile corpus for eggs, target and hex (issue #21, `docs/hardening.md`): per
//! game, tournaments of honest bots (a native one and, in eggs and target, a program)
//! beside hostile bots of every kind, in `tests/data/hostile/`:
//!
//! - programs (`hostile.py`): an endless loop, late answers, 100 MB of output, garbage,
//!   closing stdout, a fork bomb, an 8 GiB allocation, writing outside their directory,
//!   opening a socket, exiting at their third call, a daemon that leaves with `setsid`,
//!   a forger writing made-up results to every descriptor from 3 to 1023;
//! - Lua and Rhai scripts (`hostile.lua`, `hostile.rhai`): spinning, spinning inside
//!   `pcall` / `try`, string, table and array bombs, deep recursion, a pattern that
//!   backtracks for ever (Lua), escapes through io, os, require, load, eval...;
//! - C libraries (`hostile.h`, one table per game): segfault, abort, endless loop, stack
//!   overflow, 8 GiB `malloc`, fork, a file written outside and a socket, a thread that
//!   spins for ever, and a framer that writes another entry's number into the blame page
//!   before it crashes.
//!
//! Every hostile bot answers what a bot that only stays answers (and draws no random
//! number), whatever happens to it: so each tournament must be, game for game, the
//! tournament where every hostile entry is a bot of the same name that only stays (the
//! reference, played first). That is the test that no result was forged or lost: the
//! games all played, `failed` empty, the same turns and scores (in hex, but for the
//! documented end of a game whose zombies' side is out: t = 1000). Hex plays every
//! ordered pair, so its corpus plays as tournaments of three hostile bots of a kind
//! beside the honest one. Then: the honest bots
//! never failed a call and were never blamed; each hostile bot is charged with its own
//! true reason; nothing is left behind (no process whose command line holds the
//! tournament's directory, no file written outside its sandbox when there is one).
//! Each game's corpus is played without a sandbox and, where bubblewrap works, with
//! `--sandbox bwrap`. Verdicts are the bots' own time, never wall time: nothing here
//! asserts a duration; each run's wall time is printed.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{compile_c, data, lib_name, plugin_lib, root};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Game {
    Eggs,
    Target,
    Hex,
}

impl Game {
    fn name(self) -> &'static str {
        match self {
            Game::Eggs => "eggs",
            Game::Target => "target",
            Game::Hex => "hex",
        }
    }

    /// The call of a game at which a hostile bot starts to misbehave: the third (two
    /// good calls first), but in hex the first (as the humans, a bot that spawns nobody
    /// has only one call).
    fn trigger(self) -> u32 {
        match self {
            Game::Hex => 1,
            _ => 3,
        }
    }

    /// The honest native bot (a plugin crate built for the tests).
    fn honest_native(self) -> &'static str {
        match self {
            Game::Eggs => "egg-hunter",
            Game::Target => "target-seeker",
            Game::Hex => "hex-basic",
        }
    }

    /// The honest program bot (bundled), and its entry name: eggs' is started every
    /// turn, target's once per copy and game, so that a hostile program that leaves
    /// other programs no process would show. Hex plays every pair of entries, each a
    /// game: a second honest bot would cost more games than it is worth there.
    fn honest_program(self) -> Option<(PathBuf, &'static str)> {
        match self {
            Game::Eggs => Some((root().join("scripts/eggs/py-random.py"), "py-random")),
            Game::Target => Some((root().join("scripts/target/py-random.py"), "py-random")),
            Game::Hex => None,
        }
    }

    /// The honest native bot's entry name.
    fn honest_native_name(self) -> &'static str {
        match self {
            Game::Eggs => "EggHunter",
            Game::Target => "TargetSeeker",
            Game::Hex => "HexBasic",
        }
    }

    /// The tournament's options: few and short games.
    fn options(self) -> &'static [&'static str] {
        match self {
            Game::Eggs => &["--rounds", "2", "--set", "max_turns=6"],
            Game::Target => &["--rounds", "2", "--set", "max_rounds=6"],
            // Every ordered pair once.
            Game::Hex => &["--rounds", "1", "--set", "max_turns=8"],
        }
    }

    /// The limit of one program call, in seconds, as the game keeps it (target: its own
    /// 50 ms after the first answer).
    fn program_limit(self) -> f64 {
        match self {
            Game::Target => 0.05,
            _ => CALL_LIMIT_MS as f64 / 1000.0,
        }
    }
}

/// The limit of one call (own time), in milliseconds.
const CALL_LIMIT_MS: u64 = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Native,
    Program,
    Lua,
    Rhai,
}

/// A hostile entry: its kind and what it does wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hostile {
    kind: Kind,
    behaviour: &'static str,
}

impl Hostile {
    /// The entry's name (and file stem).
    fn name(self) -> String {
        let prefix = match self.kind {
            Kind::Native => "native",
            Kind::Program => "py",
            Kind::Lua => "lua",
            Kind::Rhai => "rhai",
        };
        format!("{prefix}_{}", self.behaviour)
    }
}

const NATIVE: &[&str] =
    &["segfault", "abort", "endless_loop", "stack_overflow", "hog", "fork", "escape", "thread_spin", "frame"];
const PROGRAMS: &[&str] = &[
    "endless",
    "late",
    "flood",
    "garbage",
    "close_stdout",
    "fork_bomb",
    "hog",
    "write_outside",
    "socket",
    "exit",
    "daemon",
    "forger",
];
const LUA: &[&str] = &["spin", "pcall_spin", "string_bomb", "table_bomb", "deep_recursion", "pattern", "escape"];
const RHAI: &[&str] = &["spin", "try_spin", "string_bomb", "array_bomb", "deep_recursion", "escape"];

/// Every hostile entry of a kind.
fn of_kind(kind: Kind) -> Vec<Hostile> {
    let names = match kind {
        Kind::Native => NATIVE,
        Kind::Program => PROGRAMS,
        Kind::Lua => LUA,
        Kind::Rhai => RHAI,
    };
    names.iter().map(|&behaviour| Hostile { kind, behaviour }).collect()
}

/// The whole corpus.
fn every_hostile() -> Vec<Hostile> {
    [Kind::Native, Kind::Program, Kind::Lua, Kind::Rhai].into_iter().flat_map(of_kind).collect()
}

/// Taken by every test here for its whole run, so that they play one at a time: each
/// corpus run measures what its hostile bots cost and what they leave behind, which
/// another test's fork bombs and memory bombs beside it would blur. (Where the host has
/// no `pids` control group, a program's only process cap is RLIMIT_NPROC, which counts
/// every process of its user on the machine: there one test's fork bomb would starve
/// another's programs.)
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn python() -> Option<&'static str> {
    ["/usr/bin/python3", "/usr/local/bin/python3"].into_iter().find(|p| Path::new(p).exists())
}

/// Where one game's corpus lives and what its bots reach for.
struct Setup {
    game: Game,
    /// Unique to this test: every bot's file, and every process they start (the
    /// daemon's command line names it), holds it.
    dir: tempfile::TempDir,
    python: &'static str,
    /// A local port the escaping bots connect to (the test's listener).
    listener: std::net::TcpListener,
    /// The tournaments played.
    hosts: Hosts,
}

impl Setup {
    fn new(game: Game, python: &'static str) -> Setup {
        // ARENA_HOSTILE_KEEP=1 keeps the corpus, its logs and results, to look at.
        let keep = std::env::var_os("ARENA_HOSTILE_KEEP").is_some();
        let dir = tempfile::Builder::new()
            .prefix(&format!("arena-hostile-{}-", game.name()))
            .disable_cleanup(keep)
            .tempdir()
            .unwrap();
        if keep {
            eprintln!("{}: kept in {}", game.name(), dir.path().display());
        }
        // As root, program bots run as `nobody`: their files must be readable by all.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        Setup { game, dir, python, listener, hosts: Hosts::default() }
    }

    /// The marker in every command line of this test's bots.
    fn marker(&self) -> String {
        self.dir.path().display().to_string()
    }

    fn port(&self) -> u16 {
        self.listener.local_addr().unwrap().port()
    }

    /// A file outside every bot's directory that `entry` tries to create when played
    /// with `sandbox`: in `/tmp`, which every user may write to, named after this
    /// test's directory.
    fn outside_path(&self, entry: &str, sandbox: &str) -> PathBuf {
        let unique = self.dir.path().file_name().unwrap().to_string_lossy().into_owned();
        std::env::temp_dir().join(format!("{unique}-outside-{sandbox}-{entry}"))
    }

    /// Connections the listener got (and accepts) so far.
    fn connections(&self) -> usize {
        std::iter::from_fn(|| self.listener.accept().ok()).count()
    }

    /// Writes a corpus in `self.dir/<name>`: the honest bots and `hostile`, each
    /// misbehaving (to be played with `sandbox`) or (`None`), under the same names, only
    /// staying.
    fn corpus(&mut self, name: &str, hostile: &[Hostile], sandbox: Option<&str>) -> Corpus {
        let stand_ins = sandbox.is_none();
        let game = self.game;
        let base = self.dir.path().join(name);
        let corpus = Corpus {
            plugins: base.join("plugins"),
            scripts: base.join("scripts"),
            logs: base.join("logs"),
            hostile: hostile.to_vec(),
            game,
        };
        for d in [&base, &corpus.plugins, &corpus.scripts] {
            std::fs::create_dir_all(d).unwrap();
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let honest = plugin_lib(game.honest_native());
        std::os::unix::fs::symlink(&honest, corpus.plugins.join(honest.file_name().unwrap())).unwrap();
        if let Some((program, _)) = game.honest_program() {
            let copy = corpus.scripts.join(program.file_name().unwrap());
            let text = std::fs::read_to_string(&program).unwrap();
            // The system's python, which starts fast (the first line may name a slow shim).
            let text = text.replacen("#!/usr/bin/env python3", &format!("#!{}", self.python), 1);
            write_executable(&copy, &text);
        }
        let port = self.port().to_string();
        for h in hostile {
            let entry = h.name();
            let outside = match sandbox {
                Some(sandbox) => self.outside_path(&entry, sandbox),
                None => PathBuf::from("/nonexistent"),
            };
            let outside = outside.display().to_string();
            let behaviour = if stand_ins { "stay" } else { h.behaviour };
            let fill = |template: &str| {
                template
                    .replace("@PYTHON@", self.python)
                    .replace("@GAME@", game.name())
                    .replace("@BEHAVIOUR@", behaviour)
                    .replace("@TRIGGER@", &game.trigger().to_string())
                    .replace("@LIMIT@", &game.program_limit().to_string())
                    .replace("@OUTSIDE@", &outside)
                    .replace("@PORT@", &port)
                    .replace("@MARKER@", &self.marker())
            };
            match h.kind {
                Kind::Native => {
                    let mut flags = vec![
                        format!("-DBOT_NAME=\"{entry}\""),
                        format!("-DTARGET_FILE=\"{outside}\""),
                        format!("-DPORT={port}"),
                        "-pthread".to_owned(),
                    ];
                    if !stand_ins {
                        flags.push(format!("-D{}", h.behaviour.to_uppercase()));
                    }
                    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
                    let source = data(&format!("hostile/{}.c", game.name()));
                    compile_c(&source, &corpus.plugins.join(lib_name(&entry)), &flags);
                }
                Kind::Program => {
                    let text = fill(&std::fs::read_to_string(data("hostile/hostile.py")).unwrap());
                    write_executable(&corpus.scripts.join(format!("{entry}.py")), &text);
                }
                Kind::Lua => {
                    let text = fill(&std::fs::read_to_string(data("hostile/hostile.lua")).unwrap());
                    std::fs::write(corpus.scripts.join(format!("{entry}.lua")), text).unwrap();
                }
                Kind::Rhai => {
                    let text = fill(&std::fs::read_to_string(data("hostile/hostile.rhai")).unwrap());
                    std::fs::write(corpus.scripts.join(format!("{entry}.rhai")), text).unwrap();
                }
            }
        }
        corpus
    }
}

impl Drop for Setup {
    /// Removes what the escaping bots wrote in /tmp, even when a check failed.
    fn drop(&mut self) {
        let unique = self.dir.path().file_name().unwrap().to_string_lossy().into_owned();
        let prefix = format!("{unique}-outside-");
        for f in std::fs::read_dir(std::env::temp_dir()).into_iter().flatten().flatten() {
            if f.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(f.path());
            }
        }
    }
}

fn write_executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// One tournament's bots.
struct Corpus {
    plugins: PathBuf,
    scripts: PathBuf,
    logs: PathBuf,
    hostile: Vec<Hostile>,
    game: Game,
}

impl Corpus {
    /// Plays the tournament (`sandbox`: none or bwrap); its results, and its stdout.
    fn play(&self, sandbox: &str, label: &str, hosts: &Hosts) -> (serde_json::Value, String) {
        let json = self.logs.with_file_name(format!("results-{sandbox}.json"));
        let started = Instant::now();
        let child = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["--game", self.game.name(), "--plugins"])
            .arg(&self.plugins)
            .arg("--scripts")
            .arg(&self.scripts)
            .arg("--logs")
            .arg(&self.logs)
            .args(["--call-timeout-ms", &CALL_LIMIT_MS.to_string(), "--op-budget", "100000", "--memory-mib", "16"])
            .args(["--sandbox", sandbox, "tournament", "--seed", "7", "--jobs", "2"])
            .args(["--time-bank", "3", "--time-per-turn", "0.3"])
            .args(self.game.options())
            .arg("--json")
            .arg(&json)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let host = child.id();
        let out = child.wait_with_output().unwrap();
        let took = started.elapsed();
        hosts.ran(host);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        eprintln!("{} {label} --sandbox {sandbox}: {:.1} s of wall time", self.game.name(), took.as_secs_f64());
        assert_eq!(out.status.code(), Some(0), "{label} --sandbox {sandbox}:\n{stdout}\n{stderr}");
        assert!(!stderr.contains("skipped"), "{label}: an entry was not loaded:\n{stderr}");
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        (v, stdout.into_owned())
    }

    /// An entry's log.
    fn log(&self, entry: &str) -> String {
        std::fs::read_to_string(self.logs.join(format!("{entry}.log"))).unwrap_or_default()
    }
}

fn standing<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["leaderboard"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("{name}: {v}"))
}

/// What decides a game: its index, seed, seats, turns, scores and tie-break.
fn games(v: &serde_json::Value) -> Vec<String> {
    v["games"].as_array().unwrap().iter().map(decided).collect()
}

fn decided(g: &serde_json::Value) -> String {
    format!("{} {} {} {} {} {}", g["index"], g["seed"], g["seats"], g["turns"], g["scores"], g["tiebreak"])
}

/// The games `reference` says the hostile tournament `v` must have played: the same,
/// but in hex, where a side that is out of a game (disqualified) loses its clock
/// (docs/games/hex.md): zombies out end the game at t = 1000, the humans scoring 1000.
/// (Humans out all die; but a hostile bot never spawned any, so that changes nothing.)
fn expected_games(game: Game, reference: &serde_json::Value, v: &serde_json::Value) -> Vec<String> {
    let mut expected = Vec::new();
    for (r, g) in reference["games"].as_array().unwrap().iter().zip(v["games"].as_array().unwrap()) {
        let mut r = r.clone();
        if game == Game::Hex {
            let (humans, zombies) = (r["seats"][0].clone(), r["seats"][1].clone());
            let zombies = zombies.as_str().unwrap();
            if g["stats"][zombies]["disqualified"].as_u64().is_some_and(|d| d > 0) {
                r["turns"] = 1000.into();
                r["scores"][humans.as_str().unwrap()] = 1000.into();
                r["scores"][zombies] = 0.into();
            }
        }
        expected.push(decided(&r));
    }
    expected
}

/// Whether a process whose command line holds `marker` is running (a dying one is
/// given some seconds to go: a kill is not instant).
fn left_behind(marker: &str) -> Option<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let out = Command::new("pgrep").args(["-a", "-f", marker]).output().unwrap();
        let found = String::from_utf8_lossy(&out.stdout).into_owned();
        if found.trim().is_empty() {
            return None;
        }
        if Instant::now() > deadline {
            return Some(found);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// What a hostile entry is charged with: its counters as the variant says, and every
/// message of its standing naming one of the causes.
#[derive(Debug, Clone, Copy)]
enum Charge {
    /// Out of every game it reached its misbehaving call in (eggs, target: every game;
    /// hex: at least one).
    Out(&'static [&'static str]),
    /// Errors (and no disqualification).
    Errors(&'static [&'static str]),
    /// Overruns (and no disqualification).
    Overruns(&'static [&'static str]),
    /// Errors or overruns, whichever stops it first (no disqualification).
    Fails(&'static [&'static str]),
    /// Errors or overruns, and out of the game or not (three overruns in a row put a
    /// program out, if the game goes on long enough after them).
    FailsOrOut(&'static [&'static str]),
    /// Nothing: its harm is outside the game (processes, files, the network), checked
    /// there; its calls all answered.
    Clean,
    /// Nothing, but for a program that forks in a call: on a loaded machine, overruns
    /// of that call (never out). The run-queue waits of a process it forks and reaps
    /// within one call are never seen by the host, so they count as its own time
    /// (docs/hardening.md).
    CleanOrLate,
    /// Never out, no overrun: at most one error a game, reporting what it left running
    /// at the end of a game it played in a process of its own (lockstep: which of its
    /// games those are depends on the thread that drew them).
    Leftovers,
}

impl Charge {
    /// The causes its messages may name.
    fn causes(self) -> &'static [&'static str] {
        match self {
            Charge::Out(c) | Charge::Errors(c) | Charge::Overruns(c) | Charge::Fails(c) | Charge::FailsOrOut(c) => c,
            Charge::Clean => &[],
            Charge::CleanOrLate => &["over its time limit"],
            Charge::Leftovers => &[LEFT_RUNNING],
        }
    }
}

/// What an entry that left processes or threads running at a game's end is told.
const LEFT_RUNNING: &str = "left running at the end of the game (ended with it)";

/// The true reason each hostile entry must be charged with in `game`.
fn charge(game: Game, h: Hostile) -> Charge {
    use Charge::*;
    const HUNG: &[&str] = &["hung in a call past its time limit"];
    match (h.kind, h.behaviour) {
        (Kind::Native, "segfault" | "frame" | "hog") => Out(&["SIGSEGV"]),
        (Kind::Native, "abort") => Out(&["SIGABRT"]),
        // Rust's handler aborts when the overflow meets the stack's guard page; a C frame
        // of 4 KiB may step over it into unmapped memory: a plain segmentation fault.
        (Kind::Native, "stack_overflow") => Out(&["SIGABRT", "SIGSEGV"]),
        (Kind::Native, "endless_loop") => Out(HUNG),
        (Kind::Native, "fork" | "thread_spin") => Leftovers,
        (Kind::Native, _) => Clean,
        // Three calls over the limit in a row put a program out; but a target program
        // misses the game's own 50 ms, which does not count towards that.
        (Kind::Program, "endless") if game == Game::Target => Overruns(&["over its time limit"]),
        (Kind::Program, "endless") => Out(&["over its time limit"]),
        (Kind::Program, "late") => Overruns(&["over its time limit"]),
        // The rest of its 100 MB then holds up its next answers.
        (Kind::Program, "flood") => FailsOrOut(&["answer too long", "over its time limit"]),
        (Kind::Program, "garbage") => Errors(&["garbage answer", "invalid answer"]),
        (Kind::Program, "close_stdout") => Errors(&["closed its stdout"]),
        (Kind::Program, "hog") => Errors(&["exit status 1"]),
        (Kind::Program, "exit") => Errors(&["exit status 0"]),
        (Kind::Program, "daemon") => CleanOrLate,
        (Kind::Program, _) => Clean,
        (Kind::Lua, "spin" | "pcall_spin") => Overruns(&["instruction budget"]),
        // The memory cap, or the instruction budget first (the table is kept from call
        // to call).
        (Kind::Lua, "string_bomb" | "table_bomb") => Overruns(&["memory limit", "instruction budget"]),
        (Kind::Lua, "deep_recursion") => Fails(&["instruction budget", "memory limit", "stack overflow"]),
        (Kind::Lua, "pattern") => Out(HUNG),
        (Kind::Lua, _) => Errors(&["attempt to"]),
        (Kind::Rhai, "spin" | "try_spin") => Overruns(&["instruction budget"]),
        (Kind::Rhai, "string_bomb" | "array_bomb") => Overruns(&["memory limit"]),
        (Kind::Rhai, "deep_recursion") => Errors(&["Stack overflow"]),
        (Kind::Rhai, _) => Errors(&["Function not found", "reserved keyword"]),
    }
}

/// Checks that `s`, the standing of hostile entry `h`, carries its own true reason and
/// nothing else.
fn check_charge(game: Game, h: Hostile, s: &serde_json::Value, games: u64, sandbox: &str) {
    let n = |key: &str| s[key].as_u64().unwrap_or_else(|| panic!("{key}: {s}"));
    let (errors, overruns, out) = (n("errors"), n("overruns"), n("disqualified"));
    let context = format!("{} --sandbox {sandbox}: {}: {s}", game.name(), h.name());
    let messages: Vec<&str> = s["messages"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    // On a machine so loaded that a bot spending its time waited 20 times its limit
    // plus 5 s for a CPU, the wall-clock backstop ends the call instead
    // (docs/hardening.md): the entry is then out, "of wall-clock time".
    const BACKSTOP: &str = "s of wall-clock time; its limit";
    if spends_time(h) && messages.iter().any(|m| m.contains(BACKSTOP)) {
        eprintln!("{context}: stopped by the wall-clock backstop (a machine this loaded)");
        assert!(out >= 1, "{context}");
        // Its other games may have ended the usual way: charged with its own cause.
        let own = charge(game, h).causes();
        let causes = [BACKSTOP, "over its time limit", "instruction budget", "answer too long"];
        for m in &messages {
            assert!(causes.iter().chain(own).any(|c| m.contains(c)), "charged with {m:?}: {context}");
        }
        return;
    }
    let charged = charge(game, h);
    match charged {
        Charge::Out(_) => {
            if game == Game::Hex {
                assert!(out >= 1, "not disqualified: {context}");
            } else {
                assert_eq!(out, games, "not disqualified in every game: {context}");
            }
        }
        Charge::Errors(_) => {
            assert!(errors >= 1 && out == 0, "{context}");
        }
        Charge::Overruns(_) => {
            assert!(overruns >= 1 && out == 0, "{context}");
        }
        Charge::Fails(_) => {
            assert!(errors + overruns >= 1 && out == 0, "{context}");
        }
        Charge::FailsOrOut(_) => {
            assert!(errors + overruns >= 1, "{context}");
        }
        Charge::Clean => {
            assert_eq!((errors, overruns, out), (0, 0, 0), "{context}");
        }
        Charge::CleanOrLate => {
            assert_eq!((errors, out), (0, 0), "{context}");
            if overruns > 0 {
                eprintln!("{context}: charged the waits of what it forked (a loaded machine)");
            }
        }
        Charge::Leftovers => {
            assert!(errors <= games && (overruns, out) == (0, 0), "{context}");
        }
    }
    let causes = charged.causes();
    for m in messages {
        assert!(causes.iter().any(|c| m.contains(c)), "charged with {m:?}, not one of {causes:?}: {context}");
    }
}

/// The hostile entries whose harm is to spend time (and so may meet the wall-clock
/// backstop on a very loaded machine).
fn spends_time(h: Hostile) -> bool {
    matches!(
        (h.kind, h.behaviour),
        (Kind::Native, "endless_loop")
            | (Kind::Program, "endless" | "late" | "flood")
            | (Kind::Lua, "spin" | "pcall_spin" | "pattern")
            | (Kind::Rhai, "spin" | "try_spin")
    )
}

/// The numbers a log's lines `"{prefix} N"` give.
fn counts(log: &str, prefix: &str) -> Vec<u64> {
    log.lines().filter_map(|l| l.strip_prefix(prefix)).filter_map(|n| n.trim().parse().ok()).collect()
}

/// Checks what the hostile entries that do their harm outside the game left in their
/// logs, on the file system and on the network.
fn check_outside(setup: &Setup, corpus: &Corpus, sandbox: &str, connections: usize) {
    let game = corpus.game.name();
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let capped = arena::process::ProcessCap::new(8).is_ok();
    let mut wrote = Vec::new();
    for &h in &corpus.hostile {
        let name = h.name();
        let log = corpus.log(&name);
        let context = format!("{game} --sandbox {sandbox}: {name}'s log:\n{log}");
        match (h.kind, h.behaviour) {
            (Kind::Native, "fork") => {
                let forked = counts(&log, "forked ");
                assert!(!forked.is_empty(), "{context}");
                if root && capped {
                    // The worker's process cap (1024) stops it.
                    assert!(forked.iter().all(|&n| n < 1024), "{context}");
                }
            }
            (Kind::Native, "thread_spin") => assert!(log.contains("spinning"), "{context}"),
            (Kind::Program, "fork_bomb") => {
                let forked = counts(&log, "forked ");
                assert!(!forked.is_empty(), "{context}");
                if root {
                    // Its own process cap (256) stops it.
                    assert!(forked.iter().all(|&n| n < 256), "{context}");
                }
            }
            (Kind::Program, "hog") => assert!(log.contains("MemoryError"), "{context}"),
            (Kind::Program, "daemon") => assert!(log.contains("daemon started"), "{context}"),
            (Kind::Program, "forger") => {
                // No descriptor of the host's (or its worker's) reached the program.
                assert!(!counts(&log, "descriptors written: ").is_empty(), "{context}");
                assert!(counts(&log, "descriptors written: ").iter().all(|&n| n == 0), "{context}");
            }
            (Kind::Native | Kind::Program, "escape" | "write_outside") => {
                assert!(log.contains("write: "), "{context}");
                // In its box the file system is read-only but for a private /tmp: a
                // write there, if any, never reaches the host's (`wrote` below).
                if sandbox == "bwrap" {
                    assert!(log.contains("write: refused") || log.contains("write: done"), "{context}");
                }
            }
            _ => {}
        }
        if matches!((h.kind, h.behaviour), (Kind::Native, "escape") | (Kind::Program, "socket")) {
            assert!(log.contains("connect: "), "{context}");
            if sandbox == "bwrap" {
                assert!(log.contains("connect: refused"), "{context}");
            }
        }
        let outside = setup.outside_path(&name, sandbox);
        if outside.exists() {
            wrote.push(name.clone());
            std::fs::remove_file(&outside).unwrap();
        }
    }
    if sandbox == "bwrap" {
        // No network, a read-only file system.
        assert_eq!(connections, 0, "{game} --sandbox bwrap: a bot connected to the test's port");
        assert!(wrote.is_empty(), "{game} --sandbox bwrap: {wrote:?} wrote outside their directory");
    } else {
        // Scripts have no file access at all; native and program bots run as a user
        // (`nobody` for programs when the host is root) who may write to /tmp, and have
        // the network: without a sandbox nothing stops them (docs/hardening.md).
        assert!(
            wrote.iter().all(|n| n.starts_with("native_") || n.starts_with("py_")),
            "{game}: a script wrote outside: {wrote:?}"
        );
        eprintln!(
            "{game} --sandbox none: written in /tmp (allowed without a sandbox): {wrote:?}; connections to the \
             test's port: {connections}"
        );
    }
}

/// Plays `groups` of hostile entries of `game` (each group a tournament beside the
/// honest bots) with `sandbox`, and checks everything against the reference.
fn hostile_corpus(game: Game, groups: &[Vec<Hostile>], sandbox: &str) {
    // The references (stand-ins that only stay) play before the lock where each box has
    // a uid and a `pids` group of its own: they run no hostile bot, and the lock keeps
    // the other test thread waiting. Elsewhere a neighbour's fork bomb could starve
    // their programs (RLIMIT_NPROC is per user), so they play under it.
    let early = (!boxed_apart()).then(one_at_a_time);
    let Some(python) = python() else { return crate::util::skip("skipped: no /usr/bin/python3") };
    if sandbox == "bwrap"
        && let Err(why) = arena::process::bwrap_available()
    {
        return crate::util::skip(&format!("{}: --sandbox bwrap skipped: {why}", game.name()));
    }
    let honest: Vec<&str> =
        std::iter::once(game.honest_native_name()).chain(game.honest_program().map(|(_, name)| name)).collect();
    let mut setup = Setup::new(game, python);
    let started = Instant::now();
    let references: Vec<serde_json::Value> = groups
        .iter()
        .enumerate()
        .map(|(g, hostile)| {
            setup.corpus(&format!("reference-{g}"), hostile, None).play("none", "reference", &setup.hosts).0
        })
        .collect();
    let _one = early.unwrap_or_else(one_at_a_time);
    for ((g, hostile), expected) in groups.iter().enumerate().zip(references) {
        let games_played = expected["played"].as_u64().unwrap();
        let corpus = setup.corpus(&format!("hostile-{g}"), hostile, Some(sandbox));
        let (v, stdout) = corpus.play(sandbox, "hostile", &setup.hosts);
        let context = format!("{} --sandbox {sandbox}:\n{stdout}", game.name());
        // No result forged or lost: every game played, and each the reference's.
        assert_eq!(v["played"], games_played, "{context}");
        assert!(v.get("failed").is_none_or(|f| f.as_array().is_some_and(Vec::is_empty)), "{context}");
        assert_eq!(games(&v), expected_games(game, &expected, &v), "the games differ from the reference: {context}");
        for s in v["leaderboard"].as_array().unwrap() {
            assert_eq!(s["lost"], 0, "{context}");
        }
        // The honest bots never failed a call and were never blamed, in any game.
        for &name in &honest {
            let s = standing(&v, name);
            assert!(s["calls"].as_u64().unwrap() > 0, "{name}: {context}");
            let counted = (s["errors"].as_u64(), s["overruns"].as_u64(), s["disqualified"].as_u64());
            assert_eq!(counted, (Some(0), Some(0), Some(0)), "{name}: {s}\n{context}");
            assert_eq!(s["messages"].as_array().map_or(0, Vec::len), 0, "{name} was blamed: {context}");
        }
        // A crash costs only the crasher: each hostile entry is charged with its own
        // true reason.
        for &h in hostile {
            let s = standing(&v, &h.name());
            check_charge(game, h, s, s["games"].as_u64().unwrap(), sandbox);
        }
        check_outside(&setup, &corpus, sandbox, setup.connections());
        // Nothing left running.
        if let Some(found) = left_behind(&setup.marker()) {
            panic!("{} --sandbox {sandbox}: left running:\n{found}", game.name());
        }
    }
    eprintln!(
        "{} --sandbox {sandbox}: {} tournament(s) and their references: {:.1} s of wall time in all",
        game.name(),
        groups.len(),
        started.elapsed().as_secs_f64()
    );
}

/// A hex tournament plays every ordered pair of entries: the whole corpus in one would
/// be 1,190 games (and one tournament per kind, 9 to 14 entries, 72 to 182), so it plays
/// as tournaments of three hostile bots of a kind beside the honest one: 12 games each,
/// 6 of them against the honest bot (the others end at once: a hostile humans' side
/// spawns nobody).
fn hex_groups() -> Vec<Vec<Hostile>> {
    [Kind::Native, Kind::Program, Kind::Lua, Kind::Rhai]
        .into_iter()
        .flat_map(|kind| of_kind(kind).chunks(3).map(<[Hostile]>::to_vec).collect::<Vec<_>>())
        .collect()
}

#[test]
fn eggs_hostile_corpus() {
    hostile_corpus(Game::Eggs, &[every_hostile()], "none");
}

#[test]
fn eggs_hostile_corpus_under_bwrap() {
    hostile_corpus(Game::Eggs, &[every_hostile()], "bwrap");
}

#[test]
fn target_hostile_corpus() {
    hostile_corpus(Game::Target, &[every_hostile()], "none");
}

#[test]
fn target_hostile_corpus_under_bwrap() {
    hostile_corpus(Game::Target, &[every_hostile()], "bwrap");
}

#[test]
fn hex_hostile_corpus() {
    hostile_corpus(Game::Hex, &hex_groups(), "none");
}

#[test]
fn hex_hostile_corpus_under_bwrap() {
    hostile_corpus(Game::Hex, &hex_groups(), "bwrap");
}

/// The host's `pids` control group directory (cgroup v1's `pids` hierarchy, or the v2
/// root when it offers `pids`), where it makes the groups of its workers and programs.
fn pids_base() -> Option<PathBuf> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "pids") {
            return Some(Path::new("/sys/fs/cgroup/pids").join(path)).filter(|d| d.is_dir());
        }
        if controllers.is_empty() {
            let root = Path::new("/sys/fs/cgroup");
            let offered = std::fs::read_to_string(root.join("cgroup.controllers")).unwrap_or_default();
            if offered.split_whitespace().any(|c| c == "pids") {
                return Some(root.join(path)).filter(|d| d.is_dir());
            }
        }
    }
    None
}

/// The control groups the host `pid` made that are still there (it has ended: any is
/// left behind).
fn leftover_groups(pid: u32) -> Vec<PathBuf> {
    let Some(base) = pids_base() else { return Vec::new() };
    let prefix = format!("arena-{pid}-");
    let mut found: Vec<PathBuf> = std::fs::read_dir(base)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// Removes an empty control group and the empty groups in it.
/// Removes a control group and the groups in it; with `kill`, after killing what is
/// left in them (processes our own runs left behind).
fn remove_group(group: &Path, kill: bool) {
    for e in std::fs::read_dir(group).into_iter().flatten().flatten() {
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            remove_group(&e.path(), kill);
        }
    }
    for _ in 0..300 {
        if std::fs::remove_dir(group).is_ok() || !kill {
            return;
        }
        let procs = std::fs::read_to_string(group.join("cgroup.procs")).unwrap_or_default();
        for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
            // SAFETY: a plain syscall, on a process our own tournament left behind.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The hosts run by a test: the control groups they left behind (a host defect, see
/// `a_worker_killed_in_a_game_leaves_no_control_group_behind`) are removed when it is
/// dropped, and what is still in them killed, even when a check failed.
#[derive(Default)]
struct Hosts {
    pids: std::cell::RefCell<Vec<u32>>,
    /// The groups each host left when it ended ("arena-H-N", "arena-H-N/arena-W-K").
    left: std::cell::RefCell<Vec<String>>,
}

impl Hosts {
    /// Host `pid` has ended.
    fn ran(&self, pid: u32) {
        self.pids.borrow_mut().push(pid);
        let left = leftover_groups(pid);
        self.left.borrow_mut().extend(describe_groups(&left));
        // The empty ones at once: every later run would spend half a second on each.
        for group in left {
            remove_group(&group, false);
        }
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        for &pid in self.pids.borrow().iter() {
            for group in leftover_groups(pid) {
                remove_group(&group, true);
            }
        }
    }
}

/// `groups` and the groups in them, as "arena-H-N" and "arena-H-N/arena-W-K".
fn describe_groups(groups: &[PathBuf]) -> Vec<String> {
    let mut out = Vec::new();
    for g in groups {
        let name = g.file_name().unwrap().to_string_lossy().into_owned();
        out.push(name.clone());
        for e in std::fs::read_dir(g).into_iter().flatten().flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                out.push(format!("{name}/{}", e.file_name().to_string_lossy()));
            }
        }
    }
    out
}

/// An eggs tournament in `dir` (one thread, two games) of the honest egg hunter, the
/// hostile C bots `natives` (`hostile/eggs.c` built with `-D{NATIVE}`), the hostile
/// program bots `programs` (misbehaving from their call `trigger`) and, with
/// `honest_program`, the bundled `py-random.py` (a process started every turn); its
/// results.
fn small_eggs(
    dir: &Path,
    hosts: &Hosts,
    natives: &[&str],
    (programs, trigger): (&[&str], u32),
    honest_program: bool,
    sandbox: &str,
) -> serde_json::Value {
    let py = python().unwrap_or("/usr/bin/python3");
    // The callers hold `one_at_a_time()`.
    let (plugins, scripts) = (dir.join("plugins"), dir.join("scripts"));
    for d in [dir, &plugins, &scripts] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let honest = plugin_lib("egg-hunter");
    std::os::unix::fs::symlink(&honest, plugins.join(honest.file_name().unwrap())).unwrap();
    for native in natives {
        let entry = format!("native_{}", native.to_lowercase());
        let name = format!("-DBOT_NAME=\"{entry}\"");
        compile_c(&data("hostile/eggs.c"), &plugins.join(lib_name(&entry)), &[&format!("-D{native}"), &name]);
    }
    for behaviour in programs {
        let text = std::fs::read_to_string(data("hostile/hostile.py")).unwrap();
        let text = text
            .replace("@PYTHON@", py)
            .replace("@GAME@", "eggs")
            .replace("@BEHAVIOUR@", behaviour)
            .replace("@TRIGGER@", &trigger.to_string())
            .replace("@LIMIT@", "0.4")
            .replace("@OUTSIDE@", "/nonexistent/x")
            .replace("@PORT@", "9")
            .replace("@MARKER@", &dir.display().to_string());
        write_executable(&scripts.join(format!("py_{behaviour}.py")), &text);
    }
    if honest_program {
        let text = std::fs::read_to_string(root().join("scripts/eggs/py-random.py")).unwrap();
        write_executable(
            &scripts.join("py-random.py"),
            &text.replacen("#!/usr/bin/env python3", &format!("#!{py}"), 1),
        );
    }
    let json = dir.join("r.json");
    let child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["--game", "eggs", "--plugins"])
        .arg(&plugins)
        .arg("--scripts")
        .arg(&scripts)
        .arg("--logs")
        .arg(dir.join("logs"))
        .args(["--sandbox", sandbox, "tournament", "--rounds", "2", "--seed", "3", "--jobs", "1"])
        .args(["--set", "max_turns=6", "--json"])
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let host = child.id();
    let out = child.wait_with_output().unwrap();
    hosts.ran(host);
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

/// Whether each box has a uid and a `pids` control group of its own (a root host with
/// a `pids` group).
fn boxed_apart() -> bool {
    // SAFETY: geteuid cannot fail.
    (unsafe { libc::geteuid() }) == 0 && pids_base().is_some()
}

/// Skips (with a line saying why) a test that needs root, a pids control group and the
/// system's python.
fn needs_root_and_groups() -> bool {
    let ok = boxed_apart() && python().is_some();
    if !ok {
        crate::util::skip("skipped: needs root, a pids control group and /usr/bin/python3");
    }
    ok
}

/// An eggs tournament of the honest bots, a program bot that fork-bombs at its third
/// call and one that runs a helper process at every call, under `sandbox`: the helper's
/// runs after the bomb (the bomb plays first in each turn) must all be allowed.
fn fork_bomb_beside_a_program_that_forks(sandbox: &str) {
    let _one = one_at_a_time();
    if !needs_root_and_groups() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let hosts = Hosts::default();
    let v = small_eggs(dir.path(), &hosts, &[], (&["fork_bomb", "helper"], 3), true, sandbox);
    let bomb = std::fs::read_to_string(dir.path().join("logs/py_fork_bomb.log")).unwrap_or_default();
    assert!(counts(&bomb, "forked ").iter().all(|&n| n < 256), "{bomb}");
    let helper = std::fs::read_to_string(dir.path().join("logs/py_helper.log")).unwrap_or_default();
    assert_eq!(helper.matches("helper: ran").count(), 12, "starved by another program's fork bomb: {helper}");
    for name in ["py_helper", "py-random", "EggHunter"] {
        let s = standing(&v, name);
        assert_eq!((s["errors"].as_u64(), s["overruns"].as_u64()), (Some(0), Some(0)), "{name}: {s}");
    }
}

#[test]
fn a_fork_bomb_does_not_starve_another_program() {
    fork_bomb_beside_a_program_that_forks("none");
}

#[test]
fn a_fork_bomb_does_not_starve_another_program_under_bwrap() {
    if arena::process::bwrap_available().is_err() {
        return crate::util::skip("skipped: no bwrap");
    }
    fork_bomb_beside_a_program_that_forks("bwrap");
}

/// The forking C bot forks up to its worker's cap, beside the egg hunter and a program
/// that starts a process every turn, all in one worker: the program still starts and
/// forks (its group and the worker's are siblings, and it is forked from its worker's
/// room for programs).
fn a_native_forker_beside_a_program(sandbox: &str) {
    let _one = one_at_a_time();
    if !needs_root_and_groups() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let hosts = Hosts::default();
    let v = small_eggs(dir.path(), &hosts, &["FORK"], (&[], 3), true, sandbox);
    let log = std::fs::read_to_string(dir.path().join("logs/native_fork.log")).unwrap_or_default();
    assert!(!counts(&log, "forked ").is_empty(), "{log}");
    let s = standing(&v, "py-random");
    assert_eq!((s["errors"].as_u64(), s["overruns"].as_u64()), (Some(0), Some(0)), "starved: {s}");
}

#[test]
fn a_native_bot_that_forks_to_its_workers_cap_does_not_starve_the_programs_beside_it() {
    a_native_forker_beside_a_program("none");
}

#[test]
fn a_native_bot_that_forks_to_its_workers_cap_does_not_starve_the_programs_beside_it_under_bwrap() {
    if arena::process::bwrap_available().is_err() {
        return crate::util::skip("skipped: no bwrap");
    }
    a_native_forker_beside_a_program("bwrap");
}

/// A program that its worker starts (the games have a native bot) and that writes its
/// answer with `splice`, `tee`, `vmsplice` or `sendfile` (which would leave its stdout's
/// stamp as it was) finds each refused (`EINVAL`), and `io_uring` too (`ENOSYS`); it
/// answers with `write` instead and loses nothing.
fn a_program_that_writes_its_answer_unstamped(sandbox: &str) {
    let _one = one_at_a_time();
    if python().is_none() {
        return crate::util::skip("skipped: needs /usr/bin/python3");
    }
    let dir = tempfile::tempdir().unwrap();
    let hosts = Hosts::default();
    let v = small_eggs(dir.path(), &hosts, &[], (&["splice"], 2), false, sandbox);
    let log = std::fs::read_to_string(dir.path().join("logs/py_splice.log")).unwrap_or_default();
    let lines = |line: &str| log.lines().filter(|l| *l == line).count();
    let tries = log.lines().filter(|l| l.starts_with("splice: ")).count();
    assert!(tries >= 1, "{log}");
    // EINVAL, on which libraries fall back to `write`; io_uring's ENOSYS.
    for line in ["splice: refused 22", "tee: refused 22", "vmsplice: refused 22", "sendfile: refused 22"] {
        assert_eq!(lines(line), tries, "{line}: {log}");
    }
    assert_eq!(lines("io_uring_setup: refused 38"), tries, "{log}");
    assert!(!log.contains(": wrote") && !log.contains("set up"), "{log}");
    let s = standing(&v, "py_splice");
    assert_eq!((s["errors"].as_u64(), s["overruns"].as_u64()), (Some(0), Some(0)), "{s}");
    assert_eq!(s["disqualified"], 0, "{s}");
}

#[test]
fn a_program_in_a_worker_cannot_write_its_answer_by_splice() {
    a_program_that_writes_its_answer_unstamped("none");
}

#[test]
fn a_program_in_a_worker_cannot_write_its_answer_by_splice_under_bwrap() {
    if arena::process::bwrap_available().is_err() {
        return crate::util::skip("skipped: no bwrap");
    }
    a_program_that_writes_its_answer_unstamped("bwrap");
}

#[test]
fn a_worker_killed_in_a_game_leaves_no_process_of_its_programs_behind() {
    let _one = one_at_a_time();
    if !needs_root_and_groups() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let hosts = Hosts::default();
    // The program forks its children at its first call; the C bot crashes the worker
    // at its third.
    let v = small_eggs(dir.path(), &hosts, &["SEGFAULT"], (&["fork_bomb"], 1), false, "none");
    assert_eq!(standing(&v, "native_segfault")["disqualified"], 2, "{v}");
    let bomb = std::fs::read_to_string(dir.path().join("logs/py_fork_bomb.log")).unwrap_or_default();
    assert!(counts(&bomb, "forked ").iter().any(|&n| n > 0), "{bomb}");
    if let Some(found) = left_behind(&dir.path().display().to_string()) {
        let n = found.lines().count();
        panic!("{n} processes left running, e.g.:\n{}", found.lines().take(3).collect::<Vec<_>>().join("\n"));
    }
}

#[test]
fn a_worker_killed_in_a_game_leaves_no_control_group_behind() {
    let _one = one_at_a_time();
    if !needs_root_and_groups() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let hosts = Hosts::default();
    // The program plays in the worker, beside a C bot that crashes it at its third call.
    let v = small_eggs(dir.path(), &hosts, &["SEGFAULT"], (&["stay"], 3), false, "none");
    assert_eq!(standing(&v, "native_segfault")["disqualified"], 2, "{v}");
    let left = hosts.left.borrow();
    assert!(left.is_empty(), "control groups left behind: {left:?}");
}

#[test]
fn a_native_bot_that_crashes_keeps_the_log_lines_it_wrote_before() {
    let _one = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let hosts = Hosts::default();
    // At its third call it logs whether it got 8 GiB (refused under the worker's memory
    // cap), then writes through the null pointer it got.
    let v = small_eggs(dir.path(), &hosts, &["HOG"], (&[], 3), false, "none");
    let hog = standing(&v, "native_hog");
    assert_eq!(hog["disqualified"], 2, "{hog}");
    assert!(hog["messages"].to_string().contains("SIGSEGV"), "{hog}");
    let log = std::fs::read_to_string(dir.path().join("logs/native_hog.log")).unwrap_or_default();
    // Every play it crashed in keeps its line, each followed by the host's note: the
    // first game twice (its play beside everyone, stopped, then its play in lockstep),
    // the second once (in lockstep from the start).
    let plays = log.matches("--- game seed").count();
    assert!(plays >= 2, "{log:?}");
    assert_eq!(log.matches("8 GiB: refused").count(), plays, "one line per play: {log:?}");
    assert_eq!(log.matches("[this play was stopped here").count(), plays, "{log:?}");
}
