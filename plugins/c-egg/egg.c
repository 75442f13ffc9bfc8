/*
 * CEgg: a small Easter Egg Hunt bot in plain C (plugin-abi/include/eggs_bot.h).
 *
 * Each turn: if an egg is in view, step towards the nearest one (the fewest steps
 * through the 5x5 view, found by a breadth-first search that goes around walls and
 * other players) with Nothing, which picks it up. Otherwise keep a heading, which
 * explores in straight lines instead of dithering; when the heading is blocked by a
 * wall or a player, turn to a random free direction that does not go straight back.
 * Moving next to another player onto an empty cell, it attacks (Attack beats the
 * Nothing that moving bots mostly use); never onto an egg (that would destroy it).
 * When another player is next to the egg it goes for, it waits one turn in two at
 * random, so that two bots insisting on one egg do not tie there for ever.
 *
 * Build: cc -O2 -shared -fPIC -I plugin-abi/include -o libc_egg.so plugins/c-egg/egg.c
 */
#include <stdlib.h>

#include "eggs_bot.h"

typedef struct bot {
    uint32_t heading; /* the current exploring direction, 1..8 */
} bot;

static void *create(void) {
    bot *b = calloc(1, sizeof(bot));
    if (b) b->heading = EB_E;
    return b;
}

static void destroy(void *b) { free(b); }

static int passable(const eb_context *ctx, int dx, int dy) {
    uint8_t c = eb_look(ctx, dx, dy);
    return c == EB_EMPTY || c == EB_EGG;
}

/* The first step towards the nearest egg in view, or EB_STAY if none is reachable. */
static uint32_t towards_egg(const eb_context *ctx) {
    int dist[5][5], first[5][5], qx[25], qy[25], head = 0, tail = 0;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) dist[y][x] = -1;
    dist[2][2] = 0;
    first[2][2] = EB_STAY;
    qx[tail] = 0, qy[tail++] = 0;
    while (head < tail) {
        int cx = qx[head], cy = qy[head++];
        for (uint32_t d = 1; d <= 8; d++) {
            int sx, sy;
            eb_delta(d, &sx, &sy);
            int nx = cx + sx, ny = cy + sy;
            if (nx < -2 || nx > 2 || ny < -2 || ny > 2 || dist[ny + 2][nx + 2] >= 0) continue;
            if (!passable(ctx, nx, ny)) continue;
            dist[ny + 2][nx + 2] = dist[cy + 2][cx + 2] + 1;
            first[ny + 2][nx + 2] = (cx == 0 && cy == 0) ? (int)d : first[cy + 2][cx + 2];
            if (eb_look(ctx, nx, ny) == EB_EGG) return (uint32_t)first[ny + 2][nx + 2];
            qx[tail] = nx, qy[tail++] = ny;
        }
    }
    return EB_STAY;
}

static int player_near(const eb_context *ctx, int dx, int dy) {
    for (int oy = -1; oy <= 1; oy++)
        for (int ox = -1; ox <= 1; ox++) {
            int x = dx + ox, y = dy + oy;
            if ((x != 0 || y != 0) && eb_look(ctx, x, y) == EB_PLAYER) return 1;
        }
    return 0;
}

static void eggs_turn(void *self, const eb_context *ctx, eb_answer *answer) {
    bot *b = self;
    uint32_t dir = towards_egg(ctx);
    if (dir == EB_STAY) {
        int dx, dy;
        eb_delta(b->heading, &dx, &dy);
        if (!passable(ctx, dx, dy) || eb_random_below(ctx, 16) == 0) {
            uint32_t back = (b->heading + 3) % 8 + 1; /* the opposite direction */
            uint32_t options[8];
            uint32_t n = 0;
            for (uint32_t d = 1; d <= 8; d++) {
                eb_delta(d, &dx, &dy);
                if (d != back && passable(ctx, dx, dy)) options[n++] = d;
            }
            b->heading = n ? options[eb_random_below(ctx, n)] : back;
        }
        dir = b->heading;
        eb_delta(dir, &dx, &dy);
        if (!passable(ctx, dx, dy)) dir = EB_STAY;
    }
    int dx, dy;
    eb_delta(dir, &dx, &dy);
    /* Another player next to the egg we step onto may want it too: if both insist,
     * both are sent back every turn. Yield half of the time, at random. */
    if (eb_look(ctx, dx, dy) == EB_EGG && player_near(ctx, dx, dy) && eb_random_below(ctx, 2) == 0) {
        dir = EB_STAY;
        dx = dy = 0;
    }
    answer->direction = dir;
    answer->action = (eb_look(ctx, dx, dy) != EB_EGG && player_near(ctx, dx, dy)) ? EB_ATTACK : EB_NOTHING;
}

/* Designated initializers: the fields later games appended (target_turn, hex_turn) stay
 * NULL, and -Wextra has no missing initializer to warn about. */
static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table), .name = "CEgg",
    .create = create, .destroy = destroy, .game = "eggs", .eggs_turn = eggs_turn,
};

ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
