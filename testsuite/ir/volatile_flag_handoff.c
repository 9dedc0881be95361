// LIBS: -lpthread
// A buffer filled by a copy is announced to another thread by a volatile
// flag store (the hand-off of code older than C11 atomics): the copy is
// rewritten and the whole copy is synced before the flag store, not only
// before the join. A volatile store to a local that never escapes needs no
// sync.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *shared;
static volatile int ready;
static size_t len;

static void *reader(void *arg) {
  (void)arg;
  while (!ready)
    ;
  long s = 0;
  for (size_t i = 0; i < len; i++) s += shared[i];
  return (void *)s;
}

__attribute__((noinline)) long publish_with_volatile_flag(const char *src, const long *other, size_t m) {
  memcpy(shared, src, len);
  long w = 0;
  for (size_t i = 0; i < m; i++) w += other[i] * 3;
  ready = 1;
  return w;
}

__attribute__((noinline)) long private_volatile(char *dst, const char *src, size_t n) {
  volatile int spin = 0;
  memcpy(dst, src, n);
  for (int i = 0; i < 100; i++) spin = i;
  long s = spin;
  for (size_t i = 0; i < n; i += 9) s += dst[i];
  return s;
}

int main(void) {
  len = 1 << 20;
  char *src = malloc(len);
  long *other = malloc(4096 * sizeof(long));
  for (size_t i = 0; i < len; i++) src[i] = (char)(i % 13);
  for (size_t i = 0; i < 4096; i++) other[i] = (long)i;
  shared = malloc(len);
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  long w = publish_with_volatile_flag(src, other, 4096);
  void *r;
  pthread_join(t, &r);
  printf("%ld %ld\n", w, (long)r);
  char *dst = malloc(len);
  printf("%ld\n", private_volatile(dst, src, len));
  free(dst);
  free(shared);
  free(other);
  free(src);
  return 0;
}
