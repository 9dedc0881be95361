// CFLAGS: -O2
// A scan whose trip count ScalarEvolution cannot compute (it stops at a
// newline) over a global array copied into: the unguarded loop copy is
// bounded by the array's size instead (the loop cannot read past the
// object), so a window covering the rest of the array enters it. A second
// scan over a heap buffer of unknown size has no bound: its unguarded
// copy runs only when the window covers every address (the runtime
// reports nothing pending).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char table[65536];

__attribute__((noinline)) size_t scan_table(const char *src, size_t n) {
  memcpy(table, src, n);
  size_t i = 0;
  while (table[i] != '\n') i++;
  return i;
}

__attribute__((noinline)) size_t scan_heap(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  const char *p = dst;
  while (*p != '\n') p++;
  return (size_t)(p - dst);
}

int main(void) {
  size_t n = sizeof table;
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(11 + i % 100);
  src[n - 3] = '\n';
  memset(table, '\n', n);
  memset(dst, '\n', n);
  size_t a = scan_table(src, n);
  src[40000] = '\n';
  size_t b = scan_heap(dst, src, n);
  printf("%zu %zu\n", a, b);
  free(src);
  free(dst);
  return 0;
}
