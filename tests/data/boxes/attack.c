/* The native attackers of tests/boxes.rs (issue #30, Must 6): eggs bots whose player
 * only stays (so that a game with one is the game with a bot that only stays) and which,
 * at their call TRIGGER (3), attack what is outside their box, as chosen at compile time:
 *
 *   -DSIGNALS   a thread that, every 5 ms until the process ends, sends SIGSTOP, SIGSEGV
 *               and SIGKILL to every process visible in /proc but itself and pid 1
 *               (and, as a fuse for a run without boxes, only to those whose command
 *               line names MARKER, the test's directory); logs at every call how many
 *               it reached
 *   -DPTRACE    a thread that, every 5 ms until the process ends, tries PTRACE_ATTACH
 *               and PTRACE_SEIZE of every visible process (as SIGNALS chooses them), a
 *               read of its /proc/<pid>/mem (its first readable mapping), a write of
 *               forged lines to its /proc/<pid>/fd/0; logs at every call what worked
 *   -DDAEMON    a double-forked daemon (setsid) that outlives its game: for 60 s it tries
 *               every 100 ms to create TARGET_FILE (in the tournament's directory)
 *   -DESCAPE    logs its CapEff and how many other processes it sees, remounts /
 *               read-write (not as uid 0), writes TARGET_FILE directly and through
 *               /proc/<pid>/root of every visible process, unshares and setns-es into
 *               its parent's namespaces, clears its parent-death signal
 *   -DREAD      reads the other entries' logs and bot files (READ_PATHS, ':'-separated)
 *   -DBLAME     a thread zeroes the worker's blame page (the path after --blame in its
 *               command line) in a loop; the call then blocks for ever
 *   -DNEIGHBOUR 4 threads busy-loop for ever (from its first call), beside the others
 *   -DSECRETS   looks for the host's secrets (SECRET, the value the test gives the host
 *               in its environment and session keyring): in its environment, in
 *               /proc/1/environ, in its session keyring; then fills /dev/shm with up
 *               to 256 MiB and tries a file in /dev itself; logs what it found and wrote
 *   -DINJECT    writes forged protocol lines (a call of another seat, a verdict, a wait)
 *               into its own worker's standard input (/proc/self/fd/0: the pipe the host
 *               or, in strict mode, the host's relay feeds) and forged lines (the other
 *               seats' calls, verdicts, waits and claims of a program killed from
 *               outside, a score) to every descriptor from 1 to
 *               1023 (its answer pipe among them), then answers as usual
 *   -DSLOW      sleeps 30 ms at every call (no attack: the victim of a kill from
 *               outside its box)
 *   -DSLOWLOAD  sleeps 1.5 s in its library's initializer, before its worker says it
 *               is ready (no attack: the victim of a kill from outside its box then)
 *   -DSELFKILL  a child it forks sends SIGKILL to its own process (its worker), which
 *               then waits to die
 *   -DTIDKILL   sends SIGKILL to the id of a second thread of its own process (a `kill`
 *               of a thread's id kills the whole process), logging whether it was sent
 *               ("tidkill: sent" or "tidkill: refused"), then waits to die
 *   -DTIMERKILL arms a timer whose signal is SIGKILL (`timer_create`), due 1 ms later,
 *               logging whether it could ("timerkill: armed" or "timerkill: refused"),
 *               then waits to die
 *   -DSELFSEGV  sends its own process SIGSEGV by `kill`, twice (the first may be let
 *               pass by a handler), then waits to die
 *   -DEXIT86    ends its own process (its worker) with exit status 86, what a worker
 *               says when a signal from outside its box would have killed it
 *   -DEXIT137   ends its own process (its worker) with exit status 137, what bwrap says
 *               of a process it runs that died of SIGKILL
 *   -DCPULIMIT  lowers its own process's CPU limit (RLIMIT_CPU, soft and hard) to 1 s,
 *               logs whether it could ("cpulimit: lowered" or "cpulimit: refused"), then
 *               spins for ever (lowered, the kernel kills its worker by SIGKILL)
 *   -DSHMHOG    maps SHM_MIB (300) MiB of shared anonymous memory (MAP_SHARED |
 *               MAP_ANONYMOUS, which RLIMIT_DATA does not count) and touches it a MiB
 *               at a time, logging how far it got every 16 MiB and at the end
 *               ("shm touched: N MiB"; "shm map: refused" if the mapping is)
 *   -DUNDYING   clears its worker's parent-death signal, then from a second thread (the
 *               kernel keeps that signal per thread) replaces its worker by
 *               `/bin/sleep 600`, which has none; never returns from that call
 *   -DORPHANS   at each of its first 19 calls leaves an orphan (a child that forks a
 *               grandchild and exits at once; the grandchild exits 10 ms later); from
 *               then on sleeps 150 ms a call, and 2.5 s after its 19th call logs how many
 *               zombies its box holds ("zombies: N"), once
 *
 * Every bot logs its uid at its first call ("uid N"), for the test to look for its
 * processes afterwards. With none of them it only stays (the reference's stand-in). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "eggs_bot.h"

#ifndef BOT_NAME
#define BOT_NAME "attacker"
#endif
#ifndef MARKER
#define MARKER "/nonexistent"
#endif
#ifndef TARGET_FILE
#define TARGET_FILE "/nonexistent/attack-target"
#endif
#ifndef READ_PATHS
#define READ_PATHS ""
#endif
#ifndef SECRET
#define SECRET "hunter2-token"
#endif
#define TRIGGER 3
#ifndef SHM_MIB
#define SHM_MIB 300
#endif

typedef struct {
    unsigned calls;
} state;

static void *bot_create(void) { return calloc(1, sizeof(state)); }
static void bot_destroy(void *bot) { free(bot); }

static volatile int reached, attempts;
static int once, uid_logged;
static unsigned own_seat;

/* Whether /proc/<pid>/cmdline names MARKER (a fuse: unboxed, nothing else is touched). */
__attribute__((unused)) static int ours(long pid) {
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == 0) buf[i] = ' ';
    buf[n] = 0;
    return strstr(buf, MARKER) != NULL;
}

/* Calls f for every visible process but itself and pid 1 that is ours() (a worker's
 * parent is the box's init, or unboxed the host). */
__attribute__((unused)) static int each_other(void (*f)(long)) {
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    long self = getpid();
    while (d && (e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 1 || pid == self || !ours(pid)) continue;
        f(pid);
        n++;
    }
    if (d) closedir(d);
    return n;
}

#ifdef SIGNALS
static void signal_one(long pid) {
    static const int SIGS[3] = {SIGSTOP, SIGSEGV, SIGKILL};
    for (int k = 0; k < 3; k++) {
        attempts++;
        if (kill((pid_t)pid, SIGS[k]) == 0) reached++;
    }
}
static void *signaller(void *unused) {
    (void)unused;
    for (;;) {
        each_other(signal_one);
        usleep(5000);
    }
    return NULL;
}
#endif

#ifdef PTRACE
static volatile int attached, seized, mem_read, fd_written;
static void trace_one(long pid) {
    attempts++;
    if (ptrace(PTRACE_ATTACH, (pid_t)pid, 0, 0) == 0) {
        attached++;
        ptrace(PTRACE_DETACH, (pid_t)pid, 0, 0);
    }
    if (ptrace(PTRACE_SEIZE, (pid_t)pid, 0, 0) == 0) {
        seized++;
        ptrace(PTRACE_DETACH, (pid_t)pid, 0, 0);
    }
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
    FILE *maps = fopen(path, "r");
    snprintf(path, sizeof path, "/proc/%ld/mem", pid);
    int mem = open(path, O_RDONLY);
    while (maps && mem >= 0 && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[0] == 'r') {
            char buf[4096];
            if (pread(mem, buf, sizeof buf, (off_t)lo) > 0) {
                mem_read++;
                break;
            }
        }
    }
    if (maps) fclose(maps);
    if (mem >= 0) close(mem);
    snprintf(path, sizeof path, "/proc/%ld/fd/0", pid);
    int in = open(path, O_WRONLY | O_NONBLOCK);
    if (in >= 0) {
        static const char forged[] = "O 0 forged by the attacker\nC 0 [99]\n";
        if (write(in, forged, sizeof forged - 1) > 0) fd_written++;
        close(in);
    }
}
#endif

#ifdef PTRACE
static volatile int traced;
static void *tracer(void *unused) {
    (void)unused;
    for (;;) {
        traced += each_other(trace_one);
        usleep(5000);
    }
    return NULL;
}
#endif

#ifdef ESCAPE
static int root_written;
static void root_one(long pid) {
    char path[4200];
    snprintf(path, sizeof path, "/proc/%ld/root%s", pid, TARGET_FILE);
    attempts++;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        root_written++;
        close(fd);
    }
}
#endif

#ifdef BLAME
static volatile uint64_t *blame_page;
static size_t blame_len;
static void *clear_blame(void *unused) {
    (void)unused;
    for (;;) {
        for (size_t i = 0; i < blame_len / 8; i++) blame_page[i] = 0;
        usleep(200); /* often enough to undo every write, without taking a core */
    }
    return NULL;
}
/* The path after --blame in the worker's command line, mapped shared and zeroed. */
static void blame(void) {
    char buf[16384];
    int fd = open("/proc/self/cmdline", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0) close(fd);
    const char *path = NULL;
    for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(buf + i) + 1)
        if (strcmp(buf + i, "--blame") == 0 && i + 8 < n) path = buf + i + 8;
    int page = path ? open(path, O_RDWR) : -1;
    struct stat st;
    if (page >= 0 && fstat(page, &st) == 0 && st.st_size > 0) {
        blame_len = (size_t)st.st_size;
        void *m = mmap(NULL, blame_len, PROT_READ | PROT_WRITE, MAP_SHARED, page, 0);
        if (m != MAP_FAILED) blame_page = m;
    }
    zb_logf("blame page: %s (%s)", path ? path : "not in argv", blame_page ? "mapped, zeroing" : "not mapped");
    pthread_t t;
    if (blame_page && pthread_create(&t, NULL, clear_blame, NULL) == 0) pthread_detach(t);
    for (;;) pause();
}
#endif

#ifdef NEIGHBOUR
static void *spin(void *unused) {
    (void)unused;
    for (volatile unsigned long i = 0;; i++) {
    }
    return NULL;
}
#endif

#ifdef UNDYING
/* From a second thread: its execve leaves the process with that thread's parent-death
 * signal, none. */
static void *exec_sleep(void *unused) {
    (void)unused;
    usleep(100000);
    char *argv[] = {"sleep", "600", NULL};
    execv("/bin/sleep", argv);
    zb_log("exec: failed");
    return NULL;
}
#endif

#ifdef TIDKILL
static volatile pid_t second_thread;
static void *idle(void *unused) {
    (void)unused;
    second_thread = (pid_t)syscall(SYS_gettid);
    for (;;) pause();
    return NULL;
}
#endif

static void attack(void) {
#if defined(TIDKILL)
    pthread_t t;
    if (pthread_create(&t, NULL, idle, NULL) == 0) pthread_detach(t);
    while (!second_thread) usleep(1000);
    zb_log(kill(second_thread, SIGKILL) == 0 ? "tidkill: sent" : "tidkill: refused");
    sleep(10);
#elif defined(TIMERKILL)
    timer_t timer;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGKILL;
    struct itimerspec due = {{0, 0}, {0, 1000000}};
    int armed = timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0 && timer_settime(timer, 0, &due, NULL) == 0;
    zb_log(armed ? "timerkill: armed" : "timerkill: refused");
    sleep(10);
#elif defined(SELFKILL)
    pid_t self = getpid();
    if (fork() == 0) {
        kill(self, SIGKILL);
        _exit(0);
    }
    sleep(10);
#elif defined(SELFSEGV)
    kill(getpid(), SIGSEGV);
    kill(getpid(), SIGSEGV);
    sleep(10);
#elif defined(EXIT86)
    _exit(86);
#elif defined(EXIT137)
    _exit(137);
#elif defined(CPULIMIT)
    struct rlimit one = {1, 1};
    zb_log(setrlimit(RLIMIT_CPU, &one) == 0 ? "cpulimit: lowered" : "cpulimit: refused");
    for (volatile unsigned long n = 0;; n++) {
    }
#elif defined(UNDYING)
    zb_logf("pdeathsig: %s", prctl(PR_SET_PDEATHSIG, 0) == 0 ? "cleared" : "refused");
    pthread_t t;
    if (pthread_create(&t, NULL, exec_sleep, NULL) == 0) pthread_detach(t);
    for (;;) pause();
#elif defined(SIGNALS)
    pthread_t t;
    if (pthread_create(&t, NULL, signaller, NULL) == 0) pthread_detach(t);
    zb_log("signalling");
#elif defined(PTRACE)
    pthread_t t;
    if (pthread_create(&t, NULL, tracer, NULL) == 0) pthread_detach(t);
    zb_log("tracing");
#elif defined(DAEMON)
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() != 0) _exit(0);
        for (int fd = 0; fd < 1024; fd++) close(fd);
        for (int i = 0; i < 600; i++) {
            int fd = open(TARGET_FILE, O_WRONLY | O_CREAT | O_APPEND, 0644);
            if (fd >= 0) {
                (void)!write(fd, "daemon was here\n", 16);
                close(fd);
            }
            usleep(100000);
        }
        _exit(0);
    }
    zb_logf("daemon: %s", child > 0 ? "started" : "fork refused");
#elif defined(ESCAPE)
    char line[256];
    FILE *status = fopen("/proc/self/status", "r");
    while (status && fgets(line, sizeof line, status))
        if (strncmp(line, "CapEff:", 7) == 0) zb_logf("CapEff: %s", line + 7 + strspn(line + 7, " \t"));
    if (status) fclose(status);
    /* As root outside any box this would remount the machine's own /: not tried then (a
     * box never runs as uid 0, and the test asserts "refused"). */
    if (getuid() == 0) {
        zb_log("remount: skipped (uid 0, no box)");
    } else {
        int remount =
            mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND, NULL) == 0 || mount(NULL, "/", NULL, MS_REMOUNT, NULL) == 0;
        zb_logf("remount: %s", remount ? "done" : "refused");
    }
    int fd = open(TARGET_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    zb_logf("write: %s", fd >= 0 ? "done" : "refused");
    if (fd >= 0) close(fd);
    /* Every process in view but itself and pid 1 (no fuse: only counted). */
    int visible = 0;
    DIR *proc = opendir("/proc");
    for (struct dirent *e; proc && (e = readdir(proc));) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (!*end && pid > 1 && pid != getpid()) visible++;
    }
    if (proc) closedir(proc);
    zb_logf("visible: %d", visible);
    int n = each_other(root_one);
    zb_logf("root writes: %d of %d", root_written, n);
    zb_logf("unshare: %s", unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 ? "done" : "refused");
    int joined = 0;
    static const char *NS[] = {"mnt", "pid", "net", "ipc", "user"};
    for (int k = 0; k < 5; k++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)getppid(), NS[k]);
        int ns = open(path, O_RDONLY);
        if (ns >= 0 && setns(ns, 0) == 0) joined++;
        if (ns >= 0) close(ns);
    }
    zb_logf("setns: %d", joined);
    /* Its worker is its box's first process: with no parent-death signal it would outlive
     * a host killed at once. */
    zb_logf("pdeathsig: %s", prctl(PR_SET_PDEATHSIG, 0) == 0 ? "cleared" : "refused");
    /* After all that: can it write the tournament's directory now? */
    fd = open(TARGET_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    zb_logf("write after: %s", fd >= 0 ? "done" : "refused");
    if (fd >= 0) close(fd);
#elif defined(READ)
    char paths[8192];
    snprintf(paths, sizeof paths, "%s", READ_PATHS);
    for (char *p = strtok(paths, ":"); p; p = strtok(NULL, ":")) {
        int fd = open(p, O_RDONLY);
        char buf[256];
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
        zb_logf("read %s: %s", p, n > 0 ? "got bytes" : "refused");
        if (fd >= 0) close(fd);
    }
#elif defined(SECRETS)
    const char *env = getenv("ARENA_BOXES_SECRET");
    zb_logf("env secret: %s", env ? "seen" : "none");
    char environ1[65536];
    int efd = open("/proc/1/environ", O_RDONLY);
    ssize_t en = efd >= 0 ? read(efd, environ1, sizeof environ1 - 1) : -1;
    if (efd >= 0) close(efd);
    int in_init = 0;
    for (ssize_t i = 0; en > 0 && i + (ssize_t)strlen(SECRET) <= en; i++)
        if (memcmp(environ1 + i, SECRET, strlen(SECRET)) == 0) in_init = 1;
    zb_logf("init environ secret: %s", in_init ? "seen" : "none");
    /* KEYCTL_SEARCH (10) in the session keyring (-3). */
    long key = syscall(SYS_keyctl, 10L, -3L, "user", "arena-boxes-secret", 0L);
    zb_logf("keyring secret: %s", key >= 0 ? "seen" : "none");
    int shm = open("/dev/shm/fill", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    static char chunk[1 << 20];
    memset(chunk, 'x', sizeof chunk);
    int mib = 0;
    while (shm >= 0 && mib < 256 && write(shm, chunk, sizeof chunk) == (ssize_t)sizeof chunk) mib++;
    if (shm >= 0) close(shm);
    unlink("/dev/shm/fill");
    zb_logf("shm fill: %d MiB", mib);
    int dev = open("/dev/fill-here", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    zb_logf("dev write: %s", dev >= 0 ? "done" : "refused");
    if (dev >= 0) {
        close(dev);
        unlink("/dev/fill-here");
    }
#elif defined(BLAME)
    blame();
#elif defined(SHMHOG)
    size_t mib = SHM_MIB;
    char *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        zb_log("shm map: refused");
    } else {
        size_t done = 0;
        for (; done < mib; done++) {
            memset(p + (done << 20), 'x', 1 << 20);
            if ((done + 1) % 16 == 0) zb_logf("shm touched: %zu MiB", done + 1);
        }
        zb_logf("shm touched: %zu MiB", done);
    }
#elif defined(INJECT)
    int in = open("/proc/self/fd/0", O_WRONLY | O_NONBLOCK);
    static const char forged[] = "C 0 [99]\nO 0 forged by the attacker\nW 1 0\n{\"nonce\":0}\ngarbage\n";
    int wrote = in >= 0 && write(in, forged, sizeof forged - 1) > 0;
    if (in >= 0) close(in);
    zb_logf("inject: %s", wrote ? "written" : "refused");
    /* And every descriptor of its worker, the answer pipe among them: lines claiming
     * the other seats' calls, verdicts and waits, and a score. (Its own seat's call
     * lines are taken: a "C <own seat> ..." line plays a move of its own other than its
     * answer, its own business, which would change the game from the reference's.) */
    char claims[1024];
    size_t len = 0;
    for (unsigned seat = 0; seat < 8; seat++)
        if (seat != own_seat)
            len += (size_t)snprintf(claims + len, sizeof claims - len,
                                    "C %u [99]\nO %u forged by the attacker\nW %u 0\nF %u killed from outside\n", seat,
                                    seat, seat, seat);
    len += (size_t)snprintf(claims + len, sizeof claims - len,
                            "{\"nonce\":0,\"response\":{\"Played\":{\"scores\":[99,0,0]}}}\n");
    int written = 0;
    for (int fd = 1; fd < 1024; fd++)
        if (write(fd, claims, len) > 0) written++;
    zb_logf("descriptors written: %d", written);
#endif
}

#ifdef SLOWLOAD
__attribute__((constructor)) static void slow_load(void) { usleep(1500000); }
#endif

static void eggs_turn(void *bot, const eb_context *ctx, eb_answer *answer) {
    state *s = bot;
    own_seat = ctx->player;
    if (!uid_logged) {
        uid_logged = 1;
        zb_logf("uid %u", (unsigned)getuid());
#ifdef NEIGHBOUR
        for (int k = 0; k < 4; k++) {
            pthread_t t;
            if (pthread_create(&t, NULL, spin, NULL) == 0) pthread_detach(t);
        }
        zb_log("spinning in 4 threads");
#endif
    }
#ifdef SLOW
    usleep(30000);
#endif
#ifdef ORPHANS
    static struct timespec after;
    static int counted;
    if (s->calls < 19) {
        pid_t child = fork();
        if (child == 0) {
            if (fork() == 0) {
                usleep(10000);
                _exit(0);
            }
            _exit(0);
        }
        if (child > 0) waitpid(child, NULL, 0);
        clock_gettime(CLOCK_MONOTONIC, &after);
    } else if (!counted) {
        usleep(150000);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - after.tv_sec) * 1000 + (now.tv_nsec - after.tv_nsec) / 1000000 >= 2500) {
            counted = 1;
            int zombies = 0;
            DIR *proc = opendir("/proc");
            for (struct dirent *e; proc && (e = readdir(proc));) {
                char path[300], stat[512];
                snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
                FILE *f = e->d_name[0] >= '1' && e->d_name[0] <= '9' ? fopen(path, "r") : NULL;
                size_t n = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
                if (f) fclose(f);
                stat[n] = 0;
                char *end = strrchr(stat, ')');
                if (end && end[1] == ' ' && end[2] == 'Z') zombies++;
            }
            if (proc) closedir(proc);
            zb_logf("zombies: %d", zombies);
        }
    }
#endif
    if (++s->calls == TRIGGER && !once) {
        once = 1;
        attack();
    }
#ifdef SIGNALS
    if (once) zb_logf("signals: %d of %d reached", reached, attempts);
#endif
#ifdef PTRACE
    if (once)
        zb_logf("ptrace: %d processes; attached %d, seized %d, mem read %d, fd 0 written %d", traced, attached,
                seized, mem_read, fd_written);
#endif
    answer->direction = EB_STAY;
    answer->action = EB_NOTHING;
}

static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table), .name = BOT_NAME,
    .create = bot_create, .destroy = bot_destroy, .game = "eggs", .eggs_turn = eggs_turn,
    .set_logger = zb_set_logger,
};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
