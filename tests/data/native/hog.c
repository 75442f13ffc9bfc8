/* A zombies bot that asks for 3 GiB at the start of each game (without touching it, so
 * the machine is never at risk) and logs whether it got it: under a worker's address
 * space cap below that, it must not. */
#include <stdlib.h>

#include "zombies_bot.h"
static void *create(void) {
    void *block = malloc((size_t)3 << 30);
    zb_log(block ? "3 GiB: granted" : "3 GiB: refused");
    free(block);
    return (void *)1;
}
static zb_action turn(void *bot, const zb_context *ctx) {
    (void)bot;
    (void)ctx;
    return zb_move(ZB_STAY);
}
static void destroy(void *bot) { (void)bot; }
static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table), .name = "Hog",
    .create = create, .turn = turn, .destroy = destroy, .set_logger = zb_set_logger,
};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
