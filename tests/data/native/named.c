/* A bot whose name is set at compile time: -DBOT_NAME='"Zombie"' and the like. */
#include "zombies_bot.h"
#ifndef BOT_NAME
#define BOT_NAME "Named"
#endif
static void *create(void) { return (void *)1; }
static zb_action turn(void *bot, const zb_context *ctx) { (void)bot; (void)ctx; return zb_move(ZB_STAY); }
static void destroy(void *bot) { (void)bot; }
static const zb_bot_table TABLE = {ZOMBIES_BOT_ABI_VERSION, sizeof(zb_bot_table), BOT_NAME, create, turn, destroy};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
