/* A bot that behaves for two calls, then misbehaves on its third call in a game, in the
 * way chosen at compile time: -DSEGFAULT, -DABORT, -DENDLESS_LOOP, -DSTACK_OVERFLOW,
 * -DFRAME (writes another entry's number into the host's blame page, then segfaults) or
 * -DTHREAD_CRASH (starts a thread that segfaults 50 ms later, outside any call, and takes
 * 2 ms a call from then on, so that the game is still on).
 * The name is BOT_NAME. */
#include <stdlib.h>
#include "zombies_bot.h"
#if defined(FRAME)
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#endif
#if defined(THREAD_CRASH)
#include <pthread.h>
#include <unistd.h>
#endif

#ifndef BOT_NAME
#define BOT_NAME "Misbehave"
#endif

typedef struct { unsigned calls; } state;

static void *create(void) { return calloc(1, sizeof(state)); }
static void destroy(void *bot) { free(bot); }

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

#ifdef THREAD_CRASH
static void *later(void *unused) {
    (void)unused;
    usleep(50000);
    *(volatile int *)0 = 42;
    return NULL;
}
#endif

static zb_action turn(void *bot, const zb_context *ctx) {
    state *s = bot;
    if (++s->calls == 3) {
#if defined(SEGFAULT)
        *(volatile int *)0 = 42;
#elif defined(ABORT)
        abort();
#elif defined(ENDLESS_LOOP)
        for (volatile unsigned long i = 0;; i++) {}
#elif defined(STACK_OVERFLOW)
        return zb_move(deep(0) % 9u);
#elif defined(FRAME)
        frame();
        *(volatile int *)0 = 42;
#elif defined(THREAD_CRASH)
        pthread_t t;
        pthread_create(&t, NULL, later, NULL);
#endif
    }
#if defined(THREAD_CRASH)
    /* Slow enough that the game is still on when the thread crashes. */
    if (s->calls > 3) usleep(2000);
#endif
    return zb_move(zb_random_below(ctx, 9));
}

static const zb_bot_table TABLE = {ZOMBIES_BOT_ABI_VERSION, sizeof(zb_bot_table), BOT_NAME, create, turn, destroy};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
