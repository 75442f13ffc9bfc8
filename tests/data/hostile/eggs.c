/* A hostile eggs bot (hostile.h): its player stays, and at its third call of a game it
 * misbehaves as chosen at compile time. */
#define TRIGGER 3
#include "hostile.h"

#include "eggs_bot.h"

static void eggs_turn(void *bot, const eb_context *ctx, eb_answer *answer) {
    (void)ctx;
    hostile_call(bot);
    answer->direction = EB_STAY;
    answer->action = EB_NOTHING;
}

static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table), .name = BOT_NAME,
    .create = hostile_create, .destroy = hostile_destroy, .game = "eggs", .eggs_turn = eggs_turn,
    .set_logger = zb_set_logger,
};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
