// sscanf outputs into the csync'd part of a destination whose other bytes
// are still pending: each output is checked over exactly the bytes stored
// (a %s whose NUL is the last synced byte, a %c of width 4 that ends there),
// and an output whose conversion failed is not checked, so none reports.
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'z'), *dst = malloc(n);
  amemcpy(dst, src, n);
  csync(dst, 200); /* bytes 200.. stay pending */
  char text[] = "42 abcde wxyz 7";
  int k = 0;
  k += sscanf(text, "%d %s", (int *)(dst + 0), dst + 194); /* "abcde\0" ends at 199 */
  k += sscanf(text + 9, "%4c%n", dst + 196, (int *)(dst + 100)); /* 196..199 */
  k += sscanf(text, "%d %d", (int *)(dst + 8), (int *)(dst + 300)); /* second fails */
  k += sscanf(text, "%*d %*s %*s %hhd", (signed char *)(dst + 199));
  printf("%d %d %.5s %.4s %d %d\n", k, *(int *)dst, dst + 194, dst + 196, *(int *)(dst + 100), dst[199]);
  int good = k == 5 && *(int *)dst == 42 && !memcmp(dst + 194, "abwxy", 5) && *(int *)(dst + 100) == 4 && dst[199] == 7;
  csync_all();
  free(src);
  free(dst);
  return !good;
}
