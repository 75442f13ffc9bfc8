// One byte each way between two processes over pipes, N times: the CPU time (user and
// system, both processes) of one round trip (docs/hardening.md, "The floor, and why W20
// Lua is not at 1.5x"; and its section on the program bots' system-call filter, which
// measured it with and without the filter).
//
//   cc -O2 -o roundtrip roundtrip.c && ./roundtrip 200000
//   taskset -c 1 ./roundtrip 200000            # both processes on one core
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static double seconds(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
  int n = argc == 2 ? atoi(argv[1]) : 0;
  if (n < 1) {
    fprintf(stderr, "usage: %s ROUND_TRIPS\n", argv[0]);
    return 2;
  }
  int a[2], b[2];
  char c = 0;
  if (pipe(a) || pipe(b)) return perror("pipe"), 1;
  if (fork() == 0) {
    for (int i = 0; i < n; i++)
      if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1) _exit(1);
    _exit(0);
  }
  for (int i = 0; i < n; i++)
    if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) return perror("pipe"), 1;
  wait(NULL);
  struct rusage s, ch;
  getrusage(RUSAGE_SELF, &s);
  getrusage(RUSAGE_CHILDREN, &ch);
  double cpu = seconds(s.ru_utime) + seconds(s.ru_stime) + seconds(ch.ru_utime) + seconds(ch.ru_stime);
  printf("%.2f us of CPU per round trip\n", cpu / n * 1e6);
  return 0;
}
