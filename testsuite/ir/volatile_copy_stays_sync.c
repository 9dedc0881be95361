// EXPECT-ASYNC: no
// A volatile struct copy (llvm.memcpy with isvolatile) stays synchronous.
#include <stdio.h>

struct big {
  char bytes[40000];
};

static volatile struct big dev;
static struct big shadow;

__attribute__((noinline)) int snapshot(void) {
  shadow = dev;
  return shadow.bytes[100];
}

int main(void) {
  dev.bytes[100] = 42;
  printf("%d\n", snapshot());
  return 0;
}
