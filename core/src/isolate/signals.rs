//! How a worker's end is told: its exit status in words ([`describe_exit`], with or
//! without a sandbox), and the handler by which a boxed worker tells a signal sent from
//! outside its box from one of its own ([`watch_outside_signals`]), which runs in the
//! worker process.
//!
//! It decides nothing: whether such an end is the entry's fault is the lockstep host's
//! call (`lockstep_host`).

use std::process::ExitStatus;

/// "killed by signal 11 (SIGSEGV: a segmentation fault)", "exit status 3", ...: the
/// same words with or without a sandbox (under bwrap, a worker's death by signal N comes
/// back as bwrap's exit status 128 + N).
pub fn describe_exit(status: ExitStatus) -> String {
    match (killed_by(status), status.code()) {
        (Some(sig), _) => describe_signal(sig),
        (None, Some(code)) => format!("exit status {code}"),
        (None, None) => "an unknown end".to_owned(),
    }
}

/// The signal that ended a worker (under bwrap, its exit status 128 + N is signal N).
pub(super) fn killed_by(status: ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal().or(match status.code() {
        Some(code @ 129..=159) => Some(code - 128),
        _ => None,
    })
}

fn describe_signal(sig: i32) -> String {
    let name = match sig {
        4 => " (SIGILL)",
        6 => " (SIGABRT: an abort, or a stack overflow)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV: a segmentation fault)",
        _ => "",
    };
    if name.is_empty() {
        format!("killed by signal {sig} ({})", crate::process::signal_name(sig))
    } else {
        format!("killed by signal {sig}{name}")
    }
}

/// The exit status of a boxed worker that a signal from outside its box would have
/// killed (see [`watch_outside_signals`]): the host's fault or the machine's, never the
/// entry's. Bwrap passes it on as its own. A native bot in the worker can exit with it
/// too, so the host believes it only where it has no signal witness of its own (and
/// there tells its workers not to use it, [`WITNESSED_ENV`]).
pub const EXIT_KILLED_FROM_OUTSIDE: i32 = 86;

/// The variable by which a host that has the kernel's word on who sent a signal
/// (`process::SignalWitness`) tells its workers so: they then leave the signals that
/// end them to take their course ([`watch_outside_signals`] does nothing), and the host
/// asks the kernel who sent the one a worker died of.
pub const WITNESSED_ENV: &str = "ARENA_SIGNALS_WITNESSED";

/// The signals a worker watches for a sender outside its box (SIGINT, SIGTERM and
/// SIGHUP it ignores: the host decides when it stops; SIGKILL and SIGSTOP cannot be
/// caught).
const WATCHED_SIGNALS: [i32; 13] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
    libc::SIGTRAP,
    libc::SIGSYS,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGVTALRM,
    libc::SIGPROF,
];

/// Whether the host has a signal witness ([`WITNESSED_ENV`]), read by the handler.
static WITNESSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The actions the watched signals had before [`watch_outside_signals`] (Rust's own
/// stack-overflow handler, for SIGSEGV and SIGBUS), restored when a signal is the box's
/// own.
static mut BEFORE: [std::mem::MaybeUninit<libc::sigaction>; 32] = [const { std::mem::MaybeUninit::uninit() }; 32];

/// In a boxed worker, before any bot is loaded: a signal that would kill it and was sent
/// from outside its box (by a process outside its PID namespace, which the kernel
/// reports as sender 0: the host's user, an administrator; never another entry, which
/// cannot see it) ends it with [`EXIT_KILLED_FROM_OUTSIDE`] and a line saying so,
/// instead of dying of it as if the bot had crashed. A signal of the box's own (a fault,
/// or a kill from one of its own processes) takes its course as before. A bot can undo
/// this in its own process, or fake the exit: it only costs its own games (the host
/// believes a box once per entry, see `Worker::play_lockstep`). Where the host says it
/// has a signal witness ([`WITNESSED_ENV`]), a signal from outside ends the worker as
/// it would by default instead (Rust's own handler would let a SIGSEGV that no fault
/// made pass), and the host asks the kernel who sent it.
pub fn watch_outside_signals() {
    WITNESSED.store(std::env::var_os(WITNESSED_ENV).is_some(), std::sync::atomic::Ordering::Relaxed);
    extern "C" fn on_signal(sig: i32, info: *mut libc::siginfo_t, _ctx: *mut std::ffi::c_void) {
        // SAFETY: the kernel passes a valid siginfo; only async-signal-safe calls follow
        // (write, _exit, sigaction, raise), on data set before any bot ran.
        unsafe {
            let (code, pid) = ((*info).si_code, (*info).si_pid());
            // Sent by a process (`kill`, `sigqueue`, `tgkill`: the codes whose sender
            // the kernel names; a timer's signal has its id where the sender would be).
            let sent = matches!(code, libc::SI_USER | libc::SI_QUEUE | libc::SI_TKILL);
            if sent && pid == 0 {
                let line = b"killed from outside its box (a signal sent by a process outside it)\n";
                libc::write(2, line.as_ptr().cast(), line.len());
                if !WITNESSED.load(std::sync::atomic::Ordering::Relaxed) {
                    libc::_exit(EXIT_KILLED_FROM_OUTSIDE);
                }
                // The host asks the kernel: the worker dies of the signal.
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
                return;
            }
            let slot = sig as usize;
            if slot < 32 {
                libc::sigaction(sig, (*std::ptr::addr_of!(BEFORE))[slot].as_ptr(), std::ptr::null_mut());
            }
            // A fault happens again at once, under the action it had; a signal sent from
            // inside the box is sent again.
            if code <= 0 {
                libc::raise(sig);
            }
        }
    }
    for sig in WATCHED_SIGNALS {
        // SAFETY: sigaction with a zeroed struct, our handler and SA_SIGINFO; the old
        // action goes to its slot, written before the handler can run for this signal.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let slot = (*std::ptr::addr_of_mut!(BEFORE)).get_mut(sig as usize);
            if let Some(slot) = slot {
                libc::sigaction(sig, &action, slot.as_mut_ptr());
            }
        }
    }
}
