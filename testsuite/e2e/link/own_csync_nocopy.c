// The program defines its own function `csync` and has no copy for the
// pass. copiergen cc builds the program clang builds, without a warning,
// also at -flto in one line and as -c then a link of the object (which
// forces libcopier in: its csync is weak).
#include <stdio.h>
#include <stddef.h>

int csync_calls = 0;

void csync(void *p, size_t n) {
  (void)p;
  (void)n;
  csync_calls++;
}

int main(int argc, char **argv) {
  (void)argv;
  csync(&argc, sizeof argc);
  printf("%d\n", csync_calls);
  return 0;
}
