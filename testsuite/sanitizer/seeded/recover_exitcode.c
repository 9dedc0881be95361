// RUN-ENV: COPIER_OPTIONS=halt_on_error=0:exitcode=7
// EXPECT-REPORTS: 2
// EXPECT-EXIT: 7
// EXPECT-STDOUT: s=5
// With halt_on_error=0 the program goes on, but once a report was printed
// the process ends with exitcode (after flushing the program's stdout).
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *a = filled(n, 1), *b = malloc(n);
  long s = 0;
  for (int i = 0; i < 5; i++) {
    amemcpy(b, a, n);
    s += b[i] != 0; /* BUG: read-before-csync */
    a[i] = 2;
    csync_all();
  }
  printf("s=%ld\n", s);
  return 0;
}
