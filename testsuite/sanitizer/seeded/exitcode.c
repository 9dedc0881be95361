// RUN-ENV: COPIER_OPTIONS=exitcode=42:threshold=16384
// EXPECT-EXIT: 42
// exitcode= sets the status after a report; runtime options (threshold)
// are accepted alongside.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  long v = dst[0]; /* BUG: read-before-csync */
  use(v);
  return 0;
}
