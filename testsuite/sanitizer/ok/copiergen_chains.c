// Copies CopierGen makes asynchronous and chains on each other (the second
// reads the first's pending destination, the third overwrites it), then a
// read of the last: the pass's own chains are correct, no report.
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *a = filled(n, 3), *b = malloc(n), *c = malloc(n), *e = filled(n, 4);
  memcpy(b, a, n);
  memcpy(c, b, n);
  memmove(b, e, n);
  long v = 0;
  for (size_t i = 0; i < n; i += 4096)
    v += c[i] + b[i];
  printf("%ld\n", v);
  free(a);
  free(b);
  free(c);
  free(e);
  return 0;
}
