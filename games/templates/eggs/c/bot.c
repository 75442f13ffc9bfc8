/*
 * {{NAME}}: an Easter Egg Hunt bot for the arena, in C, written by `arena new-bot`.
 * The contract is eggs_bot.h (with zombies_bot.h), beside this file (copies of the
 * arena's plugin-abi/include/).
 *
 * Build:  make      (or: cc -O2 -std=c11 -Wall -shared -fPIC -I . -o lib{{NAME}}.so {{NAME}}.c)
 * Play:   arena --game eggs --plugins . play --seed 1
 *
 * The game in a few lines (all of it: the arena's docs/games/eggs.md): one player per
 * entry on a walled board strewn with eggs. Each turn `eggs_turn` sees the 5x5 cells
 * around the player and the memory it answered last turn, and answers a direction
 * (EB_NW = 1 .. EB_W = 8 clockwise from the north-west, EB_STAY = 9), an action
 * (EB_ATTACK beats EB_NOTHING, EB_NOTHING beats EB_COUNTER, EB_COUNTER beats EB_ATTACK
 * when players fight; stepping onto an egg with EB_NOTHING picks it up) and a new
 * memory (at most EB_MEMORY_CAP bytes). One point per egg.
 *
 * This starting strategy: step onto an egg next to the player; otherwise walk straight
 * on, turning at random when a wall or the edge is ahead. The bot remembers its
 * heading in its own state (the memory string is there for bots that prefer it).
 */
#include <stdlib.h>

#include "eggs_bot.h"

/* One per game (create), for the entry's one player. */
typedef struct bot {
    uint32_t heading; /* the direction it walks, EB_NW .. EB_W; 0: none yet */
} bot;

static void *create(void) {
    zb_log("new game"); /* a line in logs/{{NAME}}.log (see set_logger below) */
    return calloc(1, sizeof(bot)); /* NULL would mean "failed" */
}

static void destroy(void *b) { free(b); }

static int blocked(const eb_context *ctx, uint32_t direction) {
    int dx, dy;
    eb_delta(direction, &dx, &dy);
    uint8_t c = eb_look(ctx, dx, dy);
    return c == EB_WALL || c == EB_OUTSIDE;
}

/* `answer` starts as "stay, Nothing" holding the previous memory. */
static void eggs_turn(void *self, const eb_context *ctx, eb_answer *answer) {
    bot *b = self;

    /* 1. An egg next to us: step onto it with Nothing, which picks it up.
     *    eb_look(ctx, dx, dy), each -2..2 (x east, y south): '#' wall, 'o' egg,
     *    '*' player, ' ' empty, 'X' outside. */
    for (uint32_t d = EB_NW; d <= EB_W; d++) {
        int dx, dy;
        eb_delta(d, &dx, &dy);
        if (eb_look(ctx, dx, dy) == EB_EGG) {
            answer->direction = d;
            answer->action = EB_NOTHING;
            return;
        }
    }

    /* 2. Walk on; pick another heading when the way is blocked, from the game's
     *    generator (eb_random_below), so games replay from their seed. */
    if (b->heading == 0 || blocked(ctx, b->heading)) b->heading = 1 + eb_random_below(ctx, 8);
    answer->direction = b->heading;
    answer->action = EB_NOTHING;
}

static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION,
    .struct_size = sizeof(zb_bot_table),
    .name = "{{NAME}}", /* the entry's name: unique */
    .create = create,
    .turn = NULL, /* no zombies turn: this library plays eggs */
    .destroy = destroy,
    .game = "eggs", /* the game this library plays */
    .eggs_turn = eggs_turn,
    .set_logger = zb_set_logger, /* zb_log / zb_logf: one line in the entry's log */
};

ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
