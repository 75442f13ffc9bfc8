/*
 * eggs_bot.h -- the plain C ABI of the arena's Easter Egg Hunt (ABI 1.1), for bots
 * written in C, C++, Zig or anything that can export a C function from a shared
 * library. The rules are in docs/games/eggs.md.
 *
 * An eggs bot library exports `zombies_bot_entry` like any C bot (zombies_bot.h), with
 * a table whose `game` is "eggs", `turn` NULL and `eggs_turn` set:
 *
 *     static const zb_bot_table TABLE = {
 *         ZOMBIES_BOT_ABI_VERSION, sizeof(zb_bot_table), "MyEggBot",
 *         my_create, NULL, my_destroy, "eggs", my_eggs_turn,
 *     };
 *
 * The host calls `create` once per game (one bot per entry; an entry has one player),
 * `eggs_turn` once per turn, and `destroy` at the end of the game. Everything passed to
 * `eggs_turn` is valid only during the call.
 *
 * To log (ABI 1.2), add `.set_logger = zb_set_logger` to the table and call zb_log /
 * zb_logf (zombies_bot.h): the lines go to the entry's log, after each game's marker.
 *
 * Layouts here are exactly those of the Rust types `EggsContext` and `EggsAnswer` of
 * the `zombies-plugin-abi` crate (`eggs` module); both sides assert them.
 *
 * Build:   cc -O2 -shared -fPIC -I plugin-abi/include -o libmyeggbot.so myeggbot.c
 * Use:     drop libmyeggbot.so into a plugins directory; `arena --game eggs ...`.
 */
#ifndef EGGS_BOT_H
#define EGGS_BOT_H

#include "zombies_bot.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Side of the view: the player sees two cells in every direction. */
#define EB_VIEW_WIDTH 5
/* Most bytes a memory may hold; a longer one is cut to this. */
#define EB_MEMORY_CAP 1024

/* View cells. */
#define EB_WALL '#'
#define EB_EGG 'o'
#define EB_PLAYER '*'
#define EB_EMPTY ' '
#define EB_OUTSIDE 'X'

/* Directions (eb_answer.direction): the keypad around the player. */
enum {
    EB_NW = 1, EB_N = 2, EB_NE = 3, EB_E = 4, EB_SE = 5, EB_S = 6, EB_SW = 7, EB_W = 8, EB_STAY = 9
};

/* Actions (eb_answer.action): the letters' codes. Attack beats Nothing, Nothing beats
 * Counter, Counter beats Attack. On an egg: Nothing picks it up (+1), Attack destroys
 * it, Counter is sent back. */
enum { EB_ATTACK = 'A', EB_COUNTER = 'C', EB_NOTHING = 'N' };

/* What the bot sees on one turn (72 bytes on 64-bit targets). */
typedef struct eb_context {
    /* view[row][column]: rows north to south, columns west to east, view[2][2] the
     * player itself; bytes '#', 'o', '*', ' ', 'X'. */
    uint8_t view[EB_VIEW_WIDTH][EB_VIEW_WIDTH];
    uint32_t player;    /* the entry's index (one player per entry) */
    uint32_t turn;      /* from 0 */
    uint32_t max_turns; /* the game ends after this turn at the latest (25 n) */
    /* The memory of the previous answer (empty on the first turn); not NUL-terminated. */
    const uint8_t *memory;
    size_t memory_len;
    zb_random random;   /* the game's generator: use it to keep games reproducible */
} eb_context;

/* The answer. The host fills it with "stay, Nothing" and the previous memory before
 * the call, so a bot that leaves `memory` alone keeps it. */
typedef struct eb_answer {
    uint32_t direction;  /* EB_NW .. EB_STAY */
    uint32_t action;     /* EB_ATTACK, EB_COUNTER or EB_NOTHING */
    uint32_t memory_len; /* bytes of memory in use, at most EB_MEMORY_CAP */
    uint8_t memory[EB_MEMORY_CAP];
} eb_answer;

/* The view cell at offset (dx, dy) from the player (each -2..2); 'X' beyond. */
static inline uint8_t eb_look(const eb_context *ctx, int dx, int dy) {
    if (dx < -2 || dx > 2 || dy < -2 || dy > 2) return EB_OUTSIDE;
    return ctx->view[dy + 2][dx + 2];
}

/* A uniform integer in 0..n-1 (n > 0) from the game's generator. */
static inline uint32_t eb_random_below(const eb_context *ctx, uint32_t n) {
    uint64_t zone = UINT64_MAX - (UINT64_MAX - (uint64_t)n + 1) % n;
    for (;;) {
        uint64_t v = ctx->random.next_u64(ctx->random.state);
        if (v <= zone) return (uint32_t)(v % n);
    }
}

/* The step (dx, dy) of a direction 1..9 (x east, y south); 0 (and a step (0, 0)) if
 * it is not one. */
static inline int eb_delta(uint32_t direction, int *dx, int *dy) {
    static const int DX[9] = {-1, 0, 1, 1, 1, 0, -1, -1, 0};
    static const int DY[9] = {-1, -1, -1, 0, 1, 1, 1, 0, 0};
    *dx = 0;
    *dy = 0;
    if (direction < 1 || direction > 9) return 0;
    *dx = DX[direction - 1];
    *dy = DY[direction - 1];
    return 1;
}

/* The direction of a step (dx, dy), each part's sign taken. */
static inline uint32_t eb_direction(int dx, int dy) {
    static const uint32_t DIRS[3][3] = {{EB_NW, EB_W, EB_SW}, {EB_N, EB_STAY, EB_S}, {EB_NE, EB_E, EB_SE}};
    return DIRS[(dx > 0) - (dx < 0) + 1][(dy > 0) - (dy < 0) + 1];
}

/* Replaces the answer's memory (cut to EB_MEMORY_CAP bytes). */
static inline void eb_set_memory(eb_answer *answer, const void *bytes, size_t len) {
    if (len > EB_MEMORY_CAP) len = EB_MEMORY_CAP;
    memcpy(answer->memory, bytes, len);
    answer->memory_len = (uint32_t)len;
}

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(eb_answer) == 12 + EB_MEMORY_CAP, "eb_answer layout");
_Static_assert(offsetof(eb_answer, memory) == 12, "eb_answer layout");
_Static_assert(offsetof(eb_context, player) == 28, "eb_context layout");
_Static_assert(offsetof(eb_context, max_turns) == 36, "eb_context layout");
_Static_assert(sizeof(void *) != 8 || sizeof(eb_context) == 72, "eb_context layout");
_Static_assert(sizeof(void *) != 8 || offsetof(eb_context, memory) == 40, "eb_context layout");
_Static_assert(sizeof(void *) != 8 || offsetof(eb_context, memory_len) == 48, "eb_context layout");
_Static_assert(sizeof(void *) != 8 || offsetof(eb_context, random) == 56, "eb_context layout");
#endif

#ifdef __cplusplus
}
#endif

#endif /* EGGS_BOT_H */
