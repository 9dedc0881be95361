// LIBS: -lpthread
// A buffer filled by a copy is handed to another thread (pthread_create with
// the buffer, a release store of a flag, a mutex unlock): each hand-off is
// preceded by a whole-copy csync.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct job {
  char *buf;
  size_t n;
  long result;
};

static void *worker(void *arg) {
  struct job *j = arg;
  long s = 0;
  for (size_t i = 0; i < j->n; i++) s += j->buf[i];
  j->result = s;
  return NULL;
}

__attribute__((noinline)) long run_in_thread(struct job *j, const char *src) {
  memcpy(j->buf, src, j->n);
  pthread_t t;
  pthread_create(&t, NULL, worker, j);
  pthread_join(t, NULL);
  return j->result;
}

static char *shared;
static atomic_int ready;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char *locked_buf;

static void *flag_reader(void *arg) {
  size_t n = *(size_t *)arg;
  while (!atomic_load_explicit(&ready, memory_order_acquire))
    ;
  long s = 0;
  for (size_t i = 0; i < n; i++) s += shared[i];
  return (void *)s;
}

__attribute__((noinline)) void publish_with_flag(const char *src, size_t n) {
  memcpy(shared, src, n);
  atomic_store_explicit(&ready, 1, memory_order_release);
}

__attribute__((noinline)) void fill_under_lock(const char *src, size_t n) {
  pthread_mutex_lock(&mu);
  memcpy(locked_buf, src, n);
  pthread_mutex_unlock(&mu);
}

int main(void) {
  size_t n = 100000;
  char *src = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i % 11);
  struct job j = {malloc(n), n, 0};
  printf("%ld\n", run_in_thread(&j, src));

  shared = malloc(n);
  pthread_t t;
  pthread_create(&t, NULL, flag_reader, &n);
  publish_with_flag(src, n);
  void *r;
  pthread_join(t, &r);
  printf("%ld\n", (long)r);

  locked_buf = malloc(n);
  fill_under_lock(src, n);
  pthread_mutex_lock(&mu);
  long s = 0;
  for (size_t i = 0; i < n; i += 7) s += locked_buf[i];
  pthread_mutex_unlock(&mu);
  printf("%ld\n", s);
  free(j.buf);
  free(shared);
  free(locked_buf);
  free(src);
  return 0;
}
