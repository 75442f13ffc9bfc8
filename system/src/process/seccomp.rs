//! The system calls a program bot may not make: those that put bytes into a pipe without
//! moving its stamp (`splice`, `vmsplice`, `tee`, `sendfile`) and `io_uring`, whose
//! requests can do the same. They fail with `ENOSYS`, as on a kernel without them, so
//! that libraries fall back to `write` (Python's `shutil`, Go's `io.Copy`, libuv all
//! do); everything else is allowed. The filter is a classic BPF program of a few dozen
//! instructions, installed in the child between fork and exec (with `no_new_privs`,
//! which bwrap sets for its child anyway), so it holds for the program, for bwrap in
//! front of it and for all they fork, and no process of the box can lift it.
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
//! Not here: when the filter is installed (`rlimits::ChildSetup`), what the stamps are
//! for (`stamped`, `clock`). It is not a sandbox: the box is (`sandbox`).

use std::io;
use std::sync::OnceLock;

// Classic BPF, as `linux/filter.h` and `linux/seccomp.h` define it.
const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD (0) | BPF_W (0) | BPF_ABS (0x20)
const BPF_ALU_AND_K: u16 = 0x04 | 0x50; // BPF_ALU | BPF_AND | BPF_K
const BPF_JMP_JEQ_K: u16 = 0x05 | 0x10; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K
/// `offsetof(struct seccomp_data, nr)` and `arch`.
const DATA_NR: u32 = 0;
const DATA_ARCH: u32 = 4;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ENOSYS: u32 = 0x0005_0000 | libc::ENOSYS as u32;

/// `AUDIT_ARCH_*` of `linux/audit.h`.
#[cfg(target_arch = "x86_64")]
const ARCHES: &[Arch] = &[
    Arch {
        audit: 0xC000_003E, // x86-64; x32 calls come with it, bit 30 set
        mask: !0x4000_0000,
        // sendfile, splice, tee, vmsplice, io_uring_setup/enter/register, x32's vmsplice
        calls: &[40, 275, 276, 278, 425, 426, 427, 532],
    },
    Arch {
        audit: 0x4000_0003, // i386
        mask: !0,
        // sendfile, sendfile64, splice, tee, vmsplice, io_uring_setup/enter/register
        calls: &[187, 239, 313, 315, 316, 425, 426, 427],
    },
];
#[cfg(target_arch = "aarch64")]
const ARCHES: &[Arch] = &[
    Arch {
        audit: 0xC000_00B7, // AArch64
        mask: !0,
        // sendfile, vmsplice, splice, tee, io_uring_setup/enter/register
        calls: &[71, 75, 76, 77, 425, 426, 427],
    },
    Arch {
        audit: 0x4000_0028, // 32-bit ARM
        mask: !0,
        // sendfile, sendfile64, splice, tee, vmsplice, io_uring_setup/enter/register
        calls: &[187, 239, 340, 342, 343, 425, 426, 427],
    },
];
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const ARCHES: &[Arch] = &[];

/// One architecture's refused calls.
struct Arch {
    /// Its `AUDIT_ARCH_*` value, as the kernel gives it in `seccomp_data.arch`.
    audit: u32,
    /// ANDed with the call's number before the comparisons (x32's bit taken off).
    mask: u32,
    /// The numbers refused with `ENOSYS`.
    calls: &'static [u32],
}

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt: 0, jf: 0, k }
}

fn jump(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code: BPF_JMP_JEQ_K, jt, jf, k }
}

/// The filter's instructions: per architecture, a check of `arch` that skips to the
/// next architecture's when it is not this one, then the number compared with each
/// refused call (a match jumps to that architecture's `ENOSYS`), else allowed; an
/// architecture not listed is allowed.
fn instructions(arches: &[Arch]) -> Vec<libc::sock_filter> {
    let mut out = Vec::new();
    for arch in arches {
        // ld nr, [and mask], one jeq per call, ret allow, ret enosys
        let masked = arch.mask != !0;
        let body = 1 + usize::from(masked) + arch.calls.len() + 2;
        out.push(stmt(BPF_LD_W_ABS, DATA_ARCH));
        out.push(jump(arch.audit, 0, u8::try_from(body).expect("a short filter")));
        out.push(stmt(BPF_LD_W_ABS, DATA_NR));
        if masked {
            out.push(stmt(BPF_ALU_AND_K, arch.mask));
        }
        for (i, &call) in arch.calls.iter().enumerate() {
            // Past the later comparisons and the allow, to the ENOSYS.
            let to_enosys = arch.calls.len() - i;
            out.push(jump(call, u8::try_from(to_enosys).expect("a short filter"), 0));
        }
        out.push(stmt(BPF_RET_K, RET_ALLOW));
        out.push(stmt(BPF_RET_K, RET_ENOSYS));
    }
    out.push(stmt(BPF_RET_K, RET_ALLOW));
    out
}

/// The program bots' filter, made once; `None` where this architecture has none, or
/// the kernel has no seccomp (`prctl(PR_GET_SECCOMP)` fails): there a program starts
/// without it.
pub(super) fn program_filter() -> Option<&'static [libc::sock_filter]> {
    static FILTER: OnceLock<Option<Vec<libc::sock_filter>>> = OnceLock::new();
    FILTER
        .get_or_init(|| {
            // SAFETY: PR_GET_SECCOMP only reads the calling thread's mode.
            let supported = unsafe { libc::prctl(libc::PR_GET_SECCOMP) } >= 0;
            (supported && !ARCHES.is_empty()).then(|| instructions(ARCHES))
        })
        .as_deref()
}

/// Installs `filter` on the calling thread, for it and every process it starts from now
/// on, and sets `no_new_privs` (which a filter needs without `CAP_SYS_ADMIN`, and which
/// keeps a setuid program from dropping it). For a child between fork and exec:
/// async-signal-safe, no allocation.
pub(super) fn install(filter: &[libc::sock_filter]) -> io::Result<()> {
    let prog = libc::sock_fprog {
        len: u16::try_from(filter.len()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?,
        filter: filter.as_ptr().cast_mut(),
    };
    // SAFETY: prctl(PR_SET_NO_NEW_PRIVS) only sets a flag of the calling thread; seccomp
    // reads the program we own (the kernel copies it) and never writes through the
    // pointer.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0, &prog) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each refused call, then a `write`, gave in a child under the filter: 0 for
    /// success, else its errno. Between fork and exit the child makes system calls
    /// only (no allocation, no lock).
    fn calls_under_filter(filter: &[libc::sock_filter]) -> [i32; 6] {
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
            assert_eq!(libc::write(w1, b"abcd".as_ptr().cast(), 4), 4);
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                let mut out = [-1i32; 6];
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
                }
                libc::write(report_w, out.as_ptr().cast(), size_of_val(&out));
                libc::_exit(0);
            }
            libc::close(report_w);
            let mut out = [0i32; 6];
            assert_eq!(libc::read(report_r, out.as_mut_ptr().cast(), size_of_val(&out)), size_of_val(&out) as isize);
            let mut status = 0;
            assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
            out
        }
    }

    /// Each refused call fails with ENOSYS (on pipes, where it works without the
    /// filter), and `write` still works.
    #[test]
    fn a_filtered_process_cannot_splice_tee_vmsplice_sendfile_or_io_uring_but_may_write() {
        let Some(filter) = program_filter() else {
            assert!(std::env::var_os("CI").is_none(), "no seccomp filter on this machine");
            return;
        };
        let nosys = libc::ENOSYS;
        assert_eq!(calls_under_filter(filter), [nosys, nosys, nosys, nosys, nosys, 0]);
        // Without it (a filter that allows everything) the same calls work: the test
        // sees the filter, not a kernel or a pipe that refuses them.
        let open = [stmt(BPF_RET_K, RET_ALLOW)];
        let without = calls_under_filter(&open);
        assert_eq!(&without[..4], &[0, 0, 0, 0], "{without:?}");
        assert_eq!(without[5], 0);
    }

    /// Every comparison jumps inside its architecture's block, to its ENOSYS.
    #[test]
    fn each_refused_call_jumps_to_its_architectures_enosys() {
        let code = instructions(ARCHES);
        let mut i = 0;
        for arch in ARCHES {
            assert_eq!((code[i].code, code[i].k), (BPF_LD_W_ABS, DATA_ARCH));
            let end = i + 2 + usize::from(code[i + 1].jf);
            assert_eq!((code[end - 1].code, code[end - 1].k), (BPF_RET_K, RET_ENOSYS));
            assert_eq!((code[end - 2].code, code[end - 2].k), (BPF_RET_K, RET_ALLOW));
            let jumps: Vec<usize> = (i + 2..end).filter(|&j| code[j].code == BPF_JMP_JEQ_K).collect();
            assert_eq!(jumps.len(), arch.calls.len());
            for j in jumps {
                assert_eq!(j + 1 + usize::from(code[j].jt), end - 1, "call {} of arch {:#x}", code[j].k, arch.audit);
            }
            i = end;
        }
        assert_eq!((code[i].code, code[i].k, code.len()), (BPF_RET_K, RET_ALLOW, i + 1));
    }
}
