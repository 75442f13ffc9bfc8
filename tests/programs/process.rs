//! Persistent processes: round trips, late answers, early exits, floods, stderr, clean-up.

use std::time::Duration;

use super::common::*;
use arena::process::{CallError, Limits, Process, ProgramSpec};

fn spawn(argv: Vec<std::ffi::OsString>, limits: &Limits) -> Process {
    Process::spawn(&ProgramSpec::new(argv), limits, Box::new(std::io::sink())).expect("spawn")
}

#[test]
fn c_echo_round_trip() {
    let dir = open_dir();
    let Some(exe) = compile_c(dir.path(), "echo", C_ECHO) else { return };
    let mut p = spawn(vec![exe.clone().into()], &Limits::default());
    for i in 0..1000 {
        let line = format!("hello {i}\n");
        assert_eq!(p.ask(line.as_bytes(), 1, Duration::from_secs(5)).unwrap(), vec![format!("hello {i}")]);
    }
    // Two lines in one request, two lines back.
    assert_eq!(p.ask(b"a\nb\n", 2, Duration::from_secs(5)).unwrap(), vec!["a", "b"]);
    // A request bigger than the pipe buffer: written while the answer is read.
    let big = format!("{}\n", "y".repeat(200_000));
    let limits = Limits { max_answer_bytes: 1 << 20, ..Limits::default() };
    let mut q = spawn(vec![exe.into()], &limits);
    assert_eq!(q.ask(big.as_bytes(), 1, Duration::from_secs(5)).unwrap()[0].len(), 200_000);
}

#[test]
fn python_echo_round_trip() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let mut p = spawn(python_bot(&py, dir.path(), "echo.py", PY_ECHO), &Limits::default());
    for i in 0..100 {
        let line = format!("{i}\r\n");
        assert_eq!(p.ask(line.as_bytes(), 1, Duration::from_secs(10)).unwrap(), vec![i.to_string()]);
    }
}

const LATE_EVERY_THIRD: &str = r#"
import sys, time
for line in sys.stdin:
    n = int(line)
    if n % 3 == 0:
        time.sleep(1.5)
    print(f"{n} first")
    print(f"{n} second")
"#;

#[test]
fn late_answers_are_discarded_and_answers_stay_in_sync() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let mut p = spawn(python_bot(&py, dir.path(), "late.py", LATE_EVERY_THIRD), &Limits::default());
    // Warm up (Python start-up is not a late answer).
    assert_eq!(p.ask(b"1\n", 2, Duration::from_secs(10)).unwrap(), vec!["1 first", "1 second"]);
    let mut timeouts = 0;
    for n in 2..=16 {
        // A late answer comes 1.5 s after its request, 0.5 s past this deadline; the
        // request after it is answered 0.5 s after the timeout: half a second of margin
        // either way for a loaded machine.
        let got = p.ask(format!("{n}\n").as_bytes(), 2, Duration::from_millis(1000));
        if n % 3 == 0 {
            assert_eq!(got, Err(CallError::Timeout), "request {n}");
            timeouts += 1;
        } else {
            assert_eq!(got.unwrap(), vec![format!("{n} first"), format!("{n} second")], "request {n}");
        }
    }
    assert_eq!(timeouts, 5);
    // Two timeouts in a row, then an answer: still in sync.
    assert_eq!(p.ask(b"18\n", 2, Duration::from_millis(50)), Err(CallError::Timeout));
    assert_eq!(p.ask(b"19\n", 2, Duration::from_millis(10)), Err(CallError::Timeout));
    assert_eq!(p.ask(b"20\n", 2, Duration::from_secs(5)).unwrap(), vec!["20 first", "20 second"]);
    assert_eq!(p.stale_lines(), 0);
}

#[test]
fn unasked_lines_are_dropped() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = "import sys\nfor line in sys.stdin:\n    print(line.strip())\n    print('extra')\n";
    let mut p = spawn(python_bot(&py, dir.path(), "extra.py", src), &Limits::default());
    for i in 0..20 {
        assert_eq!(p.ask(format!("{i}\n").as_bytes(), 1, Duration::from_secs(10)).unwrap(), vec![i.to_string()]);
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn garbage_line_then_in_sync() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = r#"
import sys
for line in sys.stdin:
    n = int(line)
    if n == 2:
        sys.stdout.buffer.write(b"\xff\xfe\n")
    else:
        sys.stdout.buffer.write(f"{n} a\n".encode())
    sys.stdout.buffer.write(f"{n} b\n".encode())
    sys.stdout.flush()
"#;
    let mut p = spawn(python_bot(&py, dir.path(), "garbage.py", src), &Limits::default());
    assert_eq!(p.ask(b"1\n", 2, Duration::from_secs(10)).unwrap(), vec!["1 a", "1 b"]);
    assert!(matches!(p.ask(b"2\n", 2, Duration::from_secs(5)), Err(CallError::Garbage(_))));
    assert_eq!(p.ask(b"3\n", 2, Duration::from_secs(5)).unwrap(), vec!["3 a", "3 b"]);
}

#[test]
fn bot_that_exits_early() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = "import sys\nprint(sys.stdin.readline().strip())\nsys.stdin.readline()\nprint('half')\nsys.exit(3)\n";
    let mut p = spawn(python_bot(&py, dir.path(), "exit.py", src), &Limits::default());
    assert_eq!(p.ask(b"hi\n", 1, Duration::from_secs(10)).unwrap(), vec!["hi"]);
    // Noticed as an exit, not as the call's 10 s running out.
    assert_eq!(p.ask(b"more\n", 2, Duration::from_secs(10)), Err(CallError::Exited("exit status 3".into())));
    // Writing to the dead bot again: an error, not SIGPIPE.
    assert_eq!(p.ask(b"again\n", 1, Duration::from_secs(1)), Err(CallError::Exited("exit status 3".into())));
    assert!(p.has_ended());
}

#[test]
fn bot_killed_by_a_signal() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = "import os, sys\nsys.stdin.readline()\nos.kill(os.getpid(), 11)\n";
    let mut p = spawn(python_bot(&py, dir.path(), "segv.py", src), &Limits::default());
    let err = p.ask(b"x\n", 1, Duration::from_secs(10)).unwrap_err();
    assert!(err.to_string().contains("killed by signal 11 (SIGSEGV"), "{err}");
}

#[test]
fn bot_that_closes_stdin_gets_epipe_not_sigpipe() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = "import os, time\nos.close(0)\nprint('closed')\ntime.sleep(100)\n";
    let mut p = spawn(python_bot(&py, dir.path(), "close.py", src), &Limits::default());
    let big = vec![b'z'; 1 << 20];
    std::thread::sleep(Duration::from_millis(500));
    let err = p.ask(&big, 1, Duration::from_secs(10)).unwrap_err();
    assert!(matches!(&err, CallError::Exited(s) if s == "closed its stdin"), "{err}");
}

#[test]
fn garbage_without_newline_forever_is_a_flood_and_memory_stays_bounded() {
    let dir = open_dir();
    let src = r#"
#include <string.h>
#include <unistd.h>
int main(void) { char b[65536]; memset(b, 'x', sizeof b); for (;;) write(1, b, sizeof b); }
"#;
    let Some(exe) = compile_c(dir.path(), "flood", src) else { return };
    let limits = Limits { max_answer_bytes: 1 << 20, ..Limits::default() };
    let mut p = spawn(vec![exe.into()], &limits);
    let before = rss_kib();
    assert_eq!(p.ask(b"go\n", 1, Duration::from_secs(5)), Err(CallError::Flood));
    for _ in 0..5 {
        let r = p.ask(b"go\n", 1, Duration::from_millis(200));
        assert!(matches!(r, Err(CallError::Timeout | CallError::Flood)), "{r:?}");
    }
    let grown = rss_kib().saturating_sub(before);
    assert!(grown < 32 * 1024, "host grew by {grown} KiB");
}

#[test]
fn chatty_stderr_never_blocks_and_is_capped() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = "import sys\nfor line in sys.stdin:\n    sys.stderr.write('e' * 10_000_000)\n    print('done')\n";
    let sink = SharedSink::default();
    let limits = Limits { stderr_cap: 1000, ..Limits::default() };
    let spec = ProgramSpec::new(python_bot(&py, dir.path(), "chatty.py", src));
    let mut p = Process::spawn(&spec, &limits, Box::new(sink.clone())).unwrap();
    for _ in 0..3 {
        assert_eq!(p.ask(b"go\n", 1, Duration::from_secs(10)).unwrap(), vec!["done"]);
    }
    p.kill();
    let text = sink.text();
    assert!(text.starts_with(&"e".repeat(1000)));
    assert_eq!(text.matches("[stderr truncated]").count(), 1);
    assert!(sink.len() < 1100, "{} bytes", sink.len());
}

const FORKER: &str = r#"
import os, subprocess, sys
child = subprocess.Popen(["sleep", "1000"])
if os.fork() == 0:
    # grandchild of a grandchild: orphaned at once
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "1000"])
    os._exit(0)
for line in sys.stdin:
    print(child.pid)
"#;

#[test]
fn kill_leaves_no_process_behind() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let mut p = spawn(python_bot(&py, dir.path(), "forker.py", FORKER), &Limits::default());
    let pgid = p.pid() as i32;
    let child: i32 = p.ask(b"pid?\n", 1, Duration::from_secs(10)).unwrap()[0].parse().unwrap();
    assert!(eventually(Duration::from_secs(5), || in_group(pgid).len() >= 3), "{:?}", in_group(pgid));
    p.kill();
    p.kill(); // idempotent
    assert!(eventually(Duration::from_secs(3), || in_group(pgid).is_empty()), "left: {:?}", in_group(pgid));
    assert!(!std::path::Path::new(&format!("/proc/{child}")).exists());
}

#[test]
fn drop_leaves_no_process_behind() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let pgid;
    {
        let mut p = spawn(python_bot(&py, dir.path(), "forker.py", FORKER), &Limits::default());
        pgid = p.pid() as i32;
        p.ask(b"pid?\n", 1, Duration::from_secs(10)).unwrap();
    }
    assert!(eventually(Duration::from_secs(3), || in_group(pgid).is_empty()), "left: {:?}", in_group(pgid));
}

#[test]
fn exited_bot_is_reaped_with_its_children() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = "import subprocess, sys\nsubprocess.Popen(['sleep', '1000'])\nsys.stdin.readline()\nsys.exit(0)\n";
    let mut p = spawn(python_bot(&py, dir.path(), "quit.py", src), &Limits::default());
    let pgid = p.pid() as i32;
    // The sleeping child keeps stdout open: the exit is still noticed (pidfd), as an
    // exit and not as the call's 10 s running out (no wall-clock assertion: the machine
    // may be loaded).
    assert_eq!(p.ask(b"bye\n", 1, Duration::from_secs(10)), Err(CallError::Exited("exit status 0".into())));
    assert!(eventually(Duration::from_secs(3), || in_group(pgid).is_empty()), "left: {:?}", in_group(pgid));
}

#[test]
fn spawn_errors_are_one_line() {
    let err = Process::spawn(&ProgramSpec::new(["/nonexistent/bot"]), &Limits::default(), Box::new(std::io::sink()))
        .unwrap_err();
    assert!(matches!(err, CallError::Spawn(_)));
    assert!(!err.to_string().contains('\n'));
    assert!(Process::spawn(&ProgramSpec::default(), &Limits::default(), Box::new(std::io::sink())).is_err());
}

#[test]
fn environment_has_pythonunbuffered_and_extra_vars() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = "import os, sys\nsys.stdin.readline()\nprint(os.environ.get('PYTHONUNBUFFERED'), os.environ.get('BOT_X'), os.getcwd())\n";
    let mut spec = ProgramSpec::new(python_bot(&py, dir.path(), "env.py", src));
    spec.env.push(("BOT_X".into(), "7".into()));
    spec.dir = Some(dir.path().to_path_buf());
    let mut p = Process::spawn(&spec, &Limits::default(), Box::new(std::io::sink())).unwrap();
    let got = p.ask(b"\n", 1, Duration::from_secs(10)).unwrap();
    assert_eq!(got[0], format!("1 7 {}", dir.path().canonicalize().unwrap().display()));
}

/// A program that sends itself SIGKILL and SIGSTOP and answers with its pid and what
/// came of each ("sent", or "refused" by its box's filter).
const SELF_SIGNALS: &str = "import os, sys\nfor line in sys.stdin:\n    got = []\n    for s in (9, 19):\n        try:\n            os.kill(os.getpid(), s)\n            got.append('sent')\n        except PermissionError:\n            got.append('refused')\n    print(os.getpid(), *got, flush=True)\n";

/// The boxed program of process `pid` (its bwrap's): the one child of bwrap's process 1.
fn boxed_program(pid: u32) -> Option<i32> {
    arena::process::first_child(arena::process::first_child(pid)?).map(|p| p as i32)
}

/// Signals sent as a process outside every box would send them: `/bin/kill`, started by
/// a thread made before this test's thread started any box. (A thread that started a
/// box joined the host's signal witness, where the host has one, a root host; so is
/// every task it forks from then on, threads included, and the test process's own
/// signals are the host's: none of them comes from outside.)
struct Outsider(std::sync::mpsc::Sender<(i32, &'static str, std::sync::mpsc::Sender<bool>)>);

impl Outsider {
    fn new() -> Outsider {
        let (send, asked) = std::sync::mpsc::channel::<(i32, &'static str, std::sync::mpsc::Sender<bool>)>();
        std::thread::spawn(move || {
            for (pid, sig, done) in asked {
                let sent = std::process::Command::new("/bin/kill").args([format!("-{sig}"), pid.to_string()]).status();
                let _ = done.send(sent.is_ok_and(|s| s.success()));
            }
        });
        Outsider(send)
    }

    /// Sends signal `sig` (`KILL`, `STOP`) to `pid`.
    fn signal(&self, pid: i32, sig: &'static str) {
        let (done, sent) = std::sync::mpsc::channel();
        self.0.send((pid, sig, done)).unwrap();
        assert!(sent.recv().unwrap(), "kill -{sig} {pid}");
    }

    /// SIGKILL to `pid`, then waits until it has ended (a kill lands when the process
    /// is next scheduled: until then it may still answer).
    fn kill_and_wait(&self, pid: i32) {
        self.signal(pid, "KILL");
        let ended = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map_or(true, |s| s.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with(['Z', 'X'])))
        };
        assert!(eventually(Duration::from_secs(10), ended), "{pid} still runs");
    }
}

/// Issue #30 Must 3: a boxed program is its box's process 2, which its filter guards, so
/// nothing in its box can kill or stop it (its own SIGKILL and SIGSTOP are refused), and
/// its death by SIGKILL, its bwrap's death, or its stop (found when its call runs out of
/// time) is the work of something outside its box: `KilledFromOutside`, which the caller
/// does not charge to the entry. Unboxed, the same kill is an exit like any other, and the stop
/// its timeout.
#[test]
fn a_boxed_program_killed_or_stopped_from_outside_its_box_says_so_and_cannot_kill_itself() {
    let Some(py) = python() else { return };
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped: this machine cannot box ({why})"));
    }
    let outsider = Outsider::new();
    let dir = open_dir();
    let boxed =
        Limits { sandbox: arena::process::Sandbox::Bwrap { writable: vec![], hidden: vec![] }, ..Limits::default() };
    let argv = python_bot(&py, dir.path(), "self.py", SELF_SIGNALS);
    let long = Duration::from_secs(10);
    let outside = |r: Result<Vec<String>, CallError>| match r {
        Err(CallError::KilledFromOutside(how)) => how,
        other => panic!("not killed from outside: {other:?}"),
    };

    // Its own SIGKILL and SIGSTOP are refused: it answers, as the box's process 2, twice.
    let mut p = spawn(argv.clone(), &boxed);
    assert_eq!(p.ask(b"x\n", 1, long).unwrap(), vec!["2 refused refused"]);
    assert_eq!(p.ask(b"x\n", 1, long).unwrap(), vec!["2 refused refused"]);
    // The program itself killed from outside.
    outsider.kill_and_wait(boxed_program(p.pid()).expect("the program under its bwrap"));
    let how = outside(p.ask(b"x\n", 1, long));
    assert!(how.contains("SIGKILL"), "{how}");
    assert!(p.has_ended());

    // Its bwrap killed from outside.
    let mut q = spawn(argv.clone(), &boxed);
    assert_eq!(q.ask(b"x\n", 1, long).unwrap(), vec!["2 refused refused"]);
    outsider.kill_and_wait(q.pid() as i32);
    assert!(outside(q.ask(b"x\n", 1, long)).contains("SIGKILL"));

    // Unboxed, the same kill is the program's end like any other (its own process
    // could have sent it).
    let mut u = spawn(argv, &Limits::default());
    let own = u.ask(b"x\n", 1, long);
    // Unboxed, its own SIGKILL is not dropped: it died of it.
    assert!(matches!(&own, Err(CallError::Exited(how)) if how.contains("SIGKILL")), "{own:?}");

    // Stopped from outside (which nothing in its box can do to it): its call runs out of
    // time, and that is not its doing either. Unboxed, a stopped program's call is its
    // timeout.
    let mut s = spawn(python_bot(&py, dir.path(), "stopped.py", SELF_SIGNALS), &boxed);
    assert_eq!(s.ask(b"x\n", 1, long).unwrap(), vec!["2 refused refused"]);
    let program = boxed_program(s.pid()).expect("the program under its bwrap");
    outsider.signal(program, "STOP");
    // A stop, too, lands when the process is next scheduled.
    let stopped = || {
        std::fs::read_to_string(format!("/proc/{program}/stat"))
            .is_ok_and(|s| s.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('T')))
    };
    assert!(eventually(Duration::from_secs(10), stopped), "{program} never stopped");
    let how = outside(s.ask(b"x\n", 1, Duration::from_millis(300)));
    assert!(how.contains("stopped by a signal"), "{how}");
    assert!(s.has_ended());
    let unboxed_stop =
        python_bot(&py, dir.path(), "unboxed.py", "import sys\nfor line in sys.stdin:\n    print(1, flush=True)\n");
    let mut t = spawn(unboxed_stop, &Limits::default());
    assert_eq!(t.ask(b"x\n", 1, long).unwrap(), vec!["1"]);
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(t.pid() as i32, libc::SIGSTOP) }, 0);
    assert_eq!(t.ask(b"x\n", 1, Duration::from_millis(300)), Err(CallError::Timeout));
}

/// A program that lowers its CPU limit (RLIMIT_CPU, by `setrlimit` and by `prlimit`, to
/// 1 s), says what came of it, then spins for up to 1.5 s of CPU and exits with 3.
const LOWERS_CPU_LIMIT: &str = "import os, resource, sys, time\nsys.stdin.readline()\ngot = []\nfor lower in (lambda: resource.setrlimit(resource.RLIMIT_CPU, (1, 1)), lambda: resource.prlimit(0, resource.RLIMIT_CPU, (1, 1))):\n    try:\n        lower()\n        got.append('lowered')\n    except (ValueError, OSError):\n        got.append('refused')\nprint(*got, resource.getrlimit(resource.RLIMIT_CPU)[1] == resource.RLIM_INFINITY, flush=True)\nsys.stdin.readline()\nwhile time.process_time() < 1.5:\n    pass\nos._exit(3)\n";

/// A boxed program cannot make its own end pass for a kill from outside its box: one
/// that exits with 137 (what bwrap says of a process 2 killed by SIGKILL) dies of SIGSYS
/// under the boxes' exit rule, and one that would lower its CPU limit below the host's
/// (to have the kernel's SIGKILL at it) is refused, still reads its limit, spins and
/// exits by itself. Each is its own end (`Exited`), which the caller charges to its
/// entry.
#[test]
fn a_boxed_program_that_exits_with_137_or_lowers_its_cpu_limit_ends_by_itself_not_from_outside() {
    let Some(py) = python() else { return };
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped: this machine cannot box ({why})"));
    }
    if !arena::process::boxes_guarded() {
        return crate::util::skip("skipped: this machine's boxes are not guarded");
    }
    let dir = open_dir();
    let boxed =
        Limits { sandbox: arena::process::Sandbox::Bwrap { writable: vec![], hidden: vec![] }, ..Limits::default() };
    let long = Duration::from_secs(60);
    let fake = python_bot(&py, dir.path(), "fake.py", "import os, sys\nsys.stdin.readline()\nos._exit(137)\n");
    let mut f = spawn(fake, &boxed);
    match f.ask(b"x\n", 1, long) {
        Err(CallError::Exited(how)) => assert!(how.contains("SIGSYS"), "{how}"),
        other => panic!("a program that exits with 137: {other:?}"),
    }
    let mut c = spawn(python_bot(&py, dir.path(), "cpu.py", LOWERS_CPU_LIMIT), &boxed);
    assert_eq!(c.ask(b"x\n", 1, long), Ok(vec!["refused refused True".to_owned()]));
    assert_eq!(c.ask(b"x\n", 1, long), Err(CallError::Exited("exit status 3".to_owned())));
}

/// A boxed persistent program (as root: a user of its own) may open its pipes again by
/// name, as shell bots do; its stdin is a stamped FIFO the host keeps open.
#[test]
fn a_boxed_program_opens_its_pipes_by_name_and_answers() {
    if let Err(why) = arena::process::bwrap_available() {
        return crate::util::skip(&format!("skipped: bwrap: {why}"));
    }
    let script = "exec 3< /dev/stdin 4> /dev/stdout\n\
                  while read -r line <&3; do echo \"said $line\" > /dev/stderr; echo \"got $line\" >&4; done\n";
    let limits =
        Limits { sandbox: arena::process::Sandbox::Bwrap { writable: vec![], hidden: vec![] }, ..Limits::default() };
    let mut p = spawn(vec!["/bin/sh".into(), "-c".into(), script.into()], &limits);
    for i in 0..3 {
        assert_eq!(p.ask(format!("{i}\n").as_bytes(), 1, Duration::from_secs(10)), Ok(vec![format!("got {i}")]));
    }
}
