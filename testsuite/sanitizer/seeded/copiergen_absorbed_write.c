// OPT-LEVELS: -O1 -O2
// REWRITE: copiergen
// writev() of a buffer CopierGen's copy left pending (legal: the pass
// absorbs the call, copier_writev) and of a destination the program's own
// amemcpy left pending (the program's bug: built without the pass, it
// writes zeros).
#include "../common.h"
#include <sys/uio.h>
#include <unistd.h>
static volatile size_t len = 1 << 20;
int main(void) {
  size_t n = len;
  char *s = filled(n, 5), *d = calloc(n, 1), *a = filled(n, 7), *x = malloc(n);
  int p[2];
  if (pipe(p) != 0)
    return 2;
  amemcpy(d, s, 4096);
  memcpy(x, a, n);
  struct iovec v[2] = {{x, 16}, {d, 16}};
  if (writev(p[1], v, 2) != 32) /* BUG: read-before-csync */
    return 3;
  char got[32];
  if (read(p[0], got, sizeof got) != sizeof got)
    return 4;
  csync(x, n);
  printf("%d %d\n", got[31], x[n - 1]);
  csync_all();
  return 0;
}
