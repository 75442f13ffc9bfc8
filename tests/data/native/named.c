/* A bot whose name is set at compile time: -DBOT_NAME='"Zombie"' and the like; and
 * its table's declared size, to play an older library (-DTABLE_SIZE=40 is ABI 1.0,
 * 72 is 1.1). With -DTRAPS, the fields past that size hold traps a host must not
 * read: the game "eggs" (the bot would be skipped) and a set_logger after which the
 * bot fails to start. */
#include "zombies_bot.h"
#ifndef BOT_NAME
#define BOT_NAME "Named"
#endif
#ifndef TABLE_SIZE
#define TABLE_SIZE sizeof(zb_bot_table)
#endif
static int trapped;
static void *create(void) { return trapped ? NULL : (void *)1; }
static zb_action turn(void *bot, const zb_context *ctx) { (void)bot; (void)ctx; return zb_move(ZB_STAY); }
static void destroy(void *bot) { (void)bot; }
#ifdef TRAPS
static void trap(zb_logger logger) { (void)logger; trapped = 1; }
#endif
static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = TABLE_SIZE, .name = BOT_NAME,
    .create = create, .turn = turn, .destroy = destroy,
#ifdef TRAPS
#if TABLE_SIZE <= 40
    .game = "eggs",
#endif
#if TABLE_SIZE <= 72
    .set_logger = trap,
#endif
#endif
};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
