/* C API test: every entry point of copier.h against memcpy/memmove results,
 * with several threads. Exit status 0 on success; prints what failed. */
#include <copier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);    \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)(i * 131u + seed);
}

static atomic_int freed;
static void free_src(void *arg) {
  free(arg);
  atomic_fetch_add(&freed, 1);
}

static void *worker(void *arg) {
  unsigned seed = (unsigned)(size_t)arg;
  size_t n = (4u << 20) + 123; /* 4 MiB + a tail: many segments */
  unsigned char *src = malloc(n), *dst = malloc(n), *want = malloc(n);
  CHECK(src && dst && want);
  fill(src, n, seed);
  memcpy(want, src, n);

  /* amemcpy returns dst at once; csync segment by segment */
  CHECK(amemcpy(dst, src, n) == dst);
  for (size_t off = 0; off < n; off += 65536) {
    size_t len = n - off < 65536 ? n - off : 65536;
    csync(dst + off, len);
    CHECK(memcmp(dst + off, want + off, len) == 0);
  }
  csync(src, n); /* source reusable */
  memset(src, 0, n);

  /* chain: dst -> src (absorbable), then overlapping amemmove */
  amemcpy(src, dst, n);
  amemmove(src + 1000, src, n - 1000);
  memmove(want + 1000, want, n - 1000);
  csync(src, n);
  CHECK(memcmp(src, want, n) == 0);

  /* csync_ready_end: the window covers at least the request */
  amemcpy(dst, src, n);
  const unsigned char *end = csync_ready_end(dst, 4096);
  CHECK(end >= dst + 4096);
  size_t win = (size_t)(end - dst) < n ? (size_t)(end - dst) : n;
  CHECK(memcmp(dst, want, win) == 0);
  csync_all();
  CHECK(memcmp(dst, want, n) == 0);

  /* lazy copy, then overwritten before use: the final bytes are the later copy's */
  unsigned char *other = malloc(n);
  fill(other, n, seed + 7);
  amemcpy_lazy(dst, src, n);
  amemcpy(dst, other, n);
  csync(dst, n);
  CHECK(memcmp(dst, other, n) == 0);
  /* lazy copy that is needed: csync runs it */
  amemcpy_lazy(dst, src, n);
  csync(dst, n);
  CHECK(memcmp(dst, want, n) == 0);

  /* handler frees the source once the copy is done */
  unsigned char *tmp = malloc(n);
  memcpy(tmp, other, n);
  int before = atomic_load(&freed);
  amemcpy_handler(dst, tmp, n, free_src, tmp);
  csync_all();
  CHECK(atomic_load(&freed) >= before + 1);
  CHECK(memcmp(dst, other, n) == 0);

  /* low level: descriptor, partial wait, query */
  copier_desc d = copier_submit(dst, src, n, 0, NULL, NULL);
  CHECK(copier_wait(d, 8192, 100) == 0);
  CHECK(copier_query(d, 8192, 100) == 1);
  CHECK(memcmp(dst + 8192, want + 8192, 100) == 0);
  CHECK(copier_wait(d, 0, n) == 0);
  CHECK(copier_query(d, 0, n) == 1);
  CHECK(memcmp(dst, want, n) == 0);
  CHECK(copier_query(0, 0, 1) == 1); /* 0 = completed synchronously */
  copier_desc m = copier_submit(dst + 1, dst, n - 1, COPIER_MOVE, NULL, NULL);
  memmove(want + 1, want, n - 1);
  CHECK(copier_wait(m, 0, n - 1) == 0);
  CHECK(memcmp(dst, want, n) == 0);

  /* small copies (inline) interleaved with a pending big one */
  amemcpy(src, other, n);
  for (int i = 0; i < 1000; i++) {
    amemcpy(want + i, "abcdefgh", 8);
  }
  csync(src, n);
  CHECK(memcmp(src, other, n) == 0);
  csync(dst, 0); /* returns at once */
  csync(want, 1008); /* the small copies (asynchronous under threshold=0) */
  CHECK(memcmp(want + 999, "abcdefgh", 8) == 0);

  free(src);
  free(dst);
  free(want);
  free(other);
  return NULL;
}

int main(void) {
  enum { T = 4 };
  pthread_t th[T];
  for (size_t i = 0; i < T; i++)
    CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0);
  for (size_t i = 0; i < T; i++)
    pthread_join(th[i], NULL);
  CHECK(atomic_load(&freed) == T);
  puts("basic: ok");
  return 0;
}
