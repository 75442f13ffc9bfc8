// The floor of strict mode's crossings (docs/hardening.md, "The floor, and why W20 Lua
// is not at 1.5x"): a referee and N entry processes; each turn the referee writes REQ
// bytes to every entry and reads ANS bytes back from each, over pipes. Nothing is
// encoded and no host sits in between: no design with a process per entry crosses for
// less. Prints the CPU time (user and system) of all the processes, per turn and per
// entry and turn.
//
//   cc -O2 -o floor floor.c && ./floor 20 2000 8000 400
//   taskset -c 1 ./floor 20 2000 8000 400      # every process on one core
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s ENTRIES TURNS REQUEST_BYTES ANSWER_BYTES\n", argv[0]);
    return 2;
  }
  int n = atoi(argv[1]), turns = atoi(argv[2]), req = atoi(argv[3]), ans = atoi(argv[4]);
  if (n < 1 || n > 64 || turns < 1 || req < 1 || ans < 1 || req > (1 << 20) || ans > (1 << 20)) {
    fprintf(stderr, "%s: 1 to 64 entries, sizes up to 1 MiB\n", argv[0]);
    return 2;
  }
  int to[64][2], from[64][2];
  char *buf = calloc(1, 1 << 20);
  for (int i = 0; i < n; i++) {
    if (pipe(to[i]) || pipe(from[i])) return perror("pipe"), 1;
    if (fork() == 0) {
      for (int t = 0; t < turns; t++) {
        for (int got = 0; got < req;) {
          ssize_t r = read(to[i][0], buf, req - got);
          if (r <= 0) _exit(1);
          got += r;
        }
        if (write(from[i][1], buf, ans) != ans) _exit(1);
      }
      _exit(0);
    }
  }
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  struct pollfd p[64];
  nfds_t count = n > 64 ? 64 : (nfds_t)n;
  for (int t = 0; t < turns; t++) {
    for (int i = 0; i < n; i++)
      if (write(to[i][1], buf, req) != req) return perror("write"), 1;
    int left = n, got[64] = {0};
    while (left) {
      for (int i = 0; i < n; i++) {
        p[i].fd = from[i][0];
        p[i].events = got[i] < ans ? POLLIN : 0;
      }
      if (poll(p, count, -1) < 0) return perror("poll"), 1;
      for (int i = 0; i < n; i++)
        if (p[i].revents & POLLIN) {
          ssize_t r = read(from[i][0], buf, ans - got[i]);
          if (r <= 0) return fprintf(stderr, "entry %d ended\n", i), 1;
          got[i] += r;
          if (got[i] == ans) left--;
        }
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  while (wait(NULL) > 0) {
  }
  struct rusage s, c;
  getrusage(RUSAGE_SELF, &s);
  getrusage(RUSAGE_CHILDREN, &c);
  double cpu = seconds(s.ru_utime) + seconds(s.ru_stime) + seconds(c.ru_utime) + seconds(c.ru_stime);
  double wall = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
  printf("%d entries, %d turns, %d bytes asked and %d answered: CPU %.3f s (%.1f us a turn, %.2f us per entry and turn), "
         "wall %.3f s\n",
         n, turns, req, ans, cpu, cpu / turns * 1e6, cpu / turns / n * 1e6, wall);
  return 0;
}
