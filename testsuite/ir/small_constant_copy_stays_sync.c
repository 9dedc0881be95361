// EXPECT-ASYNC: no
// A constant-length copy below the threshold (64 bytes < 16 KiB) stays a
// synchronous memcpy: missed remark, no amemcpy, no csync.
#include <stdio.h>
#include <string.h>

struct small {
  char bytes[64];
};

__attribute__((noinline)) int copy_small(struct small *d, const struct small *s) {
  memcpy(d, s, sizeof *d);
  return d->bytes[3];
}

int main(void) {
  struct small a, b;
  for (int i = 0; i < 64; i++) a.bytes[i] = (char)i;
  printf("%d\n", copy_small(&b, &a));
  return 0;
}
