/* The trivial C bot of the call benchmarks: reads the context, always stays. */
#include "zombies_bot.h"
static void *create(void) { return (void *)1; }
static zb_action turn(void *bot, const zb_context *ctx) {
    (void)bot;
    return zb_move(ctx->bullets > 100 ? ZB_N : ZB_STAY);
}
static void destroy(void *bot) { (void)bot; }
static const zb_bot_table TABLE = {ZOMBIES_BOT_ABI_VERSION, sizeof(zb_bot_table), "CStay", create, turn, destroy};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
