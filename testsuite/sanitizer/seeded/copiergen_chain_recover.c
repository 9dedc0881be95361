// REWRITE: copiergen
// RUN-ENV: COPIER_OPTIONS=halt_on_error=0
// EXPECT-REPORTS: 2
// EXPECT-STDERR: READ of size 1048576 at
// EXPECT-STDERR: (in a call to memcpy)
// EXPECT-STDERR: READ of size 1048576 at
// EXPECT-STDERR: (in a call to memmove)
// Two of CopierGen's copies of the program's memcpy/memmove read a
// destination the program left pending, on two lines: each is reported
// (halt_on_error=0), and the program goes on.
#include "../common.h"
static char *volatile hide;
int main(void) {
  size_t n = 1 << 20;
  char *s = filled(n, 5), *d = calloc(n, 1), *x = malloc(n), *y;
  hide = malloc(n);
  y = hide;
  amemcpy(d, s, n);
  memcpy(x, d, n); /* BUG: read-before-csync */
  memmove(y, d, n);
  csync(x, n);
  csync(y, n);
  printf("%d %d\n", x[n - 1], y[n - 1]);
  csync_all();
  return 0;
}
