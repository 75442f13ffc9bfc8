/* A library whose initialiser aborts as soon as it is loaded: with isolation it is
 * probed in a child process, which dies instead of the host. */
#include <stdlib.h>
__attribute__((constructor)) static void crash_on_load(void) { abort(); }
