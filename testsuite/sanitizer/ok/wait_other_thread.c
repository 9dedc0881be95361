// copier_wait on a copy's descriptor completes that copy whichever thread
// submitted it: a thread handed the descriptor waits there, then reads.
// (A csync in that thread would not do: seeded/thread_csync_other.c.)
#include "../common.h"
#include <pthread.h>
struct job {
  char *dst;
  size_t n;
  copier_desc d;
};
static void *reader(void *p) {
  struct job *j = p;
  if (copier_wait(j->d, 0, j->n) != 0)
    abort();
  long v = j->dst[123] + j->dst[j->n - 1];
  return (void *)v;
}
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a');
  struct job j = {malloc(n), n, 0};
  j.d = copier_submit(j.dst, src, n, 0, NULL, NULL);
  pthread_t t;
  pthread_create(&t, NULL, reader, &j);
  void *r;
  pthread_join(t, &r);
  printf("%ld\n", (long)r);
  csync_all();
  free(j.dst);
  return 0;
}
