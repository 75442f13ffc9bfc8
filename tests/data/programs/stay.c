/* The trivial program bot of the call benchmarks (zombies' line protocol): reads each
 * call's line whole, answers STAY, flushes. Built by host/benches/calls.rs. */
#include <stdio.h>
#include <string.h>
int main(void) {
    static char line[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        if (strchr(line, '\n') == NULL) continue;
        fputs("STAY\n", stdout);
        fflush(stdout);
    }
    return 0;
}
