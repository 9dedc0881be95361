// The fork child syncs before it reads (the contract: fork is not a csync):
// no report in either process, and the child sees the whole copy.
#include "../common.h"
#include <sys/wait.h>
#include <unistd.h>
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  pid_t p = fork();
  if (p == 0) {
    csync(dst, n);
    _exit(memcmp(dst, src, n) == 0 ? 0 : 2);
  }
  csync(dst, n);
  int st = 0;
  waitpid(p, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}
