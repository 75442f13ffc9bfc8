/* What the test bots that only probe the host share: players that stay, nothing to
 * free, and the table (name, `create`, logging through zb_log). A bot file defines its
 * `create` and ends with STAY_BOT("Name"). */
#include "zombies_bot.h"

#define STAY_BOT(NAME)                                                                   \
    static zb_action turn(void *bot, const zb_context *ctx) {                            \
        (void)bot;                                                                       \
        (void)ctx;                                                                       \
        return zb_move(ZB_STAY);                                                         \
    }                                                                                    \
    static void destroy(void *bot) { (void)bot; }                                        \
    static const zb_bot_table TABLE = {                                                  \
        .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table),     \
        .name = NAME, .create = create, .turn = turn, .destroy = destroy,                \
        .set_logger = zb_set_logger,                                                     \
    };                                                                                   \
    ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
