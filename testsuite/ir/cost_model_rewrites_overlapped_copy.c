// OPTFLAGS: -copiergen-min-overlap=16
// The cost model keeps rewriting copies that something may overlap: on
// some path between the copy and its whole-copy sync there is a loop
// (unknown trip count), a call (unknown work), or more straight-line work
// than -copiergen-min-overlap. The longest path decides: a copy whose
// error path returns at once but whose main path runs a loop is rewritten.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Independent work in a loop before the destination is returned.
__attribute__((noinline)) char *copy_then_checksum(const char *src, size_t n, const unsigned *table,
                                                   size_t m, unsigned *sum) {
  char *p = malloc(n);
  if (!p)
    return NULL;
  memcpy(p, src, n);
  unsigned s = 0;
  for (size_t i = 0; i < m; i++)
    s = s * 31 + table[i];
  *sum = s;
  return p;
}

// A library call (unknown work; it cannot touch the new buffer) before
// the return.
__attribute__((noinline)) char *copy_then_call(const char *src, size_t n, const char *name, size_t *len) {
  char *p = malloc(n);
  if (!p)
    return NULL;
  memcpy(p, src, n);
  *len = strlen(name);
  return p;
}

// One short path (an early exit) and one with a loop: rewritten.
__attribute__((noinline)) long copy_then_maybe_work(char *dst, const char *src, size_t n, const long *v,
                                                    size_t m) {
  memcpy(dst, src, n);
  if (m == 0)
    return -1;
  long t = 0;
  for (size_t i = 0; i < m; i++)
    t += v[i] * (long)i;
  return t;
}

int main(void) {
  size_t n = 50000;
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++)
    src[i] = (char)('a' + i % 26);
  unsigned table[64];
  long v[64];
  for (int i = 0; i < 64; i++) {
    table[i] = (unsigned)i * 7u;
    v[i] = i - 5;
  }
  unsigned sum = 0;
  char *p = copy_then_checksum(src, n, table, 64, &sum);
  size_t len = 0;
  char *q = copy_then_call(src, n, getenv("COPIER_TEST_UNSET") ? "set" : "unset", &len);
  long t = copy_then_maybe_work(dst, src, n, v, 64);
  printf("%u %c %zu %c %ld %c\n", sum, p[n - 1], len, q[n - 2], t, dst[n / 2]);
  free(p);
  free(q);
  free(src);
  free(dst);
  return 0;
}
