/*
 * Wanderer: an example bot in plain C, loaded through the C ABI of zombies_bot.h.
 *
 * Each player shoots a zombie that is 2 cells away or less (it would bite next turn),
 * otherwise steps away from the nearest zombie it sees, otherwise wanders at random
 * using the game's seeded generator (never rand(): games must replay exactly).
 * The bot instance counts the turns it played, to show per-game state. Each call says
 * why it moved as it did (zb_debugf, ABI 1.4): the replay viewer shows it beside the board.
 * It answers all of its players of a turn in one call (turn_all, ABI 1.6).
 *
 * Build: cc -O2 -shared -fPIC -I plugin-abi/include -o libwanderer.so plugins/c-wanderer/wanderer.c
 */
#include <stdlib.h>
#include "zombies_bot.h"

typedef struct wanderer {
    uint64_t calls; /* state shared by all of this entry's players, for one game */
} wanderer;

static void *create(void) { return calloc(1, sizeof(wanderer)); }

static void destroy(void *bot) { free(bot); }

static int dist(int dx, int dy) {
    int ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
    return ax > ay ? ax : ay;
}

static int sign(int v) { return (v > 0) - (v < 0); }

/* The direction code of a unit step (sx, sy). */
static uint32_t direction_of(int sx, int sy) {
    static const uint32_t table[3][3] = {
        /* sy = -1       0      1 */
        {ZB_NW, ZB_W, ZB_SW}, /* sx = -1 */
        {ZB_N, ZB_STAY, ZB_S}, /* sx = 0 */
        {ZB_NE, ZB_E, ZB_SE}, /* sx = 1 */
    };
    return table[sx + 1][sy + 1];
}

static zb_action turn(void *bot, const zb_context *ctx) {
    ((wanderer *)bot)->calls++;
    int best = 99, bx = 0, by = 0;
    zb_id nearest = {0, 0};
    for (int dx = -8; dx <= 8; dx++) {
        for (int dy = -8; dy <= 8; dy++) {
            zb_id id = zb_look(ctx, dx, dy);
            if (id.number != 0 && id.owner == ZB_ZOMBIE && dist(dx, dy) < best) {
                best = dist(dx, dy), bx = dx, by = dy, nearest = id;
            }
        }
    }
    if (best <= 2 && ctx->bullets > 0) {
        zb_debugf("shoot zombie %u, %d away", nearest.number, best);
        return zb_shoot(nearest);
    }
    if (best <= 8) {
        int sx = -sign(bx), sy = -sign(by);
        if (zb_look(ctx, sx, sy).number == 0) {
            zb_debugf("flee zombie %u at (%d, %d)", nearest.number, bx, by);
            return zb_move(direction_of(sx, sy));
        }
    }
    zb_debug("wander");
    return zb_move(zb_random_below(ctx, 9));
}

/* (1.6) All of the entry's players of a turn in one call: the same answers as `turn`,
 * in the same order, without a call from the host per player. */
static void turn_all(void *bot, const zb_context *players, size_t count, zb_action *answers) {
    for (size_t i = 0; i < count; i++) answers[i] = turn(bot, &players[i]);
}

static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION,
    .struct_size = sizeof(zb_bot_table),
    .name = "Wanderer",
    .create = create,
    .turn = turn,
    .destroy = destroy,
    .set_debug = zb_set_debug,
    .turn_all = turn_all,
};

ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
