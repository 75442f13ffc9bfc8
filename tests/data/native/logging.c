/* A zombies bot that logs through the ABI (1.2): a line when loaded, one from `create`
 * each game, and one per player on the game's first turn. */
#include "zombies_bot.h"
static void set_logger(zb_logger logger) {
    zb_set_logger(logger);
    zb_log("loaded");
}
static void *create(void) {
    zb_log("new game");
    return (void *)1;
}
static zb_action turn(void *bot, const zb_context *ctx) {
    (void)bot;
    if (ctx->clock == 0) zb_logf("player %u at (%u, %u)", ctx->id.number, ctx->x, ctx->y);
    return zb_move(ZB_STAY);
}
static void destroy(void *bot) { (void)bot; }
static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table), .name = "Logger",
    .create = create, .turn = turn, .destroy = destroy, .set_logger = set_logger,
};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
