// csync before handing a buffer to another thread, which reads it there;
// the thread also submits and syncs its own copy.
#include "../common.h"
#include <pthread.h>
static void *worker(void *p) {
  char *d = p, *mine = malloc(40000);
  amemcpy(mine, d, 40000);
  csync(mine, 40000);
  long v = d[123] + mine[39999];
  free(mine);
  return (void *)v;
}
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  csync(dst, n);
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, dst);
  long sum = 0;
  for (int i = 0; i < 2; i++) {
    void *r;
    pthread_join(t[i], &r);
    sum += (long)r;
  }
  printf("%ld\n", sum);
  return 0;
}
