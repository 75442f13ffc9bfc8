/* A bot that behaves for two calls, then misbehaves on its third call in a game, in the
 * way chosen at compile time: -DSEGFAULT, -DABORT, -DENDLESS_LOOP or -DSTACK_OVERFLOW.
 * The name is BOT_NAME. */
#include <stdlib.h>
#include "zombies_bot.h"

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
#endif
    }
    return zb_move(zb_random_below(ctx, 9));
}

static const zb_bot_table TABLE = {ZOMBIES_BOT_ABI_VERSION, sizeof(zb_bot_table), BOT_NAME, create, turn, destroy};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
