/* A zombies bot that tries to fork 600 children (each sleeps a minute, so the attempt
 * is bounded even where nothing caps it) at its first game in a process, and logs how
 * many it got: under a worker's process cap below that, it must get fewer. */
#define _POSIX_C_SOURCE 200809L
#include <sys/types.h>
#include <unistd.h>

#include "stay_bot.h"
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
STAY_BOT("Spawner")
