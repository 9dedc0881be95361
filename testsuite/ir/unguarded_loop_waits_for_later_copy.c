// CFLAGS: -O2
// A loop over a buffer filled by two copies (first half, second half): the
// loop gets an unguarded copy (loop versioning), entered from its header
// only once the ready window covers every address the loop can still read
// (here: its trip count). The deferred runtime's window after the first
// copy ends where the second copy's destination starts, so the guarded
// loop must run until it reaches the second half; entering the unguarded
// copy earlier would read the second half before its copy ran.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long sum_halves(char *dst, const char *a, const char *b, size_t half) {
  memcpy(dst, a, half);
  memcpy(dst + half, b, half);
  long s = 0;
  for (size_t i = 0; i < 2 * half; i++) s = s * 7 + dst[i];
  return s;
}

int main(void) {
  size_t half = 40000;
  char *a = malloc(half), *b = malloc(half), *dst = malloc(2 * half);
  for (size_t i = 0; i < half; i++) {
    a[i] = (char)(i % 13);
    b[i] = (char)(i % 7 + 50);
  }
  memset(dst, 9, 2 * half);
  printf("%ld\n", sum_halves(dst, a, b, half));
  free(a);
  free(b);
  free(dst);
  return 0;
}
