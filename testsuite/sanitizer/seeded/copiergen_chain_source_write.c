// OPT-LEVELS: -O0 -O1 -O2
// REWRITE: copiergen
// The program's memcpy overwrites the source of its pending amemcpy.
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *s = filled(n, 5), *d = malloc(n), *y = filled(n, 9);
  amemcpy(d, s, n);
  memcpy(s, y, n); /* BUG: source-write-before-csync */
  csync(s, n);
  csync(d, n);
  printf("%d %d\n", d[n - 1], s[n - 1]);
  csync_all();
  return 0;
}
