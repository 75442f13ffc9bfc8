/*
 * {{NAME}}: a hex humans vs zombies bot for the arena, in C, written by `arena new-bot`.
 * The contract is hex_bot.h (with zombies_bot.h), beside this file (copies of the
 * arena's plugin-abi/include/).
 *
 * Build:  make      (or: cc -O2 -std=c11 -Wall -shared -fPIC -I . -o lib{{NAME}}.so {{NAME}}.c)
 * Play:   arena --game hex --plugins . play --seed 1 --set max_turns=100
 *
 * The game in a few lines (all of it: the arena's docs/games/hex.md): a game seats two
 * entries, the first playing six armed humans on a hex map, the second the zombie horde;
 * your bot plays either side, and each call says which. The humans try to survive as long
 * as they can (up to 1000 half-turns); the zombies try to bite them all. Each call is
 * either a spawn call (place your humans on the first half-turn; spawn zombies in the
 * edge zones 7..10) or a unit call (one per living unit of your side, in id order), and
 * its answer is an ordered list of commands (at most 16; a zombie's first 4 count).
 * Hexes: |x| <= 13 and |y| <= 13; distance |dx| + |dy| when dx * dy > 0, else
 * max(|dx|, |dy|); the six facings 0..5 step (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1),
 * (1, -1).
 *
 * This starting strategy (the bundled baseline): the humans take pistols near the middle
 * and shoot the nearest zombie in range; the zombies spawn in the four zones in turn,
 * facing inwards, bite a human next to them, else step forward, turning a random way at
 * a wall or the edge. Change anything below.
 */
#include <stdlib.h>

#include "hex_bot.h"

/* One per game (create), for all the calls of the side it plays. */
typedef struct bot {
    uint32_t spawned; /* zombies spawned: the next goes to zone 7 + spawned % 4 */
} bot;

static void *create(void) {
    zb_log("new game"); /* a line in logs/{{NAME}}.log (see set_logger below) */
    return calloc(1, sizeof(bot)); /* NULL would mean "failed" */
}

static void destroy(void *b) { free(b); }

/* The step of each facing 0..5. */
static const int32_t DX[6] = {1, 0, -1, -1, 0, 1};
static const int32_t DY[6] = {0, 1, 1, 0, -1, -1};
/* The facing that points from zone 7 + k's edge into the board. */
static const int64_t INWARD[4] = {0, 4, 3, 1};

static int wall_at(const hb_context *ctx, int32_t x, int32_t y) {
    for (size_t i = 0; i < ctx->walls.len; i++)
        if (ctx->walls.ptr[i].x == x && ctx->walls.ptr[i].y == y) return 1;
    return 0;
}

/* The unit of a unit call (zombies: at unit_index in the list, hundreds of them). */
static const hb_human *me_human(const hb_context *ctx) {
    for (size_t i = 0; i < ctx->humans.len; i++)
        if (ctx->humans.ptr[i].id == ctx->unit) return &ctx->humans.ptr[i];
    return NULL;
}

static const hb_zombie *me_zombie(const hb_context *ctx) {
    if (ctx->unit_index < ctx->zombies.len && ctx->zombies.ptr[ctx->unit_index].id == ctx->unit)
        return &ctx->zombies.ptr[ctx->unit_index];
    return NULL;
}

static void hex_turn(void *self, const hb_context *ctx, hb_answer *answer) {
    bot *b = self;
    if (ctx->call == HB_CALL_SPAWN_HUMANS) {
        /* Six pistols around (2, 2), an open hall of the office map. */
        static const int32_t AT[6][2] = {{2, 2}, {3, 2}, {2, 3}, {1, 2}, {2, 1}, {3, 1}};
        for (int i = 0; i < 6; i++) hb_push(answer, HB_SPAWN_HUMAN, HB_PISTOL, AT[i][0], AT[i][1], 0);
        return;
    }
    if (ctx->call == HB_CALL_SPAWN_ZOMBIES) {
        for (uint32_t i = 0; i < ctx->zombies_to_spawn && i < HB_MAX_COMMANDS; i++) {
            uint32_t k = b->spawned++ % 4;
            hb_push(answer, HB_SPAWN_ZOMBIE, 7 + k, 0, 0, INWARD[k]);
        }
        return;
    }
    if (ctx->side == HB_HUMANS) {
        /* Shoot the nearest zombie within a pistol's range (5), as often as it can. */
        const hb_human *me = me_human(ctx);
        if (!me) return;
        int32_t best_d = 6;
        uint32_t target = HB_NO_UNIT;
        for (size_t i = 0; i < ctx->zombies.len; i++) {
            const hb_zombie *z = &ctx->zombies.ptr[i];
            int32_t d = hb_distance(me->x, me->y, z->x, z->y);
            if (d < best_d) best_d = d, target = z->id;
        }
        if (target != HB_NO_UNIT)
            for (int i = 0; i < 4; i++) hb_push(answer, HB_ATTACK, target, 0, 0, 0);
        return;
    }
    /* A zombie: bite a human next to it, else step forward, else turn a random way
     * (from the game's generator, so games replay from their seed). */
    const hb_zombie *me = me_zombie(ctx);
    if (!me) return;
    for (size_t i = 0; i < ctx->humans.len; i++) {
        const hb_human *h = &ctx->humans.ptr[i];
        if (hb_distance(me->x, me->y, h->x, h->y) <= 1) {
            hb_push(answer, HB_ATTACK, h->id, 0, 0, 0);
            return;
        }
    }
    int32_t fx = me->x + DX[me->facing % 6], fy = me->y + DY[me->facing % 6];
    if (fx < -13 || fx > 13 || fy < -13 || fy > 13 || wall_at(ctx, fx, fy)) {
        uint64_t r = ctx->random.next_u64(ctx->random.state);
        hb_push(answer, HB_TURN, 0, 0, 0, (r & 1) ? 1 : -1);
    } else {
        hb_push(answer, HB_FORWARD, 0, 0, 0, 0);
    }
}

static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION,
    .struct_size = sizeof(zb_bot_table),
    .name = "{{NAME}}", /* the entry's name: unique */
    .create = create,
    .turn = NULL, /* no zombies turn: this library plays hex */
    .destroy = destroy,
    .game = "hex", /* the game this library plays */
    .hex_turn = hex_turn,
    .set_logger = zb_set_logger, /* zb_log / zb_logf: one line in the entry's log */
};

ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
