// copier_wait from another thread on a descriptor whose slot the service
// has already reused (the copy completed, and the submitting thread queued
// queue_depth more copies) returns at once, and still completes that copy
// for the checker: the reader's access is correct.
// RUN-ENV: COPIER_OPTIONS=queue_depth=4
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
  char *src = filled(n, 'a'), *tmp = malloc(n);
  struct job j = {malloc(n), n, 0};
  j.d = copier_submit(j.dst, src, n, 0, NULL, NULL);
  if (j.d == 0)
    abort(); /* not asynchronous: nothing to recycle */
  // Copy on (each copy synced) until the slot holds a later copy: a range
  // past the copy's end is refused (-1) while the slot still knows the
  // copy, and reads as complete (1) once it was reused. Each async copy
  // takes the next slot; the ring retires the first copy once it is done.
  int rounds = 0;
  while (copier_query(j.d, 0, n + 1) != 1) {
    if (++rounds > 1000000) {
      fprintf(stderr, "the descriptor's slot was never reused\n");
      return 2;
    }
    amemcpy(tmp, src, n);
    csync(tmp, n);
  }
  pthread_t t;
  pthread_create(&t, NULL, reader, &j);
  void *r;
  pthread_join(t, &r);
  printf("%ld\n", (long)r);
  free(j.dst);
  free(tmp);
  free(src);
  return 0;
}
