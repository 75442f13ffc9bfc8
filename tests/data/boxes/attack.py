#!/usr/bin/env python3
# arena: eggs persistent
# A program attacker of tests/boxes.rs (issue #30, Must 6; the test fills in the @...@
# fields). One process plays the whole game; its player only stays (a game with it is
# the game with a bot that only stays), and it logs its uid at its first call. What it
# does (BEHAVIOUR):
#
#   stay        nothing (the reference's stand-in)
#   signals     from its call 3 on, a thread sends SIGSTOP, SIGSEGV and SIGKILL every
#               5 ms to every visible process but itself and pid 1 (its parent, a
#               worker, included after its first second; and, as a fuse for a run without boxes, only those
#               whose command line names MARKER); it logs at every call how many it
#               reached
#   daemon      at its call 3, a double-forked daemon (setsid) that for 60 s tries every
#               100 ms to create TARGET (in the tournament's directory)
#   shm_maker   at its first call, creates a SysV shared memory segment of key KEY and
#               writes a marker in it (never removed)
#   shm_seeker  at every call, looks for the segment of key KEY and logs what it found
#   read        at its call 3, reads every file of READ (':'-separated) and logs which it could
#   secrets     at its call 3, looks for the host's secret (SECRET) in its environment,
#               /proc/1/environ and its session keyring, fills /dev/shm with up to
#               256 MiB and tries a file in /dev itself; logs what it found and wrote
import ctypes
import os
import signal
import sys
import threading
import time

BEHAVIOUR = "@BEHAVIOUR@"
MARKER = "@MARKER@"
TARGET = "@TARGET@"
READ = "@READ@"
KEY = 0x41524E41  # "ARNA"
SECRET = "hunter2-token"


def log(*what):
    print(*what, file=sys.stderr, flush=True)


def others():
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, me):
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if MARKER.encode() in f.read():
                    yield int(name)
        except OSError:
            pass


reached = attempts = 0


def signals():
    global reached, attempts
    started = time.monotonic()
    while True:
        # Its parent (its worker) last, after a second: the others first.
        spare = os.getppid() if time.monotonic() - started < 1 else None
        for pid in [p for p in others() if p != spare]:
            for sig in (signal.SIGSTOP, signal.SIGSEGV, signal.SIGKILL):
                attempts += 1
                try:
                    os.kill(pid, sig)
                    reached += 1
                except OSError:
                    pass
        time.sleep(0.005)


def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
        for fd in range(0, 1024):
            try:
                os.close(fd)
            except OSError:
                pass
        for _ in range(600):
            try:
                with open(TARGET, "a") as f:
                    f.write("daemon was here\n")
            except OSError:
                pass
            time.sleep(0.1)
        os._exit(0)
    log("daemon: started")


libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p


def shm_make():
    sid = libc.shmget(KEY, 4096, 0o1666)  # IPC_CREAT | 0666
    addr = libc.shmat(sid, None, 0) if sid >= 0 else None
    if addr not in (None, ctypes.c_void_p(-1).value):
        ctypes.memmove(addr, b"attacker was here\0", 18)
    log(f"shm: made {sid}")


def shm_seek():
    sid = libc.shmget(KEY, 0, 0)
    if sid < 0:
        return log("shm: none")
    addr = libc.shmat(sid, None, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        return log("shm: seen, not attached")
    log("shm: attached, read " + ctypes.string_at(addr, 17).decode(errors="replace"))


def read():
    for path in READ.split(":"):
        try:
            with open(path, "rb") as f:
                got = f.read(256)
            log(f"read {path}: got bytes" if got else f"read {path}: refused")
        except OSError:
            log(f"read {path}: refused")


def secrets():
    log("env secret: " + ("seen" if "ARENA_BOXES_SECRET" in os.environ else "none"))
    try:
        with open("/proc/1/environ", "rb") as f:
            seen = SECRET.encode() in f.read()
    except OSError:
        seen = False
    log("init environ secret: " + ("seen" if seen else "none"))
    libc.syscall.restype = ctypes.c_long
    # keyctl(KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", description, 0)
    key = libc.syscall(250 if os.uname().machine == "x86_64" else 219, ctypes.c_long(10), ctypes.c_long(-3), b"user", b"arena-boxes-secret", ctypes.c_long(0))
    log("keyring secret: " + ("seen" if key >= 0 else "none"))
    mib = 0
    try:
        with open("/dev/shm/fill", "wb") as f:
            while mib < 256:
                f.write(b"x" * (1 << 20))
                f.flush()
                mib += 1
    except OSError:
        pass
    try:
        os.unlink("/dev/shm/fill")
    except OSError:
        pass
    log(f"shm fill: {mib} MiB")
    try:
        with open("/dev/fill-here", "wb"):
            pass
        os.unlink("/dev/fill-here")
        log("dev write: done")
    except OSError:
        log("dev write: refused")


calls = 0
while True:
    lines = [sys.stdin.readline() for _ in range(6)]
    if not lines[-1]:
        break
    calls += 1
    if calls == 1:
        log(f"uid {os.getuid()}")
        if BEHAVIOUR == "shm_maker":
            shm_make()
    if BEHAVIOUR == "signals" and calls == 3:
        threading.Thread(target=signals, daemon=True).start()
    if BEHAVIOUR == "signals" and calls >= 3:
        log(f"signals: {reached} of {attempts} reached")
    if BEHAVIOUR == "daemon" and calls == 3:
        daemon()
    elif BEHAVIOUR == "shm_seeker" and calls >= 2:
        shm_seek()
    elif BEHAVIOUR == "read" and calls == 3:
        read()
    elif BEHAVIOUR == "secrets" and calls == 3:
        secrets()
    sys.stdout.write("9\nN\n\n")
    sys.stdout.flush()
