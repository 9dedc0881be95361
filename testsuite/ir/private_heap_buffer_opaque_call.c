// The copy's buffers are a fresh malloc and a source no callee can name;
// calls to opaque functions that cannot reach them (the pointers never
// escape) need no csync: the first sync is at the buffer's own use.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void log_progress(int step) { printf("step %d\n", step); }

__attribute__((noinline)) long stage(size_t n) {
  char *src = malloc(n);
  char *dst = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i % 17);
  memcpy(dst, src, n);
  log_progress(1);
  log_progress(2);
  long s = dst[0] + dst[n - 1];
  free(src);
  free(dst);
  return s;
}

int main(void) {
  printf("%ld\n", stage(100000));
  return 0;
}
