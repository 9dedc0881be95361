// The program defines its own function `csync` and has no copy for the
// pass. copiergen cc builds the program clang builds; at -flto it warns
// both in one line (the link-time pass) and as -c then a link of the
// object (copiergen cc, which links that object as clang does).
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
