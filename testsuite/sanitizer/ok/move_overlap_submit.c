// Overlapping ranges through amemmove and copier_submit(COPIER_MOVE), and
// amemcpy(p, p, n): no memcpy-param-overlap report; the result is memmove's.
#include "../common.h"
#include <copier.h>
int main(void) {
  size_t n = 1 << 20;
  char *a = filled(n + 4096, 'a'), *want = malloc(n + 4096);
  memcpy(want, a, n + 4096);
  memmove(want + 4096, want, n);
  amemmove(a + 4096, a, n);
  csync(a, n + 4096);
  copier_submit(a, a + 100, n, COPIER_MOVE, NULL, NULL);
  memmove(want, want + 100, n);
  csync(a, n + 4096);
  if (memcmp(a, want, n + 4096) != 0)
    return 2;
  /* dst == src: exempt, as ASan exempts memcpy(p, p, n) (a struct
     assigned to itself). */
  amemcpy(a, a, n);
  csync(a, n);
  if (memcmp(a, want, n) != 0)
    return 3;
  free(a);
  free(want);
  return 0;
}
