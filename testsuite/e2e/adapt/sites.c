/* Per-site adaptivity: two copy sites of 256 KiB in a loop. At the first
 * ("waited") the copy is read right after it is submitted, so it can never
 * pay: after adapt_after observations the runtime turns that site inline.
 * At the second ("overlapped") the program does independent work (a
 * checksum of another buffer, several hundred microseconds) before it reads
 * the copy, so the copy runs while the program works: the site stays
 * asynchronous. Prints one checksum line; run with COPIER_STATS=sites. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (256u << 10)

__attribute__((noinline)) static unsigned long work(const unsigned char *p, size_t n, int rounds) {
  unsigned long h = 5381;
  for (int r = 0; r < rounds; r++)
    for (size_t i = 0; i < n; i++)
      h = h * 33 + p[i];
  return h;
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 200;
  unsigned char *src = malloc(N), *a = malloc(N), *b = malloc(N), *other = malloc(N);
  for (size_t i = 0; i < N; i++) {
    src[i] = (unsigned char)(i * 31 + 7);
    other[i] = (unsigned char)(i * 17 + 3);
  }
  unsigned long sum = 0;
  for (int it = 0; it < iters; it++) {
    src[it % N] ^= (unsigned char)it;
    memcpy(a, src, N); /* waited */
    sum += a[N - 1] + a[it % N];
    memcpy(b, src, N); /* overlapped */
    /* (other changes every round: work() only reads memory, so with
     * other unchanged clang -O2 computes its value once for two rounds
     * of the unrolled loop and half the copies got no window) */
    other[it % N] ^= (unsigned char)it;
    sum += work(other, N, 2);
    sum += work(b, N, 1);
  }
  printf("sum %lu\n", sum);
  return 0;
}
