#!@PYTHON@
# arena: @GAME@ persistent
# A hostile program bot of tests/hostile_games.rs (the test fills in the @...@ fields).
# One process plays the whole game. Its answer is always the game's "do nothing" (eggs:
# stay with N, target: stay, hex: no command) and it asks for no random number, so a
# game with it is the very game played with a bot that only stays, whatever happens to
# it; from its call @TRIGGER@ on it misbehaves as BEHAVIOUR says:
#
#   stay          never (the stand-in of the reference tournament)
#   endless       spins for ever at its call TRIGGER
#   late          answers its calls TRIGGER and TRIGGER + 3 long after their limit (its
#                 next call, asked while it still sleeps, is late too: never three in a
#                 row), with an answer that would change the game if it were taken for
#                 another call
#   flood         writes 100 MB on one line at its call TRIGGER, then goes on
#   garbage       answers every call from TRIGGER on with bytes that are no answer
#   close_stdout  closes its standard output at its call TRIGGER and stays alive
#   fork_bomb     forks children (each sleeping two minutes) at its call TRIGGER until
#                 it cannot (or 400, or a fifth of its limit of wall time: so that it
#                 never overruns its call, even where a fork blocks as long as it runs),
#                 and logs how many it got
#   hog           asks for 8 GiB at its call TRIGGER (a MemoryError ends it)
#   write_outside creates OUTSIDE at its call TRIGGER, and logs whether it could
#   socket        connects to 127.0.0.1:PORT at its call TRIGGER, and logs whether it could
#   exit          ends at its call TRIGGER without answering
#   daemon        starts a daemon at its call TRIGGER (double fork and setsid) that sleeps
#                 ten minutes with MARKER in its command line, then goes on
#   helper        (no harm: the victim of the others) runs a helper process at every
#                 call and logs whether it could
#   splice        writes its answer at its call TRIGGER with splice, tee, vmsplice or
#                 sendfile (calls that leave its stdout's stamp as it was), stopping at
#                 the first that works, else with write; tries io_uring_setup too; logs
#                 each call's outcome
#   forger        writes made-up results (in every shape a worker's answer has had) to
#                 every descriptor from 3 to 1023 before each answer, and logs how many
#                 it could write to
import ctypes
import json
import os
import socket
import sys
import time

GAME = "@GAME@"
BEHAVIOUR = "@BEHAVIOUR@"
TRIGGER = @TRIGGER@
LIMIT = @LIMIT@  # the limit of one call, in seconds
OUTSIDE = "@OUTSIDE@"
PORT = @PORT@
MARKER = "@MARKER@"

STAY = {"eggs": "9\nN\n\n", "target": "2\n", "hex": "[]\n"}[GAME]
# An answer that changes the game: taken for another call's, the game would differ.
MOVE = {
    "eggs": "4\nA\nlate\n",
    "target": "3\n",
    "hex": json.dumps([{"cmd": "spawn_zombie", "zone": 7, "facing": 0}, {"cmd": "spawn", "x": 2, "y": 2, "weapon": 5}])
    + "\n",
}[GAME]


def log(*what):
    print(*what, file=sys.stderr, flush=True)


def request():
    """The next request, or None at the end of the game."""
    if GAME == "eggs":
        lines = [sys.stdin.readline() for _ in range(6)]
        return None if not lines[-1] else lines
    line = sys.stdin.readline()
    return line or None


def answer(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def forge():
    outcome = {"seed": 0, "turns": 1, "scores": [1000] * 8, "stats": [], "tiebreak": []}
    lines = [json.dumps({"nonce": n, "response": {"Played": outcome}}) for n in (0, 1)]
    lines.append(json.dumps({"Played": outcome}))
    lines += ["C 0 [0]", "O 1 framed", "O 0 framed"]
    text = ("\n".join(lines) + "\n").encode()
    written = 0
    for fd in range(3, 1024):
        try:
            os.write(fd, text)
            written += 1
        except OSError:
            pass
    log("descriptors written:", written)


def unstamped_answer():
    """Writes STAY to stdout by each call that leaves its stamp as it was, until one
    works (True), logging what each did."""
    data = STAY.encode()
    libc = ctypes.CDLL(None, use_errno=True)

    def source():
        r, w = os.pipe()
        os.write(w, data)
        os.close(w)
        return r

    def splice():
        return os.splice(source(), 1, len(data))

    def tee():
        n = libc.tee(source(), 1, len(data), 0)
        if n < 0:
            raise OSError(ctypes.get_errno(), "tee")
        return n

    def vmsplice():
        class Iovec(ctypes.Structure):
            _fields_ = [("base", ctypes.c_char_p), ("len", ctypes.c_size_t)]

        n = libc.vmsplice(1, ctypes.byref(Iovec(data, len(data))), 1, 0)
        if n < 0:
            raise OSError(ctypes.get_errno(), "vmsplice")
        return n

    def sendfile():
        f = os.memfd_create("answer")
        os.write(f, data)
        return os.sendfile(1, f, 0, len(data))

    sys.stdout.flush()
    for name, call in (("splice", splice), ("tee", tee), ("vmsplice", vmsplice), ("sendfile", sendfile)):
        try:
            n = call()
            log(name + ": wrote", n)
            return True
        except OSError as e:
            log(name + ": refused", e.errno)
    params = ctypes.create_string_buffer(120)
    fd = libc.syscall(425, 4, params)  # io_uring_setup, the same number on x86-64 and AArch64
    log("io_uring_setup: " + ("set up" if fd >= 0 else "refused %d" % ctypes.get_errno()))
    return False


def daemon():
    child = os.fork()
    if child == 0:
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.execv(sys.executable, [sys.executable, "-c", "import time\ntime.sleep(600)", MARKER])
        os._exit(0)
    os.waitpid(child, 0)
    log("daemon started")


def misbehave(call):
    """Misbehaves at this call, if it is one to; True when it answered already."""
    if BEHAVIOUR == "late" and call in (TRIGGER, TRIGGER + 3):
        time.sleep(max(2.5 * LIMIT, 0.15))
        answer(MOVE)
        return True
    if BEHAVIOUR == "garbage" and call >= TRIGGER:
        junk = b"\xff\xfe\x00garbage\x1b[2J\n" if call % 2 else b"north\nattack!\n{[(\n"
        sys.stdout.buffer.write(junk * 3)
        sys.stdout.flush()
        return True
    if BEHAVIOUR == "forger":
        forge()
    if BEHAVIOUR == "helper":
        try:
            os.waitpid(os.spawnv(os.P_NOWAIT, "/bin/true", ["/bin/true"]), 0)
            log("helper: ran")
        except OSError as e:
            log("helper: refused", e)
    if call != TRIGGER:
        return False
    if BEHAVIOUR == "endless":
        while True:
            pass
    elif BEHAVIOUR == "flood":
        chunk = "x" * (1 << 20)
        try:
            for _ in range(100):
                sys.stdout.write(chunk)
            answer("\n")
        except OSError as e:
            log("flood cut:", e)
            sys.exit(1)
        return True
    elif BEHAVIOUR == "close_stdout":
        sys.stdout.flush()
        os.close(1)
        while request() is not None:
            pass
        sys.exit(0)
    elif BEHAVIOUR == "fork_bomb":
        got = 0
        # Wall time: a fork that blocks in the kernel is its own time too.
        start = time.monotonic()
        for _ in range(400):
            if time.monotonic() - start > LIMIT / 5:
                break
            try:
                child = os.fork()
            except OSError:
                break
            if child == 0:
                time.sleep(120)
                os._exit(0)
            got += 1
        log("forked", got)
    elif BEHAVIOUR == "hog":
        hoard = bytearray(8 << 30)
        log("8 GiB: granted", len(hoard))
    elif BEHAVIOUR == "write_outside":
        try:
            with open(OUTSIDE, "w") as f:
                f.write("escaped\n")
            log("write: done")
        except OSError as e:
            log("write: refused", e)
    elif BEHAVIOUR == "socket":
        try:
            socket.create_connection(("127.0.0.1", PORT), timeout=0.5).close()
            log("connect: done")
        except OSError as e:
            log("connect: refused", e)
    elif BEHAVIOUR == "exit":
        sys.exit(0)
    elif BEHAVIOUR == "daemon":
        daemon()
    elif BEHAVIOUR == "splice":
        return unstamped_answer()
    return False


def main():
    call = 0
    while request() is not None:
        call += 1
        if not misbehave(call):
            answer(STAY)


main()
