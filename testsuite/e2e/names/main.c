// A program that defines csync, csync_all and amemcpy itself (own_csync.c)
// and makes large copies that CopierGen rewrites. copiergen cc must link it
// (libcopier's public names are weak; the pass calls only __copier_*) and
// it must print what clang-22's build prints: the pass's own waits never
// reach the program's csync, and a call to the program's csync is an
// ordinary call (it reads the copy's destination, so that copy is synced
// first). COPIER_OPTIONS=spawn=0 makes it deterministic: a copy runs only
// when libcopier's own csync waits for it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void csync(const void *p, unsigned long n);
void csync_all(void);
void *amemcpy(void *d, const void *s, size_t n);
extern unsigned long csync_sum;
extern int csync_all_calls;

__attribute__((noinline)) static unsigned long walk(const unsigned char *p, size_t n) {
  unsigned long s = 0;
  for (size_t i = 0; i < n; i += 4096)
    s = s * 33 + p[i];
  return s;
}

int main(int argc, char **argv) {
  (void)argv;
  size_t n = ((size_t)4 << 20) + (size_t)argc;
  unsigned char *a = malloc(n), *b = calloc(n, 1), *c = calloc(n, 1);
  if (!a || !b || !c)
    return 1;
  for (size_t i = 0; i < n; i++)
    a[i] = (unsigned char)(i * 7 + 3);
  memcpy(b, a, n);  // rewritten: the pass's waits are libcopier's
  a[n - 1] = 1;     // a source write: waits first
  unsigned long mid = b[n / 2];
  unsigned long w = walk(b, n);
  memcpy(c, a, n);  // then the program's csync reads the destination
  csync(c, n);
  csync_all();
  unsigned char r[8];
  amemcpy(r, "abcdefgh", 8);
  printf("%lu %lu %lu %d %.8s\n", mid, w, csync_sum, csync_all_calls, (const char *)r);
  free(a);
  free(b);
  free(c);
  return 0;
}
