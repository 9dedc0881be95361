/* Each process reports its own copies: the parent queues two copies,
 * forks, and the child queues one more, so with spawn=0 (copies counted as
 * they retire) the parent's exit line says tasks=2 and the child's tasks=1
 * (a child that inherited the parent's counters would say 3). Run with
 * COPIER_STATS_FILE or stats_file=: both lines land in one file. */
#include <copier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  size_t n = 1u << 20;
  unsigned char *a = malloc(n), *b = malloc(n), *c = malloc(n);
  memset(a, 7, n);
  amemcpy(b, a, n);
  amemcpy(c, a, n);
  csync_all();
  pid_t pid = fork();
  if (pid == 0) {
    amemcpy(b, c, n);
    csync(b, n);
    exit(memcmp(a, b, n) != 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return !(WIFEXITED(st) && WEXITSTATUS(st) == 0) || memcmp(a, c, n) != 0;
}
