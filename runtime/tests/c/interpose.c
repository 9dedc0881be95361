/* A program that interposes memcpy/memmove with Copier (as an LD_PRELOAD
 * shim or a rewriting tool might): every libcopier-internal memcpy then
 * re-enters amemcpy. The runtime must neither recurse without end nor
 * deadlock on its own locks, and every copy must stay correct. */
#include <copier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *memcpy(void *restrict d, const void *restrict s, size_t n) {
  amemcpy(d, s, n);
  csync(d, n);
  return d;
}
void *memmove(void *d, const void *s, size_t n) {
  amemmove(d, s, n);
  csync(d, n);
  return d;
}

static void *work(void *arg) {
  size_t n = (1u << 20) + (size_t)arg;
  unsigned char *a = malloc(n), *b = malloc(n), *c = malloc(n);
  for (size_t i = 0; i < n; i++)
    a[i] = (unsigned char)(i * 3 + (size_t)arg);
  for (int r = 0; r < 50; r++) {
    amemcpy(b, a, n);      /* asynchronous, pending while ... */
    memcpy(c + 7, a, 100); /* ... interposed copies go through Copier */
    amemcpy(c, b, n);      /* absorbs */
    csync_all();
    if (memcmp(c, a, n) != 0) {
      fprintf(stderr, "interpose: wrong bytes\n");
      exit(1);
    }
  }
  free(a);
  free(b);
  free(c);
  return NULL;
}

int main(void) {
  pthread_t t[3];
  for (size_t i = 0; i < 3; i++)
    pthread_create(&t[i], NULL, work, (void *)i);
  for (int i = 0; i < 3; i++)
    pthread_join(t[i], NULL);
  puts("interpose: ok");
  return 0;
}
