//! A program's stdout and stdin whose writes the kernel stamps: named FIFOs, made in
//! `/dev/shm` (or the temp directory), opened at both ends and unlinked at once, then
//! used as anonymous pipes are.
//!
//! Why: an answer read after a `poll` woke by its deadline could have come at any moment
//! of the calling thread's wait for a CPU after that deadline, so that whole wait used to
//! be charged to the program (`crate::clock::ProgramTimer::answered_late`). On a crowded
//! machine that turned prompt answers into time-outs (a 5 ms call charged 84 ms). The
//! other way round, a host thread kept off its CPU between two polls had its whole wait
//! taken out as the host's, and an answer written past the limit passed (a sleep of
//! 150 ms read as 41 ms of own time). The kernel updates a FIFO's modification and
//! change times on each `write` that moves data, which anonymous pipes no longer do
//! (Linux 6.x); the time of the last write settles both. Not on `splice`, `vmsplice`,
//! `tee` or `sendfile` into it, which would leave an older stamp: program bots may not
//! make those calls (`seccomp`). The stamp on stdin says when the host's last write of a
//! request was done ([`written_in`]): the program's wake-up can take the CPU from a
//! crowded host thread in that write, which then gets back from it long after (seen:
//! 4 s).
//!
//! The stamp bounds when the program last wrote ([`written`]): no later than the later
//! of the two times plus the coarse clock's resolution, no earlier than that later time
//! (a program that sets its stdout's times, which it may when it runs as the FIFO's
//! owner, moves the change time to that moment, never back). A stamp is only trusted
//! where a probe made at first use showed that writes move it ([`stamped_pipe`]
//! returns `None` otherwise, and the caller makes an anonymous pipe: the old, harsher
//! rule applies, and the host's waits between polls are taken as the host's).
//!
//! Not here: what a stamp decides (`crate::clock::ProgramTimer`), polling and reading
//! (`pipes`).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::clock::Written;

/// Where the FIFOs are made (each lives there only between its `mkfifo` and its
/// `unlink`, a few microseconds, with mode 0600), once a probe there showed that writes
/// stamp a FIFO; `None` when no candidate did.
fn home() -> Option<&'static Path> {
    static HOME: OnceLock<Option<PathBuf>> = OnceLock::new();
    HOME.get_or_init(|| {
        // A tmpfs first: its inodes' times cost no journal write.
        [PathBuf::from("/dev/shm"), std::env::temp_dir()].into_iter().find(|dir| probe(dir))
    })
    .as_deref()
}

/// Whether a write to a FIFO made in `dir` moves its stamp: its times are set to the
/// epoch, one byte is written, and the stamp must then be recent.
fn probe(dir: &Path) -> bool {
    let Some((read, write)) = make(dir) else { return false };
    let epoch = [libc::timespec { tv_sec: 0, tv_nsec: 0 }; 2];
    // SAFETY: futimens on a descriptor we own, with two valid timespecs.
    if unsafe { libc::futimens(write.as_raw_fd(), epoch.as_ptr()) } != 0 {
        return false;
    }
    // SAFETY: one byte from a valid buffer to a descriptor we own.
    if unsafe { libc::write(write.as_raw_fd(), b"x".as_ptr().cast(), 1) } != 1 {
        return false;
    }
    // The change time moved with the futimens; only the modification time tells.
    let Some((mtime, _)) = times(read.as_raw_fd()) else { return false };
    realtime_nanos().saturating_sub(mtime) < 10_000_000_000
}

/// A FIFO in `dir`, opened at both ends (read end non-blocking, both close-on-exec) and
/// unlinked.
fn make(dir: &Path) -> Option<(OwnedFd, OwnedFd)> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    for _ in 0..8 {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("arena-fifo-{}-{n}", std::process::id()));
        let c = CString::new(path.as_os_str().as_bytes()).ok()?;
        // SAFETY: `c` is a valid NUL-terminated path.
        if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
            // One left by an earlier process of the same pid: take the next name.
            if io::Error::last_os_error().kind() == io::ErrorKind::AlreadyExists {
                continue;
            }
            return None;
        }
        // SAFETY: as above; the descriptors returned are new and ours.
        let read = unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        // SAFETY: as above (with a reader there, opening for writing does not block).
        let write = if read >= 0 { unsafe { libc::open(c.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) } } else { -1 };
        // SAFETY: as above.
        unsafe { libc::unlink(c.as_ptr()) };
        // SAFETY: each descriptor is new and owned by nothing else.
        let read = (read >= 0).then(|| unsafe { OwnedFd::from_raw_fd(read) });
        // SAFETY: as above.
        let write = (write >= 0).then(|| unsafe { OwnedFd::from_raw_fd(write) });
        return Some((read?, write?));
    }
    None
}

/// A stamped pipe for a program's stdout: its read end (non-blocking) and its write end,
/// both close-on-exec; `None` where writes would not be stamped (make an anonymous pipe).
pub(super) fn stamped_pipe() -> Option<(OwnedFd, OwnedFd)> {
    make(home()?)
}

/// A stamped pipe for a program's stdin: its read end (blocking, as programs expect
/// their input) and its write end, both close-on-exec; `None` as [`stamped_pipe`].
pub(super) fn stamped_stdin() -> Option<(OwnedFd, OwnedFd)> {
    let (read, write) = make(home()?)?;
    // SAFETY: fcntl on a descriptor we own.
    let flags = unsafe { libc::fcntl(read.as_raw_fd(), libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(read.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK) } != 0 {
        return None;
    }
    Some((read, write))
}

/// What [`written_in`] adds to a stdin stamp for its latest moment, at least: the coarse
/// clock lags by a tick, or more where ticks come late (a virtual machine's stolen
/// time); a later moment only makes the program's time shorter.
const STDIN_MARGIN: u64 = 10_000_000;

/// When the host last wrote to a program's stdin, a stamped pipe whose write end is
/// `fd`: at the latest, on the monotonic clock (`offset`: [`crate::clock::real_offset`]).
/// Read once a request is written in full, it is a moment by which the program had all
/// of it, however long the host's thread waited for a CPU before it got back from the
/// write (if it waited after the data was in and before the kernel stamped it, the
/// stamp is late too, and the program's time only shorter).
fn written_in(fd: RawFd, offset: u64) -> Option<u64> {
    let (mtime, ctime) = times(fd)?;
    Some(to_monotonic(mtime.max(ctime).saturating_add(STDIN_MARGIN.max(2 * coarse_resolution())), offset))
}

/// A real time (a stamp) on the monotonic clock, `offset` being the real-time clock less
/// the monotonic one; never later than now.
fn to_monotonic(real: u64, offset: u64) -> u64 {
    real.saturating_sub(offset).min(crate::clock::monotonic_nanos())
}

/// The capacity of the pipe `fd` is an end of, in bytes.
pub(super) fn pipe_size(fd: RawFd) -> Option<usize> {
    // SAFETY: fcntl on a descriptor the caller holds.
    let size = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
    usize::try_from(size).ok()
}

/// The bytes written to the pipe whose read end is `fd` and not read yet.
pub(super) fn unread(fd: RawFd) -> Option<usize> {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int into `n`.
    if unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) } != 0 {
        return None;
    }
    usize::try_from(n).ok()
}

/// The modification and change times of `fd`, in nanoseconds of the real-time clock.
fn times(fd: RawFd) -> Option<(u64, u64)> {
    // SAFETY: fstat writes into a zeroed stat we own.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return None;
    }
    let ns = |s: libc::time_t, n: libc::c_long| (s as u64).saturating_mul(1_000_000_000).saturating_add(n as u64);
    Some((ns(st.st_mtime, st.st_mtime_nsec), ns(st.st_ctime, st.st_ctime_nsec)))
}

fn realtime_nanos() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    (ts.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as u64)
}

/// The resolution of the coarse clock file times are taken from (a scheduler tick).
fn coarse_resolution() -> u64 {
    static RES: OnceLock<u64> = OnceLock::new();
    *RES.get_or_init(|| {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid timespec to write.
        if unsafe { libc::clock_getres(libc::CLOCK_REALTIME_COARSE, &mut ts) } != 0 {
            return 10_000_000;
        }
        (ts.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as u64).max(1)
    })
}

/// When the program last wrote to its stdout, where that is a stamped pipe (`stamped`)
/// whose read end is `fd`, on the monotonic clock (`crate::clock::monotonic_nanos`): at
/// the latest (never later than now) and at the earliest. Whether that last write was
/// the answer read, only the caller can tell: where it may not be, it drops the earliest
/// moment ([`Written::earliest`]).
///
/// The stamp is the coarse clock at the last write: at most its resolution before the
/// write, never after it. A program that moves its stdout's times moves the change time
/// to that moment: later, never earlier, than its last write.
///
/// `stdin`: the write end of the program's stdin, where it is a stamped pipe still open:
/// when the host last wrote it ([`Written::requested`]).
pub(super) fn written(stamped: bool, fd: RawFd, stdin: Option<RawFd>) -> Option<Written> {
    if !stamped {
        return None;
    }
    let (mtime, ctime) = times(fd)?;
    let stamp = mtime.max(ctime);
    let offset = crate::clock::real_offset();
    Some(Written {
        earliest: Some(to_monotonic(stamp, offset)),
        latest: to_monotonic(stamp.saturating_add(coarse_resolution()), offset),
        requested: stdin.and_then(|fd| written_in(fd, offset)),
        offset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_write_stamps_the_pipe_and_a_forged_time_cannot_move_the_stamp_back() {
        let Some((read, write)) = stamped_pipe() else {
            panic!("no directory here stamps a FIFO's writes (/dev/shm, the temp dir)");
        };
        std::thread::sleep(Duration::from_millis(30));
        let before = crate::clock::monotonic_nanos();
        // SAFETY: one byte from a valid buffer to a descriptor we own.
        assert_eq!(unsafe { libc::write(write.as_raw_fd(), b"x".as_ptr().cast(), 1) }, 1);
        let after = crate::clock::monotonic_nanos();
        std::thread::sleep(Duration::from_millis(30));
        let at = written(true, read.as_raw_fd(), None).unwrap();
        // The write came within a tick after the earliest moment, and before the latest:
        // give or take the coarse clock's own lag where its ticks come late (a loaded
        // virtual machine's: seen 7.6 ms behind, beside 12 busy loops), which only
        // makes a stamp older (a program's answer earlier, never later, than it was).
        let tick = coarse_resolution();
        let lag = STDIN_MARGIN;
        let earliest = at.earliest.unwrap();
        assert!(earliest <= after + 1_000_000 && earliest + tick + lag >= before, "{before} {at:?} {after}");
        assert!(
            at.latest + tick + lag >= before && at.latest <= after + tick + 2_000_000,
            "{before} {at:?} {after} (tick {tick})"
        );
        assert_eq!(at.latest - earliest, tick);
        // Not stamped, nothing.
        assert_eq!(written(false, read.as_raw_fd(), None), None);
        // A program that owns the FIFO may set its times to the past: the change time
        // moves to the moment it did, so the stamp does not go back.
        std::thread::sleep(Duration::from_millis(30));
        let forged_at = crate::clock::monotonic_nanos();
        let epoch = [libc::timespec { tv_sec: 0, tv_nsec: 0 }; 2];
        // SAFETY: futimens on a descriptor we own, with two valid timespecs.
        assert_eq!(unsafe { libc::futimens(write.as_raw_fd(), epoch.as_ptr()) }, 0);
        let at = written(true, read.as_raw_fd(), None).unwrap();
        assert!(at.latest + tick + lag >= forged_at, "a forged time moved the stamp back: {at:?} < {forged_at}");
        assert!(at.earliest.unwrap() + tick + lag >= forged_at, "{at:?} < {forged_at}");
    }

    #[test]
    fn a_request_is_stamped_on_the_programs_stdin_which_reads_blocking() {
        let Some((read, write)) = stamped_stdin() else {
            panic!("no directory here stamps a FIFO's writes (/dev/shm, the temp dir)");
        };
        // SAFETY: fcntl on a descriptor we own.
        let flags = unsafe { libc::fcntl(read.as_raw_fd(), libc::F_GETFL) };
        assert_eq!(flags & libc::O_NONBLOCK, 0, "the program's end blocks");
        std::thread::sleep(Duration::from_millis(30));
        let before = crate::clock::monotonic_nanos();
        // SAFETY: one byte from a valid buffer to a descriptor we own.
        assert_eq!(unsafe { libc::write(write.as_raw_fd(), b"x".as_ptr().cast(), 1) }, 1);
        let after = crate::clock::monotonic_nanos();
        std::thread::sleep(Duration::from_millis(30));
        let at = written_in(write.as_raw_fd(), crate::clock::real_offset()).unwrap();
        let tick = coarse_resolution();
        // Not before the write (the latest moment), and within its margin after it.
        let margin = STDIN_MARGIN.max(2 * tick);
        assert!(at + 1_000_000 >= before && at <= after + margin + 2_000_000, "{before} {at} {after} (tick {tick})");
    }
}
