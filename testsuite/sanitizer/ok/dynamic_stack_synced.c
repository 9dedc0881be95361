// Dynamic stack buffers (alloca(), variable-length arrays) with copies
// synced before their function returns or their scope ends, and functions
// with a dynamic stack area that return while a copy is still pending
// into memory outside that area: the caller's arrays (static and
// variable-length) and the heap. The checks cover only the returning
// function's own dynamic area. None may report.
#include "../common.h"
#include <alloca.h>
__attribute__((noinline)) static long synced_alloca(const char *s, size_t n) {
  char *buf = alloca(n);
  amemcpy(buf, s, n);
  csync(buf, n);
  return buf[n - 1];
}
__attribute__((noinline)) static long synced_vla(char *dst, size_t n, int rounds) {
  long sum = 0;
  for (int r = 0; r < rounds; r++) {
    char msg[n];
    memset(msg, 'a' + r, n);
    amemcpy(dst + r * n, msg, n);
    csync(msg, n); /* the source is free again */
    sum += msg[0];
  }
  csync_all();
  return sum;
}
/* Has its own VLA; starts a copy into memory of its caller, left pending. */
__attribute__((noinline)) static void start_into(char *out, const char *s, size_t n) {
  char scratch[n];
  memcpy(scratch, s, n);
  use((long)scratch);
  amemcpy(out, scratch, n);
  csync(scratch, n); /* the source must stay live; the destination stays pending */
}
__attribute__((noinline)) static long caller_vla(const char *s, size_t n) {
  char mine[n];
  start_into(mine, s, n); /* pending into this frame's VLA across the callee's return */
  csync(mine, n);
  return mine[0];
}
int main(int argc, char **argv) {
  (void)argv;
  size_t n = 4095 + (size_t)argc; /* not a constant */
  char *s = filled(n, 'k'), *heap = malloc(4 * n);
  char fixed[4096];
  long sum = synced_alloca(s, n) + synced_vla(heap, n, 4);
  start_into(fixed, s, n);       /* pending into main's array */
  start_into(heap, s, n);        /* pending into the heap */
  sum += caller_vla(s, n);
  csync_all();
  int good = fixed[1] == s[1] && heap[n - 1] == s[n - 1];
  printf("%ld %s\n", sum, good ? "ok" : "wrong");
  free(s);
  free(heap);
  return !good;
}
