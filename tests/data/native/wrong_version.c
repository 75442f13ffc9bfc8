/* A C bot table that claims a future ABI version. */
#include "zombies_bot.h"
static void *create(void) { return (void *)1; }
static zb_action turn(void *bot, const zb_context *ctx) { (void)bot; (void)ctx; return zb_move(ZB_STAY); }
static void destroy(void *bot) { (void)bot; }
static const zb_bot_table TABLE = {999, sizeof(zb_bot_table), "FromTheFuture", create, turn, destroy};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
