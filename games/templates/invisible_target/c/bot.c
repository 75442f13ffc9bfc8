/*
 * {{NAME}}: an "Invisible target" bot for the arena, in C, written by `arena new-bot`.
 * The contract is target_bot.h (with zombies_bot.h), beside this file (copies of the
 * arena's plugin-abi/include/).
 *
 * Build:  make      (or: cc -O2 -std=c11 -Wall -shared -fPIC -I . -o lib{{NAME}}.so {{NAME}}.c)
 * Play:   arena --game target --plugins . play --seed 1
 *
 * The game in a few lines (all of it: the arena's docs/games/target.md): a target hides
 * on a cell of a 64x64 torus (positions p = 64 * y + x). Every entry fields copies of
 * its player; they move in turn (TB_NORTH, TB_WEST, TB_STAY, TB_EAST, TB_SOUTH), and now
 * and then a wall appears, never one that would cut any player off from the target. The
 * game ends after a round in which nobody moved; each copy nearest the target then
 * scores a point. `target_turn` is called once per copy, on that copy's turn.
 *
 * This starting strategy: spread out, since a copy far from everyone else is the
 * nearest to more of the places the target can be. For the first 100 rounds a copy
 * steps away from the nearest other player while one is within 8 cells, never into a
 * known wall; then it stays. The walls say where the target can be: use them.
 */
#include <stdlib.h>

#include "target_bot.h"

/* One per game (create), shared by all of your copies. */
typedef struct bot {
    unsigned char wall[TB_CELLS]; /* every wall a copy was told about */
} bot;

static void *create(void) {
    zb_log("new game"); /* a line in logs/{{NAME}}.log (see set_logger below) */
    return calloc(1, sizeof(bot)); /* NULL would mean "failed" */
}

static void destroy(void *b) { free(b); }

/* How far p is from the nearest other player (own copies included). */
static uint32_t nearest(const tb_context *ctx, uint32_t p) {
    uint32_t best = UINT32_MAX;
    for (size_t i = 0; i < ctx->others_len; i++) {
        uint32_t d = tb_distance(p, ctx->others[i]);
        if (d < best) best = d;
    }
    return best;
}

static int occupied(const tb_context *ctx, uint32_t p) {
    for (size_t i = 0; i < ctx->others_len; i++)
        if (ctx->others[i] == p) return 1;
    return 0;
}

static uint32_t target_turn(void *self, const tb_context *ctx) {
    bot *b = self;
    if (ctx->new_wall != TB_NO_WALL) b->wall[ctx->new_wall] = 1;

    uint32_t here = nearest(ctx, ctx->me);
    if (ctx->round >= 100 || here >= 8) return TB_STAY;
    /* The move that gets farthest from the nearest player; a move into a wall or onto
     * another player fails (the copy stays). */
    static const uint32_t MOVES[4] = {TB_NORTH, TB_WEST, TB_EAST, TB_SOUTH};
    uint32_t best = TB_STAY, best_d = here;
    for (int i = 0; i < 4; i++) {
        uint32_t to = tb_step(ctx->me, MOVES[i]);
        if (b->wall[to] || occupied(ctx, to)) continue;
        uint32_t d = nearest(ctx, to);
        /* Equal choices are broken at random, from the game's generator, so games
         * replay from their seed. */
        if (d > best_d || (d == best_d && best != TB_STAY && tb_random_below(ctx, 2) == 0)) {
            best = MOVES[i];
            best_d = d;
        }
    }
    return best;
}

static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION,
    .struct_size = sizeof(zb_bot_table),
    .name = "{{NAME}}", /* the entry's name: unique */
    .create = create,
    .turn = NULL, /* no zombies turn: this library plays target */
    .destroy = destroy,
    .game = "target", /* the game this library plays */
    .target_turn = target_turn,
    .set_logger = zb_set_logger, /* zb_log / zb_logf: one line in the entry's log */
};

ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
