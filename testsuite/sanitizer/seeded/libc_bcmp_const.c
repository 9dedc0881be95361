// OPT-LEVELS: -O0 -O1 -O2
// bcmp (memcmp compared with 0) of a pending destination against a local
// buffer, constant length 8.
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'a'), *dst = malloc(n);
  char local[8];
  memcpy(local, src, sizeof local);
  amemcpy(dst, src, n);
  int same = memcmp(local, dst, sizeof local) == 0; /* BUG: read-before-csync */
  csync_all();
  use(same);
  return 0;
}
