/* fork: the parent's pending copies are not lost; the child works (new
 * service thread or synchronous) and sees the parent's completed copies. */
#include <copier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "%s[%d]:%d: check failed: %s\n", __FILE__, getpid(),     \
              __LINE__, #c);                                                   \
      _exit(1);                                                                \
    }                                                                          \
  } while (0)

int main(void) {
  size_t n = 8u << 20;
  unsigned char *src = malloc(n), *dst = malloc(n), *dst2 = malloc(n);
  for (size_t i = 0; i < n; i++)
    src[i] = (unsigned char)(i * 7 + 1);
  for (int round = 0; round < 3; round++) {
    memset(dst, 0, n);
    amemcpy(dst, src, n); /* pending at fork */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
      /* child: the copy submitted before fork is complete here */
      csync(dst, n);
      CHECK(memcmp(dst, src, n) == 0);
      /* and the child can copy asynchronously itself */
      amemcpy(dst2, dst, n);
      csync(dst2, n / 2);
      CHECK(memcmp(dst2, src, n / 2) == 0);
      csync_all();
      CHECK(memcmp(dst2, src, n) == 0);
      /* nested fork from the child */
      amemcpy(dst, src, n);
      pid_t g = fork();
      if (g == 0) {
        csync_all();
        CHECK(memcmp(dst, src, n) == 0);
        _exit(0);
      }
      int st;
      CHECK(waitpid(g, &st, 0) == g && WIFEXITED(st) && WEXITSTATUS(st) == 0);
      exit(0); /* runs the atexit drain */
    }
    csync(dst, n);
    CHECK(memcmp(dst, src, n) == 0);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  puts("fork: ok");
  return 0;
}
