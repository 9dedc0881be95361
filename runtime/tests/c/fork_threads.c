/* fork from a multi-threaded program with copies in flight: two threads
 * keep copying (amemcpy chains, amemmove, csync, csync_all) while the main
 * thread submits a copy and forks, many times. The child must finish the
 * copy it inherited and copy on its own; the parent's copy must be intact;
 * no child may hang (each child arms alarm(): SIGALRM counts as a hang).
 * Before the fix, a task whose last segment an executor of the parent had
 * completed while it waited for the tracker lock (held across fork) was
 * never retired in the child, whose csync_all then waited forever.
 * Usage: fork_threads [forks] (default 150). */
#include <copier.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N (1u << 20)
static volatile int stop;

static void *busy(void *p) {
  (void)p;
  unsigned char *a = malloc(N), *b = malloc(N), *c = malloc(N);
  memset(a, 3, N);
  while (!stop) {
    amemcpy(b, a, N);
    amemcpy(c, b, N);
    csync(c + N / 2, 100);
    amemmove(b + 1, b, N - 1);
    csync_all();
  }
  free(a);
  free(b);
  free(c);
  return NULL;
}

int main(int argc, char **argv) {
  int forks = argc > 1 ? atoi(argv[1]) : 150;
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
    pid_t p = fork();
    if (p < 0) {
      perror("fork");
      return 2;
    }
    if (p == 0) {
      alarm(10); /* hang detector only: a passing child exits in ms */
      unsigned char *c = malloc(N);
      amemcpy(c, b, N); /* reads the inherited pending copy's destination */
      csync(c, N);
      int ok = !memcmp(c, a, N);
      csync_all();
      ok = ok && !memcmp(b, a, N);
      _exit(ok ? 0 : 1);
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
  printf("forks=%d bad=%d hung=%d\n", forks, bad, hung);
  return bad || hung;
}
