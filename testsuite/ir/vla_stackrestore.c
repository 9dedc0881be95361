// A copy into a variable-length array inside a loop: the VLA is freed at the
// end of each iteration (llvm.stackrestore), so the copy is synced before.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long rounds(const char *src, size_t n, int k) {
  long s = 0;
  for (int r = 0; r < k; r++) {
    char vla[n];
    memcpy(vla, src, n);
    s += vla[r];
    s += vla[n - 1 - r];
  }
  return s;
}

int main(void) {
  size_t n = 30000;
  char *src = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i % 19);
  printf("%ld\n", rounds(src, n, 5));
  free(src);
  return 0;
}
