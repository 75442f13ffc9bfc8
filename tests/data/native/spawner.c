/* A zombies bot that tries to fork 600 children (each sleeps a minute, so the attempt
 * is bounded even where nothing caps it) at its first game in a process, and logs how
 * many it got: under a worker's process cap below that, it must get fewer. */
#define _POSIX_C_SOURCE 200809L
#include <sys/types.h>
#include <unistd.h>

#include "zombies_bot.h"
static int tried;
static void *create(void) {
    if (!tried) {
        tried = 1;
        int got = 0;
        for (int i = 0; i < 600; i++) {
            pid_t child = fork();
            if (child == 0) {
                sleep(60);
                _exit(0);
            }
            if (child < 0) break;
            got++;
        }
        zb_logf("forked %d", got);
    }
    return (void *)1;
}
static zb_action turn(void *bot, const zb_context *ctx) {
    (void)bot;
    (void)ctx;
    return zb_move(ZB_STAY);
}
static void destroy(void *bot) { (void)bot; }
static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table), .name = "Spawner",
    .create = create, .turn = turn, .destroy = destroy, .set_logger = zb_set_logger,
};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
