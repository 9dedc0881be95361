// RUN-ENV: COPIER_OPTIONS=halt_on_error=0
// EXPECT-REPORTS: 2
// EXPECT-EXIT: 1
// With halt_on_error=0 the program goes on and each distinct site is
// reported once: the loop's read is one site (reported once), the write
// after it another. At exit the status is exitcode (1, the default).
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  long v = 0;
  for (int i = 0; i < 10; i++)
    v += dst[i * 100]; /* BUG: read-before-csync */
  dst[3] = 1;
  use(v);
  csync(dst, n);
  return 0;
}
