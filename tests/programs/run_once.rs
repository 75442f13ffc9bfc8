//! One process per request: `run_once`.

use std::time::{Duration, Instant};

use super::common::*;
use arena::process::{CallError, Limits, ProgramSpec, run_once};

fn once(
    argv: Vec<std::ffi::OsString>,
    input: &[u8],
    max_lines: usize,
    timeout: Duration,
) -> Result<Vec<String>, CallError> {
    run_once(&ProgramSpec::new(argv), &Limits::default(), input, max_lines, timeout, &mut std::io::sink())
}

#[test]
fn reads_three_lines_and_ignores_the_rest() {
    let dir = open_dir();
    let src = r#"
#include <stdio.h>
#include <unistd.h>
int main(void) {
    char line[256];
    if (!fgets(line, sizeof line, stdin)) return 1;
    printf("got %s", line);
    for (int i = 1; i <= 5; i++) printf("line %d\n", i);
    fflush(stdout);
    sleep(100); /* must not be waited for */
    return 0;
}
"#;
    let Some(exe) = compile_c(dir.path(), "three", src) else { return };
    // Answered with its three lines, not timed out waiting for it to end.
    let got = once(vec![exe.into()], b"hello\n", 3, Duration::from_secs(10)).unwrap();
    assert_eq!(got, vec!["got hello", "line 1", "line 2"]);
}

#[test]
fn one_line_without_newline_at_exit() {
    let dir = open_dir();
    let src = "#include <stdio.h>\nint main(void) { printf(\"MOVE N\"); return 0; }\n";
    let Some(exe) = compile_c(dir.path(), "one", src) else { return };
    let got = once(vec![exe.into()], b"state\n", 3, Duration::from_secs(10)).unwrap();
    assert_eq!(got, vec!["MOVE N"]);
}

#[test]
fn python_one_line_and_input_on_stdin() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = "import sys\ndata = sys.stdin.read()\nprint(len(data.splitlines()))\n";
    let argv = python_bot(&py, dir.path(), "count.py", src);
    let got = once(argv, b"a\nb\nc\n", 5, Duration::from_secs(10)).unwrap();
    assert_eq!(got, vec!["3"]);
}

#[test]
fn no_output_is_an_error_with_the_status() {
    let dir = open_dir();
    let src = "int main(void) { return 2; }\n";
    let Some(exe) = compile_c(dir.path(), "silent", src) else { return };
    let err = once(vec![exe.into()], b"", 1, Duration::from_secs(10)).unwrap_err();
    assert_eq!(err, CallError::Exited("exit status 2 without printing a line".into()));
}

#[test]
fn timeout_without_output_and_partial_output() {
    let dir = open_dir();
    let src = "#include <unistd.h>\n#include <stdio.h>\nint main(void) { printf(\"first\\n\"); fflush(stdout); sleep(100); }\n";
    let Some(exe) = compile_c(dir.path(), "slow", src) else { return };
    let got = once(vec![exe.clone().into()], b"", 2, Duration::from_millis(300)).unwrap();
    assert_eq!(got, vec!["first"]);
    let src2 = "#include <unistd.h>\nint main(void) { sleep(100); }\n";
    let exe2 = compile_c(dir.path(), "mute", src2).unwrap();
    let t = Instant::now();
    assert_eq!(once(vec![exe2.into()], b"", 1, Duration::from_millis(300)), Err(CallError::Timeout));
    // Ended at its limit, not waited for (it sleeps 100 s); generous for a loaded machine.
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
}

#[test]
fn does_not_need_its_input_read_and_leaves_nothing_behind() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = "import subprocess\np = subprocess.Popen(['sleep', '1000'])\nprint(p.pid)\n";
    let argv = python_bot(&py, dir.path(), "fork_once.py", src);
    let big = vec![b'q'; 1 << 20]; // never read: EPIPE or a full pipe, not a hang
    let got = once(argv, &big, 1, Duration::from_secs(10)).unwrap();
    let child: i32 = got[0].parse().unwrap();
    assert!(eventually(Duration::from_secs(3), || !std::path::Path::new(&format!("/proc/{child}")).exists()));
}

#[test]
fn stderr_is_capped() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = "import sys\nsys.stderr.write('w' * 1_000_000)\nprint('ok')\n";
    let argv = python_bot(&py, dir.path(), "noisy.py", src);
    let mut sink = Vec::new();
    let limits = Limits { stderr_cap: 100, ..Limits::default() };
    let got = run_once(&ProgramSpec::new(argv), &limits, b"", 1, Duration::from_secs(10), &mut sink).unwrap();
    assert_eq!(got, vec!["ok"]);
    let text = String::from_utf8(sink).unwrap();
    assert_eq!(text, format!("{}\n[stderr truncated]\n", "w".repeat(100)));
}

#[test]
fn flood_in_run_once() {
    let Some(py) = python() else { return };
    let dir = open_dir();
    let src = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n";
    let argv = python_bot(&py, dir.path(), "flood.py", src);
    let limits = Limits { max_answer_bytes: 100_000, ..Limits::default() };
    let got = run_once(&ProgramSpec::new(argv), &limits, b"", 1, Duration::from_secs(10), &mut std::io::sink());
    assert_eq!(got, Err(CallError::Flood));
}
