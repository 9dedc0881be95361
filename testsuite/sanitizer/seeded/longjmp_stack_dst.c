// RUN-ENV: COPIER_OPTIONS=halt_on_error=0
// EXPECT-REPORTS: 2
// OPT-LEVELS: -O0 -O1 -O2
// EXPECT-STDERR: LONGJMP out of the stack frames that hold [
// EXPECT-STDERR: (in a call to longjmp)
// EXPECT-STDERR: in fail
// EXPECT-STDERR: is located 0 bytes inside the destination [
// EXPECT-STDERR: submitted by thread T0 here:
// EXPECT-STDERR: in work
// EXPECT-STDERR: LONGJMP out of the stack frames that hold [
// EXPECT-STDERR: (in a call to siglongjmp)
// EXPECT-STDERR: is located 0 bytes inside the source [
// A longjmp leaves frames whose stack buffers a pending copy still writes
// (into `work`'s array, two frames below the setjmp) or reads (from
// `post`'s array, via siglongjmp): those frames die without returning,
// so no return check runs; the jump is reported, naming the jump function,
// before the copy lands in (or reads) stack the program reuses.
#include "../common.h"
#include <setjmp.h>
static jmp_buf env;
static sigjmp_buf senv;
__attribute__((noinline)) static void fail(int how) {
  if (how == 0)
    longjmp(env, 1); /* BUG: return-before-csync */
  siglongjmp(senv, 1);
}
__attribute__((noinline)) static void work(const char *s) {
  char buf[65536];
  amemcpy(buf, s, sizeof buf);
  use((long)buf);
  fail(0);
}
__attribute__((noinline)) static void post(char *dst) {
  char msg[4096];
  memset(msg, 'm', sizeof msg);
  amemcpy(dst, msg, sizeof msg);
  fail(1);
}
__attribute__((noinline)) static long other(int k) {
  char tmp[65536];
  memset(tmp, k, sizeof tmp);
  use((long)tmp);
  return tmp[k];
}
int main(void) {
  char *s = filled(65536, 'a');
  if (setjmp(env) == 0)
    work(s);
  for (int i = 0; i < 4; i++)
    use(other(i));
  char *dst = malloc(4096);
  if (sigsetjmp(senv, 1) == 0)
    post(dst);
  for (int i = 0; i < 4; i++)
    use(other(i));
  csync_all();
  printf("%c\n", dst[0]);
  return 0;
}
