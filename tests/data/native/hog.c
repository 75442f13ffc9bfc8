/* A zombies bot that asks for 3 GiB at the start of each game (without touching it, so
 * the machine is never at risk) and logs whether it got it: under a worker's memory cap
 * below that, it must not. */
#include <stdlib.h>

#include "stay_bot.h"
static void *create(void) {
    void *block = malloc((size_t)3 << 30);
    zb_log(block ? "3 GiB: granted" : "3 GiB: refused");
    free(block);
    return (void *)1;
}
STAY_BOT("Hog")
