// fork() drains every pending copy (a safety net), but it is not a csync:
// the child reading a destination it never synced is reported in the child
// (README: "fork does not count as a csync"). The parent syncs, waits, and
// exits with the child's status.
// EXPECT-STDERR: READ of size 1 at
// EXPECT-STDERR: submitted by thread T0 here:
#include "../common.h"
#include <sys/wait.h>
#include <unistd.h>
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  pid_t p = fork();
  if (p == 0) {
    use(dst[5]); /* BUG: read-before-csync */
    _exit(0);
  }
  csync(dst, n);
  int st = 0;
  waitpid(p, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}
