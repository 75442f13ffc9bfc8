/*
 * target_bot.h -- the plain C ABI of the arena's "Invisible target" (ABI 1.1), for bots
 * written in C, C++, Zig or anything that can export a C function from a shared
 * library. The rules are in docs/games/target.md.
 *
 * A target bot library exports `zombies_bot_entry` like any C bot (zombies_bot.h), with
 * a table whose `game` is "target" and `target_turn` set, every other turn function NULL
 * (designated initializers leave them so, and keep compiling when fields are appended):
 *
 *     static const zb_bot_table TABLE = {
 *         .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table),
 *         .name = "MyTargetBot", .create = my_create, .destroy = my_destroy,
 *         .game = "target", .target_turn = my_target_turn,
 *     };
 *
 * The host calls `create` once per game (one bot per entry, shared by all the entry's
 * copies), `target_turn` once per copy on that copy's turn, and `destroy` at the end of
 * the game. Everything passed to `target_turn` is valid only during the call.
 *
 * To log (ABI 1.2), add `.set_logger = zb_set_logger` to the table and call zb_log /
 * zb_logf (zombies_bot.h): the lines go to the entry's log, after each game's marker.
 *
 * The layout of tb_context is exactly that of the Rust type `TargetContext` of the
 * `zombies-plugin-abi` crate (`target` module); both sides assert it.
 *
 * Build:   cc -O2 -shared -fPIC -I plugin-abi/include -o libmytargetbot.so mytargetbot.c
 * Use:     drop libmytargetbot.so into a plugins directory; `arena --game target ...`.
 */
#ifndef TARGET_BOT_H
#define TARGET_BOT_H

#include "zombies_bot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The 64x64 torus; positions are p = 64 * y + x. */
#define TB_SIDE 64
#define TB_CELLS 4096
/* tb_context.new_wall when no wall was added since the player's previous turn. */
#define TB_NO_WALL 4096

/* Moves (the answer of target_turn): the seed's layout 0 / 1 2 3 / 4. */
enum { TB_NORTH = 0, TB_WEST = 1, TB_STAY = 2, TB_EAST = 3, TB_SOUTH = 4 };

/* What the bot sees on one of its copies' turns (56 bytes on 64-bit targets). */
typedef struct tb_context {
    uint32_t me;       /* the player's position */
    uint32_t new_wall; /* the wall added since its previous turn, or TB_NO_WALL */
    uint32_t copy;     /* which of the entry's copies this is, 0..copies-1 */
    uint32_t copies;   /* the entry's number of copies */
    uint32_t round;    /* from 0 */
    /* The other players' positions (own copies included), in the turn order starting
     * after this player, wrapping: the same order every turn. */
    const uint16_t *others;
    size_t others_len;
    zb_random random;  /* the game's generator: use it to keep games reproducible */
} tb_context;

/* A uniform integer in 0..n-1 (n > 0) from the game's generator. */
static inline uint32_t tb_random_below(const tb_context *ctx, uint32_t n) {
    uint64_t zone = UINT64_MAX - (UINT64_MAX - (uint64_t)n + 1) % n;
    for (;;) {
        uint64_t v = ctx->random.next_u64(ctx->random.state);
        if (v <= zone) return (uint32_t)(v % n);
    }
}

/* The cell a move leads to from p on the torus (p itself for TB_STAY). */
static inline uint32_t tb_step(uint32_t p, uint32_t move) {
    uint32_t x = p % TB_SIDE, y = (p / TB_SIDE) % TB_SIDE;
    switch (move) {
    case TB_NORTH: return ((y + TB_SIDE - 1) % TB_SIDE) * TB_SIDE + x;
    case TB_SOUTH: return ((y + 1) % TB_SIDE) * TB_SIDE + x;
    case TB_WEST: return y * TB_SIDE + (x + TB_SIDE - 1) % TB_SIDE;
    case TB_EAST: return y * TB_SIDE + (x + 1) % TB_SIDE;
    default: return p;
    }
}

/* Torus Manhattan distance between two positions. */
static inline uint32_t tb_distance(uint32_t a, uint32_t b) {
    uint32_t dx = a % TB_SIDE > b % TB_SIDE ? a % TB_SIDE - b % TB_SIDE : b % TB_SIDE - a % TB_SIDE;
    uint32_t dy = a / TB_SIDE > b / TB_SIDE ? a / TB_SIDE - b / TB_SIDE : b / TB_SIDE - a / TB_SIDE;
    if (dx > TB_SIDE - dx) dx = TB_SIDE - dx;
    if (dy > TB_SIDE - dy) dy = TB_SIDE - dy;
    return dx + dy;
}

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(offsetof(tb_context, round) == 16, "tb_context layout");
_Static_assert(sizeof(void *) != 8 || sizeof(tb_context) == 56, "tb_context layout");
_Static_assert(sizeof(void *) != 8 || offsetof(tb_context, others) == 24, "tb_context layout");
_Static_assert(sizeof(void *) != 8 || offsetof(tb_context, others_len) == 32, "tb_context layout");
_Static_assert(sizeof(void *) != 8 || offsetof(tb_context, random) == 40, "tb_context layout");
#endif

#ifdef __cplusplus
}
#endif

#endif /* TARGET_BOT_H */
