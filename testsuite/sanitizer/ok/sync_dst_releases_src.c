// Syncing the whole destination completes the copy: its source may then be
// written and freed without syncing the source range itself.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  csync(dst, n / 2);
  src[0] = 'z'; /* byte 0 of the copy is complete */
  csync(dst + n / 2, n - n / 2);
  src[n - 1] = 'z';
  free(src);
  printf("%d\n", dst[0] == 'a');
  free(dst);
  return 0;
}
