/* Copy chain with amemmove over 4 MiB buffers (review finding: 30-50 s
 * stalls in the tracker's retire when absorption fanned in). Each iteration
 * copies a -> b, b -> c, moves a by 3 bytes and copies c -> a; the result
 * must equal the same stream run with memcpy/memmove. Usage: chain ITERS KIB.
 * Exit status 0 when every buffer matches. The stage runs it repeatedly
 * under a hang guard: the stall was timing dependent (service behind). */
#include <copier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)((i * 2654435761u + seed) >> 11);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: chain ITERS KIB\n");
    return 2;
  }
  int iters = atoi(argv[1]);
  size_t n = (size_t)atoi(argv[2]) << 10;
  if (iters < 1 || n < 8192) {
    fprintf(stderr, "chain: need ITERS >= 1 and KIB >= 8\n");
    return 2;
  }
  unsigned char *a = malloc(n), *b = malloc(n), *c = malloc(n), *ra = malloc(n), *rb = malloc(n), *rc = malloc(n);
  if (!a || !b || !c || !ra || !rb || !rc) return 2;
  fill(a, n, 3); fill(b, n, 4); fill(c, n, 5);
  memcpy(ra, a, n); memcpy(rb, b, n); memcpy(rc, c, n);
  for (int i = 0; i < iters; i++) {
    size_t off = ((size_t)i * 7919) % (n / 2), len = n / 2 - ((size_t)i * 131) % 4096;
    amemcpy(b + off, a + ((size_t)i * 17) % 1000, len); memcpy(rb + off, ra + ((size_t)i * 17) % 1000, len);
    amemcpy(c, b + 1, n - 1);                           memcpy(rc, rb + 1, n - 1);
    amemmove(a + 3, a, n - 3);                          memmove(ra + 3, ra, n - 3);
    amemcpy(a, c + 2, n / 3);                           memcpy(ra, rc + 2, n / 3);
  }
  csync_all();
  int ok = !memcmp(a, ra, n) && !memcmp(b, rb, n) && !memcmp(c, rc, n);
  printf("chain iters=%d kib=%zu %s\n", iters, n >> 10, ok ? "ok" : "MISMATCH");
  free(a); free(b); free(c); free(ra); free(rb); free(rc);
  return !ok;
}
