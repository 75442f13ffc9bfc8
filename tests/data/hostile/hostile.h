/* The hostile C bots of tests/hostile_games.rs: what they do wrong, shared by the three
 * games' tables (eggs.c, target.c, hex.c). A bot plays like a bot that always stays
 * (its answer is the host's "do nothing") and draws no random number, so that a game
 * with it is the very game played with a bot that only stays, whatever happens to it;
 * once per process, at its call TRIGGER of a game, it misbehaves in the way chosen at
 * compile time:
 *
 *   -DSEGFAULT        writes through a null pointer
 *   -DABORT           abort()
 *   -DENDLESS_LOOP    never returns
 *   -DSTACK_OVERFLOW  recurses until the stack runs out
 *   -DHOG             asks for 8 GiB and logs whether it got it; refused (NULL), it
 *                     writes there as a careless bot would; granted, it frees it untouched
 *   -DFORK            forks children that sleep two minutes until a fork fails (or 2000,
 *                     or 0.2 s of wall time: so that it never overruns its call),
 *                     logs how many
 *   -DESCAPE          creates TARGET_FILE and connects to 127.0.0.1:PORT, logs both
 *   -DTHREAD_SPIN     starts a thread that spins for ever, outside any call
 *   -DFRAME           writes another entry's number into the worker's blame page, then
 *                     writes through a null pointer
 *
 * and with none of them it only stays (the stand-in of the reference tournament). The
 * name is BOT_NAME. */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "zombies_bot.h"

#ifndef BOT_NAME
#define BOT_NAME "Hostile"
#endif
#ifndef TARGET_FILE
#define TARGET_FILE "/nonexistent/hostile-target-file"
#endif
#ifndef PORT
#define PORT 9
#endif

typedef struct {
    unsigned calls;
} hostile_state;

static void *hostile_create(void) { return calloc(1, sizeof(hostile_state)); }
static void hostile_destroy(void *bot) { free(bot); }

#ifdef STACK_OVERFLOW
static unsigned deep(volatile unsigned n) {
    volatile char pad[4096];
    pad[0] = (char)n;
    if (n == 0xFFFFFFFFu) return 0; /* never: the stack runs out long before */
    return deep(n + 1) + (unsigned)pad[0];
}
#endif

#ifdef FRAME
/* The worker's blame page is a file mapping named blame-...: blame another entry. */
static void frame(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    while (maps && fgets(line, sizeof line, maps)) {
        if (strstr(line, "/blame-")) {
            volatile uint64_t *page = (volatile uint64_t *)(uintptr_t)strtoull(line, NULL, 16);
            uint64_t me = page[0];
            page[0] = me == 1 ? 2 : 1; /* entry index + 1: someone else */
            page[1] = 0;
        }
    }
}
#endif

#ifdef THREAD_SPIN
static void *spin(void *unused) {
    (void)unused;
    for (volatile unsigned long i = 0;; i++) {
    }
    return NULL;
}
#endif

/* Writes through a null pointer (a volatile one to volatile memory, so that no compiler
 * drops the store or turns it into anything else). */
__attribute__((unused)) static void crash(void) {
    volatile char *volatile nowhere = NULL;
    *nowhere = 42;
}

/* Once per process: a worker plays game after game. */
static int misbehaved;

static void misbehave(void) {
    if (misbehaved) return;
    misbehaved = 1;
#if defined(SEGFAULT)
    crash();
#elif defined(ABORT)
    abort();
#elif defined(ENDLESS_LOOP)
    for (volatile unsigned long i = 0;; i++) {
    }
#elif defined(STACK_OVERFLOW)
    zb_logf("deep: %u", deep(0));
#elif defined(HOG)
    char *block = malloc((size_t)8 << 30);
    zb_log(block ? "8 GiB: granted" : "8 GiB: refused");
    if (block) {
        free(block); /* never touched: the machine's memory is not at risk */
        return;
    }
    crash();
#elif defined(FORK)
    int got = 0;
    struct timespec start, now;
    /* Wall time, not CPU time: a fork that blocks in the kernel (on a loaded machine,
     * beside its own thousand children) is its own time too, and own time never runs
     * faster than wall time. */
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < 2000; i++) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) > 200000000L) break;
        pid_t child = fork();
        if (child == 0) {
            sleep(120);
            _exit(0);
        }
        if (child < 0) break;
        got++;
    }
    zb_logf("forked %d", got);
#elif defined(ESCAPE)
    int fd = open(TARGET_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    zb_log(fd >= 0 ? "write: done" : "write: refused");
    if (fd >= 0) close(fd);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in to = {0};
    to.sin_family = AF_INET;
    to.sin_port = htons(PORT);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int connected = s >= 0 && connect(s, (struct sockaddr *)&to, sizeof to) == 0;
    zb_log(connected ? "connect: done" : "connect: refused");
    if (s >= 0) close(s);
#elif defined(THREAD_SPIN)
    pthread_t t;
    if (pthread_create(&t, NULL, spin, NULL) == 0) pthread_detach(t);
    zb_log("spinning");
#elif defined(FRAME)
    frame();
    crash();
#endif
}

/* Counts the calls of this game's bot; misbehaves at its call TRIGGER. */
static void hostile_call(void *bot) {
    hostile_state *s = bot;
    if (++s->calls == TRIGGER) misbehave();
}
