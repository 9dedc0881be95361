// A copy still pending at fork would be missing in the child (which has no
// copy service): the copy is synced before fork.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int child_reads(const char *src, size_t n) {
  char *buf = malloc(n);
  memcpy(buf, src, n);
  pid_t pid = fork();
  if (pid == 0)
    _exit(buf[n - 1]);
  int status = 0;
  waitpid(pid, &status, 0);
  free(buf);
  return WEXITSTATUS(status);
}

int main(void) {
  size_t n = 40000;
  char *src = malloc(n);
  memset(src, 23, n);
  printf("%d\n", child_reads(src, n));
  free(src);
  return 0;
}
