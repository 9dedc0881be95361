/* Per-site statistics across fork: the parent copies 100 times at one site,
 * then forks; the child copies once at another site. Each process's lines
 * count only its own copies (the child's start from zero, as its counters
 * line does), so a stats file both write sums to the program's copies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  size_t n = 256 * 1024;
  char *a = malloc(n), *b = malloc(n);
  memset(a, 1, n);
  long s = 0;
  for (int i = 0; i < 100; i++) {
    a[i] = (char)i;
    memcpy(b, a, n); /* the parent's site: 100 copies */
    s += b[i * 7];
  }
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) {
    memcpy(b, a + 1, n - 1); /* the child's site: 1 copy */
    s += b[5];
    printf("child %ld\n", s);
    exit(0);
  }
  waitpid(p, NULL, 0);
  printf("parent %ld\n", s);
  return 0;
}
