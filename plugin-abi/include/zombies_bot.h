/*
 * zombies_bot.h -- the plain C ABI of the zombies arena, for bots written in C, C++,
 * Zig or anything else that can export a C function from a shared library.
 *
 * A bot library exports ONE symbol, `zombies_bot_entry`, returning a pointer to a
 * static table that starts with the ABI version and the table's size. The host calls
 * `create` once per game (one bot instance per entry per game, shared by all of the
 * entry's players), `turn` once per living player per turn (or, for a table with
 * `turn_all`, ABI 1.6, mostly once per turn for all of them), and `destroy` at the end
 * of the game. Everything passed to `turn` and `turn_all` is valid only during the call.
 *
 * Layouts here are exactly those of the Rust types `Context`, `Action` and
 * `CBotTable` of the `zombies-plugin-abi` crate (version 1.x).
 *
 * Build:   cc -O2 -shared -fPIC -I plugin-abi/include -o libmybot.so mybot.c
 * Use:     drop libmybot.so (.dylib on macOS, .dll on Windows) into plugins/.
 */
#ifndef ZOMBIES_BOT_H
#define ZOMBIES_BOT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZOMBIES_BOT_ABI_VERSION 1u

#if defined(_WIN32)
#define ZB_EXPORT __declspec(dllexport)
#else
#define ZB_EXPORT __attribute__((visibility("default")))
#endif

/* Owner codes of the two non-player kinds. */
#define ZB_ZOMBIE 0xFFFFFFFFu
#define ZB_DEAD_BODY 0xFFFFFFFEu

/* An entity's identity. number == 0 means an empty cell; owner is the entry's index in
 * zb_context.names for a living player, else ZB_ZOMBIE or ZB_DEAD_BODY. */
typedef struct zb_id {
    uint32_t owner;
    uint32_t number;
} zb_id;

/* The 17x17 view: cell (x, y), x west->east and y north->south, (8, 8) being the
 * player itself, is cells[y * stride + x]. */
typedef struct zb_view {
    const zb_id *cells;
    size_t len;
    size_t stride;
} zb_view;

/* A UTF-8 string, not NUL-terminated. */
typedef struct zb_str {
    const char *ptr;
    size_t len;
} zb_str;

typedef struct zb_strs {
    const zb_str *ptr;
    size_t len;
} zb_strs;

/* The game's seeded generator: call next_u64(state). Use it for all randomness to
 * keep games reproducible. */
typedef struct zb_random {
    void *state;
    uint64_t (*next_u64)(void *state);
} zb_random;

typedef struct zb_context {
    zb_id id;            /* the player being decided for */
    uint32_t bullets;
    uint32_t clock;      /* turn number, from 0 */
    uint32_t x, y;       /* position; x grows east, y grows south */
    uint32_t board_size; /* side of the toroidal board */
    zb_view view;
    zb_strs names;       /* entry names, indexed by zb_id.owner */
    zb_random random;
} zb_context;

/* Directions (zb_action.direction). */
enum {
    ZB_N = 0, ZB_NE = 1, ZB_E = 2, ZB_SE = 3, ZB_S = 4, ZB_SW = 5, ZB_W = 6, ZB_NW = 7, ZB_STAY = 8
};
/* Action kinds (zb_action.kind). */
enum { ZB_MOVE = 0, ZB_SHOOT = 1 };

typedef struct zb_action {
    uint32_t kind;      /* ZB_MOVE or ZB_SHOOT */
    uint32_t direction; /* for ZB_MOVE */
    zb_id target;       /* for ZB_SHOOT */
} zb_action;

/* The eggs game's types (eggs_bot.h); only pointers to them appear here. */
struct eb_context;
struct eb_answer;
/* The target game's context (target_bot.h). */
struct tb_context;
/* The hex game's types (hex_bot.h). */
struct hb_context;
struct hb_answer;
struct hb_side_turn;

/* (1.2) The host's log channel: write(data, text, len) appends `len` bytes of UTF-8 at
 * `text` as one line of the entry's log (logs/<entry>.log with --logs; each game's lines
 * follow a "--- game seed S ---" marker). Callable from any thread, at any time. */
typedef struct zb_logger {
    void (*write)(const void *data, const char *text, size_t len);
    const void *data;
} zb_logger;

/* The table a library exports. ABI 1.1 appended `game` and the other games' turns,
 * 1.2 `set_logger`, 1.3 `hex_side`, 1.4 `set_debug`, 1.6 `turn_all`: the host reads only the fields that `struct_size` covers, so a 1.0
 * table (struct_size 40, without them) still loads and plays zombies. A zombies-only C
 * bot built with this header may leave them NULL (zero-initialise the table); an eggs
 * bot sets game = "eggs", turn = NULL and eggs_turn (see eggs_bot.h). */
typedef struct zb_bot_table {
    uint32_t abi_version; /* ZOMBIES_BOT_ABI_VERSION */
    uint32_t struct_size; /* sizeof(zb_bot_table): fields may be appended later */
    const char *name;     /* NUL-terminated UTF-8; unique, not "Zombie" nor "DeadBody" */
    void *(*create)(void);                                /* NULL means failure */
    zb_action (*turn)(void *bot, const zb_context *ctx);  /* one player's decision */
    void (*destroy)(void *bot);                           /* end of the game */
    /* (1.1) NUL-terminated name of the game the library plays, "zombies" or "eggs";
     * NULL (or a 1.0 table) means "zombies". */
    const char *game;
    /* (1.1) One eggs turn: write the answer, which already holds the previous memory.
     * NULL for a zombies bot. */
    void (*eggs_turn)(void *bot, const struct eb_context *ctx, struct eb_answer *answer);
    /* (1.1) One target turn of copy ctx->copy: the move 0..4 (target_bot.h). NULL for
     * a bot of another game. */
    uint32_t (*target_turn)(void *bot, const struct tb_context *ctx);
    /* (1.1) One hex call: write the answer's commands (the answer starts empty;
     * hex_bot.h). NULL for a bot of another game. */
    void (*hex_turn)(void *bot, const struct hb_context *ctx, struct hb_answer *answer);
    /* (1.2) Called once when the host loads the library, with its log channel. Set it
     * to zb_set_logger to log with zb_log / zb_logf below; NULL if the bot does not log
     * (a host older than 1.2 never calls it). */
    void (*set_logger)(zb_logger logger);
    /* (1.3) One whole hex half-turn of the bot's side, played through `turn`: commands
     * one at a time, each answered with its verdict (hex_bot.h). A table with it plays
     * hex by whole sides (its hex_turn may be NULL); NULL for a per-unit bot. */
    void (*hex_side)(void *bot, struct hb_side_turn *turn);
    /* (1.4) Called once when the host loads the library, with its debug channel. Set it
     * to zb_set_debug to say something at a call with zb_debug / zb_debugf below (kept
     * in the replay with that call, shown beside the board); NULL if the bot says
     * nothing (a host older than 1.4 never calls it). */
    void (*set_debug)(zb_logger debugger);
    /* (1.6) All of the entry's living players of one zombies turn in one call: write
     * answers[i] for players[i], i < count (answers arrive filled with stays). The
     * players come in the turn's order, all see the same board and share the entry's
     * generator of the turn: answering each as `turn` would, in this order, plays the
     * same game. A table with it gets this call instead of one `turn` per player
     * wherever the host can make it (`turn` stays required: a recorded game and a
     * lockstep seat call one player at a time); NULL for one call per player. */
    void (*turn_all)(void *bot, const zb_context *players, size_t count, zb_action *answers);
} zb_bot_table;

ZB_EXPORT const zb_bot_table *zombies_bot_entry(void);

/* The cell at offset (dx, dy) from the player, each in -8..8. */
static inline zb_id zb_look(const zb_context *ctx, int dx, int dy) {
    return ctx->view.cells[(size_t)(dy + 8) * ctx->view.stride + (size_t)(dx + 8)];
}

/* A uniform integer in 0..n-1 (n > 0) from the game's generator. */
static inline uint32_t zb_random_below(const zb_context *ctx, uint32_t n) {
    uint64_t zone = UINT64_MAX - (UINT64_MAX - (uint64_t)n + 1) % n;
    for (;;) {
        uint64_t v = ctx->random.next_u64(ctx->random.state);
        if (v <= zone) return (uint32_t)(v % n);
    }
}

/* The log channel of this C file, kept by zb_set_logger (put `.set_logger =
 * zb_set_logger` in the table). A bot in several files logs from the file holding the
 * table, or keeps the zb_logger it is handed itself. */
static zb_logger zb_log_channel;

static inline void zb_set_logger(zb_logger logger) {
    zb_log_channel = logger;
}

/* Writes one line to the entry's log (dropped until the host set the logger). */
static inline void zb_log(const char *text) {
    if (zb_log_channel.write) zb_log_channel.write(zb_log_channel.data, text, strlen(text));
}

/* zb_log with printf formatting; lines longer than 1023 bytes are cut. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static inline void zb_logf(const char *format, ...) {
    char line[1024];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n < 0 || !zb_log_channel.write) return;
    zb_log_channel.write(zb_log_channel.data, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* The debug channel of this C file, kept by zb_set_debug (put `.set_debug =
 * zb_set_debug` in the table). */
static zb_logger zb_debug_channel;

static inline void zb_set_debug(zb_logger debugger) {
    zb_debug_channel = debugger;
}

/* (1.4) Says `text` at the call the bot is in: the host keeps it in the game's replay
 * with that call (several texts of a call are joined by line breaks; at most 1 KiB per
 * call and 64 KiB per game, the cut marked). Only during a call, on the thread that
 * made it; dropped in a game that is not recorded or until the host set the channel. */
static inline void zb_debug(const char *text) {
    if (zb_debug_channel.write) zb_debug_channel.write(zb_debug_channel.data, text, strlen(text));
}

/* zb_debug with printf formatting; texts longer than 1023 bytes are cut. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static inline void zb_debugf(const char *format, ...) {
    char line[1024];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n < 0 || !zb_debug_channel.write) return;
    zb_debug_channel.write(zb_debug_channel.data, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static inline zb_action zb_move(uint32_t direction) {
    zb_action a = {ZB_MOVE, direction, {0, 0}};
    return a;
}

static inline zb_action zb_shoot(zb_id target) {
    zb_action a = {ZB_SHOOT, ZB_STAY, target};
    return a;
}

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(zb_id) == 8, "zb_id layout");
_Static_assert(sizeof(zb_action) == 16, "zb_action layout");
_Static_assert(sizeof(void *) != 8 || sizeof(zb_context) == 88, "zb_context layout");
_Static_assert(sizeof(void *) != 8 || offsetof(zb_bot_table, target_turn) == 56, "zb_bot_table layout");
_Static_assert(sizeof(void *) != 8 || offsetof(zb_bot_table, game) == 40, "zb_bot_table 1.0 prefix");
_Static_assert(sizeof(void *) != 8 || offsetof(zb_bot_table, hex_turn) == 64, "zb_bot_table hex_turn");
_Static_assert(sizeof(void *) != 8 || offsetof(zb_bot_table, set_logger) == 72, "zb_bot_table set_logger");
_Static_assert(sizeof(void *) != 8 || offsetof(zb_bot_table, hex_side) == 80, "zb_bot_table hex_side");
_Static_assert(sizeof(void *) != 8 || offsetof(zb_bot_table, set_debug) == 88, "zb_bot_table set_debug");
_Static_assert(sizeof(void *) != 8 || offsetof(zb_bot_table, turn_all) == 96, "zb_bot_table turn_all");
_Static_assert(sizeof(void *) != 8 || sizeof(zb_bot_table) == 104, "zb_bot_table size");
_Static_assert(sizeof(void *) != 8 || sizeof(zb_logger) == 16, "zb_logger layout");
#endif

#ifdef __cplusplus
}
#endif

#endif /* ZOMBIES_BOT_H */
