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
