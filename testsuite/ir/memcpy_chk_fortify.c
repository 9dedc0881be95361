// CFLAGS: -O2 -D_FORTIFY_SOURCE=2
// With _FORTIFY_SOURCE, a copy of variable length into an object of known
// size becomes __memcpy_chk: it is rewritten with the object-size check kept
// inline (the checked call runs only when it would fail, and aborts as
// before). The exact forms are in memcpy_chk_forms.ll.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
  int len;
  char data[65536];
} packet;

__attribute__((noinline)) int load(const char *src, size_t n) {
  memcpy(packet.data, src, n);
  packet.len = (int)n;
  return packet.data[n - 1];
}

__attribute__((noinline)) int load_at(const char *src, size_t n, size_t off) {
  memmove(packet.data + off, src, n);
  return packet.data[off];
}

int main(void) {
  char *src = malloc(65536);
  for (size_t i = 0; i < 65536; i++) src[i] = (char)(i % 71);
  int a = load(src, 40000);
  int b = load_at(src + 5, 20000, 100);
  printf("%d %d %d\n", a, b, packet.len);
  free(src);
  return 0;
}
