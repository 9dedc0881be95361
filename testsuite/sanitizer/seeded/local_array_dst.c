// A stack array that is a copy's destination is checked (only stack
// variables whose address never reaches a call are left unchecked).
#include "../common.h"
int main(void) {
  char dst[4096];
  const char *src = filled(sizeof dst, 'a');
  amemcpy(dst, src, sizeof dst);
  long v = dst[100]; /* BUG: read-before-csync */
  use(v);
  csync(dst, sizeof dst);
  return 0;
}
