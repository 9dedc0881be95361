// OPT-LEVELS: -O0 -O1 -O2
// REWRITE: copiergen
// The program's memcpy overwrites a destination its amemcpy left pending:
// CopierGen's copy into it is ordered after the pending one, but the
// program is wrong (the amemcpy may land after the memcpy).
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *s = filled(n, 5), *d = malloc(n), *y = filled(n, 9);
  amemcpy(d, s, n);
  memcpy(d, y, n); /* BUG: write-before-csync */
  csync(d, n);
  printf("%d\n", d[n - 1]);
  csync_all();
  return 0;
}
