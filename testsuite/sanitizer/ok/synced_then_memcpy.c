// The program's amemcpy is synced before its memcpy reads the destination
// (CopierGen rewrites the memcpy when it rebuilds this file), and before
// its memcpy overwrites the source: no report.
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *s = filled(n, 5), *d = malloc(n), *x = malloc(n), *y = filled(n, 9);
  amemcpy(d, s, n);
  csync(d, n);
  memcpy(x, d, n);
  memcpy(s, y, n);
  csync(x, n);
  printf("%d %d\n", x[n - 1], s[1]);
  return 0;
}
