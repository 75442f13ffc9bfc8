/* A bot whose name is set at compile time: -DBOT_NAME='"Zombie"' and the like; and
 * its table's declared size, to play an older library (-DTABLE_SIZE=40 is ABI 1.0). */
#include "zombies_bot.h"
#ifndef BOT_NAME
#define BOT_NAME "Named"
#endif
#ifndef TABLE_SIZE
#define TABLE_SIZE sizeof(zb_bot_table)
#endif
static void *create(void) { return (void *)1; }
static zb_action turn(void *bot, const zb_context *ctx) { (void)bot; (void)ctx; return zb_move(ZB_STAY); }
static void destroy(void *bot) { (void)bot; }
static const zb_bot_table TABLE = {ZOMBIES_BOT_ABI_VERSION, TABLE_SIZE, BOT_NAME, create, turn, destroy};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
