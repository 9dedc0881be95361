// A program's own csync calls (copier.h) read no byte of a copy: the pass
// puts no csync_all or csync before them, so a hand-placed
// csync_ready_end window still overlaps the pass's copy. The reads after
// it keep the pass's own windowed guards.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// copier.h's declarations: the public names with libcopier's reserved
// symbols as asm labels. (A csync declared without one may be the
// program's own, defined in another file: an ordinary call.)
void csync(const void *addr, size_t n) __asm__("__copier_csync");
void csync_all(void) __asm__("__copier_csync_all");
const void *csync_ready_end(const void *ptr, size_t len) __asm__("__copier_csync_ready_end");

__attribute__((noinline)) long parse(const char *buf, size_t n) {
  long lines = 0;
  const char *ready = buf;
  for (size_t i = 0; i < n; i++) {
    if (buf + i >= ready)
      ready = csync_ready_end(buf + i, 1);
    lines += buf[i] == '\n';
  }
  return lines;
}

long load(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  const char *end = csync_ready_end(dst, 1);
  long first = end > dst ? dst[0] : 0;
  csync(dst, 64);
  return first + dst[63] + parse(dst, n);
}

int main(void) {
  size_t n = 1 << 20;
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++)
    src[i] = (char)(i % 61 == 0 ? '\n' : 'a');
  long r = load(dst, src, n);
  csync_all();
  free(src);
  free(dst);
  printf("%ld\n", r);
  return 0;
}
