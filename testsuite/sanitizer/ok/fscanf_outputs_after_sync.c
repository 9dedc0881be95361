// Stream scanf outputs stored into bytes that are no longer pending, right
// before bytes that still are: each output is checked over exactly what
// it stored (%5s: "hello" and its NUL; %2c: 2 bytes; %d: 4; %n: 4), and
// conversions that did not happen (the %d after a matching failure) store
// nothing, even into pending bytes. None may report.
#include "../common.h"
#include <unistd.h>
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'q'), *dst = malloc(n);
  char path[] = "/tmp/copier-san-fscanf-ok-XXXXXX";
  int fd = mkstemp(path);
  const char *text = "helloworld 12 ab; 34";
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
    abort();
  close(fd);
  FILE *f = fopen(path, "r");
  amemcpy(dst, src, n);
  csync(dst, 8192); /* bytes 8192.. stay pending */
  char *edge = dst + 8192;
  int r = fscanf(f, "%5s", edge - 6); /* "hello" and NUL end at the edge */
  int good = r == 1 && !strcmp(edge - 6, "hello");
  r = fscanf(f, "%*s %d%n", (int *)(edge - 8), (int *)(edge - 4)); /* 12, 8 (this call) */
  good &= r == 1 && *(int *)(edge - 8) == 12 && *(int *)(edge - 4) == 8;
  r = fscanf(f, " %2c", edge - 2); /* "ab" */
  good &= r == 1 && !memcmp(edge - 2, "ab", 2);
  r = fscanf(f, "%d", (int *)edge); /* ";": fails, stores nothing */
  good &= r == 0;
  fclose(f);
  unlink(path);
  csync_all();
  free(src);
  free(dst);
  printf("%s\n", good ? "ok" : "wrong");
  return !good;
}
