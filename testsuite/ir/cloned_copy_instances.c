// CFLAGS: -O2
// OPTFLAGS: -copiergen-min-overlap=256
// RUN-LEVELS: -O2
// Trial finding: clang -O2 clones this memcpy (its loop is unswitched on
// `n` and peeled), so one source location has three calls with different
// remarks: one stays memcpy, two are rewritten. Each remark names its
// instance ("instance 1 of 3 at this location", numbered in code order),
// and the remarks that name a rewritten copy say which instance it is.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void fill(char *restrict d, const char *restrict s, unsigned long n, int k, char *out) {
  for (int i = 0; i < k; i++) {
    if (n) memcpy(d + i * n, s, n);
    out[i] = d[i];
  }
}

int main(void) {
  unsigned long n = 1 << 16;
  char *s = malloc(n), *d = malloc(4 * n), out[4];
  for (unsigned long i = 0; i < n; i++) s[i] = (char)(i * 7);
  fill(d, s, n, 4, out);
  fill(d, s, 0, 4, out);
  printf("%d %d %d %d\n", out[0], out[1], out[2], out[3]);
  free(s);
  free(d);
  return 0;
}
