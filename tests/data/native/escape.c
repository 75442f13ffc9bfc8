/* A zombies bot that tries, at the start of each game, to write a file
 * (-DTARGET_FILE="...") and to connect to 127.0.0.1 (-DPORT=...), and logs whether each
 * worked: under --sandbox bwrap neither may. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "zombies_bot.h"
static void *create(void) {
    int fd = open(TARGET_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    zb_log(fd >= 0 ? "write: done" : "write: refused");
    if (fd >= 0) close(fd);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in to = {0};
    to.sin_family = AF_INET;
    to.sin_port = htons(PORT);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int connected = s >= 0 && connect(s, (struct sockaddr *)&to, sizeof to) == 0;
    zb_log(connected ? "connect: done" : "connect: refused");
    if (s >= 0) close(s);
    return (void *)1;
}
static zb_action turn(void *bot, const zb_context *ctx) {
    (void)bot;
    (void)ctx;
    return zb_move(ZB_STAY);
}
static void destroy(void *bot) { (void)bot; }
static const zb_bot_table TABLE = {
    .abi_version = ZOMBIES_BOT_ABI_VERSION, .struct_size = sizeof(zb_bot_table), .name = "Escape",
    .create = create, .turn = turn, .destroy = destroy, .set_logger = zb_set_logger,
};
ZB_EXPORT const zb_bot_table *zombies_bot_entry(void) { return &TABLE; }
