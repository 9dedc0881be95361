// Copy then a sequential parse loop over the destination: the loads in the
// loop get the windowed fast path (cached [lo, end) checked inline,
// csync_ready_end only when the access leaves it), not one csync per byte
// and not one wait for the whole buffer before the loop.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long parse(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  long fields = 0, value = 0;
  for (size_t i = 0; i < n; i++) {
    char c = dst[i];
    if (c == ',') {
      fields += value;
      value = 0;
    } else {
      value = value * 10 + (c - '0');
    }
  }
  return fields + value;
}

int main(void) {
  size_t n = 100000;
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (i % 5 == 4) ? ',' : (char)('0' + i % 10);
  printf("%ld\n", parse(dst, src, n));
  free(src);
  free(dst);
  return 0;
}
