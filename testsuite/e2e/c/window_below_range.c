/* Random memmoves within one buffer and comparisons of random ranges of it
 * against a reference kept with memmove. A comparison's guard asks
 * csync_ready_end for a range above every pending copy: the answer must not
 * be all-ones ("nothing pending"), which the guard takes as a window open
 * below the range too, or a later comparison lower in the buffer reads
 * bytes a pending copy still writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define A (4u << 20)

int main(void) {
  unsigned char *m = malloc(A), *ref = malloc(A);
  unsigned long x = 88172645463325252ull;
  for (size_t i = 0; i < A; i++)
    m[i] = ref[i] = (unsigned char)(i * 7 + (i >> 9));
  int bad = 0;
  for (int it = 0; it < 3000; it++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    size_t n = 16384 + x % (256 << 10), d = (x >> 20) % (A - n), s = (x >> 40) % (A - n);
    if (x % 3 == 0) {
      memmove(m + d, m + s, n);
      memmove(ref + d, ref + s, n);
    } else if (x % 3 == 1) {
      if (memcmp(m + d, ref + d, n))
        bad++;
    }
  }
  printf("bad=%d\n", bad);
  return 0;
}
