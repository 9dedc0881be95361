// The destination's address is stored in a global (another thread or
// function may read the buffer through it): a whole-copy csync before the
// publishing store.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *published;

__attribute__((noinline)) void publish(const char *src, size_t n) {
  char *buf = malloc(n);
  memcpy(buf, src, n);
  published = buf;
}

__attribute__((noinline)) long consume(size_t n) {
  long s = 0;
  for (size_t i = 0; i < n; i += 1000) s += published[i];
  return s;
}

int main(void) {
  size_t n = 60000;
  char *src = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i % 100);
  publish(src, n);
  printf("%ld\n", consume(n));
  free(published);
  free(src);
  return 0;
}
