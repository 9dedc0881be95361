// The destination's address is stored in a global. An atomic (even relaxed)
// or volatile store can be read by another thread at any time: a whole-copy
// csync precedes it. A plain store becomes visible to another thread only
// through a later synchronisation (a release, a call, the return), where
// the copy is synced anyway: here, before the return.
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *published;
_Atomic(char *) published_atomic;
char *volatile published_volatile;

__attribute__((noinline)) void publish(const char *src, size_t n) {
  char *buf = malloc(n);
  memcpy(buf, src, n);
  published = buf;
}

__attribute__((noinline)) void publish_relaxed(const char *src, size_t n) {
  char *buf = malloc(n);
  memcpy(buf, src, n);
  atomic_store_explicit(&published_atomic, buf, memory_order_relaxed);
}

__attribute__((noinline)) void publish_volatile(const char *src, size_t n) {
  char *buf = malloc(n);
  memcpy(buf, src, n);
  published_volatile = buf;
}

__attribute__((noinline)) long consume(const char *p, size_t n) {
  long s = 0;
  for (size_t i = 0; i < n; i += 1000) s += p[i];
  return s;
}

int main(void) {
  size_t n = 60000;
  char *src = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i % 100);
  publish(src, n);
  publish_relaxed(src, n);
  publish_volatile(src, n);
  printf("%ld %ld %ld\n", consume(published, n), consume(atomic_load(&published_atomic), n),
         consume(published_volatile, n));
  free(published);
  free(atomic_load(&published_atomic));
  free(published_volatile);
  free(src);
  return 0;
}
