// OPT-LEVELS: -O0 -O1 -O2
// Two branches end in the same read; SimplifyCFG sinks the two loads into
// their common successor, where the load's location is line 0. The report
// must still name the line of the branch that ran (the second).
#include "../common.h"
static volatile int pick = 2;
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'x'), *dst = malloc(n);
  volatile long sink = 0;
  switch (pick) {
  case 1: amemcpy(dst, src, n); csync(dst, 100); sink = dst[100]; break;
  case 2: amemcpy(dst, src, n); csync(dst + 100, 50); sink = dst[99]; break; /* BUG: read-before-csync */
  }
  (void)sink;
  csync_all();
  return 0;
}
