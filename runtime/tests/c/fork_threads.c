/* fork from a multi-threaded program with copies in flight: two threads
 * keep copying (amemcpy chains, amemmove, csync, csync_all) while the main
 * thread submits a copy and forks, many times. The child must finish the
 * copy it inherited and copy on its own; the parent's copy must be intact;
 * no child may hang (each child arms alarm(): SIGALRM counts as a hang).
 * Earlier, the fork could catch the parent's executors mid-task (a last
 * segment completed but not retired, done bits not yet counted) and the
 * child's csync_all waited forever; now fork_prepare makes submits
 * synchronous and drains every queue first, so the child inherits none.
 * With "handlers": the threads' copies carry completion handlers that
 * submit and csync copies of their own (asynchronous ones; synchronous while
 * a fork is being prepared), and every 4th fork is made from inside a
 * completion handler, with another copy pending: no deadlock, same checks.
 * Usage: fork_threads [forks [handlers]] (default 150, plain). */
#include <copier.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N (1u << 20)
#define H (64u << 10) /* a handler's own copy: above the inline threshold */
static volatile int stop;
static int handlers;
static atomic_int handler_bad;

struct hctx {
  unsigned char src[H], dst[H];
  unsigned char fill;
};

/* completion handler: submits a copy of its own and waits for it */
static void handler_copy(void *arg) {
  struct hctx *h = arg;
  h->fill++;
  memset(h->src, h->fill, H);
  amemcpy(h->dst, h->src, H);
  csync(h->dst, H);
  if (h->dst[0] != h->fill || h->dst[H - 1] != h->fill)
    atomic_fetch_add(&handler_bad, 1);
}

static void *busy(void *p) {
  (void)p;
  unsigned char *a = malloc(N), *b = malloc(N), *c = malloc(N);
  struct hctx *h = calloc(1, sizeof *h);
  memset(a, 3, N);
  while (!stop) {
    amemcpy(b, a, N);
    if (handlers)
      amemcpy_handler(c, b, N, handler_copy, h);
    else
      amemcpy(c, b, N);
    csync(c + N / 2, 100);
    amemmove(b + 1, b, N - 1);
    csync_all();
  }
  free(a);
  free(b);
  free(c);
  free(h);
  return NULL;
}

/* the child's checks: finish the inherited pending copy into `b`, copy on
 * its own, see both right; never returns */
static void child(const unsigned char *a, const unsigned char *b) {
  alarm(10); /* hang detector only: a passing child exits in ms */
  unsigned char *c = malloc(N);
  amemcpy(c, b, N); /* reads the inherited pending copy's destination */
  csync(c, N);
  int ok = !memcmp(c, a, N);
  csync_all();
  ok = ok && !memcmp(b, a, N);
  _exit(ok ? 0 : 1);
}

struct hfork {
  const unsigned char *a, *b;
  pid_t pid;
};

/* completion handler that forks; `b`'s copy is still pending */
static void handler_fork(void *arg) {
  struct hfork *f = arg;
  pid_t p = fork();
  if (p == 0)
    child(f->a, f->b);
  f->pid = p;
}

int main(int argc, char **argv) {
  int forks = argc > 1 ? atoi(argv[1]) : 150;
  handlers = argc > 2 && !strcmp(argv[2], "handlers");
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, busy, NULL);
  unsigned char *a = malloc(N), *b = malloc(N);
  for (size_t i = 0; i < N; i++)
    a[i] = (unsigned char)(i * 5);
  int bad = 0, hung = 0;
  for (int i = 0; i < forks; i++) {
    memset(b, 0, N);
    amemcpy(b, a, N); /* pending at fork */
    pid_t p;
    if (handlers && i % 4 == 3) {
      static unsigned char one[H], two[H];
      struct hfork f = {a, b, -1};
      amemcpy_handler(two, one, H, handler_fork, &f);
      csync_all(); /* the handler has run (and forked) */
      p = f.pid;
    } else {
      p = fork();
      if (p == 0)
        child(a, b);
    }
    if (p < 0) {
      perror("fork");
      return 2;
    }
    int st;
    if (waitpid(p, &st, 0) != p)
      bad++;
    else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
      hung++;
    else if (!WIFEXITED(st) || WEXITSTATUS(st))
      bad++;
    csync(b, N);
    if (memcmp(a, b, N))
      bad++;
  }
  stop = 1;
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  bad += atomic_load(&handler_bad);
  printf("forks=%d bad=%d hung=%d\n", forks, bad, hung);
  return bad || hung;
}
