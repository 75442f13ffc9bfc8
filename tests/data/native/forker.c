/* A zombies bot that leaves a child process behind: at its first game in a process it
 * forks a child that sleeps for a minute, and logs the child's pid. The host must kill
 * that child with the worker that forked it. */
#define _POSIX_C_SOURCE 200809L
#include <sys/types.h>
#include <unistd.h>

#include "zombies_bot.h"
static int forked;
static void *create(void) {
    if (!forked) {
        forked = 1;
        pid_t child = fork();
        if (child == 0) {
            sleep(60);
            _exit(0);
        }
        zb_logf("child %ld", (long)child);
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
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table), .name = "Forker",
    .create = create, .turn = turn, .destroy = destroy, .set_logger = zb_set_logger,
};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
