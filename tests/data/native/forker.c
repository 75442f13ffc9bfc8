/* A zombies bot that leaves a child process behind: at its first game in a process it
 * forks a child that sleeps for a minute, and logs the child's pid. The host must kill
 * that child with the worker that forked it. */
#define _POSIX_C_SOURCE 200809L
#include <sys/types.h>
#include <unistd.h>

#include "stay_bot.h"
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
STAY_BOT("Forker")
