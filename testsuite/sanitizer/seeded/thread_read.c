// A buffer handed to another thread before its csync is checked there.
// EXPECT-THREAD: nonzero
#include "../common.h"
#include <pthread.h>
static void *reader(void *p) {
  char *d = p;
  long v = d[123]; /* BUG: read-before-csync */
  use(v);
  return NULL;
}
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  pthread_t t;
  pthread_create(&t, NULL, reader, dst);
  pthread_join(t, NULL);
  csync(dst, n);
  return 0;
}
