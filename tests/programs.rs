//! Program bots: the process layer (limits, deadlines, late answers, no leaks) and each
//! game's text protocol, end to end through discovery and games.

mod common;
mod process;
mod run_once;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use arena::abi::eggs::EggsAnswer;
use arena::bot::EntryKind;
use arena::games::eggs::{self, Eggs};
use arena::games::zombies::{self, Zombies};
use arena::loaders::{ScriptLimits, SearchPaths, discover};
use arena::tournament::play_game;
use rand::SeedableRng;

/// Writes an executable script `name` into `dir` (which it makes readable by all: as
/// root, program bots run as `nobody`).
fn program(dir: &Path, name: &str, text: &str) {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn limits(timeout_ms: u64) -> ScriptLimits {
    ScriptLimits { call_timeout: std::time::Duration::from_millis(timeout_ms), ..ScriptLimits::default() }
}

fn python() -> Option<&'static str> {
    ["/usr/bin/python3", "/usr/local/bin/python3"].into_iter().find(|p| Path::new(p).exists())
}

const SEED_BOT: &str = r#"import sys
view = [sys.stdin.readline().rstrip("\n") for _ in range(5)]
memory = sys.stdin.readline().rstrip("\n")
n = int(memory or "0") + 1
print(4 if n % 2 else 8)
print("N")
print(n)
"#;

#[test]
fn an_eggs_program_plays_the_seed_protocol_once_per_turn_and_keeps_its_memory() {
    let Some(py) = python() else { return crate::util::skip("skipped: no python3") };
    let dir = tempfile::tempdir().unwrap();
    program(dir.path(), "counter.py", &format!("#!{py}\n# arena: eggs\n{SEED_BOT}"));
    let found = discover::<Eggs>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits(2000));
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    assert_eq!(found.entries[0].kind, EntryKind::Program);
    let out = play_game(&found.entries, 5, &eggs::Config { max_turns: Some(6) });
    assert_eq!(out.turns, 6);
    assert_eq!((out.stats[0].calls, out.stats[0].errors), (6, 0), "{:?}", out.stats[0].messages);
}

#[test]
fn a_persistent_eggs_program_answers_three_lines_per_call() {
    let Some(py) = python() else { return crate::util::skip("skipped: no python3") };
    let dir = tempfile::tempdir().unwrap();
    let body = r#"import sys
while True:
    rows = [sys.stdin.readline() for _ in range(6)]
    if not rows[-1]:
        break
    print("9"); print("C"); print(rows[5].strip() + "x")
"#;
    program(dir.path(), "steady.py", &format!("#!{py}\n# arena: eggs persistent\n{body}"));
    let found = discover::<Eggs>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits(2000));
    let out = play_game(&found.entries, 1, &eggs::Config { max_turns: Some(20) });
    assert_eq!((out.stats[0].calls, out.stats[0].errors), (20, 0), "{:?}", out.stats[0].messages);
}

#[test]
fn eggs_programs_that_hang_crash_or_print_garbage_cost_one_error_per_call() {
    let Some(py) = python() else { return crate::util::skip("skipped: no python3") };
    let dir = tempfile::tempdir().unwrap();
    program(dir.path(), "sleepy.py", &format!("#!{py}\n# arena: eggs\nimport time\ntime.sleep(5)\n"));
    program(dir.path(), "crashy.py", &format!("#!{py}\n# arena: eggs\nraise SystemExit(3)\n"));
    program(dir.path(), "garbage.py", &format!("#!{py}\n# arena: eggs\nprint('hello')\n"));
    let found = discover::<Eggs>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits(300));
    assert_eq!(found.entries.len(), 3, "{:?}", found.skipped);
    let started = std::time::Instant::now();
    let out = play_game(&found.entries, 2, &eggs::Config { max_turns: Some(3) });
    assert!(started.elapsed().as_secs() < 10, "each hung call costs its limit only");
    for (e, s) in found.entries.iter().zip(&out.stats) {
        assert_eq!(s.calls, 3, "{}", e.name);
        assert_eq!(s.errors + s.overruns, 3, "{}: {:?}", e.name, s.messages);
    }
    let messages =
        |name: &str| out.stats[found.entries.iter().position(|e| e.name == name).unwrap()].messages.join(" | ");
    assert!(messages("crashy").contains("exit status 3"), "{}", messages("crashy"));
    assert!(messages("garbage").contains("hello"), "{}", messages("garbage"));
}

#[test]
fn a_zombies_program_bot_enters_the_zombie_game_and_shoots() {
    let Some(py) = python() else { return crate::util::skip("skipped: no python3") };
    let dir = tempfile::tempdir().unwrap();
    let body = r#"import sys
for line in sys.stdin:
    f = [int(v) for v in line.split()]
    owner, bullets, k = f[1], f[5], f[7]
    seen = [f[8 + 4 * i: 12 + 4 * i] for i in range(k)]
    zombies = [s for s in seen if s[2] == -1 and max(abs(s[0]), abs(s[1])) <= 5]
    if zombies and bullets > 0:
        print("SHOOT", zombies[0][3])
    else:
        print("STAY")
    sys.stdout.flush()
"#;
    program(dir.path(), "marksman.py", &format!("#!{py}\n{body}"));
    let found =
        discover::<Zombies>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits(2000));
    assert_eq!(found.entries.len(), 1, "{:?}", found.skipped);
    let out = play_game(&found.entries, 3, &zombies::Config { players_per_entry: 10, max_turns: Some(60) });
    let s = &out.stats[0];
    assert!(s.calls > 20, "{s:?}");
    assert_eq!(s.errors + s.overruns, 0, "{:?}", s.messages);
}

/// A zombies program that reads its standard input in raw chunks and answers every
/// complete line: `SHOOT` a zombie in view (a number that only that call's line names)
/// or `STAY`; with `slow` = (clock, k), the k-th call (from 0) at that clock sleeps 1.5 s
/// before it answers. Each time one read brings more call lines than any before, it
/// says how many on its standard error.
fn chunk_reader(py: &str, slow: Option<(u32, u32)>) -> String {
    let (clock, nth) = slow.unwrap_or((u32::MAX, u32::MAX));
    format!(
        r#"#!{py}
import os, sys, time
pending, most, at, nth = b"", 0, -1, 0
while True:
    chunk = os.read(0, 1 << 16)
    if not chunk:
        break
    pending += chunk
    *lines, pending = pending.split(b"\n")
    if len(lines) > most:
        most = len(lines)
        sys.stderr.write("most lines in one read: %d\n" % most)
        sys.stderr.flush()
    for line in lines:
        f = [int(v) for v in line.split()]
        at, nth = f[0], (nth + 1 if f[0] == at else 0)
        if (at, nth) == ({clock}, {nth}):
            time.sleep(1.5)
        k = f[7]
        seen = [f[8 + 4 * i: 12 + 4 * i] for i in range(k)]
        zombies = [s for s in seen if s[2] == -1]
        os.write(1, ("SHOOT %d\n" % zombies[0][3] if zombies and f[5] > 0 else "STAY\n").encode())
"#
    )
}

/// Every call of a zombies turn sees one snapshot, so a program gets its turn's calls in
/// one write and answers them one after the other; each answer still belongs to its own
/// call (a `SHOOT` names a number only that call's view has: an answer read at another
/// call would be refused as naming no entity in view).
#[test]
fn a_zombies_program_gets_its_turns_calls_in_one_write_and_each_answer_stays_with_its_call() {
    let Some(py) = python() else { return crate::util::skip("skipped: no python3") };
    let dir = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    program(dir.path(), "batched.py", &chunk_reader(py, None));
    let limits = ScriptLimits { log_dir: Some(logs.path().to_owned()), ..limits(2000) };
    let found = discover::<Zombies>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits);
    assert_eq!(found.entries.len(), 1, "{:?}", found.skipped);
    let out = play_game(&found.entries, 5, &zombies::Config { players_per_entry: 10, max_turns: Some(40) });
    let s = &out.stats[0];
    assert!(s.calls > 50, "{s:?}");
    assert_eq!(s.errors + s.overruns, 0, "{:?}", s.messages);
    let log = log_once(&logs.path().join("batched.log"), |log| log.contains("most lines"));
    let most = log
        .lines()
        .filter_map(|l| l.strip_prefix("most lines in one read: "))
        .filter_map(|n| n.trim().parse::<usize>().ok())
        .max()
        .unwrap_or_else(|| panic!("no count in the log: {log}"));
    assert!(most >= 5, "a turn's calls came a few at a time (at most {most} lines in one read)");
}

/// A call that goes over its limit in the middle of a turn's calls sent together costs
/// that call only: its late answer is dropped when it comes, and the next calls of the
/// turn get their own answers.
#[test]
fn a_late_call_in_the_middle_of_a_turn_costs_that_call_only() {
    let Some(py) = python() else { return crate::util::skip("skipped: no python3") };
    let dir = tempfile::tempdir().unwrap();
    // The fifth of ten calls of the second turn.
    program(dir.path(), "sleepy.py", &chunk_reader(py, Some((1, 4))));
    let found =
        discover::<Zombies>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits(1000));
    assert_eq!(found.entries.len(), 1, "{:?}", found.skipped);
    let out = play_game(&found.entries, 5, &zombies::Config { players_per_entry: 10, max_turns: Some(8) });
    let s = &out.stats[0];
    assert_eq!((s.errors, s.overruns), (0, 1), "{:?}", s.messages);
    assert!(s.calls > 40, "{s:?}");
}

#[test]
fn a_program_of_another_game_is_skipped_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    program(dir.path(), "hunter.sh", "#!/bin/sh\n# arena: eggs\necho 9\n");
    let found =
        discover::<Zombies>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits(500));
    assert!(found.entries.is_empty());
    assert_eq!(found.skipped.len(), 1);
    assert!(found.skipped[0].reason.contains("plays eggs; this is a zombies tournament"), "{}", found.skipped[0]);
}

#[test]
fn the_eggs_request_is_the_five_view_rows_and_the_memory() {
    let ctx_answer = arena::games::eggs::program::read_answer(&["5".into()]).unwrap();
    assert_eq!((ctx_answer.direction, ctx_answer.action, ctx_answer.memory()), (5, u32::from(b'N'), &b""[..]));
    let a: EggsAnswer = arena::games::eggs::program::read_answer(&["2".into(), "A".into(), "abc".into()]).unwrap();
    assert_eq!((a.direction, a.action, a.memory()), (2, u32::from(b'A'), &b"abc"[..]));
    assert!(arena::games::eggs::program::read_answer(&["0".into()]).is_err());
    assert!(arena::games::eggs::program::read_answer(&["3".into(), "X".into()]).is_err());
}

/// Processes whose real uid is `uid`.
fn processes_of(uid: u32) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        let real = status.lines().find(|l| l.starts_with("Uid:")).and_then(|l| l.split_whitespace().nth(1));
        n += usize::from(real == Some(&uid.to_string()));
    }
    n
}

#[test]
fn a_fork_bomb_in_a_python_bot_costs_that_bot_only_and_leaves_nothing_behind() {
    let Some(py) = python() else { return crate::util::skip("skipped: no python3") };
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return crate::util::skip(
            "skipped: the process limit needs the bots to run as a user of their own (root only)",
        );
    }
    // A uid of its own: the limit counts every process of the user, and other tests'
    // bots run as nobody.
    const UID: u32 = 61_999;
    let dir = tempfile::tempdir().unwrap();
    let bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        break\nprint(9)\n";
    program(dir.path(), "bomb.py", &format!("#!{py}\n# arena: eggs\n{bomb}"));
    program(dir.path(), "calm.py", &format!("#!{py}\n# arena: eggs\n{SEED_BOT}"));
    let limits = ScriptLimits { program_user: Some((UID, UID)), ..limits(2000) };
    let found = discover::<Eggs>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits);
    assert_eq!(found.entries.len(), 2, "{:?}", found.skipped);
    let out = play_game(&found.entries, 4, &eggs::Config { max_turns: Some(3) });
    let calm = found.entries.iter().position(|e| e.name == "calm").unwrap();
    assert_eq!(out.stats[calm].errors + out.stats[calm].overruns, 0, "{:?}", out.stats[calm].messages);
    // Every process of the bomb's group was killed and reaped with its call.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while processes_of(UID) > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(processes_of(UID), 0, "processes left behind");
}

#[test]
fn a_memory_bomb_in_a_python_bot_costs_that_call_only() {
    let Some(py) = python() else { return crate::util::skip("skipped: no python3") };
    let dir = tempfile::tempdir().unwrap();
    let bomb = "import sys\nrows = [sys.stdin.readline() for _ in range(6)]\nx = []\nwhile True:\n    x.append(bytearray(1 << 30))\n";
    program(dir.path(), "hog.py", &format!("#!{py}\n# arena: eggs\n{bomb}"));
    program(dir.path(), "calm.py", &format!("#!{py}\n# arena: eggs\n{SEED_BOT}"));
    let found = discover::<Eggs>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits(3000));
    let out = play_game(&found.entries, 4, &eggs::Config { max_turns: Some(2) });
    let (hog, calm) = if found.entries[0].name == "hog" { (0, 1) } else { (1, 0) };
    // Each call fails: the bomb ends its process (an error), or, on a loaded machine,
    // zeroing its gigabytes runs past the call limit first (an overrun).
    let hog_stats = &out.stats[hog];
    assert_eq!(hog_stats.errors + hog_stats.overruns, 2, "each call fails: {:?}", hog_stats.messages);
    assert!(hog_stats.messages.iter().any(|m| m.contains("exit status")), "{:?}", hog_stats.messages);
    assert_eq!(out.stats[calm].errors + out.stats[calm].overruns, 0);
}

#[test]
fn the_bwrap_sandbox_keeps_a_program_off_the_network_and_the_file_system() {
    let Some(py) = python() else { return crate::util::skip("skipped: no python3") };
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped: bwrap: {why}"));
    }
    let dir = tempfile::tempdir().unwrap();
    let nosy = r#"import socket, sys
rows = [sys.stdin.readline() for _ in range(6)]
tries = []
try:
    socket.create_connection(("127.0.0.1", 9), timeout=0.2)
    tries.append("net")
except OSError:
    pass
try:
    open("/etc/arena-sandbox-test", "w").write("x")
    tries.append("fs")
except OSError:
    pass
print(9); print("N"); print("escaped:" + ",".join(tries) if tries else "contained")
"#;
    program(dir.path(), "nosy.py", &format!("#!{py}\n# arena: eggs\n{nosy}"));
    let limits =
        ScriptLimits { sandbox: arena::process::Sandbox::Bwrap { writable: vec![], hidden: vec![] }, ..limits(3000) };
    let found = discover::<Eggs>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits);
    let bot = &found.entries[0];
    let mut b = bot.create_bot().unwrap();
    let view = [*b"#####", *b"#   #", *b"# * #", *b"#   #", *b"#####"];
    let mut rng = arena::game::GameRng::seed_from_u64(1);
    let ctx = arena::abi::eggs::EggsContext {
        view,
        player: 0,
        turn: 0,
        max_turns: 10,
        memory: arena::abi::abi_stable::std_types::RSlice::from_slice(b""),
        random: arena::game::random_source(&mut rng),
    };
    let answer = b.turn(&ctx).unwrap();
    assert_eq!(answer.memory(), b"contained");
    assert!(!Path::new("/etc/arena-sandbox-test").exists());
}

/// The one eggs program bot in `dir`, found with `limits`, plays one turn of a small
/// view: the memory it answers, as text.
fn memory_after_one_eggs_turn(dir: &Path, limits: &ScriptLimits) -> String {
    let found = discover::<Eggs>(&SearchPaths { plugins: vec![], scripts: vec![dir.to_owned()] }, limits);
    assert_eq!(found.entries.len(), 1, "{:?}", found.skipped);
    let mut b = found.entries[0].create_bot().unwrap();
    let mut rng = arena::game::GameRng::seed_from_u64(1);
    let ctx = arena::abi::eggs::EggsContext {
        view: [*b"#####", *b"#   #", *b"# * #", *b"#   #", *b"#####"],
        player: 0,
        turn: 0,
        max_turns: 10,
        memory: arena::abi::abi_stable::std_types::RSlice::from_slice(b""),
        random: arena::game::random_source(&mut rng),
    };
    String::from_utf8(b.turn(&ctx).unwrap().memory().to_vec()).unwrap()
}

/// A boxed program (as root: a user of its own) may open its pipes again by name, as
/// shell and JavaScript bots do: `/dev/stdin`, `> /dev/stdout`, `> /dev/stderr`.
#[test]
fn a_boxed_program_may_open_its_stdin_stdout_and_stderr_by_name() {
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped: bwrap: {why}"));
    }
    let dir = tempfile::tempdir().unwrap();
    let bot = "#!/bin/sh\n# arena: eggs\nok=\"\"\ncat /dev/stdin > /dev/null && ok=\"${ok}in,\"\n\
               echo said > /dev/stderr && ok=\"${ok}err,\"\nprintf '9\\nN\\n%sout\\n' \"$ok\" > /dev/stdout\n";
    program(dir.path(), "by-name.sh", bot);
    let limits =
        ScriptLimits { sandbox: arena::process::Sandbox::Bwrap { writable: vec![], hidden: vec![] }, ..limits(3000) };
    assert_eq!(memory_after_one_eggs_turn(dir.path(), &limits), "in,err,out");
}

/// A program that tries, with zero bytes, each call that writes into a pipe without
/// moving its stamp: what each gave (its errno, 0 when it worked).
const UNSTAMPED_PROBE: &str = r#"
# arena: eggs
import ctypes, os, sys
sys.stdin.read()
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe()
f = os.memfd_create("probe")
class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_char_p), ("len", ctypes.c_size_t)]
def errno(ret):
    return ctypes.get_errno() if ret < 0 else 0
def py(call):
    try:
        call()
        return 0
    except OSError as e:
        return e.errno
got = [
    "splice=%d" % py(lambda: os.splice(r, 1, 0)),
    "tee=%d" % errno(libc.tee(r, 1, 0, 0)),
    "vmsplice=%d" % errno(libc.vmsplice(1, ctypes.byref(Iovec(b"", 0)), 1, 0)),
    "sendfile=%d" % py(lambda: os.sendfile(1, f, 0, 0)),
    "io_uring_setup=%d" % errno(libc.syscall(425, 4, ctypes.create_string_buffer(120))),
]
sys.stdout.write("9\nN\n%s\n" % ",".join(got))
"#;

/// A program cannot write into its stdout with `splice`, `tee`, `vmsplice` or
/// `sendfile` (each fails with EINVAL, on which libraries fall back to `write`), nor set
/// up an `io_uring` (ENOSYS, as on a kernel without it): those would leave its stdout's
/// stamp as it was, and an answer written late would look as old as the program's last
/// `write`. Boxed or not.
#[test]
fn a_program_cannot_write_to_its_stdout_by_a_call_that_leaves_its_stamp() {
    let Some(py) = python() else { return crate::util::skip("skipped: no python3") };
    let refused = "splice=22,tee=22,vmsplice=22,sendfile=22,io_uring_setup=38";
    let dir = tempfile::tempdir().unwrap();
    program(dir.path(), "unstamped.py", &format!("#!{py}{UNSTAMPED_PROBE}"));
    assert_eq!(memory_after_one_eggs_turn(dir.path(), &limits(5000)), refused);
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped under bwrap: {why}"));
    }
    let boxed =
        ScriptLimits { sandbox: arena::process::Sandbox::Bwrap { writable: vec![], hidden: vec![] }, ..limits(5000) };
    assert_eq!(memory_after_one_eggs_turn(dir.path(), &boxed), refused);
}

/// Every program gets the game's seed (`ARENA_SEED`); a target copy its index
/// (`ARENA_COPY`), a program started once per call the call's number (`ARENA_CALL`).
#[test]
fn programs_get_the_games_seed_and_their_copy_or_call_in_their_environment() {
    use arena::games::invisible_target::{self, InvisibleTarget};
    let dir = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    program(
        dir.path(),
        "envtarget",
        "#!/bin/sh\n# arena: target\necho \"seed=$ARENA_SEED copy=$ARENA_COPY\" >&2\nwhile read line; do echo 2; done\n",
    );
    program(
        dir.path(),
        "envegg",
        "#!/bin/sh\n# arena: eggs\necho \"seed=$ARENA_SEED call=$ARENA_CALL\" >&2\necho 9\necho N\necho\n",
    );
    let limits = ScriptLimits { log_dir: Some(logs.path().to_owned()), ..limits(5000) };
    let paths = SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] };
    let target = discover::<InvisibleTarget>(&paths, &limits);
    assert_eq!(target.entries.len(), 1, "{:?}", target.skipped);
    play_game(
        &target.entries,
        77,
        &invisible_target::Config { max_rounds: Some(2), ..invisible_target::Config::default() },
    );
    let log = log_once(&logs.path().join("envtarget.log"), |log| log.matches("seed=77 ").count() >= 16);
    for copy in 0..16 {
        assert!(log.contains(&format!("seed=77 copy={copy}\n")), "copy {copy}: {log}");
    }
    let eggs = discover::<Eggs>(&paths, &limits);
    assert_eq!(eggs.entries.len(), 1, "{:?}", eggs.skipped);
    play_game(&eggs.entries, 78, &eggs::Config { max_turns: Some(3) });
    let log = log_once(&logs.path().join("envegg.log"), |log| log.matches("seed=78 ").count() >= 3);
    for call in 0..3 {
        assert!(log.contains(&format!("seed=78 call={call}\n")), "call {call}: {log}");
    }
}

/// A persistent program that ends during a game is not started again with fresh state:
/// its player stays for the rest of the game, and every such call says why.
#[test]
fn a_persistent_program_that_ends_is_not_restarted_and_each_later_call_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    program(
        dir.path(),
        "quitter",
        "#!/bin/sh\n# arena: eggs persistent\necho started >&2\nn=0\nwhile [ $n -lt 2 ]; do\n  \
         for i in 1 2 3 4 5 6; do read line; done\n  echo 9; echo N; echo m\n  n=$((n+1))\ndone\nexit 1\n",
    );
    let limits = ScriptLimits { log_dir: Some(logs.path().to_owned()), ..limits(5000) };
    let found = discover::<Eggs>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits);
    assert_eq!(found.entries.len(), 1, "{:?}", found.skipped);
    let out = play_game(&found.entries, 3, &eggs::Config { max_turns: Some(6) });
    let s = &out.stats[0];
    assert_eq!((s.calls, s.errors), (6, 4), "{:?}", s.messages);
    let messages = s.messages.join(" | ");
    assert!(messages.contains("exit status 1"), "{messages}");
    assert!(messages.contains("not restarted"), "{messages}");
    let log = log_once(&logs.path().join("quitter.log"), |log| log.contains("started"));
    assert_eq!(log.matches("started").count(), 1, "started again: {log}");
}

/// A program's log once `ready` holds for it (standard error reaches the log from a
/// drain thread, a moment after the game on a loaded machine), or as it is after 20 s.
fn log_once(path: &Path, ready: impl Fn(&str) -> bool) -> String {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let log = std::fs::read_to_string(path).unwrap_or_default();
        if ready(&log) || std::time::Instant::now() > until {
            // What else is on its way has a moment to arrive.
            std::thread::sleep(std::time::Duration::from_millis(200));
            return std::fs::read_to_string(path).unwrap_or_default();
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A program file (`#!` line) without the run bit is skipped with a reason saying so,
/// not passed over in silence.
#[test]
fn a_program_without_its_run_bit_is_skipped_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("forgot.py"), "#!/usr/bin/env python3\nprint('STAY')\n").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a bot\n").unwrap();
    let found =
        discover::<Zombies>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits(1000));
    assert!(found.entries.is_empty());
    assert_eq!(found.skipped.len(), 1, "{:?}", found.skipped);
    assert!(found.skipped[0].path.ends_with("forgot.py"), "{}", found.skipped[0]);
    assert!(found.skipped[0].reason.contains("without the run bit") && found.skipped[0].reason.contains("chmod +x"));
}

/// A program with files of its own (`<file>.files/` beside it) runs in that directory,
/// and its box shows it those files and still none of the bot directory's others.
#[test]
fn a_program_with_files_runs_among_them_and_its_box_shows_it_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let sh = "#!/bin/sh\n# arena: eggs\nanswer=$(cat answer.txt 2>/dev/null || echo missing)\n\
              secret=$(cat ../secret.txt 2>/dev/null || echo hidden)\necho 9; echo N; echo \"$answer,$secret\"\n";
    program(dir.path(), "packed", sh);
    let files = dir.path().join("packed.files");
    std::fs::create_dir(&files).unwrap();
    std::fs::set_permissions(&files, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(files.join("answer.txt"), "mine\n").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "theirs\n").unwrap();
    let play = |limits: &ScriptLimits| memory_after_one_eggs_turn(dir.path(), limits);
    assert_eq!(play(&limits(3000)), "mine,theirs", "unboxed, it runs in packed.files/");
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped the boxed half: bwrap: {why}"));
    }
    let boxed = ScriptLimits {
        sandbox: arena::process::Sandbox::Bwrap { writable: vec![], hidden: vec![dir.path().to_owned()] },
        ..limits(3000)
    };
    assert_eq!(play(&boxed), "mine,hidden", "boxed, it sees its files and not the directory's others");
}

/// A program that declares the version of its game's protocol it speaks (`arena: <game>
/// protocol 1`) gets `arena <game> protocol 1` as the first line of each of its processes
/// in the three text protocols (here checked by the program, which fails otherwise), and
/// hex, whose first line states `"protocol": 1` to every program, sends it no such line.
#[test]
fn a_program_that_declares_its_protocol_gets_the_version_line_first() {
    use arena::games::hex::{self, Hex};
    use arena::games::invisible_target::{self, InvisibleTarget};
    let dir = tempfile::tempdir().unwrap();
    let hello = |game: &str| {
        format!(
            "#!/bin/sh\n# arena: {game} protocol 1\nread hello\n[ \"$hello\" = \"arena {game} protocol 1\" ] || \
             {{ echo \"first line: $hello\" >&2; exit 9; }}\n"
        )
    };
    program(dir.path(), "zgreeted", &(hello("zombies") + "while read line; do echo STAY; done\n"));
    program(
        dir.path(),
        "egreeted",
        &(hello("eggs") + "for i in 1 2 3 4 5 6; do read line; done\necho 9; echo N; echo \"${line}x\"\n"),
    );
    program(dir.path(), "tgreeted", &(hello("target") + "while read line; do echo 2; done\n"));
    let paths = SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] };
    let clean = |stats: &[arena::bot::CallStats]| {
        assert!(stats[0].calls > 0 && stats[0].errors + stats[0].overruns == 0, "{:?}", stats[0]);
    };
    let zombies = discover::<Zombies>(&paths, &limits(5000));
    assert_eq!(zombies.entries.len(), 1, "{:?}", zombies.skipped);
    clean(&play_game(&zombies.entries, 3, &zombies::Config { players_per_entry: 3, max_turns: Some(5) }).stats);
    let eggs = discover::<Eggs>(&paths, &limits(5000));
    assert_eq!(eggs.entries.len(), 1, "{:?}", eggs.skipped);
    clean(&play_game(&eggs.entries, 3, &eggs::Config { max_turns: Some(4) }).stats);
    let target = discover::<InvisibleTarget>(&paths, &limits(5000));
    assert_eq!(target.entries.len(), 1, "{:?}", target.skipped);
    clean(
        &play_game(
            &target.entries,
            3,
            &invisible_target::Config { max_rounds: Some(2), ..invisible_target::Config::default() },
        )
        .stats,
    );
    let Some(py) = python() else { return crate::util::skip("skipped the hex half: no python3") };
    let hex = tempfile::tempdir().unwrap();
    let body = "import json, sys\nfirst = json.loads(sys.stdin.readline())\n\
                if first.get('protocol') != 1 or 'game' not in first:\n    sys.exit(9)\n\
                print('[]', flush=True)\nfor line in sys.stdin:\n    \
                assert 'protocol' not in json.loads(line)\n    print('[]', flush=True)\n";
    program(hex.path(), "hgreeted.py", &format!("#!{py}\n# arena: hex protocol 1\n{body}"));
    let found = discover::<Hex>(&SearchPaths { plugins: vec![], scripts: vec![hex.path().to_owned()] }, &limits(5000));
    assert_eq!(found.entries.len(), 1, "{:?}", found.skipped);
    clean(&play_game(&found.entries, 3, &hex::Config { max_turns: Some(4) }).stats);
}

/// A program that declares no version (every bot written before protocols had one) gets
/// its game's lines exactly as before: no version line, the request first.
#[test]
fn an_old_program_that_declares_no_version_gets_no_version_line() {
    let dir = tempfile::tempdir().unwrap();
    program(
        dir.path(),
        "zold",
        "#!/bin/sh\n# arena: zombies persistent\nwhile read line; do\n  case \"$line\" in [0-9]*) echo STAY;; *) exit 9;; esac\ndone\n",
    );
    program(
        dir.path(),
        "eold",
        "#!/bin/sh\n# arena: eggs\nIFS= read -r row\n[ ${#row} -eq 5 ] || exit 9\nfor i in 2 3 4 5 6; do read line; done\necho 9; echo N; echo\n",
    );
    let paths = SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] };
    let zombies = discover::<Zombies>(&paths, &limits(5000));
    assert_eq!(zombies.entries.len(), 1, "{:?}", zombies.skipped);
    let out = play_game(&zombies.entries, 4, &zombies::Config { players_per_entry: 3, max_turns: Some(5) });
    assert!(out.stats[0].calls > 0 && out.stats[0].errors == 0, "{:?}", out.stats[0]);
    let eggs = discover::<Eggs>(&paths, &limits(5000));
    assert_eq!(eggs.entries.len(), 1, "{:?}", eggs.skipped);
    let out = play_game(&eggs.entries, 4, &eggs::Config { max_turns: Some(4) });
    assert_eq!((out.stats[0].calls, out.stats[0].errors), (4, 0), "{:?}", out.stats[0].messages);
}

/// A program that asks for a version its game does not speak, or for a version that is
/// not a number, is skipped at discovery in one line naming the file and why.
#[test]
fn a_program_asking_for_an_unknown_protocol_version_is_skipped_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    program(dir.path(), "future.sh", "#!/bin/sh\n# arena: eggs persistent protocol 7\necho 9\n");
    program(dir.path(), "vague.sh", "#!/bin/sh\n# arena: eggs protocol two\necho 9\n");
    let found = discover::<Eggs>(&SearchPaths { plugins: vec![], scripts: vec![dir.path().to_owned()] }, &limits(500));
    assert!(found.entries.is_empty(), "{:?}", found.entries.iter().map(|e| &e.name).collect::<Vec<_>>());
    let lines: Vec<String> = found.skipped.iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    let line = |file: &str| lines.iter().find(|l| l.contains(file)).unwrap_or_else(|| panic!("{file}: {lines:?}"));
    assert!(
        line("future.sh").ends_with(
            "future.sh: its `arena:` line asks for eggs protocol 7, and this host speaks eggs protocol 1 only"
        ),
        "{lines:?}"
    );
    assert!(line("vague.sh").ends_with("asks for protocol \"two\": a protocol version is a number"), "{lines:?}");
    assert!(lines.iter().all(|l| !l.contains('\n')), "{lines:?}");
}
