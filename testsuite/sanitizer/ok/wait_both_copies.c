// Two copies into overlapping bytes, each waited for by its descriptor:
// every byte of both destinations may then be read (with the first wait
// alone, the second copy's bytes stay pending: seeded/wait_other_copy.c).
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *a = filled(n, 'a'), *b = filled(n, 'b'), *dst = malloc(2 * n);
  copier_desc d1 = copier_submit(dst, a, n, 0, NULL, NULL);
  copier_desc d2 = copier_submit(dst + n / 2, b, n, 0, NULL, NULL);
  if (copier_wait(d1, 0, n) != 0 || copier_wait(d2, 0, n) != 0)
    abort();
  long v = 0;
  for (size_t i = 0; i < 2 * n; i += 511)
    v += dst[i];
  printf("%ld\n", v);
  free(dst);
  free(a);
  free(b);
  return 0;
}
