/*
 * {{NAME}}: a zombies bot ("Save the last bullet for yourself") for the arena, in C,
 * written by `arena new-bot`. The contract is zombies_bot.h, beside this file (a copy
 * of the arena's plugin-abi/include/zombies_bot.h).
 *
 * Build:  make      (or: cc -O2 -std=c11 -Wall -shared -fPIC -I . -o lib{{NAME}}.so {{NAME}}.c)
 * Play:   arena --game zombies --plugins . play --seed 1
 *
 * The game in a few lines (all of it: the arena's docs/games/zombies.md): every entry
 * fields 50 players on a toroidal board; zombies rise and chase them, and a bitten
 * player turns into one. Each turn `turn` is called once for each of your living
 * players: it sees a 17x17 window around that player and answers a move (ZB_N ..
 * ZB_NW, ZB_STAY) or a shot at something within 5 cells. Your score is how long your
 * last player survives.
 *
 * This starting strategy: shoot a zombie that could bite next turn, else step away from
 * the nearest zombie in sight, else wander at random. Change anything below.
 */
#include <stdlib.h>

#include "zombies_bot.h"

#define MAX_SHOTS 64

/* One per game (create), shared by all of your players: how they coordinate. */
typedef struct bot {
    uint32_t turn;                /* the turn `shot` is about */
    uint32_t shots;               /* zombies already shot at this turn... */
    uint32_t shot[MAX_SHOTS];     /* ...by number (no two bullets for one zombie) */
} bot;

static void *create(void) {
    zb_log("new game"); /* a line in logs/{{NAME}}.log (see set_logger below) */
    bot *b = calloc(1, sizeof(bot));
    if (b) b->turn = UINT32_MAX;
    return b; /* NULL would mean "failed" */
}

static void destroy(void *b) { free(b); }

/* Chebyshev distance: how many moves apart two cells are. */
static int distance(int dx, int dy) {
    int ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
    return ax > ay ? ax : ay;
}

static int is_zombie(zb_id id) { return id.number != 0 && id.owner == ZB_ZOMBIE; }

static int already_shot(const bot *b, uint32_t number) {
    for (uint32_t i = 0; i < b->shots; i++)
        if (b->shot[i] == number) return 1;
    return 0;
}

/* The step of each direction code ZB_N .. ZB_STAY (x east, y south). */
static const int DX[9] = {0, 1, 1, 1, 0, -1, -1, -1, 0};
static const int DY[9] = {-1, -1, 0, 1, 1, 1, 0, -1, 0};

static zb_action turn(void *self, const zb_context *ctx) {
    bot *b = self;
    if (b->turn != ctx->clock) {
        b->turn = ctx->clock;
        b->shots = 0;
    }

    /* Scan the view: zb_look(ctx, dx, dy), each -8..8, (0, 0) being this player.
     * Find the nearest zombie, and the nearest one within 2 not yet shot at. */
    int near = 99, nx = 0, ny = 0, target_d = 99;
    zb_id target = {0, 0};
    for (int dy = -8; dy <= 8; dy++)
        for (int dx = -8; dx <= 8; dx++) {
            zb_id id = zb_look(ctx, dx, dy);
            if (!is_zombie(id)) continue;
            int d = distance(dx, dy);
            if (d < near) near = d, nx = dx, ny = dy;
            if (d <= 2 && d < target_d && !already_shot(b, id.number)) target_d = d, target = id;
        }

    /* 1. A zombie within 2 cells can be next to us after its move, and bite: shoot it. */
    if (ctx->bullets > 0 && target.number != 0) {
        if (b->shots < MAX_SHOTS) b->shot[b->shots++] = target.number;
        return zb_shoot(target);
    }

    /* 2. Step to the free neighbouring cell farthest from the nearest zombie (a move
     *    onto an occupied cell fails: the player stays). */
    if (near < 99) {
        uint32_t best = ZB_STAY;
        int best_d = near;
        for (uint32_t d = ZB_N; d < ZB_STAY; d++) {
            if (zb_look(ctx, DX[d], DY[d]).number != 0) continue;
            int away = distance(nx - DX[d], ny - DY[d]);
            if (away > best_d) best_d = away, best = d;
        }
        return zb_move(best);
    }

    /* 3. Nothing in sight: wander. Draw randomness from the game's generator
     *    (zb_random_below), so games replay from their seed. */
    return zb_move(zb_random_below(ctx, 9));
}

/* All of your living players of a turn in one call (ABI 1.6), in the turn's order: the
 * same answers as calling `turn` for each, without a call from the arena per player
 * (faster; leave `.turn_all` out of the table and `turn` is called per player). */
static void turn_all(void *self, const zb_context *players, size_t count, zb_action *answers) {
    for (size_t i = 0; i < count; i++) answers[i] = turn(self, &players[i]);
}

static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION,
    .struct_size = sizeof(zb_bot_table),
    .name = "{{NAME}}", /* the entry's name: unique; not "Zombie" nor "DeadBody" */
    .create = create,
    .turn = turn,
    .destroy = destroy,
    .game = "zombies", /* the game this library plays */
    .set_logger = zb_set_logger, /* zb_log / zb_logf: one line in the entry's log */
    .turn_all = turn_all,
};

ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
