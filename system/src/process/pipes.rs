//! The pipe plumbing both ways of running a program share: `poll` until a wall-clock
//! deadline or until the call has used its own time (`crate::clock`), non-blocking reads
//! and writes, an answer line as text, and the capped stderr sink.
//!
//! Not here: what is read or written when (`persistent`, `once`), starting and ending the
//! program (`spawn`).

use std::io::{self, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::time::{Duration, Instant};

use super::CallError;
use crate::clock::{ProgramTasks, ProgramTimer};

/// `poll` on up to four descriptors with a deadline; `Ok(false)` when the time is up.
pub(super) fn poll_until(fds: &mut [libc::pollfd], deadline: Instant) -> io::Result<bool> {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Ok(false);
        }
        if poll_for(fds, deadline - now)? {
            return Ok(true);
        }
    }
}

/// `poll` on up to four descriptors until the program's call has used its own time
/// (`crate::clock`); `Ok(false)` then. `born`: the program was started within this call.
pub(super) fn poll_timed(
    fds: &mut [libc::pollfd],
    timer: &mut ProgramTimer,
    mut tasks: Option<&mut ProgramTasks>,
    born: bool,
) -> io::Result<bool> {
    loop {
        let Some(left) = timer.left(tasks.as_deref_mut(), born) else { return Ok(false) };
        timer.poll_starts();
        let ready = poll_for(fds, left)?;
        timer.poll_ended(ready);
        if ready {
            return Ok(true);
        }
    }
}

/// One `ppoll` of at most `left`; `Ok(false)` when nothing happened (or a signal came).
pub(super) fn poll_for(fds: &mut [libc::pollfd], left: Duration) -> io::Result<bool> {
    let ts = libc::timespec { tv_sec: left.as_secs() as libc::time_t, tv_nsec: left.subsec_nanos() as _ };
    // SAFETY: fds is a valid slice of pollfd for the given length; ts lives on the stack.
    let n = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, &ts, std::ptr::null()) };
    if n > 0 {
        return Ok(true);
    }
    if n < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(false)
}

pub(super) fn pollfd(fd: RawFd, events: libc::c_short) -> libc::pollfd {
    libc::pollfd { fd, events, revents: 0 }
}

pub(super) const READ_CHUNK: usize = 64 * 1024;

/// Reads once from a non-blocking reader into `buf`. `Ok(None)`: would block; `Ok(Some(0))`: EOF.
///
/// The bytes are read into `buf`'s spare capacity: a call's answer is a few bytes, and
/// zeroing `max` bytes (64 KiB) first for each read was a tenth of the host's time in a
/// program call (issue #37).
pub(super) fn read_some(r: &mut impl AsRawFd, buf: &mut Vec<u8>, max: usize) -> io::Result<Option<usize>> {
    buf.reserve(max);
    let spare = buf.spare_capacity_mut();
    let (ptr, want) = (spare.as_mut_ptr().cast::<libc::c_void>(), spare.len().min(max));
    loop {
        // SAFETY: `ptr` is `want` writable bytes of `buf`'s spare capacity; `read` writes
        // at most that many, and only the `n` it reports are marked as initialised below.
        let n = unsafe { libc::read(r.as_raw_fd(), ptr, want) };
        if n >= 0 {
            let n = n as usize;
            // SAFETY: the kernel initialised the first `n <= want` spare bytes.
            unsafe { buf.set_len(buf.len() + n) };
            return Ok(Some(n));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock => return Ok(None),
            io::ErrorKind::Interrupted => continue,
            _ => return Err(e),
        }
    }
}

/// Writes as much of `pending` as the pipe takes now. `Err` with EPIPE when nobody reads.
pub(super) fn write_some(w: &mut impl Write, pending: &mut Vec<u8>) -> io::Result<()> {
    let mut done = 0;
    while done < pending.len() {
        match w.write(&pending[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                pending.drain(..done);
                return Err(e);
            }
        }
    }
    pending.drain(..done);
    Ok(())
}

pub(super) fn line_to_string(mut line: &[u8], index: usize) -> Result<String, CallError> {
    if let [rest @ .., b'\r'] = line {
        line = rest;
    }
    String::from_utf8(line.to_vec()).map_err(|_| CallError::Garbage(format!("line {} is not UTF-8 text", index + 1)))
}

/// True for a line of standard output that a program says at its call instead of
/// answering (`# text`: `crate::debug`); such lines are not part of any answer.
pub(super) fn is_said(line: &[u8]) -> bool {
    line.first() == Some(&b'#')
}

/// If `line` is one a program says ([`is_said`]), passes its text (after `#` and one
/// space) to the call running on this thread and returns true.
pub(super) fn said_line(line: &[u8]) -> bool {
    if !is_said(line) {
        return false;
    }
    if crate::debug::listening() {
        let mut text = &line[1..];
        if let [rest @ .., b'\r'] = text {
            text = rest;
        }
        let text = text.strip_prefix(b" ").unwrap_or(text);
        crate::debug::say(&String::from_utf8_lossy(&text[..text.len().min(crate::debug::CALL_CAP + 4)]));
    }
    true
}

/// Passes stderr bytes to a sink, up to a cap, then one `[stderr truncated]` line.
pub(super) struct StderrCap {
    cap: u64,
    written: u64,
    truncated: bool,
    /// Whether what was passed on so far ends with a newline (or is empty).
    ends_line: bool,
}

impl StderrCap {
    pub(super) fn new(cap: u64) -> StderrCap {
        StderrCap { cap, written: 0, truncated: false, ends_line: true }
    }
}

impl StderrCap {
    pub(super) fn feed(&mut self, sink: &mut dyn Write, data: &[u8]) {
        let room = self.cap.saturating_sub(self.written);
        let take = (data.len() as u64).min(room) as usize;
        if take > 0 {
            let _ = sink.write_all(&data[..take]);
            self.written += take as u64;
            self.ends_line = data[take - 1] == b'\n';
        }
        if take < data.len() && !self.truncated {
            self.truncated = true;
            let line: &[u8] = if self.ends_line { b"[stderr truncated]\n" } else { b"\n[stderr truncated]\n" };
            let _ = sink.write_all(line);
            let _ = sink.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past the backstop, what is already in the pipe is still found (one poll that
    /// waits for nothing), and then the call is over; an empty pipe ends it at once.
    #[test]
    fn past_the_backstop_an_answer_already_there_is_found_once() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let mut fds = [pollfd(reader.as_raw_fd(), libc::POLLIN)];
        let mut timer = ProgramTimer::start(std::time::Duration::from_millis(50), None).past_backstop();
        let started = std::time::Instant::now();
        assert!(!poll_timed(&mut fds, &mut timer, None, false).unwrap(), "nothing there: over");
        assert!(started.elapsed() < std::time::Duration::from_millis(40), "it waited");
        let mut timer = ProgramTimer::start(std::time::Duration::from_millis(50), None).past_backstop();
        writer.write_all(b"done\n").unwrap();
        assert!(poll_timed(&mut fds, &mut timer, None, false).unwrap(), "the answer there is found");
        assert!(!poll_timed(&mut fds, &mut timer, None, false).unwrap(), "only once");
    }

    #[test]
    fn read_some_appends_what_is_there_and_tells_would_block_and_eof_apart() {
        let (mut reader, mut writer) = std::io::pipe().unwrap();
        super::super::spawn::set_nonblocking(reader.as_raw_fd()).unwrap();
        let mut buf = b"kept ".to_vec();
        assert_eq!(read_some(&mut reader, &mut buf, READ_CHUNK).unwrap(), None);
        assert_eq!(buf, b"kept ");
        writer.write_all(b"4\nSTAY\n").unwrap();
        assert_eq!(read_some(&mut reader, &mut buf, 3).unwrap(), Some(3));
        assert_eq!(buf, b"kept 4\nS");
        assert_eq!(read_some(&mut reader, &mut buf, READ_CHUNK).unwrap(), Some(4));
        assert_eq!(buf, b"kept 4\nSTAY\n");
        drop(writer);
        assert_eq!(read_some(&mut reader, &mut buf, READ_CHUNK).unwrap(), Some(0));
        assert_eq!(buf, b"kept 4\nSTAY\n");
    }
}
