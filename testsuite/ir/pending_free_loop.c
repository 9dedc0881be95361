// A string builder: short appends of run-time length into a heap buffer and
// a static one. The loop gets a copy without checks, entered while nothing
// is pending: each copy there is `len >= threshold` and the inline copy, the
// store after it has no window check. A long append (the 20000-byte word)
// leaves it for the checked loop, which submits the copy and guards the
// accesses after it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char out[1 << 16];

__attribute__((noinline)) unsigned long build(char *buf, size_t cap, const char **words, int n, int rep) {
  size_t off = 0, o2 = 0;
  for (int i = 0; off + 32768 < cap; i++) {
    const char *w = words[(i * 7 + rep) % n];
    size_t l = strlen(w);
    memcpy(buf + off, w, l);
    off += l;
    buf[off++] = ' ';
    if (o2 + l < sizeof out) {
      memcpy(out + o2, w, l);
      o2 += l;
    }
  }
  return (unsigned char)buf[off / 2] + (unsigned char)out[o2 / 3] + off;
}

int main(void) {
  size_t cap = 1 << 20;
  char *buf = malloc(cap);
  char *big = malloc(20001);
  memset(big, 'x', 20000);
  big[20000] = 0;
  const char *words[] = {"alpha", "be", "gamma-delta", "epsilon", "zeta-eta-theta-iota", "k", "lambda mu nu", big};
  unsigned long h = 0;
  for (int rep = 0; rep < 3; rep++)
    h = h * 31 + build(buf, cap, words, rep == 1 ? 8 : 7, rep);
  printf("%lu\n", h);
  free(big);
  free(buf);
  return 0;
}
