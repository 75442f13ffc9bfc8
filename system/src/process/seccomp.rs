//! The system calls a program bot, and a worker or probe that loads bots, may not make:
//! those that put bytes into a pipe without moving its stamp (`splice`, `vmsplice`,
//! `tee`, `sendfile`) and `io_uring`, whose requests can do the same; and a
//! parent-death signal other than SIGKILL. The first four fail with `EINVAL`, what the
//! kernel says of descriptors it cannot splice, so that libraries fall back to `write`
//! (libuv, the JDK's `transferTo`, Go's `io.Copy` and Python's `shutil` all do on
//! `EINVAL`; libuv, the JDK and Go do not on `ENOSYS`); `io_uring_setup`,
//! `io_uring_enter` and `io_uring_register` fail with `ENOSYS`, as on a kernel without
//! them, which is what their users test for; `prctl(PR_SET_PDEATHSIG, sig)` with any
//! `sig` but SIGKILL fails with `EPERM`: a process running bot code as its box's first
//! process could otherwise undo its `--die-with-parent` (bwrap's SIGKILL) and outlive
//! a host that died at once (a box's first process is bwrap's own now: a second line).
//! The filter of what the host boxes ([`boxed_filter`]) also guards its box's process 2
//! ([`GUARDED_PID`], the helper or program): no process of the box may send it SIGKILL
//! or a stop signal, trace, join another's process group, or set a new `RLIMIT_CPU`
//! (whose SIGKILL would come below the host's CPU limit) ([`instructions`]), so that
//! its death by SIGKILL came from outside its box. Everything else is allowed.
//! The filter is a classic BPF program of under a hundred instructions per
//! architecture, installed in the child
//! between fork and exec (with `no_new_privs`, which bwrap sets for its child anyway),
//! so it holds for the program or helper, for bwrap in front of it and for all they
//! fork, and no process of the box can lift it.
//!
//! A third filter, the self-kill rule ([`self_kill_rule`]), is for a boxed worker of a
//! native or script entry on a host that cannot trace who sent a SIGKILL: it refuses the
//! ways to a SIGKILL of one's own that the guard cannot see (a `kill` of a thread's id,
//! a signal the kernel sends later: a timer's, an I/O signal, a child's exit signal), so
//! that such a worker's death by SIGKILL came from outside. The worker installs it on
//! all its threads before it loads its bot.
//!
//! A second, smaller filter, the boxes' exit rule ([`exit_rule`]), kills a process that
//! exits with status 137 (it dies of SIGSYS), so that bwrap's 137 says a real SIGKILL
//! of its process 2. Bwrap installs it in the box itself (`sandbox`'s
//! `--add-seccomp-fd`): bwrap's own first process, outside the box, is under the first
//! filter only, and must exit with 137 to pass such a SIGKILL on.
//!
//! Why: a program's answer is judged by when it was written (`stamped`: the kernel
//! stamps a FIFO's times at each `write`). The four calls above write into a pipe
//! without touching those times, so a program could write a `#` line in time and then
//! its late answer by `splice`, and make its answer look older than it is.
//!
//! Every architecture a process of the machine may call the kernel in is covered: on
//! x86-64 the 64-bit calls, the x32 ones (the same numbers with bit 30 set, and x32's
//! own `vmsplice`) and the 32-bit ones (`int 0x80`, a 32-bit program); on AArch64 its
//! own and the 32-bit ARM ones. Elsewhere there is no filter ([`program_filter`] is
//! `None`) and the gap stays open (`docs/hardening.md`).
//!
//! Not here: when the filter is installed (`rlimits::ChildSetup` for programs,
//! `spawn::confine_helper` for workers and probes; the exit rule, `sandbox`), what a
//! death by SIGKILL is taken for (`spawn`, the lockstep host), what the stamps are for
//! (`stamped`, `clock`). It is not a sandbox: the box is (`sandbox`). Nor does it keep
//! a parent-death signal whole: an `execve` from a second thread drops it too.

use std::io;
use std::sync::OnceLock;

// Classic BPF, as `linux/filter.h` and `linux/seccomp.h` define it.
const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD (0) | BPF_W (0) | BPF_ABS (0x20)
const BPF_ALU_AND_K: u16 = 0x04 | 0x50; // BPF_ALU | BPF_AND | BPF_K
const BPF_JMP_JEQ_K: u16 = 0x05 | 0x10; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JMP_JA: u16 = 0x05; // BPF_JMP | BPF_JA
const BPF_JMP_JSET_K: u16 = 0x05 | 0x40; // BPF_JMP | BPF_JSET | BPF_K
const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K
/// `offsetof(struct seccomp_data, nr)`, `arch`, and the low 32 bits of `args[0]`,
/// `args[1]` and `args[2]` (little-endian, as both architectures here are), then the
/// high 32 bits of `args[2]`.
const DATA_NR: u32 = 0;
const DATA_ARCH: u32 = 4;
const DATA_ARG0: u32 = 16;
const DATA_ARG1: u32 = 24;
const DATA_ARG2: u32 = 32;
const DATA_ARG2_HIGH: u32 = 36;
/// `prctl`'s `PR_SET_PDEATHSIG` (the kernel reads the option as an `int`: its low 32 bits).
const PR_SET_PDEATHSIG: u32 = 1;
const RET_ALLOW: u32 = 0x7fff_0000;
/// `SECCOMP_RET_KILL_PROCESS` (Linux 4.14): the whole process dies as of SIGSYS, a
/// signal it cannot catch (an older kernel kills the calling thread alone).
const RET_KILL_PROCESS: u32 = 0x8000_0000;
/// `RLIMIT_CPU`: resource 0 on every architecture here.
const RLIMIT_CPU: u32 = 0;
/// The exit status the boxes' exit rule ([`exit_rule`]) takes for a death by SIGKILL:
/// bwrap's 128 + 9 for a process 2 killed by it, as its low byte (what a parent sees of
/// an `exit` status).
const EXIT_AS_SIGKILL: u32 = 128 + libc::SIGKILL as u32;
const RET_ERRNO: u32 = 0x0005_0000;
const RET_EINVAL: u32 = RET_ERRNO | libc::EINVAL as u32;
const RET_ENOSYS: u32 = RET_ERRNO | libc::ENOSYS as u32;
const RET_EPERM: u32 = RET_ERRNO | libc::EPERM as u32;
/// `seccomp(2)`'s `SECCOMP_FILTER_FLAG_SPEC_ALLOW`: installing a filter does not turn on
/// the Speculative Store Bypass mitigation for the process (which some kernels do by
/// default, and which slows everything it runs); it guards nothing the filter is for.
const FLAG_SPEC_ALLOW: libc::c_ulong = 4;

/// `AUDIT_ARCH_*` of `linux/audit.h`.
#[cfg(all(target_arch = "x86_64", target_endian = "little"))]
const ARCHES: &[Arch] = &[
    Arch {
        audit: 0xC000_003E, // x86-64; x32 calls come with it, bit 30 set
        mask: !0x4000_0000,
        // sendfile, splice, tee, vmsplice, x32's vmsplice
        pipes: &[40, 275, 276, 278, 532],
        uring: IO_URING,
        prctl: 157,
        setrlimit: 160,
        prlimit: 302,
        exits: [60, 231],
        wide: true,
        // x32's own rt_sigqueueinfo, rt_tgsigqueueinfo and ptrace beside the 64-bit ones
        signals: Signals {
            kill: 62,
            tkill: 200,
            tgkill: 234,
            queue: &[129, 524],
            tg_queue: &[297, 536],
            ptrace: &[101, 521],
            setpgid: 109,
        },
        later: Later { fcntl: &[72], timer_create: &[222, 526], mq_notify: &[244, 527], clone: 56 },
    },
    Arch {
        audit: 0x4000_0003, // i386
        mask: !0,
        // sendfile, sendfile64, splice, tee, vmsplice
        pipes: &[187, 239, 313, 315, 316],
        uring: IO_URING,
        prctl: 172,
        // setrlimit (getrlimit 76 and ugetrlimit 191 only read)
        setrlimit: 75,
        prlimit: 340,
        exits: [1, 252],
        wide: false,
        signals: Signals {
            kill: 37,
            tkill: 238,
            tgkill: 270,
            queue: &[178],
            tg_queue: &[335],
            ptrace: &[26],
            setpgid: 57,
        },
        later: Later { fcntl: &[55, 221], timer_create: &[259], mq_notify: &[281], clone: 120 },
    },
];
#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
const ARCHES: &[Arch] = &[
    Arch {
        audit: 0xC000_00B7, // AArch64
        mask: !0,
        // sendfile, vmsplice, splice, tee
        pipes: &[71, 75, 76, 77],
        uring: IO_URING,
        prctl: 167,
        setrlimit: 164,
        prlimit: 261,
        exits: [93, 94],
        wide: true,
        signals: Signals {
            kill: 129,
            tkill: 130,
            tgkill: 131,
            queue: &[138],
            tg_queue: &[240],
            ptrace: &[117],
            setpgid: 154,
        },
        later: Later { fcntl: &[25], timer_create: &[107], mq_notify: &[184], clone: 220 },
    },
    Arch {
        audit: 0x4000_0028, // 32-bit ARM
        mask: !0,
        // sendfile, sendfile64, splice, tee, vmsplice
        pipes: &[187, 239, 340, 342, 343],
        uring: IO_URING,
        prctl: 172,
        // setrlimit (ugetrlimit 191 only reads)
        setrlimit: 75,
        prlimit: 369,
        exits: [1, 248],
        wide: false,
        signals: Signals {
            kill: 37,
            tkill: 238,
            tgkill: 268,
            queue: &[178],
            tg_queue: &[363],
            ptrace: &[26],
            setpgid: 57,
        },
        later: Later { fcntl: &[55, 221], timer_create: &[257], mq_notify: &[278], clone: 120 },
    },
];
// A big-endian AArch64 would need its own audit values and the arguments' other half.
#[cfg(not(all(any(target_arch = "x86_64", target_arch = "aarch64"), target_endian = "little")))]
const ARCHES: &[Arch] = &[];

/// `io_uring_setup`, `io_uring_enter`, `io_uring_register`: the same numbers on every
/// architecture (they came after the tables were unified).
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), target_endian = "little"))]
const IO_URING: &[u32] = &[425, 426, 427];

/// `pidfd_send_signal`: the same number on every architecture.
const PIDFD_SEND_SIGNAL: u32 = 424;

/// `clone3`: the same number on every architecture. Its exit signal is in a structure the
/// filter cannot read, so the self-kill rule refuses it with `ENOSYS`, as a kernel
/// without it would (glibc and Rust's standard library then use `clone`).
const CLONE3: u32 = 435;

/// `fcntl`'s `F_SETSIG` on every architecture here.
const F_SETSIG: u32 = 10;

/// `clone`'s `CSIGNAL`: the bits of its flags that are the exit signal.
const CSIGNAL: u32 = 0xff;

/// The sign bit of a 32-bit pid: set for a process group (`-pgid`) and for everyone (-1).
const PID_SIGN: u32 = 0x8000_0000;

/// The signals no process of a guarded box may send its guarded process ([`instructions`]):
/// SIGKILL, and those that stop a process (SIGSTOP; SIGTSTP, SIGTTIN and SIGTTOU, whose
/// default action stops it too).
const GUARDED_SIGNALS: [u32; 5] = [9, 19, 20, 21, 22];

/// The process of a box that the boxes' filter guards: a helper's (a worker's, a
/// probe's) or a program's pid in its box, under bwrap's own process 1
/// (`sandbox::helper_command`, `sandbox::program_command`).
pub(super) const GUARDED_PID: u32 = 2;

/// One architecture's refused calls.
struct Arch {
    /// Its `AUDIT_ARCH_*` value, as the kernel gives it in `seccomp_data.arch`.
    audit: u32,
    /// ANDed with the call's number before the comparisons (x32's bit taken off).
    mask: u32,
    /// The calls that write into a pipe without moving its stamp: refused with `EINVAL`.
    pipes: &'static [u32],
    /// `io_uring`'s: refused with `ENOSYS`.
    uring: &'static [u32],
    /// `prctl`'s number: its `PR_SET_PDEATHSIG` to anything but SIGKILL refused with `EPERM`.
    prctl: u32,
    /// `setrlimit`'s: under a guard, of `RLIMIT_CPU` refused with `EPERM`.
    setrlimit: u32,
    /// `prlimit64`'s: under a guard, a new `RLIMIT_CPU` (its third argument not NULL)
    /// refused with `EPERM`, whatever the process.
    prlimit: u32,
    /// `exit`'s and `exit_group`'s: what the exit rule ([`exit_rule`]) looks at.
    exits: [u32; 2],
    /// Whether a pointer is 64 bits (its high half in the arguments' second word).
    wide: bool,
    /// The calls that send signals, trace, or move a process into another's group: what
    /// a guard ([`instructions`]' `guard`) checks.
    signals: Signals,
    /// The calls by which a process makes the kernel send a signal of its choosing
    /// later: what the self-kill rule ([`self_kill_instructions`]) checks.
    later: Later,
}

/// One architecture's numbers of the calls by which the kernel sends a signal a process
/// chose: at a timer's expiry, for I/O, at a message's arrival, at a child's exit.
struct Later {
    /// `fcntl`'s (and `fcntl64`'s): its `F_SETSIG` names the I/O signal.
    fcntl: &'static [u32],
    /// `timer_create`'s (x32's own beside the 64-bit one): its signal is in a structure
    /// the filter cannot read.
    timer_create: &'static [u32],
    /// `mq_notify`'s, likewise.
    mq_notify: &'static [u32],
    /// `clone`'s: the low byte of its flags (its first argument) is the exit signal.
    clone: u32,
}

/// One architecture's numbers of the calls a guard checks.
struct Signals {
    kill: u32,
    tkill: u32,
    tgkill: u32,
    /// `rt_sigqueueinfo`'s.
    queue: &'static [u32],
    /// `rt_tgsigqueueinfo`'s.
    tg_queue: &'static [u32],
    ptrace: &'static [u32],
    setpgid: u32,
}

/// A place in the filter being written, resolved to a jump's offset by [`Asm::finish`].
#[derive(Clone, Copy)]
struct Label(usize);

/// A classic BPF program written with labels: each jump names where it goes, and
/// [`Asm::finish`] turns that into the offsets the kernel reads (at most 255
/// instructions ahead, which a filter this size never comes near).
#[derive(Default)]
struct Asm {
    code: Vec<libc::sock_filter>,
    /// Per instruction that jumps: its index and where its true and false branches go
    /// (a `ja` uses the first only).
    jumps: Vec<(usize, Label, Label)>,
    /// Each label's instruction, once placed.
    places: Vec<Option<usize>>,
}

impl Asm {
    /// Loads the call's number (x32's bit taken off) when the call is made in `arch`,
    /// else goes to `other` (the next architecture's block).
    fn call_of(&mut self, arch: &Arch, other: Label) {
        self.load(DATA_ARCH);
        let this = self.label();
        self.jeq(arch.audit, this, other);
        self.place(this);
        self.load(DATA_NR);
        if arch.mask != !0 {
            self.stmt(BPF_ALU_AND_K, arch.mask);
        }
    }

    fn label(&mut self) -> Label {
        self.places.push(None);
        Label(self.places.len() - 1)
    }

    fn place(&mut self, at: Label) {
        self.places[at.0] = Some(self.code.len());
    }

    fn stmt(&mut self, code: u16, k: u32) {
        self.code.push(stmt(code, k));
    }

    fn load(&mut self, offset: u32) {
        self.stmt(BPF_LD_W_ABS, offset);
    }

    /// If the accumulator is `k`, to `yes`, else to `no`.
    fn jeq(&mut self, k: u32, yes: Label, no: Label) {
        self.jumps.push((self.code.len(), yes, no));
        self.code.push(jump(k, 0, 0));
    }

    /// If the accumulator has any bit of `k`, to `yes`, else to `no`.
    fn jset(&mut self, k: u32, yes: Label, no: Label) {
        self.jumps.push((self.code.len(), yes, no));
        self.code.push(libc::sock_filter { code: BPF_JMP_JSET_K, jt: 0, jf: 0, k });
    }

    /// If the accumulator is `k`, to `yes`, else on to the next instruction.
    fn jeq_to(&mut self, k: u32, yes: Label) {
        let next = self.label();
        self.jeq(k, yes, next);
        self.place(next);
    }

    /// Each of `returns`' labels placed at an instruction that returns its value.
    fn returns(&mut self, returns: &[(Label, u32)]) {
        for &(at, value) in returns {
            self.place(at);
            self.stmt(BPF_RET_K, value);
        }
    }

    fn goto(&mut self, to: Label) {
        self.jumps.push((self.code.len(), to, to));
        self.code.push(stmt(BPF_JMP_JA, 0));
    }

    /// The instructions, each jump's offsets filled in (a label nothing jumps to may be
    /// left unplaced).
    fn finish(mut self) -> Vec<libc::sock_filter> {
        for &(at, yes, no) in &self.jumps {
            let offset = |to: Label| {
                let to = self.places[to.0].expect("every label is placed");
                to.checked_sub(at + 1).expect("jumps go forward")
            };
            let insn = &mut self.code[at];
            if insn.code == BPF_JMP_JA {
                insn.k = u32::try_from(offset(yes)).expect("a short filter");
            } else {
                insn.jt = u8::try_from(offset(yes)).expect("a short filter");
                insn.jf = u8::try_from(offset(no)).expect("a short filter");
            }
        }
        self.code
    }
}

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt: 0, jf: 0, k }
}

fn jump(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code: BPF_JMP_JEQ_K, jt, jf, k }
}

/// The filter's instructions: per architecture, a check of `arch` that skips to the
/// next architecture's when it is not this one, then the number compared with each
/// refused call: the calls on pipes go to `EINVAL`, `io_uring`'s to `ENOSYS`, `prctl`
/// to its check (`PR_SET_PDEATHSIG` with anything but SIGKILL: `EPERM`); with a `guard`
/// (a pid `p`), the calls that could kill or stop process `p` of the box from another
/// of its processes (or trace one) to theirs, each `EPERM`:
/// - `kill` of a guarded signal ([`GUARDED_SIGNALS`]) to `p`, to the caller's process
///   group (0), to every process (-1) or to `p`'s group (`-p`);
/// - `tgkill` of one to `p`'s threads, `tkill` of one (any thread's id may be one of
///   `p`'s), `rt_sigqueueinfo`, `rt_tgsigqueueinfo` and `pidfd_send_signal` of one to
///   anyone (a queued SIGKILL is nobody's need);
/// - every `ptrace` (a tracer can stop its tracee and send it anything);
/// - `setpgid` into another's group (a nonzero second argument), so that `p` never joins
///   a group its children may signal (`setpgid(0, 0)`, a group of one's own, stays);
/// - a new `RLIMIT_CPU` for anyone: `setrlimit(RLIMIT_CPU, _)`, and `prlimit64(_,
///   RLIMIT_CPU, new, _)` with `new` not NULL (both halves of a 64-bit pointer looked
///   at), so that no process of the box lowers `p`'s CPU limit below the host's, whose
///   SIGKILL at that limit would pass for one from outside (a thread's id names its
///   whole process to `prlimit64`, so no pid can be let through); reading it
///   (`getrlimit`, `ugetrlimit`, `prlimit64` with `new` NULL) and every other resource
///   stay.
///
/// Everything else, and an architecture not listed, is allowed.
fn instructions(arches: &[Arch], guard: Option<u32>) -> Vec<libc::sock_filter> {
    let mut asm = Asm::default();
    for arch in arches {
        let [next_arch, allow, eperm, einval, enosys] = [(); 5].map(|()| asm.label());
        let [prctl, kill, tgkill, sig1, sig2] = [(); 5].map(|()| asm.label());
        let (setpgid, signal) = (asm.label(), asm.label());
        let (setrlimit, prlimit) = (asm.label(), asm.label());
        asm.call_of(arch, next_arch);
        for &call in arch.pipes {
            asm.jeq_to(call, einval);
        }
        for &call in arch.uring {
            asm.jeq_to(call, enosys);
        }
        asm.jeq_to(arch.prctl, prctl);
        let s = &arch.signals;
        if guard.is_some() {
            asm.jeq_to(s.kill, kill);
            asm.jeq_to(s.tgkill, tgkill);
            asm.jeq_to(s.tkill, sig1);
            asm.jeq_to(PIDFD_SEND_SIGNAL, sig1);
            for &call in s.queue {
                asm.jeq_to(call, sig1);
            }
            for &call in s.tg_queue {
                asm.jeq_to(call, sig2);
            }
            for &call in s.ptrace {
                asm.jeq_to(call, eperm);
            }
            asm.jeq_to(s.setpgid, setpgid);
            asm.jeq_to(arch.setrlimit, setrlimit);
            asm.jeq_to(arch.prlimit, prlimit);
        }
        asm.goto(allow);
        // prctl(PR_SET_PDEATHSIG, sig): only SIGKILL.
        asm.place(prctl);
        asm.load(DATA_ARG0);
        let pdeathsig = asm.label();
        asm.jeq(PR_SET_PDEATHSIG, pdeathsig, allow);
        asm.place(pdeathsig);
        asm.load(DATA_ARG1);
        asm.jeq(libc::SIGKILL as u32, allow, eperm);
        if let Some(p) = guard {
            // kill(pid, sig): the pids that reach `p`, then the signal.
            asm.place(kill);
            asm.load(DATA_ARG0);
            for pid in [p, 0, u32::MAX, p.wrapping_neg()] {
                asm.jeq_to(pid, sig1);
            }
            asm.goto(allow);
            // tgkill(tgid, tid, sig): `p`'s threads, then the signal.
            asm.place(tgkill);
            asm.load(DATA_ARG0);
            asm.jeq(p, sig2, allow);
            // The signal in the second argument, or the third.
            asm.place(sig1);
            asm.load(DATA_ARG1);
            asm.goto(signal);
            asm.place(sig2);
            asm.load(DATA_ARG2);
            asm.place(signal);
            for sig in GUARDED_SIGNALS {
                asm.jeq_to(sig, eperm);
            }
            asm.goto(allow);
            // setpgid(pid, pgid): only into a group of one's own (0).
            asm.place(setpgid);
            asm.load(DATA_ARG1);
            asm.jeq(0, allow, eperm);
            // setrlimit(resource, new): not RLIMIT_CPU.
            asm.place(setrlimit);
            asm.load(DATA_ARG0);
            asm.jeq(RLIMIT_CPU, eperm, allow);
            // prlimit64(pid, resource, new, old): RLIMIT_CPU only read (`new` NULL).
            asm.place(prlimit);
            asm.load(DATA_ARG1);
            let cpu = asm.label();
            asm.jeq(RLIMIT_CPU, cpu, allow);
            asm.place(cpu);
            asm.load(DATA_ARG2);
            if arch.wide {
                let low_null = asm.label();
                asm.jeq(0, low_null, eperm);
                asm.place(low_null);
                asm.load(DATA_ARG2_HIGH);
            }
            asm.jeq(0, allow, eperm);
        }
        asm.returns(&[(allow, RET_ALLOW), (eperm, RET_EPERM), (einval, RET_EINVAL), (enosys, RET_ENOSYS)]);
        asm.place(next_arch);
    }
    asm.stmt(BPF_RET_K, RET_ALLOW);
    asm.finish()
}

/// The self-kill rule's instructions ([`self_kill_rule`]): per architecture, each call
/// by which a process could bring a SIGKILL or a stop signal ([`GUARDED_SIGNALS`]) on
/// its own process by a way a guard does not see, refused:
/// - `kill` of one to a single process (a positive pid): a thread's id names its whole
///   process to `kill`, and the filter cannot tell a thread's id of its own process from
///   another process's pid (`EPERM`; a group, everyone and 0 are the guard's business);
/// - `fcntl(fd, F_SETSIG, sig)` of one, the signal the kernel sends for I/O on `fd`
///   (`EPERM`);
/// - every `timer_create` and `mq_notify`, whose signal is in a structure the filter
///   cannot read (`EPERM`);
/// - `clone` with one as its exit signal, which the kernel sends the parent when the
///   child ends (`EPERM`); `clone3`, whose exit signal is in a structure (`ENOSYS`).
///
/// Everything else, and an architecture not listed, is allowed.
fn self_kill_instructions(arches: &[Arch]) -> Vec<libc::sock_filter> {
    let mut asm = Asm::default();
    for arch in arches {
        let [next_arch, allow, eperm, enosys] = [(); 4].map(|()| asm.label());
        let [kill, fcntl, clone, signal] = [(); 4].map(|()| asm.label());
        asm.call_of(arch, next_arch);
        asm.jeq_to(arch.signals.kill, kill);
        for &call in arch.later.fcntl {
            asm.jeq_to(call, fcntl);
        }
        for &call in arch.later.timer_create.iter().chain(arch.later.mq_notify) {
            asm.jeq_to(call, eperm);
        }
        asm.jeq_to(arch.later.clone, clone);
        asm.jeq(CLONE3, enosys, allow);
        // kill(pid, sig): a single process (pid > 0), then the signal.
        asm.place(kill);
        asm.load(DATA_ARG0);
        let nonzero = asm.label();
        asm.jeq(0, allow, nonzero);
        asm.place(nonzero);
        let single = asm.label();
        asm.jset(PID_SIGN, allow, single);
        asm.place(single);
        asm.load(DATA_ARG1);
        asm.goto(signal);
        // fcntl(fd, cmd, arg): F_SETSIG, then the signal.
        asm.place(fcntl);
        asm.load(DATA_ARG1);
        let setsig = asm.label();
        asm.jeq(F_SETSIG, setsig, allow);
        asm.place(setsig);
        asm.load(DATA_ARG2);
        asm.goto(signal);
        // clone(flags, ...): the exit signal in the flags' low byte.
        asm.place(clone);
        asm.load(DATA_ARG0);
        asm.stmt(BPF_ALU_AND_K, CSIGNAL);
        asm.place(signal);
        for sig in GUARDED_SIGNALS {
            asm.jeq_to(sig, eperm);
        }
        asm.goto(allow);
        asm.returns(&[(allow, RET_ALLOW), (eperm, RET_EPERM), (enosys, RET_ENOSYS)]);
        asm.place(next_arch);
    }
    asm.stmt(BPF_RET_K, RET_ALLOW);
    asm.finish()
}

/// The self-kill rule ([`self_kill_instructions`]), made once; `None` as for
/// [`program_filter`]. A boxed worker of one entry that starts no program installs it
/// on itself where the host cannot tell its death by SIGKILL from one it brought on
/// itself otherwise (`spawn::refuse_self_kills`).
pub(super) fn self_kill_rule() -> Option<&'static [libc::sock_filter]> {
    static RULE: OnceLock<Option<Vec<libc::sock_filter>>> = OnceLock::new();
    RULE.get_or_init(|| program_filter().map(|_| self_kill_instructions(ARCHES))).as_deref()
}

/// The boxes' exit rule, which bwrap installs in its box's processes (`sandbox`: its
/// `--add-seccomp-fd`, applied in process 1 once it has set up and in process 2 just
/// before its exec, never in bwrap's own first process outside the box): a call of
/// `exit` or `exit_group` whose status has [`EXIT_AS_SIGKILL`] (137) as its low byte
/// kills the caller's process ([`RET_KILL_PROCESS`]: it dies of SIGSYS, its own crash).
/// Bwrap reports a process 2 killed by signal N as its own exit status 128 + N, so
/// that in a box with the rule bwrap's 137 says a real SIGKILL. Bwrap's process 1 exits
/// with 137 too after reporting such a SIGKILL through its event descriptor, and then
/// dies of SIGSYS, which changes nothing: bwrap has read the status by then, and the
/// box was ending. Everything else, and an architecture not listed, is allowed.
fn exit_rule_instructions(arches: &[Arch]) -> Vec<libc::sock_filter> {
    let mut asm = Asm::default();
    for arch in arches {
        let [next_arch, allow, status, kill] = [(); 4].map(|()| asm.label());
        asm.call_of(arch, next_arch);
        for call in arch.exits {
            asm.jeq_to(call, status);
        }
        asm.goto(allow);
        // exit(status), exit_group(status): the low byte of the status, as a parent sees it.
        asm.place(status);
        asm.load(DATA_ARG0);
        asm.stmt(BPF_ALU_AND_K, 0xff);
        asm.jeq(EXIT_AS_SIGKILL, kill, allow);
        asm.returns(&[(allow, RET_ALLOW), (kill, RET_KILL_PROCESS)]);
        asm.place(next_arch);
    }
    asm.stmt(BPF_RET_K, RET_ALLOW);
    asm.finish()
}

/// The boxes' exit rule ([`exit_rule_instructions`]), made once; `None` as for
/// [`program_filter`].
pub(super) fn exit_rule() -> Option<&'static [libc::sock_filter]> {
    static RULE: OnceLock<Option<Vec<libc::sock_filter>>> = OnceLock::new();
    RULE.get_or_init(|| program_filter().map(|_| exit_rule_instructions(ARCHES))).as_deref()
}

/// The filter of unboxed program bots and of the host's unboxed helpers, made once; `None` where
/// this architecture has none, or the kernel will not take one from this process
/// ([`unavailable`] says why): there a program starts without it.
pub(super) fn program_filter() -> Option<&'static [libc::sock_filter]> {
    filter_or_why().as_ref().ok().map(|(program, _)| program.as_slice())
}

/// The filter of what the host boxes (a helper that loads bots, a worker or a probe:
/// `spawn::confine_helper`; a program bot: `spawn::start`): the program bots' with a
/// guard of [`GUARDED_PID`], its pid in its box, so that nothing else in the box can
/// kill or stop it ([`instructions`]); `None` as for [`program_filter`].
pub(super) fn boxed_filter() -> Option<&'static [libc::sock_filter]> {
    filter_or_why().as_ref().ok().map(|(_, helper)| helper.as_slice())
}

/// Where a program's own pid goes in its guard ([`program_guard`], [`fill_guard`]): no
/// process has it (the kernel's pids stop at 2^22), nor does any other value the
/// filter compares.
const PLACEHOLDER_PID: u32 = 0x7fff_fff1;

/// The filter of a program that a boxed worker starts for its one entry, with the guard
/// of the program's own pid left to fill in the child ([`fill_guard`]), a copy of its
/// own made before the fork; `None` as for [`program_filter`].
pub(super) fn program_guard() -> Option<Vec<libc::sock_filter>> {
    static GUARD: OnceLock<Option<Vec<libc::sock_filter>>> = OnceLock::new();
    GUARD.get_or_init(|| program_filter().map(|_| instructions(ARCHES, Some(PLACEHOLDER_PID)))).clone()
}

/// Puts `pid` (the calling process's own, in a child between fork and exec) where
/// [`program_guard`] left its place. Async-signal-safe: it only writes to `filter`.
pub(super) fn fill_guard(filter: &mut [libc::sock_filter], pid: u32) {
    for insn in filter.iter_mut().filter(|i| i.code == BPF_JMP_JEQ_K) {
        if insn.k == PLACEHOLDER_PID {
            insn.k = pid;
        } else if insn.k == PLACEHOLDER_PID.wrapping_neg() {
            insn.k = pid.wrapping_neg();
        }
    }
}

/// Why program bots run without the filter here, if they do: an architecture with none
/// written, or a kernel (or a filter around this process, as a container's) that
/// refuses `seccomp(2)`.
pub fn unavailable() -> Option<&'static str> {
    filter_or_why().as_ref().err().copied()
}

/// The two filters (programs', boxed helpers'), or why there are none.
type Filters = (Vec<libc::sock_filter>, Vec<libc::sock_filter>);

fn filter_or_why() -> &'static Result<Filters, &'static str> {
    static FILTER: OnceLock<Result<Filters, &'static str>> = OnceLock::new();
    FILTER.get_or_init(|| {
        if ARCHES.is_empty() {
            return Err("no system-call filter is written for this architecture");
        }
        // A filter at a null address: EFAULT where the kernel would take one (before
        // it looks at `no_new_privs`); EINVAL without seccomp filters, or what a filter
        // around this process answers for `seccomp` itself.
        match seccomp_call(0, std::ptr::null()) {
            Err(e) if e.raw_os_error() == Some(libc::EFAULT) => {
                Ok((instructions(ARCHES, None), instructions(ARCHES, Some(GUARDED_PID))))
            }
            _ => Err("the kernel refuses this process a seccomp filter"),
        }
    })
}

/// `seccomp(SECCOMP_SET_MODE_FILTER, flags, prog)`: its return (0, or with
/// [`FLAG_TSYNC`] the id of a thread that could not take the filter). Async-signal-safe.
fn seccomp_call(flags: libc::c_ulong, prog: *const libc::sock_fprog) -> io::Result<libc::c_long> {
    // SAFETY: seccomp only reads `prog` (the kernel copies the program), and a null or
    // bad address is answered with EFAULT.
    let ret = unsafe { libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, flags, prog) };
    if ret >= 0 { Ok(ret) } else { Err(io::Error::last_os_error()) }
}

/// Sets `no_new_privs` (which a filter needs without `CAP_SYS_ADMIN`, and which keeps a
/// setuid program from dropping it) and installs `filter` with `flags`, without turning
/// on the Speculative Store Bypass mitigation where the kernel knows that flag; the
/// call's return. Async-signal-safe, no allocation.
fn install_with(filter: &[libc::sock_filter], flags: libc::c_ulong) -> io::Result<libc::c_long> {
    let prog = libc::sock_fprog {
        len: u16::try_from(filter.len()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?,
        filter: filter.as_ptr().cast_mut(),
    };
    // SAFETY: prctl(PR_SET_NO_NEW_PRIVS) only sets a flag of the calling thread.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    match seccomp_call(flags | FLAG_SPEC_ALLOW, &prog) {
        // A kernel before 4.17 does not know the flag.
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => seccomp_call(flags, &prog),
        done => done,
    }
}

/// Installs `filter` on the calling thread, for it and every process it starts from now
/// on ([`install_with`]). For a child between fork and exec: async-signal-safe, no
/// allocation.
pub(super) fn install(filter: &[libc::sock_filter]) -> io::Result<()> {
    install_with(filter, 0).map(|_| ())
}

/// `seccomp(2)`'s `SECCOMP_FILTER_FLAG_TSYNC`: the filter goes to every thread of the
/// process at once.
const FLAG_TSYNC: libc::c_ulong = 1;

/// Installs `filter` on every thread of the calling process at once (they share its
/// filters and `no_new_privs` already, as a worker's threads do), for them and every
/// process they start from now on. Not for a child between fork and exec: its error
/// may allocate.
pub(super) fn install_on_every_thread(filter: &[libc::sock_filter]) -> io::Result<()> {
    match install_with(filter, FLAG_TSYNC)? {
        0 => Ok(()),
        tid => Err(io::Error::other(format!("thread {tid} cannot take the filter"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each refused call, then a `write`, gave in a child under the filter: 0 for
    /// success, else its errno; last, `tee` through the 32-bit system-call gate (`int
    /// 0x80`, x86-64 only; else 0). Between fork and exit the child makes system calls
    /// only (no allocation, no lock).
    fn calls_under_filter(filter: &[libc::sock_filter]) -> [i32; 9] {
        fn pipe() -> (i32, i32) {
            let mut fds = [0; 2];
            // SAFETY: pipe writes two descriptors into the array we own.
            assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
            (fds[0], fds[1])
        }
        let (r1, w1) = pipe();
        let (_r2, w2) = pipe();
        // SAFETY: plain system calls on descriptors and buffers this test owns.
        let file = unsafe {
            let file = libc::memfd_create(c"probe".as_ptr(), 0);
            assert!(file >= 0);
            assert_eq!(libc::write(file, b"abcd".as_ptr().cast(), 4), 4);
            assert_eq!(libc::write(w1, b"abcdef".as_ptr().cast(), 6), 6);
            file
        };
        under_filter(filter, || {
            // SAFETY: plain system calls on descriptors and buffers this test owns.
            unsafe {
                let iov = libc::iovec { iov_base: b"xy".as_ptr().cast_mut().cast(), iov_len: 2 };
                let mut offset: libc::off_t = 0;
                let mut params = [0u8; 120];
                [
                    errno(libc::splice(r1, std::ptr::null_mut(), w2, std::ptr::null_mut(), 2, 0) as _),
                    errno(libc::tee(r1, w2, 2, 0) as _),
                    errno(libc::vmsplice(w2, &iov, 1, 0) as _),
                    errno(libc::sendfile(w2, file, &mut offset, 2) as _),
                    errno(libc::syscall(libc::SYS_io_uring_setup, 4, params.as_mut_ptr())),
                    errno(libc::write(w2, b"z".as_ptr().cast(), 1) as _),
                    tee_by_int80(r1, w2),
                    // A parent-death signal cleared, then set to SIGKILL.
                    errno(libc::prctl(libc::PR_SET_PDEATHSIG, 0).into()),
                    errno(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL).into()),
                ]
            }
        })
    }

    /// The errno of a system call that returned `ret`, 0 when it worked.
    fn errno(ret: libc::c_long) -> i32 {
        // SAFETY: reads this thread's errno.
        if ret < 0 { unsafe { *libc::__errno_location() } } else { 0 }
    }

    /// What `calls` returns when run in a forked child under `filter` (every entry -1
    /// where the filter could not be installed), passed back through a pipe. `calls`
    /// runs after a fork: it may only make system calls (no allocation, no lock).
    fn under_filter<const N: usize>(filter: &[libc::sock_filter], calls: impl FnOnce() -> [i32; N]) -> [i32; N] {
        let mut fds = [0; 2];
        // SAFETY: plain system calls on descriptors and buffers this test owns; the
        // child only makes system calls (`calls`, as its callers promise) and ends with
        // _exit.
        unsafe {
            assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                let out = if install(filter).is_ok() { calls() } else { [-1; N] };
                libc::write(fds[1], out.as_ptr().cast(), size_of_val(&out));
                libc::_exit(0);
            }
            libc::close(fds[1]);
            let mut out = [0i32; N];
            assert_eq!(libc::read(fds[0], out.as_mut_ptr().cast(), size_of_val(&out)), size_of_val(&out) as isize);
            libc::close(fds[0]);
            assert_eq!(libc::waitpid(pid, std::ptr::null_mut(), 0), pid);
            out
        }
    }

    /// `tee(from, to, 1, 0)` made as a 32-bit program makes it (i386's number 315): 0
    /// when it worked, else its errno.
    #[cfg(target_arch = "x86_64")]
    fn tee_by_int80(from: i32, to: i32) -> i32 {
        let mut ret: i32 = 315;
        // The first argument goes in ebx, which LLVM keeps for itself: swapped in and
        // back out around the call.
        let first = from as u64;
        // SAFETY: a system call through the 32-bit gate with four integer arguments; it
        // touches no memory of ours, and rbx is as it was after it.
        unsafe {
            std::arch::asm!(
                "xchg {first}, rbx",
                "int 0x80",
                "xchg {first}, rbx",
                first = inout(reg) first => _,
                inout("eax") ret,
                in("ecx") to,
                in("edx") 1,
                in("esi") 0,
            );
        }
        if ret < 0 { -ret } else { 0 }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn tee_by_int80(_: i32, _: i32) -> i32 {
        0
    }

    /// Each refused call fails (on pipes, where it works without the filter): those that
    /// write into a pipe with EINVAL, `io_uring` with ENOSYS; a 32-bit program's `tee`
    /// too; `write` still works; a parent-death signal may be SIGKILL and nothing else.
    #[test]
    fn a_filtered_process_cannot_splice_tee_vmsplice_sendfile_or_io_uring_but_may_write() {
        let Some(filter) = or_skip(program_filter()) else {
            return;
        };
        let (inval, nosys) = (libc::EINVAL, libc::ENOSYS);
        // Without it (a filter that allows everything) the same calls work: the test
        // sees the filter, not a kernel or a pipe that refuses them.
        let open = [stmt(BPF_RET_K, RET_ALLOW)];
        let without = calls_under_filter(&open);
        assert_eq!(&without[..4], &[0, 0, 0, 0], "{without:?}");
        assert_eq!(without[5], 0);
        assert_eq!(&without[7..], &[0, 0], "{without:?}");
        let with = calls_under_filter(filter);
        assert_eq!(&with[..6], &[inval, inval, inval, inval, nosys, 0]);
        // No parent-death signal but SIGKILL.
        assert_eq!(&with[7..], &[libc::EPERM, 0]);
        // The 32-bit gate, where the kernel has it (an x86-64 kernel may be built or
        // booted without 32-bit programs: ENOSYS without the filter too).
        if without[6] == 0 && cfg!(target_arch = "x86_64") {
            assert_eq!(with[6], inval);
        }
    }

    /// `filter`, or `None` (the test then stops) where this machine has none: a test
    /// that cannot run here fails under `CI`.
    fn or_skip<T>(filter: Option<T>) -> Option<T> {
        if filter.is_none() {
            crate::process::skip(&format!("skipped: no seccomp filter on this machine: {:?}", unavailable()));
        }
        filter
    }

    /// What the filter `code` answers for a call `nr` with `args` (their low 32 bits, the
    /// high ones 0) made in architecture `arch`.
    fn answer(code: &[libc::sock_filter], arch: u32, nr: u32, args: [u32; 3]) -> u32 {
        answer_wide(code, arch, nr, args.map(u64::from))
    }

    /// What the filter `code` answers for a call `nr` with `args` (64 bits each) made in
    /// architecture `arch`: a classic BPF interpreter of the instructions the filters
    /// use.
    fn answer_wide(code: &[libc::sock_filter], arch: u32, nr: u32, args: [u64; 3]) -> u32 {
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let insn = code[pc];
            pc += 1;
            match insn.code {
                BPF_LD_W_ABS => {
                    acc = match insn.k {
                        DATA_NR => nr,
                        DATA_ARCH => arch,
                        DATA_ARG0 => args[0] as u32,
                        DATA_ARG1 => args[1] as u32,
                        DATA_ARG2 => args[2] as u32,
                        DATA_ARG2_HIGH => (args[2] >> 32) as u32,
                        other => panic!("a load of offset {other}"),
                    }
                }
                BPF_ALU_AND_K => acc &= insn.k,
                BPF_JMP_JEQ_K => pc += usize::from(if acc == insn.k { insn.jt } else { insn.jf }),
                BPF_JMP_JSET_K => pc += usize::from(if acc & insn.k != 0 { insn.jt } else { insn.jf }),
                BPF_JMP_JA => pc += insn.k as usize,
                BPF_RET_K => return insn.k,
                other => panic!("instruction {other:#x}"),
            }
        }
    }

    /// Each architecture's calls get their answers, with and without a guard, and the
    /// guard refuses exactly what would kill or stop its process from elsewhere in its
    /// box (read by an interpreter of the filter, so every architecture's block is run,
    /// not only this machine's).
    #[test]
    fn each_architectures_calls_get_their_answers_and_the_guard_refuses_what_reaches_its_process() {
        const P: u32 = 2;
        let neg = |n: u32| n.wrapping_neg();
        let (plain, guarded) = (instructions(ARCHES, None), instructions(ARCHES, Some(P)));
        for code in [&plain, &guarded] {
            // An architecture not listed is allowed.
            assert_eq!(answer(code, 0x1234, 40, [0; 3]), RET_ALLOW);
        }
        for arch in ARCHES {
            let a = arch.audit;
            let s = &arch.signals;
            for code in [&plain, &guarded] {
                for &call in arch.pipes {
                    assert_eq!(answer(code, a, call, [0; 3]), RET_EINVAL, "{a:#x} {call}");
                    if arch.mask != !0 {
                        assert_eq!(answer(code, a, call | !arch.mask, [0; 3]), RET_EINVAL);
                    }
                }
                for &call in arch.uring {
                    assert_eq!(answer(code, a, call, [0; 3]), RET_ENOSYS);
                }
                assert_eq!(answer(code, a, arch.prctl, [1, 0, 0]), RET_EPERM);
                assert_eq!(answer(code, a, arch.prctl, [1, 15, 0]), RET_EPERM);
                assert_eq!(answer(code, a, arch.prctl, [1, 9, 0]), RET_ALLOW);
                assert_eq!(answer(code, a, arch.prctl, [15, 0, 0]), RET_ALLOW);
                // Calls no filter looks at: read (0 or 3), write (1 or 4 or 64).
                for call in [0, 1, 3, 4, 63, 64] {
                    if ![s.queue, s.tg_queue, s.ptrace].concat().contains(&call) {
                        assert_eq!(answer(code, a, call, [9, 9, 9]), RET_ALLOW, "{a:#x} {call}");
                    }
                }
            }
            // Without a guard, signals and tracing are the kernel's business.
            for (call, args) in [(s.kill, [P, 9, 0]), (s.tkill, [P, 9, 0]), (s.ptrace[0], [16, P, 0])] {
                assert_eq!(answer(&plain, a, call, args), RET_ALLOW);
            }
            let g = |call: u32, args: [u32; 3]| answer(&guarded, a, call, args);
            for sig in GUARDED_SIGNALS {
                for pid in [P, 0, u32::MAX, neg(P)] {
                    assert_eq!(g(s.kill, [pid, sig, 0]), RET_EPERM, "{a:#x} kill({pid}, {sig})");
                }
                assert_eq!(g(s.tgkill, [P, 7, sig]), RET_EPERM);
                assert_eq!(g(s.tkill, [7, sig, 0]), RET_EPERM);
                assert_eq!(g(PIDFD_SEND_SIGNAL, [3, sig, 0]), RET_EPERM);
                for &q in s.queue {
                    assert_eq!(g(q, [7, sig, 0]), RET_EPERM);
                }
                for &q in s.tg_queue {
                    assert_eq!(g(q, [7, 7, sig]), RET_EPERM);
                }
                // To another process, or its group: allowed.
                assert_eq!(g(s.kill, [7, sig, 0]), RET_ALLOW);
                assert_eq!(g(s.kill, [neg(7), sig, 0]), RET_ALLOW);
                assert_eq!(g(s.tgkill, [7, 7, sig]), RET_ALLOW);
            }
            // Other signals, to anyone: allowed.
            for sig in [0, 1, 11, 15, 18] {
                for pid in [P, 0, u32::MAX, neg(P), 7] {
                    assert_eq!(g(s.kill, [pid, sig, 0]), RET_ALLOW);
                }
                assert_eq!(g(s.tgkill, [P, P, sig]), RET_ALLOW);
                assert_eq!(g(s.tkill, [P, sig, 0]), RET_ALLOW);
                assert_eq!(g(PIDFD_SEND_SIGNAL, [3, sig, 0]), RET_ALLOW);
                for &q in s.tg_queue {
                    assert_eq!(g(q, [7, 7, sig]), RET_ALLOW);
                }
            }
            for &t in s.ptrace {
                assert_eq!(g(t, [0, 0, 0]), RET_EPERM, "{a:#x} ptrace");
            }
            assert_eq!(g(s.setpgid, [0, 0, 0]), RET_ALLOW);
            assert_eq!(g(s.setpgid, [7, 0, 0]), RET_ALLOW);
            assert_eq!(g(s.setpgid, [0, 7, 0]), RET_EPERM);
            assert_eq!(g(s.setpgid, [P, 7, 0]), RET_EPERM);
        }
    }

    /// Under a guard, every architecture's `setrlimit` of `RLIMIT_CPU` and `prlimit64`
    /// of a new `RLIMIT_CPU` (to any process; on a 64-bit architecture a pointer whose
    /// low half alone is 0 too) are refused; reading that limit, and setting any other,
    /// are not; without a guard nothing of it is looked at.
    #[test]
    fn each_architectures_guard_refuses_a_new_cpu_limit_but_lets_it_be_read_and_others_be_set() {
        const CPU: u64 = RLIMIT_CPU as u64;
        const NOFILE: u64 = 7;
        let (plain, guarded) = (instructions(ARCHES, None), instructions(ARCHES, Some(2)));
        // Still under a hundred instructions per architecture (the module's word).
        assert!(guarded.len() < 100 * ARCHES.len(), "{} instructions", guarded.len());
        let ptr: u64 = 0x7ffd_1000;
        for arch in ARCHES {
            let a = arch.audit;
            let g = |nr: u32, args: [u64; 3]| answer_wide(&guarded, a, nr, args);
            assert_eq!(g(arch.setrlimit, [CPU, ptr, 0]), RET_EPERM, "{a:#x} setrlimit(RLIMIT_CPU)");
            assert_eq!(g(arch.setrlimit, [NOFILE, ptr, 0]), RET_ALLOW, "{a:#x}");
            for pid in [0, 2, 7, 4242] {
                assert_eq!(g(arch.prlimit, [pid, CPU, ptr]), RET_EPERM, "{a:#x} prlimit64({pid}, RLIMIT_CPU)");
                // A get: the new limit NULL.
                assert_eq!(g(arch.prlimit, [pid, CPU, 0]), RET_ALLOW, "{a:#x}");
                assert_eq!(g(arch.prlimit, [pid, NOFILE, ptr]), RET_ALLOW, "{a:#x}");
            }
            // A pointer with its low half 0: refused where pointers are 64 bits; a 32-bit
            // kernel entry reads the low half only, NULL.
            let high_only = answer_wide(&guarded, a, arch.prlimit, [0, CPU, 1 << 32]);
            assert_eq!(high_only, if arch.wide { RET_EPERM } else { RET_ALLOW }, "{a:#x}");
            if arch.mask != !0 {
                assert_eq!(g(arch.setrlimit | !arch.mask, [CPU, ptr, 0]), RET_EPERM, "{a:#x} x32");
                assert_eq!(g(arch.prlimit | !arch.mask, [0, CPU, ptr]), RET_EPERM, "{a:#x} x32");
            }
            // Without a guard: the kernel's business.
            assert_eq!(answer_wide(&plain, a, arch.setrlimit, [CPU, ptr, 0]), RET_ALLOW);
            assert_eq!(answer_wide(&plain, a, arch.prlimit, [0, CPU, ptr]), RET_ALLOW);
        }
        // The calls that only read a limit: x86-64's getrlimit (97), i386's getrlimit
        // (76) and ugetrlimit (191), AArch64's getrlimit (163), ARM's ugetrlimit (191).
        for (i, arch) in ARCHES.iter().enumerate() {
            let gets: &[u32] = match (cfg!(target_arch = "x86_64"), i) {
                (true, 0) => &[97],
                (true, _) => &[76, 191],
                (false, 0) => &[163],
                (false, _) => &[191],
            };
            for &get in gets {
                assert_eq!(answer_wide(&guarded, arch.audit, get, [RLIMIT_CPU.into(), ptr, 0]), RET_ALLOW);
            }
        }
    }

    /// The exit rule kills the process that calls `exit` or `exit_group` with a status
    /// whose low byte is 137, on every architecture (x32 too), and lets every other
    /// status, and every other call, through.
    #[test]
    fn each_architectures_exit_with_137_is_killed_and_other_statuses_pass() {
        let rule = exit_rule_instructions(ARCHES);
        assert_eq!(answer(&rule, 0x1234, 60, [137, 0, 0]), RET_ALLOW);
        for arch in ARCHES {
            let a = arch.audit;
            for call in arch.exits {
                for status in [137, 137 + 256, 0xffff_ff89] {
                    assert_eq!(answer(&rule, a, call, [status, 0, 0]), RET_KILL_PROCESS, "{a:#x} {call}({status})");
                }
                for status in [0, 1, 3, 9, 86, 136, 138, 159, 255, 256] {
                    assert_eq!(answer(&rule, a, call, [status, 0, 0]), RET_ALLOW, "{a:#x} {call}({status})");
                }
                if arch.mask != !0 {
                    assert_eq!(answer(&rule, a, call | !arch.mask, [137, 0, 0]), RET_KILL_PROCESS, "{a:#x} x32");
                }
            }
            // Another call with 137 as its first argument.
            assert_eq!(answer(&rule, a, arch.prctl, [137, 0, 0]), RET_ALLOW);
        }
    }

    /// In a forked child under `filter`: the calls' errnos (0 for success), each a
    /// system call alone, as in [`calls_under_filter`].
    fn limits_under_filter(filter: &[libc::sock_filter]) -> [i32; 6] {
        let setrlimit = libc::c_long::from(ARCHES[0].setrlimit);
        under_filter(filter, || {
            // SAFETY: system calls on structs this closure owns.
            unsafe {
                let mut cpu = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                let mut files = cpu;
                [
                    errno(libc::syscall(libc::SYS_prlimit64, 0, libc::RLIMIT_CPU, 0, &mut cpu)),
                    errno(libc::getrlimit(libc::RLIMIT_NOFILE, &mut files).into()),
                    // Each set to what it is (a lowered one would work as well, or not).
                    errno(libc::syscall(setrlimit, libc::RLIMIT_CPU, &cpu)),
                    errno(libc::syscall(libc::SYS_prlimit64, 0, libc::RLIMIT_CPU, &cpu, 0)),
                    errno(libc::setrlimit(libc::RLIMIT_CPU, &cpu).into()),
                    errno(libc::syscall(setrlimit, libc::RLIMIT_NOFILE, &files)),
                ]
            }
        })
    }

    /// Under the boxes' filter, on this kernel: `setrlimit(RLIMIT_CPU)` and
    /// `prlimit64(0, RLIMIT_CPU, new)` (and so libc's `setrlimit`) fail with EPERM;
    /// reading the limit works, and so does setting another (RLIMIT_NOFILE). Without
    /// it, the same sets work.
    #[test]
    fn a_boxed_process_cannot_set_its_cpu_limit_but_may_read_it_and_set_another() {
        let Some(filter) = or_skip(boxed_filter()) else {
            return;
        };
        let open = [stmt(BPF_RET_K, RET_ALLOW)];
        assert_eq!(limits_under_filter(&open), [0; 6]);
        let eperm = libc::EPERM;
        assert_eq!(limits_under_filter(filter), [0, 0, eperm, eperm, eperm, 0]);
    }

    /// How a forked child under `filter` that then calls `exit` (by `call`: `_exit`,
    /// `exit_group`, or the one-thread `exit`) with `status` ended: its wait status.
    fn exit_under_filter(filter: &[libc::sock_filter], call: libc::c_long, status: i32) -> i32 {
        // SAFETY: the child only makes system calls and ends with one.
        unsafe {
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                if install(filter).is_err() {
                    libc::_exit(99);
                }
                libc::syscall(call, status);
                libc::_exit(98);
            }
            let mut wait = 0;
            assert_eq!(libc::waitpid(pid, &mut wait, 0), pid);
            wait
        }
    }

    /// Under the exit rule, on this kernel: a process that exits with 137 (by
    /// `exit_group`, or by `exit` with one thread; or with 137 + 256, whose low byte its
    /// parent sees) dies of SIGSYS; one that exits with 3 exits with 3. Without it, 137
    /// is its exit status.
    #[test]
    fn a_process_under_the_exit_rule_that_exits_with_137_dies_of_sigsys_and_3_stays_3() {
        let Some(rule) = or_skip(exit_rule()) else {
            return;
        };
        let open = [stmt(BPF_RET_K, RET_ALLOW)];
        let exited = |wait: i32| libc::WIFEXITED(wait).then(|| libc::WEXITSTATUS(wait));
        let signal = |wait: i32| libc::WIFSIGNALED(wait).then(|| libc::WTERMSIG(wait));
        assert_eq!(exited(exit_under_filter(&open, libc::SYS_exit_group, 137)), Some(137));
        for call in [libc::SYS_exit_group, libc::SYS_exit] {
            for status in [137, 137 + 256] {
                let wait = exit_under_filter(rule, call, status);
                assert_eq!(signal(wait), Some(libc::SIGSYS), "{call}({status}): {wait:#x}");
            }
            assert_eq!(exited(exit_under_filter(rule, call, 3)), Some(3));
        }
    }

    /// A program's guard with its pid filled in is the guard made for that pid.
    #[test]
    fn a_programs_guard_filled_with_its_pid_is_the_guard_of_that_pid() {
        let mut guard = instructions(ARCHES, Some(PLACEHOLDER_PID));
        fill_guard(&mut guard, 4242);
        let made = instructions(ARCHES, Some(4242));
        let words = |f: &[libc::sock_filter]| f.iter().map(|i| (i.code, i.jt, i.jf, i.k)).collect::<Vec<_>>();
        assert_eq!(words(&guard), words(&made));
        assert_ne!(words(&made), words(&instructions(ARCHES, Some(4243))));
    }

    /// Under a guard of a live process `p` of this machine, another process can neither
    /// kill nor stop it by any route, nor trace, nor join another's group; it can still
    /// send `p` another signal, and SIGKILL to a process of its own.
    #[test]
    fn a_guarded_process_is_neither_killed_nor_stopped_by_its_neighbour() {
        if or_skip(program_filter()).is_none() {
            return;
        }
        // SAFETY: fork, pause, kill, waitpid and _exit on processes this test made; the
        // children only make system calls (no allocation, no lock) and end with _exit.
        unsafe {
            let guarded = libc::fork();
            assert!(guarded >= 0);
            if guarded == 0 {
                loop {
                    libc::pause();
                }
            }
            let filter = instructions(ARCHES, Some(guarded as u32));
            let out = under_filter(&filter, || {
                let mut out = [0; 9];
                out[0] = errno(libc::kill(guarded, libc::SIGKILL).into());
                out[1] = errno(libc::kill(guarded, libc::SIGSTOP).into());
                out[2] = errno(libc::syscall(libc::SYS_tgkill, guarded, guarded, libc::SIGKILL));
                out[3] = errno(libc::syscall(libc::SYS_tkill, guarded, libc::SIGSTOP));
                out[4] = errno(libc::ptrace(libc::PTRACE_ATTACH, guarded, 0, 0));
                out[5] = errno(libc::setpgid(0, guarded).into());
                // Allowed: another signal (0: only whether it may be sent), and a group
                // of its own, then a SIGKILL to a child of its own.
                out[6] = errno(libc::kill(guarded, 0).into());
                out[7] = errno(libc::setpgid(0, 0).into());
                let child = libc::fork();
                if child == 0 {
                    libc::pause();
                    libc::_exit(0);
                }
                out[8] = errno(libc::kill(child, libc::SIGKILL).into());
                libc::waitpid(child, std::ptr::null_mut(), 0);
                out
            });
            // Still there, and not stopped.
            let mut status = 0;
            let now = libc::waitpid(guarded, &mut status, libc::WNOHANG | libc::WUNTRACED);
            libc::kill(guarded, libc::SIGKILL);
            libc::waitpid(guarded, std::ptr::null_mut(), 0);
            assert_eq!(now, 0, "the guarded process changed state ({status:#x})");
            let eperm = libc::EPERM;
            assert_eq!(out, [eperm, eperm, eperm, eperm, eperm, eperm, 0, 0, 0]);
        }
    }

    /// Each architecture's self-kill rule refuses a SIGKILL or a stop signal by `kill` to
    /// a single process, as an `F_SETSIG` signal or a `clone` exit signal, and every
    /// `timer_create` and `mq_notify` (`EPERM`), `clone3` with `ENOSYS`, and nothing
    /// else (read by the interpreter, so every architecture's block is run).
    #[test]
    fn each_architectures_self_kill_rule_refuses_the_ways_to_a_sigkill_of_ones_own_and_nothing_else() {
        let rule = self_kill_instructions(ARCHES);
        assert_eq!(answer(&rule, 0x1234, 62, [5, 9, 0]), RET_ALLOW);
        let neg = |n: u32| n.wrapping_neg();
        for arch in ARCHES {
            let a = arch.audit;
            let kill = arch.signals.kill;
            for sig in GUARDED_SIGNALS {
                assert_eq!(answer(&rule, a, kill, [5, sig, 0]), RET_EPERM, "{a:#x} kill {sig}");
                assert_eq!(answer(&rule, a, arch.later.clone, [0x0010_0000 | sig, 0, 0]), RET_EPERM, "{a:#x} {sig}");
                for &fcntl in arch.later.fcntl {
                    assert_eq!(answer(&rule, a, fcntl, [3, F_SETSIG, sig]), RET_EPERM, "{a:#x} fcntl {sig}");
                }
                // A group, everyone and the caller's group are the guard's business.
                for pid in [0, neg(5), u32::MAX] {
                    assert_eq!(answer(&rule, a, kill, [pid, sig, 0]), RET_ALLOW, "{a:#x} kill({pid}, {sig})");
                }
            }
            if arch.mask != !0 {
                assert_eq!(answer(&rule, a, kill | !arch.mask, [5, 9, 0]), RET_EPERM, "{a:#x} x32 kill");
            }
            // Other signals, other commands, a child's usual exit signal (SIGCHLD).
            for sig in [0, 1, 15, 17, 29] {
                assert_eq!(answer(&rule, a, kill, [5, sig, 0]), RET_ALLOW, "{a:#x} kill {sig}");
                assert_eq!(answer(&rule, a, arch.later.clone, [0x0010_0000 | sig, 0, 0]), RET_ALLOW);
                for &fcntl in arch.later.fcntl {
                    assert_eq!(answer(&rule, a, fcntl, [3, F_SETSIG, sig]), RET_ALLOW);
                    assert_eq!(answer(&rule, a, fcntl, [3, 3, 9]), RET_ALLOW, "{a:#x} F_GETFL");
                }
            }
            for &call in arch.later.timer_create.iter().chain(arch.later.mq_notify) {
                assert_eq!(answer(&rule, a, call, [0; 3]), RET_EPERM, "{a:#x} {call}");
            }
            assert_eq!(answer(&rule, a, CLONE3, [0; 3]), RET_ENOSYS, "{a:#x} clone3");
            for call in arch.exits.into_iter().chain([arch.prctl, arch.setrlimit]) {
                assert_eq!(answer(&rule, a, call, [5, 9, 9]), RET_ALLOW, "{a:#x} {call}");
            }
        }
    }

    /// Live, on this kernel: under the self-kill rule a process can neither `kill` a
    /// single process (itself, a child) with SIGKILL or SIGSTOP, nor set SIGKILL as an
    /// I/O signal, nor make a timer, nor clone with SIGKILL as the exit signal; `clone3`
    /// is unknown; other signals, and a SIGKILL to its own group, still go.
    #[test]
    fn a_process_under_the_self_kill_rule_cannot_bring_a_sigkill_on_itself() {
        let Some(rule) = or_skip(self_kill_rule()) else { return };
        let out = under_filter(rule, || {
            // SAFETY: plain system calls on objects this child owns; a clone that the rule
            // let through would return 0 in its child, which exits at once.
            unsafe {
                let me = libc::getpid();
                let child = libc::fork();
                if child == 0 {
                    libc::pause();
                    libc::_exit(0);
                }
                let mut ev: libc::sigevent = std::mem::zeroed();
                ev.sigev_notify = libc::SIGEV_SIGNAL;
                ev.sigev_signo = libc::SIGKILL;
                let mut timer: libc::c_long = 0;
                let cloned = libc::syscall(libc::SYS_clone, libc::SIGKILL as libc::c_long, 0, 0, 0, 0);
                if cloned == 0 {
                    libc::_exit(0);
                }
                let out = [
                    errno(libc::kill(me, libc::SIGKILL).into()),
                    errno(libc::kill(me, libc::SIGSTOP).into()),
                    errno(libc::kill(child, libc::SIGKILL).into()),
                    errno(libc::fcntl(0, 10, libc::SIGKILL).into()),
                    errno(libc::syscall(libc::SYS_timer_create, libc::CLOCK_MONOTONIC, &mut ev, &mut timer)),
                    errno(cloned),
                    errno(libc::syscall(libc::SYS_clone3, 0, 0)),
                    // Allowed: another signal to itself, an I/O signal that is not one.
                    errno(libc::kill(me, 0).into()),
                    errno(libc::fcntl(0, 10, libc::SIGUSR1).into()),
                    // And its child ended by SIGTERM.
                    errno(libc::kill(child, libc::SIGTERM).into()),
                ];
                libc::waitpid(child, std::ptr::null_mut(), 0);
                out
            }
        });
        let (eperm, enosys) = (libc::EPERM, libc::ENOSYS);
        assert_eq!(out, [eperm, eperm, eperm, eperm, eperm, eperm, enosys, 0, 0, 0]);
    }
}
