/* Completion handlers that call csync_all / csync (review finding: a
 * handler calling csync_all() deadlocked the process, waiting for the
 * handler that was itself). Usage: handler MODE with MODE one of
 *   all     the handler calls csync_all(); main waits with csync_all()
 *   range   the same; main waits with csync() of the copy's destination
 *   nested  handlers that submit a further handler copy and csync_all()
 *   threads 4 threads, each with handlers calling csync_all() concurrently
 * Exit status 0 when every handler ran once and every copy is correct. */
#include <copier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (4u << 20)
#define DEPTH 5

static int count;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void bump(void) { pthread_mutex_lock(&mu); count++; pthread_mutex_unlock(&mu); }

struct job { unsigned char *dst, *src, *dst2; int depth; int bad; };

/* csync_all inside a handler: every earlier copy is complete afterwards */
static void hsync_all(void *arg) {
  struct job *j = arg;
  csync_all();
  if (memcmp(j->dst, j->src, N)) j->bad = 1;
  bump();
}

/* submits the next level from inside the handler, then csync_all */
static void hnested(void *arg) {
  struct job *j = arg;
  if (j->depth > 0) {
    j->depth--;
    amemcpy_handler(j->dst2, j->dst, N, hnested, j);
    csync_all();
    /* the copy submitted above is complete (its handler may have run) */
    if (memcmp(j->dst2, j->src, N)) j->bad = 1;
  }
  csync(j->dst, N);
  bump();
}

static void *thread_main(void *p) {
  struct job *j = p;
  for (int i = 0; i < 8; i++) {
    amemcpy_handler(j->dst, j->src, N, hsync_all, j);
    if (i % 2) csync_all(); else csync(j->dst, N);
  }
  csync_all();
  return NULL;
}

static struct job *new_job(unsigned seed) {
  struct job *j = calloc(1, sizeof *j);
  j->dst = malloc(N); j->src = malloc(N); j->dst2 = malloc(N);
  for (size_t i = 0; i < N; i++) j->src[i] = (unsigned char)(i * 31 + seed);
  memset(j->dst, 0, N); memset(j->dst2, 0, N);
  return j;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "all";
  int want, bad = 0;
  if (!strcmp(mode, "all") || !strcmp(mode, "range")) {
    struct job *j = new_job(1);
    amemcpy_handler(j->dst, j->src, N, hsync_all, j);
    if (!strcmp(mode, "all")) csync_all(); else csync(j->dst, N);
    csync_all();
    want = 1; bad = j->bad;
  } else if (!strcmp(mode, "nested")) {
    struct job *j = new_job(2);
    j->depth = DEPTH;
    amemcpy_handler(j->dst, j->src, N, hnested, j);
    csync_all();
    want = DEPTH + 1; bad = j->bad || memcmp(j->dst2, j->src, N);
  } else if (!strcmp(mode, "threads")) {
    pthread_t t[4]; struct job *j[4];
    for (int i = 0; i < 4; i++) { j[i] = new_job(10 + i); pthread_create(&t[i], NULL, thread_main, j[i]); }
    for (int i = 0; i < 4; i++) { pthread_join(t[i], NULL); bad |= j[i]->bad; }
    csync_all();
    want = 4 * 8;
  } else {
    fprintf(stderr, "handler: unknown mode %s\n", mode);
    return 2;
  }
  pthread_mutex_lock(&mu);
  int got = count;
  pthread_mutex_unlock(&mu);
  printf("handler %s: %d of %d handlers ran, %s\n", mode, got, want, bad ? "MISMATCH" : "data ok");
  return got != want || bad;
}
