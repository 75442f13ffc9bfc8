/* The ladder attacker of tests/ladder.rs (issue #30, hole 1 of the red team's run): an
 * eggs bot whose player only stays and which, at its first call, tries to stop the
 * ladder that plays it through the ladder's database DB (an absolute path, given at
 * compile time): it opens, read-only (all it needs), the database, its -wal and -shm
 * files and its two lock files, and on each it got takes the lock that would stall the
 * ladder: a POSIX read lock on SQLite's WAL write-lock byte of -shm (offset 120: no
 * writer can begin while it is held) and on the database's pending and reserved bytes, a
 * shared flock on DB.lock (a new `ladder run` refuses to start) and DB.schedule.lock
 * (the scheduler waits). It never closes them: they are held while its process lives.
 * It also reads the database's first bytes (the whole database would be as easy).
 *
 * It logs one line per file: "NAME: open refused (errno E)" when it cannot open it, else
 * "NAME: opened, lock taken" or "NAME: opened, lock refused (errno E)" (and "db header:
 * read N bytes" when it could read the database). Each call sleeps SLEEP_MS (100) so
 * that its games overlap the commits of the others. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "eggs_bot.h"

#ifndef DB
#define DB "/nonexistent/ladder.db"
#endif
#ifndef SLEEP_MS
#define SLEEP_MS 100
#endif

static void *bot_create(void) { return calloc(1, sizeof(unsigned)); }
static void bot_destroy(void *b) { free(b); }

/* Held for the process's life: the descriptors are never closed. */
static int calls;

/* Opens `path` read-only and takes a POSIX read lock on [start, start + len) (len > 0),
 * or a shared flock (len == 0); logs what happened. */
static void attack(const char *name, const char *path, off_t start, off_t len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        zb_logf("%s: open refused (errno %d)", name, errno);
        return;
    }
    int got;
    if (len > 0) {
        struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
        got = fcntl(fd, F_SETLK, &fl);
    } else {
        got = flock(fd, LOCK_SH | LOCK_NB);
    }
    if (got == 0) {
        zb_logf("%s: opened, lock taken", name);
    } else {
        zb_logf("%s: opened, lock refused (errno %d)", name, errno);
    }
}

static void eggs_turn(void *bot, const eb_context *ctx, eb_answer *ans) {
    (void)ctx;
    unsigned *c = bot;
    if (++*c == 1 && calls++ == 0) {
        zb_logf("uid %u", (unsigned)getuid());
        attack("shm", DB "-shm", 120, 1);
        attack("db", DB, 0x40000000, 2);
        attack("wal", DB "-wal", 0, 1);
        attack("lock", DB ".lock", 0, 0);
        attack("schedule.lock", DB ".schedule.lock", 0, 0);
        int fd = open(DB, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            char header[16];
            zb_logf("db header: read %d bytes", (int)read(fd, header, sizeof header));
        }
    }
    usleep(SLEEP_MS * 1000);
    ans->direction = EB_STAY;
    ans->action = EB_NOTHING;
}

static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION,
    .struct_size = sizeof(zb_bot_table),
    .name = "ladderlock",
    .create = bot_create,
    .destroy = bot_destroy,
    .game = "eggs",
    .eggs_turn = eggs_turn,
    .set_logger = zb_set_logger,
};

ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
