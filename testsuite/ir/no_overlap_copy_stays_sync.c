// OPTFLAGS: -copiergen-min-overlap=16
// EXPECT-ASYNC: no
// With -copiergen-min-overlap=16: copies whose whole-copy sync
// comes right after them (returned at once, handed to a call at once) stay
// synchronous memcpy, since nothing would overlap them (missed remark
// NoOverlap).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct blob {
  size_t len;
  char *data;
};

__attribute__((noinline)) void fill(struct blob *b, const char *src, size_t n) {
  b->data = malloc(n);
  memcpy(b->data, src, n);
  b->len = n;
}

__attribute__((noinline)) void emit(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  fwrite(dst, 1, 8, stdout);
  putchar('\n');
}

int main(void) {
  size_t n = 50000;
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)('a' + i % 26);
  struct blob b;
  fill(&b, src, n);
  emit(dst, src, n);
  printf("%zu %c\n", b.len, b.data[n - 1]);
  free(b.data);
  free(src);
  free(dst);
  return 0;
}
