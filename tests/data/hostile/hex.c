/* A hostile hex bot (hostile.h): it gives no command, and at its first call of a game it
 * misbehaves as chosen at compile time (as the humans, a bot that spawns nobody has no
 * other call). */
#define TRIGGER 1
#include "hostile.h"

#include "hex_bot.h"

static void hex_turn(void *bot, const hb_context *ctx, hb_answer *answer) {
    (void)ctx;
    (void)answer;
    hostile_call(bot);
}

static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table), .name = BOT_NAME,
    .create = hostile_create, .destroy = hostile_destroy, .game = "hex", .hex_turn = hex_turn,
    .set_logger = zb_set_logger,
};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
