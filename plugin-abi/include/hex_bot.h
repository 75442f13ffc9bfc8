/*
 * hex_bot.h -- the plain C ABI of the arena's hex humans vs zombies (ABI 1.1; whole sides
 * 1.3), for bots
 * written in C, C++, Zig or anything that can export a C function from a shared library.
 * The rules, in full, and how each kind of bot plays them: docs/games/hex.md.
 *
 * A hex bot library exports `zombies_bot_entry` like any C bot (zombies_bot.h), with a
 * table whose `game` is "hex", `turn`, `eggs_turn` and `target_turn` NULL and `hex_turn`
 * set:
 *
 *     static const zb_bot_table TABLE = {
 *         ZOMBIES_BOT_ABI_VERSION, sizeof(zb_bot_table), "MyHexBot",
 *         my_create, NULL, my_destroy, "hex", NULL, NULL, my_hex_turn,
 *     };
 *
 * One bot plays one side of one game (ctx->side says which). The host calls `create`
 * once per game, `hex_turn` for every call of its side -- the humans' spawn call on
 * half-turn 1, the zombies' spawn call on each zombie half-turn when a zombie can be
 * spawned, then one call per living unit in id order -- and `destroy` at the end. The
 * answer is a list of commands executed in order at once; a rejected one is skipped.
 * Spawning is a side command of the whole half-turn: HB_SPAWN_ZOMBIE is accepted in any
 * call of a zombie half-turn (the cap counted at that moment), HB_SPAWN_HUMAN in any call
 * of half-turn 1. The command cap: an answer carries at most HB_MAX_COMMANDS commands
 * (a zombie's unit call HB_MAX_ZOMBIE_COMMANDS); of a longer one the first run, the rest
 * are refused and the call counts as one error (hb_push counts its refusals).
 * Everything passed to `hex_turn` is valid only during the call.
 *
 * To log (ABI 1.2), add `.set_logger = zb_set_logger` to the table and call zb_log /
 * zb_logf (zombies_bot.h): the lines go to the entry's log, after each game's marker.
 *
 * A bot may instead play a whole side per half-turn (ABI 1.3), as the 2009 clients did:
 * set `.hex_side` (and leave `hex_turn` NULL). It is called once per half-turn of its
 * side with an hb_side_turn, through which it gives commands one at a time for any of
 * its units -- hb_side_command(turn, unit, kind, id, x, y, amount), unit = HB_NO_UNIT for
 * the side commands HB_SPAWN_HUMAN, HB_SPAWN_ZOMBIE and HB_CALL_DROP -- and reads each
 * one's verdict (HB_ACCEPTED, or why not) and the side's sight as the last command left
 * it: hb_side_context(turn), a context whose call is HB_CALL_SIDE, valid until the next
 * command. turn->max_commands is the half-turn's command cap (the per-unit calls' caps
 * added up), turn->time_ns the own time the call may take (HB_NO_LIMIT: none), and
 * turn->clocks_ns[HB_HUMANS] / [HB_ZOMBIES] both sides' banks.
 *
 * The layouts are exactly those of the Rust types of the `zombies-plugin-abi` crate's
 * `hex` module (HexContext, HexAnswer, ...); both sides assert them.
 *
 * Build:   cc -O2 -shared -fPIC -I plugin-abi/include -o libmyhexbot.so myhexbot.c
 * Use:     drop libmyhexbot.so into a plugins directory; `arena --game hex ...`.
 */
#ifndef HEX_BOT_H
#define HEX_BOT_H

#include "zombies_bot.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { HB_HUMANS = 0, HB_ZOMBIES = 1 };                                    /* side */
enum { HB_CALL_SPAWN_HUMANS = 0, HB_CALL_SPAWN_ZOMBIES = 1, HB_CALL_UNIT = 2, HB_CALL_SIDE = 3 }; /* call */
#define HB_AMMO 7u            /* crate / airdrop contents: ammo (weapons are 0..6) */
#define HB_MAX_COMMANDS 16    /* per answer (spawn calls, humans) */
#define HB_MAX_ZOMBIE_COMMANDS 4 /* per zombie unit call */
#define HB_NO_UNIT 0xffffffffu
#define HB_NO_LIMIT UINT64_MAX /* a clock or a time share without a limit */
#define HB_BOUND 13           /* the board: |x| <= HB_BOUND and |y| <= HB_BOUND */

/* The six directions (dx, dy), numbered as zombie facings 0..5, counter-clockwise. */
static inline int32_t hb_dir_x(uint32_t facing) { static const int32_t d[6] = { 1, 0, -1, -1, 0, 1 }; return d[facing % 6]; }
static inline int32_t hb_dir_y(uint32_t facing) { static const int32_t d[6] = { 0, 1, 1, 0, -1, -1 }; return d[facing % 6]; }
/* Spawn zones 7..10 lie on the edges x = -13, y = 13, x = 13, y = -13; the facing inward. */
static inline uint32_t hb_zone_inward(uint32_t zone) { static const uint32_t f[4] = { 0, 4, 3, 1 }; return f[(zone - 7) % 4]; }

/* Weapons, and their table by id (docs/games/hex.md, section 5). */
enum { HB_MEDICAL_KIT = 0, HB_SHOTGUN = 1, HB_GRENADE_LAUNCHER = 2, HB_ZOMBIE_ARMS = 3,
       HB_CHAINSAW = 4, HB_PISTOL = 5, HB_FLAMETHROWER = 6 };
static inline int32_t hb_weapon_range(uint32_t w) { static const int32_t r[7] = { 1, 3, 4, 1, 1, 5, 1 }; return r[w % 7]; }
static inline int64_t hb_weapon_ammo(uint32_t w) { static const int64_t a[7] = { 5, 2, 12, 0, 0, 1, 3 }; return a[w % 7]; }
static inline double hb_weapon_delay(uint32_t w) { static const double d[7] = { 2.0, 1.0, 3.0, 1.0, 1.0, 0.5, 0.33 }; return d[w % 7]; }

/* Command kinds and the fields each uses (the unit is the call's). */
enum {
    HB_MOVE = 1,          /* humans: x, y (adjacent; a move) */
    HB_ATTACK = 2,        /* id */
    HB_ATTACK_GROUND = 3, /* x, y */
    HB_GRAB = 4,          /* humans: id of a crate within 1 */
    HB_GIVE = 5,          /* humans: id of a human, amount */
    HB_THROW_WEAPON = 6,  /* humans: x, y */
    HB_THROW_AMMO = 7,    /* humans: x, y, amount */
    HB_BUILD = 8,         /* humans: x, y (adjacent; a move) */
    HB_CALL_DROP = 9,     /* humans: x, y, id = weapon or HB_AMMO (needs a whole airdrop) */
    HB_SPAWN_HUMAN = 10,  /* humans, half-turn 1 (any call): x, y, id = weapon */
    HB_SPAWN_ZOMBIE = 11, /* zombies (any call): id = zone 7..10, amount = facing 0..5 */
    HB_FORWARD = 12,      /* zombies */
    HB_TURN = 13,         /* zombies: amount = +1 (counter-clockwise) or -1 */
    HB_EAT = 14           /* zombies: id of a zombie on its hex or its front hex */
};

typedef struct hb_human {
    uint32_t id; int32_t x, y; uint32_t weapon, specialty; int32_t moves;
    int64_t hp, ammo; double idle;
} hb_human;

typedef struct hb_zombie {
    uint32_t id; int32_t x, y; uint32_t facing; int32_t moves; uint32_t reserved;
    int64_t hp; double idle, scent;
} hb_zombie;

typedef struct hb_wall { uint32_t id; int32_t x, y; uint32_t reserved; int64_t hp, cap; } hb_wall;
typedef struct hb_crate { uint32_t id; int32_t x, y; uint32_t contents; int64_t hp, cap; } hb_crate;
typedef struct hb_airstrike { uint32_t id; int32_t x, y; int32_t delay; uint32_t contents, reserved; } hb_airstrike;

/* A read-only array view (abi_stable's RSlice). */
#define HB_SLICE(T) struct { const T *ptr; size_t len; }

/* What a bot sees for one call (144 bytes on 64-bit targets). The lists are the side's
 * sight, each in id order: all its own units, the other side's units and the walls in
 * sight, and for the humans the crates and pending airdrops in sight. */
typedef struct hb_context {
    uint32_t call;             /* HB_CALL_... */
    uint32_t side;             /* HB_HUMANS or HB_ZOMBIES */
    uint32_t t;                /* half-turn 1..1000 (odd: humans) */
    uint32_t unit;             /* the unit of a unit call, else HB_NO_UNIT */
    uint32_t humans_to_spawn;  /* spawn call of the humans */
    uint32_t zombies_to_spawn; /* zombies that can be spawned now */
    uint32_t zombie_cap;
    uint32_t unit_index;       /* the unit's index in humans (humans) or zombies (zombies) */
    double airdrops_held, zombies_ready;
    HB_SLICE(hb_human) humans;
    HB_SLICE(hb_zombie) zombies;
    HB_SLICE(hb_wall) walls;
    HB_SLICE(hb_crate) crates;
    HB_SLICE(hb_airstrike) airstrikes;
    zb_random random;          /* the game's generator: use it to keep games reproducible */
} hb_context;

typedef struct hb_command { uint32_t kind, id; int32_t x, y; int64_t amount; } hb_command;

typedef struct hb_answer {
    uint32_t len;
    uint32_t reserved;         /* commands refused because the answer was full (hb_push counts them) */
    hb_command commands[HB_MAX_COMMANDS];
} hb_answer;

/* Appends a command; 0 when the answer is full (the command is refused and counted in
   `reserved`: the host counts one error for the call, and still runs the first ones). */
static inline int hb_push(hb_answer *a, uint32_t kind, uint32_t id, int32_t x, int32_t y, int64_t amount) {
    if (a->len >= HB_MAX_COMMANDS) { if (a->reserved < UINT32_MAX) a->reserved++; return 0; }
    hb_command c = { kind, id, x, y, amount };
    a->commands[a->len++] = c;
    return 1;
}

/* (1.3) Whole sides. The verdict on one command of a side call: */
enum {
    HB_ACCEPTED = 0, /* it ran */
    HB_REFUSED = 1,  /* the rules refused it (reason: the check it failed); nothing changed */
    HB_INVALID = 2,  /* not a command this side can give: not run */
    HB_CAP = 3,      /* past the half-turn's command cap: not run */
    HB_TIME = 4      /* the call has used its time: not run */
};
typedef struct hb_verdict {
    uint32_t code;      /* HB_ACCEPTED ... HB_TIME */
    uint32_t reserved;
    const char *reason; /* NUL-terminated, "" when accepted; lives as long as the host */
} hb_verdict;

/* A whole side's half-turn (valid only during the hex_side call). */
typedef struct hb_side_turn {
    void *state;
    const struct hb_context *(*context)(void *state);
    hb_verdict (*command)(void *state, uint32_t unit, const hb_command *command);
    uint64_t clocks_ns[2];  /* own time left in each side's bank (by side); HB_NO_LIMIT: none */
    uint64_t time_ns;       /* own time this call may take; HB_NO_LIMIT: not limited */
    uint32_t max_commands;  /* the half-turn's command cap */
    uint32_t calls;         /* the per-unit calls this call stands for */
} hb_side_turn;

/* The side's sight as the last command left it (valid until the next command). */
static inline const hb_context *hb_side_context(const hb_side_turn *turn) { return turn->context(turn->state); }

/* Gives one command for `unit` (HB_NO_UNIT for a side command) and says what became of it. */
static inline hb_verdict hb_side_command(hb_side_turn *turn, uint32_t unit, uint32_t kind, uint32_t id, int32_t x,
                                         int32_t y, int64_t amount) {
    hb_command c = { kind, id, x, y, amount };
    return turn->command(turn->state, unit, &c);
}

/* A uniform integer in 0..n-1 (0 when n <= 1) from the game's generator, drawn as the
   Rust side's ctx.random(n) draws it. */
static inline uint32_t hb_random(const hb_context *ctx, uint32_t n) {
    if (n <= 1) return 0;
    uint64_t zone = UINT64_MAX - (UINT64_MAX - (uint64_t)n + 1) % n;
    for (;;) {
        uint64_t v = ctx->random.next_u64(ctx->random.state);
        if (v <= zone) return (uint32_t)(v % n);
    }
}

/* Hex distance (the rules' section 2). */
static inline int32_t hb_distance(int32_t x1, int32_t y1, int32_t x2, int32_t y2) {
    int32_t dx = x2 - x1, dy = y2 - y1, ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
    if ((dx > 0 && dy > 0) || (dx < 0 && dy < 0)) return ax + ay;
    return ax > ay ? ax : ay;
}

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(hb_human) == 48, "hb_human layout");
_Static_assert(sizeof(hb_zombie) == 48, "hb_zombie layout");
_Static_assert(sizeof(hb_wall) == 32 && sizeof(hb_crate) == 32, "hb_wall / hb_crate layout");
_Static_assert(sizeof(hb_airstrike) == 24 && sizeof(hb_command) == 24, "hb_airstrike / hb_command layout");
_Static_assert(sizeof(hb_answer) == 8 + 24 * HB_MAX_COMMANDS, "hb_answer layout");
_Static_assert(sizeof(void *) != 8 || offsetof(hb_context, humans) == 48, "hb_context layout");
_Static_assert(sizeof(void *) != 8 || offsetof(hb_context, random) == 128, "hb_context layout");
_Static_assert(sizeof(void *) != 8 || sizeof(hb_context) == 144, "hb_context size");
_Static_assert(sizeof(void *) != 8 || sizeof(hb_verdict) == 16, "hb_verdict layout");
_Static_assert(sizeof(void *) != 8 || offsetof(hb_side_turn, clocks_ns) == 24, "hb_side_turn layout");
_Static_assert(sizeof(void *) != 8 || sizeof(hb_side_turn) == 56, "hb_side_turn size");
#endif

#ifdef __cplusplus
}
#endif

#endif /* HEX_BOT_H */
