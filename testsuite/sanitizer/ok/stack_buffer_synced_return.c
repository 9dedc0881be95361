// Stack buffers handed to copies and synced before the function returns
// (and before their scope ends), also after a return through halt_on_error=0
// style recovery never needed: zero reports, right bytes.
#include "../common.h"
__attribute__((noinline)) static long sum_copy(const char *s, size_t n) {
  char buf[65536];
  amemcpy(buf, s, n);
  csync(buf, n);
  long v = 0;
  for (size_t i = 0; i < n; i += 512)
    v += buf[i];
  return v;
}
__attribute__((noinline)) static void enqueue(char *dst) {
  for (int r = 0; r < 4; r++) {
    char msg[16384];
    memset(msg, 'a' + r, sizeof msg);
    amemcpy(dst + r * sizeof msg, msg, sizeof msg);
    csync(msg, sizeof msg);
  }
}
int main(void) {
  char *s = filled(65536, 'a'), *d = malloc(4 * 16384);
  long v = 0;
  for (int i = 0; i < 16; i++)
    v += sum_copy(s, 65536);
  enqueue(d);
  csync(d, 4 * 16384);
  if (d[3 * 16384] != 'd')
    return 2;
  printf("%ld\n", v);
  return 0;
}
