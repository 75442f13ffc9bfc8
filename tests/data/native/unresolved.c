/* A bot calling a function no library defines: lazy binding would load it and crash
 * the host at its first call; immediate binding rejects it at load. */
#include "zombies_bot.h"
extern int no_such_function_anywhere(int);
static void *create(void) { return (void *)1; }
static zb_action turn(void *bot, const zb_context *ctx) {
    (void)bot;
    return zb_move((uint32_t)no_such_function_anywhere((int)ctx->clock) % 9u);
}
static void destroy(void *bot) { (void)bot; }
static const zb_bot_table TABLE = {ZOMBIES_BOT_ABI_VERSION, sizeof(zb_bot_table), "Unresolved", create, turn, destroy};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
