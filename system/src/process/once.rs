//! One process per request: [`run_once`] starts the program, writes its input and
//! closes its stdin, reads up to a number of lines before the call has used its own
//! time, then kills its process group and reaps it.
//!
//! Not here: a conversation with a program that stays (`persistent`).

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::{ChildStderr, ChildStdin, ChildStdout};
use std::time::{Duration, Instant};

use super::pipes::{READ_CHUNK, StderrCap, line_to_string, poll_timed, poll_until, pollfd, read_some, write_some};
use super::spawn::{
    STOPPED_FROM_OUTSIDE, Started, describe_status, end_group_timed, ending, has_exited, set_nonblocking, start,
    stopped_from_outside, witnessed,
};
use super::{CallError, Limits, ProgramSpec, io_err};
use crate::clock::{ProgramTasks, ProgramTimer, Written};

/// Runs the program once: writes `input` to its stdin and closes it, reads up to
/// `max_lines` lines (or until it closes stdout or ends) before `timeout`, then kills its
/// process group and reaps it. A last line without a newline counts when the output ends.
///
/// Returns the complete lines read, at least one: when the deadline passes after some
/// lines, those are returned; with none, `Timeout`. A program that ends without a line is
/// `Exited` (with its status). Lines after `max_lines` are ignored. Stderr goes to
/// `stderr_sink`, capped at `limits.stderr_cap`.
pub fn run_once(
    spec: &ProgramSpec,
    limits: &Limits,
    input: &[u8],
    max_lines: usize,
    timeout: Duration,
    stderr_sink: &mut dyn Write,
) -> Result<Vec<String>, CallError> {
    run_once_timed(spec, limits, input, max_lines, timeout, stderr_sink).0
}

/// [`run_once`], and the own time the call took (`crate::clock`: the wall time less the
/// time the program's tasks, all born within the call, and the calling thread waited
/// for a CPU). `timeout` is on that clock too.
pub fn run_once_timed(
    spec: &ProgramSpec,
    limits: &Limits,
    input: &[u8],
    max_lines: usize,
    timeout: Duration,
    stderr_sink: &mut dyn Write,
) -> (Result<Vec<String>, CallError>, Duration) {
    // The clock starts once the program runs (`start` returns after its `execve`): the
    // host's set-up before is not its time (`ProgramTimer::start_spawned`).
    let Started { mut child, stdin, mut stdout, mut stderr, pidfd, cap, user, machine_oom, stamped, .. } =
        match start(spec, limits, false) {
            Ok(started) => started,
            Err(e) => return (Err(e), Duration::ZERO),
        };
    let mut timer = ProgramTimer::start_spawned(timeout, child.id());
    let mut tasks = ProgramTasks::new(child.id());
    let result = run_once_loop(
        stdin,
        &mut stdout,
        &mut stderr,
        pidfd,
        limits,
        input,
        max_lines,
        (&mut timer, &mut tasks),
        stderr_sink,
    );
    // The stamp before the waits (`ProgramTimer::wants_stamp`), and before the kill (a
    // killed writer still stamps a write it was taken off its CPU in). Only its latest
    // moment: what it wrote last (lines past those read, say) may not be the answer.
    let written = timer
        .wants_stamp()
        .then(|| super::stamped::written(stamped, stdout.as_raw_fd(), None))
        .flatten()
        .map(|w| Written { earliest: None, ..w });
    // Read before the program is reaped (its first process is still readable then).
    let time = timer.charge(Some(&mut tasks), true);
    // Out of time while stopped from outside its box: not its doing.
    let stopped = matches!(result.0, Err(CallError::Timeout)) && stopped_from_outside(child.id(), limits);
    let by_itself = has_exited(child.id());
    let end = end_group_timed(&mut child);
    let over_memory = super::spawn::over_memory(cap.as_ref());
    let machine_oom = machine_oom.unaccounted(cap.as_ref());
    drop(cap);
    drop(user);
    // Pass on the rest of stderr; bounded, as a process that left the group may hold it.
    let mut capper = result.1;
    let _ = set_nonblocking(stderr.as_raw_fd());
    let drain_end = Instant::now() + Duration::from_millis(100);
    let mut chunk = Vec::with_capacity(READ_CHUNK);
    loop {
        chunk.clear();
        match read_some(&mut stderr, &mut chunk, READ_CHUNK) {
            Ok(Some(0)) | Err(_) => break,
            Ok(Some(_)) => capper.feed(stderr_sink, &chunk),
            Ok(None) => {
                let mut fds = [pollfd(stderr.as_raw_fd(), libc::POLLIN)];
                if !matches!(poll_until(&mut fds, drain_end), Ok(true)) {
                    break;
                }
            }
        }
    }
    let _ = stderr_sink.flush();
    let result = match result.0 {
        Ok(lines) if lines.is_empty() => {
            let how = format!("{} without printing a line", describe_status(end.0));
            Err(ending(
                &|sigs| witnessed(child.id(), sigs),
                how,
                by_itself,
                end,
                limits,
                over_memory.as_deref(),
                machine_oom,
            ))
        }
        Err(CallError::Timeout) if stopped => Err(CallError::KilledFromOutside(STOPPED_FROM_OUTSIDE.to_owned())),
        other => other,
    };
    match (result, timer.answered_late(|| written)) {
        // Read in full, but written after its deadline and past the limit.
        (Ok(_), Some(late)) => (Err(CallError::Timeout), late),
        (result, _) => (result, time),
    }
}

#[allow(clippy::too_many_arguments)]
fn run_once_loop(
    stdin: ChildStdin,
    stdout: &mut ChildStdout,
    stderr: &mut ChildStderr,
    pidfd: Option<OwnedFd>,
    limits: &Limits,
    input: &[u8],
    max_lines: usize,
    (timer, tasks): (&mut ProgramTimer, &mut ProgramTasks),
    sink: &mut dyn Write,
) -> (Result<Vec<String>, CallError>, StderrCap) {
    let mut capper = StderrCap::new(limits.stderr_cap);
    let mut stdin = Some(stdin);
    let mut pending = input.to_vec();
    let mut buf: Vec<u8> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    let mut bytes = 0usize;
    let mut stderr_open = true;
    let mut chunk = vec![0u8; 16 * 1024];
    let max_answer = limits.max_answer_bytes;
    // Moves complete lines from buf to lines; `Some` ends the loop.
    let take = |buf: &mut Vec<u8>, lines: &mut Vec<String>, bytes: &mut usize, at_end: bool| -> Option<CallError> {
        let mut pos = 0;
        while lines.len() < max_lines {
            let (end, next) = match buf[pos..].iter().position(|&b| b == b'\n') {
                Some(i) => (pos + i, pos + i + 1),
                None if at_end && pos < buf.len() => (buf.len(), buf.len()),
                None => break,
            };
            if super::pipes::said_line(&buf[pos..end]) {
                pos = next;
                continue;
            }
            *bytes += next - pos;
            if *bytes > max_answer {
                return Some(CallError::Flood);
            }
            match line_to_string(&buf[pos..end], lines.len()) {
                Ok(s) => lines.push(s),
                Err(e) => return Some(e),
            }
            pos = next;
        }
        buf.drain(..pos);
        (lines.len() < max_lines && *bytes + buf.len() > max_answer).then_some(CallError::Flood)
    };
    let mut exited = false;
    loop {
        if let Some(s) = &mut stdin {
            match write_some(s, &mut pending) {
                Ok(()) if pending.is_empty() => stdin = None, // closes it
                Ok(()) => {}
                // The program does not read its input (or has ended): fine, keep reading.
                Err(_) => stdin = None,
            }
        }
        if lines.len() >= max_lines {
            return (Ok(lines), capper);
        }
        if exited {
            // Everything the leader wrote has been read.
            if let Some(e) = take(&mut buf, &mut lines, &mut bytes, true) {
                return (Err(e), capper);
            }
            return (Ok(lines), capper);
        }
        let mut fds = [
            pollfd(stdout.as_raw_fd(), libc::POLLIN),
            pollfd(if stderr_open { stderr.as_raw_fd() } else { -1 }, libc::POLLIN),
            pollfd(pidfd.as_ref().map_or(-1, |f| f.as_raw_fd()), libc::POLLIN),
            pollfd(stdin.as_ref().map_or(-1, |s| s.as_raw_fd()), libc::POLLOUT),
        ];
        match poll_timed(&mut fds, timer, Some(tasks), true) {
            Err(e) => return (Err(io_err("poll", e)), capper),
            Ok(false) => {
                return (if lines.is_empty() { Err(CallError::Timeout) } else { Ok(lines) }, capper);
            }
            Ok(true) => {}
        }
        if fds[1].revents != 0 {
            // stderr is blocking: poll said readable, so one read does not block.
            match stderr.read(&mut chunk[..]) {
                Ok(0) | Err(_) => stderr_open = false,
                Ok(n) => capper.feed(sink, &chunk[..n]),
            }
        }
        let mut drain_all = fds[2].revents != 0;
        if drain_all {
            exited = true;
        }
        if fds[0].revents != 0 || drain_all {
            loop {
                match read_some(stdout, &mut buf, READ_CHUNK) {
                    Ok(Some(0)) => {
                        exited = true;
                        drain_all = false;
                    }
                    Ok(Some(_)) => {
                        if let Some(e) = take(&mut buf, &mut lines, &mut bytes, false) {
                            return (Err(e), capper);
                        }
                        if lines.len() >= max_lines {
                            return (Ok(lines), capper);
                        }
                    }
                    Ok(None) => drain_all = false,
                    Err(e) => return (Err(io_err("read", e)), capper),
                }
                if !drain_all {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::run_once_timed;
    use crate::process::{Limits, ProgramSpec};

    const BIG_HOST: &str = "ARENA_TEST_BIG_HOST";
    const NAME: &str = "process::once::tests::the_hosts_set_up_of_a_program_started_for_a_call_is_not_its_time";

    /// The host's set-up of a program started for a call (here the fork of a host of
    /// 1 GiB of written memory, whose page tables the fork copies) is not the program's
    /// time: its clock starts once its `execve` is done. Run in a child copy of this
    /// test binary, whose memory would slow every other test's forks.
    #[test]
    fn the_hosts_set_up_of_a_program_started_for_a_call_is_not_its_time() {
        if std::env::var_os(BIG_HOST).is_none() {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", NAME, "--nocapture", "--test-threads", "1"])
                .env(BIG_HOST, "1")
                .output()
                .unwrap();
            let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            assert!(out.status.success() && text.contains("1 passed"), "{text}");
            eprintln!("{}", text.lines().find(|l| l.starts_with("calls of")).unwrap_or_default());
            return;
        }
        let spec = ProgramSpec::new(["/bin/echo", "hi"]);
        let median_charge = || {
            let mut charged: Vec<Duration> = (0..5)
                .map(|_| {
                    let (result, took) =
                        run_once_timed(&spec, &Limits::default(), b"", 1, Duration::from_secs(5), &mut std::io::sink());
                    assert_eq!(result.unwrap(), vec!["hi".to_owned()]);
                    took
                })
                .collect();
            charged.sort();
            charged[2]
        };
        let small = median_charge();
        let big = vec![1u8; 1 << 30];
        // What the fork costs the host's thread (it copies the page tables of 262,144
        // written pages), and what the child's release of that copy costs (at its exit
        // here, at its exec in a call: the child's time, which is charged), each at its
        // cheapest of five.
        let (mut fork, mut release) = (Duration::MAX, Duration::MAX);
        for _ in 0..5 {
            let started = Instant::now();
            // SAFETY: the child only calls _exit, which is async-signal-safe.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                unsafe { libc::_exit(0) };
            }
            let forked = Instant::now();
            // SAFETY: waits for the child just forked.
            unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
            fork = fork.min(forked - started);
            release = release.min(forked.elapsed());
        }
        let charged = median_charge();
        std::hint::black_box(&big);
        eprintln!(
            "calls of /bin/echo: charged {small:?} from a small host, {charged:?} from a host of 1 GiB; \
             its fork {fork:?}, the release of the copy {release:?}"
        );
        assert!(fork >= Duration::from_millis(2), "the fork was too cheap to tell: {fork:?}");
        assert!(charged < small + release + fork / 2, "the host's fork was charged");
    }
}
