/* A hostile target bot (hostile.h): its copies stay, and at its third call of a game it
 * misbehaves as chosen at compile time. */
#define TRIGGER 3
#include "hostile.h"

#include "target_bot.h"

static uint32_t target_turn(void *bot, const tb_context *ctx) {
    (void)ctx;
    hostile_call(bot);
    return TB_STAY;
}

static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table), .name = BOT_NAME,
    .create = hostile_create, .destroy = hostile_destroy, .game = "target", .target_turn = target_turn,
    .set_logger = zb_set_logger,
};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
