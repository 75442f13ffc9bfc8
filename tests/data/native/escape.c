/* A zombies bot that tries, at the start of each game, to write a file
 * (-DTARGET_FILE="...") and to connect to 127.0.0.1 (-DPORT=...), and logs whether each
 * worked: under --sandbox bwrap neither may. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stay_bot.h"
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
STAY_BOT("Escape")
