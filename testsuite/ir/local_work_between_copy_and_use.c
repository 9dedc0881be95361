// Proves lateness: work on memory that cannot alias the copy (a separate
// array, a local accumulator) runs between the copy and the first use, and
// the first csync sits right before that use, after the loop.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double weights[4096];

__attribute__((noinline)) double overlap(char *restrict dst, const char *restrict src, size_t n) {
  char *buf = malloc(n);
  memcpy(buf, src, n);
  double acc = 0;
  for (int i = 0; i < 4096; i++) acc += weights[i] * i;
  acc += buf[n - 1];
  dst[0] = buf[0];
  free(buf);
  return acc;
}

int main(void) {
  size_t n = 200000;
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i % 13);
  for (int i = 0; i < 4096; i++) weights[i] = i * 0.5;
  printf("%.1f %d\n", overlap(dst, src, n), dst[0]);
  free(src);
  free(dst);
  return 0;
}
