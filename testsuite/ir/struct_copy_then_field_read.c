// A struct copy (llvm.memcpy of a constant 40 KiB) then two field reads:
// each read is guarded by a narrow csync of the field, the return by a
// whole-copy csync.
#include <stdio.h>
#include <string.h>

struct record {
  int id;
  char payload[40000];
  int checksum;
};

__attribute__((noinline)) int read_fields(struct record *out, const struct record *in) {
  *out = *in;
  return out->id * 31 + out->checksum;
}

static struct record a, b;

int main(void) {
  a.id = 7;
  a.checksum = 1234;
  for (int i = 0; i < 40000; i++) a.payload[i] = (char)i;
  b.id = -1;
  printf("%d\n", read_fields(&b, &a));
  printf("%d %d\n", b.payload[100], b.payload[39999]);
  return 0;
}
