//! The system calls a program bot, and a worker or probe that loads bots, may not make:
//! those that put bytes into a pipe without moving its stamp (`splice`, `vmsplice`,
//! `tee`, `sendfile`) and `io_uring`, whose requests can do the same; and a
//! parent-death signal other than SIGKILL. The first four fail with `EINVAL`, what the
//! kernel says of descriptors it cannot splice, so that libraries fall back to `write`
//! (libuv, the JDK's `transferTo`, Go's `io.Copy` and Python's `shutil` all do on
//! `EINVAL`; libuv, the JDK and Go do not on `ENOSYS`); `io_uring_setup`,
//! `io_uring_enter` and `io_uring_register` fail with `ENOSYS`, as on a kernel without
//! them, which is what their users test for; `prctl(PR_SET_PDEATHSIG, sig)` with any
//! `sig` but SIGKILL fails with `EPERM`: a box's first process (a worker, which runs
//! its bots' code; a program) could otherwise undo its `--die-with-parent` (bwrap's
//! SIGKILL) and outlive a host that died at once. Everything else is allowed. The
//! filter is a classic BPF program of a few dozen instructions, installed in the child
//! between fork and exec (with `no_new_privs`, which bwrap sets for its child anyway),
//! so it holds for the program or helper, for bwrap in front of it and for all they
//! fork, and no process of the box can lift it.
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
//! `spawn::confine_helper` for workers and probes), what the stamps are for
//! (`stamped`, `clock`). It is not a sandbox: the box is (`sandbox`). Nor does it keep
//! a parent-death signal whole: an `execve` from a second thread drops it too.

use std::io;
use std::sync::OnceLock;

// Classic BPF, as `linux/filter.h` and `linux/seccomp.h` define it.
const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD (0) | BPF_W (0) | BPF_ABS (0x20)
const BPF_ALU_AND_K: u16 = 0x04 | 0x50; // BPF_ALU | BPF_AND | BPF_K
const BPF_JMP_JEQ_K: u16 = 0x05 | 0x10; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K
/// `offsetof(struct seccomp_data, nr)`, `arch`, and the low 32 bits of `args[0]` and
/// `args[1]` (little-endian, as both architectures here are).
const DATA_NR: u32 = 0;
const DATA_ARCH: u32 = 4;
const DATA_ARG0: u32 = 16;
const DATA_ARG1: u32 = 24;
/// `prctl`'s `PR_SET_PDEATHSIG` (the kernel reads the option as an `int`: its low 32 bits).
const PR_SET_PDEATHSIG: u32 = 1;
const RET_ALLOW: u32 = 0x7fff_0000;
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
    },
    Arch {
        audit: 0x4000_0003, // i386
        mask: !0,
        // sendfile, sendfile64, splice, tee, vmsplice
        pipes: &[187, 239, 313, 315, 316],
        uring: IO_URING,
        prctl: 172,
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
    },
    Arch {
        audit: 0x4000_0028, // 32-bit ARM
        mask: !0,
        // sendfile, sendfile64, splice, tee, vmsplice
        pipes: &[187, 239, 340, 342, 343],
        uring: IO_URING,
        prctl: 172,
    },
];
// A big-endian AArch64 would need its own audit values and the arguments' other half.
#[cfg(not(all(any(target_arch = "x86_64", target_arch = "aarch64"), target_endian = "little")))]
const ARCHES: &[Arch] = &[];

/// `io_uring_setup`, `io_uring_enter`, `io_uring_register`: the same numbers on every
/// architecture (they came after the tables were unified).
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), target_endian = "little"))]
const IO_URING: &[u32] = &[425, 426, 427];

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
}

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt: 0, jf: 0, k }
}

fn jump(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code: BPF_JMP_JEQ_K, jt, jf, k }
}

/// The instructions of the `prctl` check, between the refused calls' comparisons and
/// the block's returns: `prctl` with `PR_SET_PDEATHSIG` and anything but SIGKILL goes to
/// the `EPERM`, every other call to the allow right after these.
const PRCTL_CHECK: usize = 5;

/// The filter's instructions: per architecture, a check of `arch` that skips to the
/// next architecture's when it is not this one, then the number compared with each
/// refused call (a match jumps to that architecture's `EINVAL` or `ENOSYS`), then the
/// `prctl` check ([`PRCTL_CHECK`], to its `EPERM`), else allowed; an architecture not
/// listed is allowed.
fn instructions(arches: &[Arch]) -> Vec<libc::sock_filter> {
    let mut out = Vec::new();
    let short = |n: usize| u8::try_from(n).expect("a short filter");
    for arch in arches {
        // ld nr, [and mask], one jeq per call, the prctl check, ret allow, ret eperm,
        // ret einval, ret enosys
        let masked = arch.mask != !0;
        let calls = arch.pipes.len() + arch.uring.len();
        let body = 1 + usize::from(masked) + calls + PRCTL_CHECK + 4;
        out.push(stmt(BPF_LD_W_ABS, DATA_ARCH));
        out.push(jump(arch.audit, 0, short(body)));
        out.push(stmt(BPF_LD_W_ABS, DATA_NR));
        if masked {
            out.push(stmt(BPF_ALU_AND_K, arch.mask));
        }
        for (i, &call) in arch.pipes.iter().chain(arch.uring).enumerate() {
            // Past the later comparisons, the prctl check, the allow and the EPERM, to
            // the EINVAL (then ENOSYS).
            let to_einval = calls - i - 1 + PRCTL_CHECK + 2;
            let to = if i < arch.pipes.len() { to_einval } else { to_einval + 1 };
            out.push(jump(call, short(to), 0));
        }
        // jeq prctl (else to the allow), ld arg0, jeq PR_SET_PDEATHSIG (else allow), ld
        // arg1, jeq SIGKILL (allow, else EPERM).
        out.push(jump(arch.prctl, 0, 4));
        out.push(stmt(BPF_LD_W_ABS, DATA_ARG0));
        out.push(jump(PR_SET_PDEATHSIG, 0, 2));
        out.push(stmt(BPF_LD_W_ABS, DATA_ARG1));
        out.push(jump(libc::SIGKILL as u32, 0, 1));
        out.push(stmt(BPF_RET_K, RET_ALLOW));
        out.push(stmt(BPF_RET_K, RET_EPERM));
        out.push(stmt(BPF_RET_K, RET_EINVAL));
        out.push(stmt(BPF_RET_K, RET_ENOSYS));
    }
    out.push(stmt(BPF_RET_K, RET_ALLOW));
    out
}

/// The filter of program bots and of the host's helpers that load bots (workers,
/// probes: `spawn::confine_helper`), made once; `None` where this architecture has none, or
/// the kernel will not take one from this process ([`unavailable`] says why): there a
/// program starts without it.
pub(super) fn program_filter() -> Option<&'static [libc::sock_filter]> {
    filter_or_why().as_ref().ok().map(Vec::as_slice)
}

/// Why program bots run without the filter here, if they do: an architecture with none
/// written, or a kernel (or a filter around this process, as a container's) that
/// refuses `seccomp(2)`.
pub fn unavailable() -> Option<&'static str> {
    filter_or_why().as_ref().err().copied()
}

fn filter_or_why() -> &'static Result<Vec<libc::sock_filter>, &'static str> {
    static FILTER: OnceLock<Result<Vec<libc::sock_filter>, &'static str>> = OnceLock::new();
    FILTER.get_or_init(|| {
        if ARCHES.is_empty() {
            return Err("no system-call filter is written for this architecture");
        }
        // A filter at a null address: EFAULT where the kernel would take one (before
        // it looks at `no_new_privs`); EINVAL without seccomp filters, or what a filter
        // around this process answers for `seccomp` itself.
        match seccomp_call(0, std::ptr::null()) {
            Err(e) if e.raw_os_error() == Some(libc::EFAULT) => Ok(instructions(ARCHES)),
            _ => Err("the kernel refuses this process a seccomp filter"),
        }
    })
}

/// `seccomp(SECCOMP_SET_MODE_FILTER, flags, prog)`. Async-signal-safe.
fn seccomp_call(flags: libc::c_ulong, prog: *const libc::sock_fprog) -> io::Result<()> {
    // SAFETY: seccomp only reads `prog` (the kernel copies the program), and a null or
    // bad address is answered with EFAULT.
    let ret = unsafe { libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, flags, prog) };
    if ret == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// Installs `filter` on the calling thread, for it and every process it starts from now
/// on, and sets `no_new_privs` (which a filter needs without `CAP_SYS_ADMIN`, and which
/// keeps a setuid program from dropping it); without turning on the Speculative Store
/// Bypass mitigation where the kernel knows that flag. For a child between fork and
/// exec: async-signal-safe, no allocation.
pub(super) fn install(filter: &[libc::sock_filter]) -> io::Result<()> {
    let prog = libc::sock_fprog {
        len: u16::try_from(filter.len()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?,
        filter: filter.as_ptr().cast_mut(),
    };
    // SAFETY: prctl(PR_SET_NO_NEW_PRIVS) only sets a flag of the calling thread.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    match seccomp_call(FLAG_SPEC_ALLOW, &prog) {
        // A kernel before 4.17 does not know the flag.
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => seccomp_call(0, &prog),
        done => done,
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
        let (report_r, report_w) = pipe();
        let (r1, w1) = pipe();
        let (_r2, w2) = pipe();
        // SAFETY: plain system calls on descriptors and buffers this test owns; the
        // child only makes system calls and ends with _exit.
        unsafe {
            let file = libc::memfd_create(c"probe".as_ptr(), 0);
            assert!(file >= 0);
            assert_eq!(libc::write(file, b"abcd".as_ptr().cast(), 4), 4);
            assert_eq!(libc::write(w1, b"abcdef".as_ptr().cast(), 6), 6);
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                let mut out = [-1i32; 9];
                if install(filter).is_ok() {
                    let errno = |ret: libc::c_long| if ret < 0 { *libc::__errno_location() } else { 0 };
                    out[0] = errno(libc::splice(r1, std::ptr::null_mut(), w2, std::ptr::null_mut(), 2, 0) as _);
                    out[1] = errno(libc::tee(r1, w2, 2, 0) as _);
                    let iov = libc::iovec { iov_base: b"xy".as_ptr().cast_mut().cast(), iov_len: 2 };
                    out[2] = errno(libc::vmsplice(w2, &iov, 1, 0) as _);
                    let mut offset: libc::off_t = 0;
                    out[3] = errno(libc::sendfile(w2, file, &mut offset, 2) as _);
                    let mut params = [0u8; 120];
                    out[4] = errno(libc::syscall(libc::SYS_io_uring_setup, 4, params.as_mut_ptr()));
                    out[5] = errno(libc::write(w2, b"z".as_ptr().cast(), 1) as _);
                    out[6] = tee_by_int80(r1, w2);
                    // A parent-death signal cleared, then set to SIGKILL.
                    out[7] = errno(libc::prctl(libc::PR_SET_PDEATHSIG, 0).into());
                    out[8] = errno(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL).into());
                }
                libc::write(report_w, out.as_ptr().cast(), size_of_val(&out));
                libc::_exit(0);
            }
            libc::close(report_w);
            let mut out = [0i32; 9];
            assert_eq!(libc::read(report_r, out.as_mut_ptr().cast(), size_of_val(&out)), size_of_val(&out) as isize);
            let mut status = 0;
            assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
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
        let Some(filter) = program_filter() else {
            assert!(std::env::var_os("CI").is_none(), "no seccomp filter on this machine: {:?}", unavailable());
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

    /// Every comparison jumps inside its architecture's block, to its EINVAL (the calls
    /// on pipes) or its ENOSYS (`io_uring`'s); the `prctl` check to its EPERM or allow.
    #[test]
    fn each_refused_call_jumps_to_its_architectures_errno() {
        let code = instructions(ARCHES);
        let mut i = 0;
        for arch in ARCHES {
            assert_eq!((code[i].code, code[i].k), (BPF_LD_W_ABS, DATA_ARCH));
            let end = i + 2 + usize::from(code[i + 1].jf);
            assert_eq!((code[end - 1].code, code[end - 1].k), (BPF_RET_K, RET_ENOSYS));
            assert_eq!((code[end - 2].code, code[end - 2].k), (BPF_RET_K, RET_EINVAL));
            assert_eq!((code[end - 3].code, code[end - 3].k), (BPF_RET_K, RET_EPERM));
            assert_eq!((code[end - 4].code, code[end - 4].k), (BPF_RET_K, RET_ALLOW));
            let check = end - 4 - PRCTL_CHECK;
            let jumps: Vec<usize> = (i + 2..check).filter(|&j| code[j].code == BPF_JMP_JEQ_K).collect();
            assert_eq!(jumps.len(), arch.pipes.len() + arch.uring.len());
            for j in jumps {
                assert_eq!(code[j].jf, 0);
                let to = j + 1 + usize::from(code[j].jt);
                let expected = if arch.pipes.contains(&code[j].k) { end - 2 } else { end - 1 };
                assert_eq!(to, expected, "call {} of arch {:#x}", code[j].k, arch.audit);
            }
            // The prctl check: each comparison's miss goes to the allow; the last one's
            // match (SIGKILL) to the allow, its miss to the EPERM.
            let target = |j: usize, taken: bool| j + 1 + usize::from(if taken { code[j].jt } else { code[j].jf });
            assert_eq!((code[check].k, target(check, false)), (arch.prctl, end - 4));
            assert_eq!((code[check + 1].code, code[check + 1].k), (BPF_LD_W_ABS, DATA_ARG0));
            assert_eq!((code[check + 2].k, target(check + 2, false)), (PR_SET_PDEATHSIG, end - 4));
            assert_eq!((code[check + 3].code, code[check + 3].k), (BPF_LD_W_ABS, DATA_ARG1));
            let last = check + 4;
            assert_eq!((code[last].k, target(last, true), target(last, false)), (9, end - 4, end - 3));
            i = end;
        }
        assert_eq!((code[i].code, code[i].k, code.len()), (BPF_RET_K, RET_ALLOW, i + 1));
    }
}
