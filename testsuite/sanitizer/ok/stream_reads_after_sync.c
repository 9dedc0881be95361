// Stream and descriptor input into bytes that are no longer pending, in
// buffers whose unwritten tail still is: only what a call stores is
// checked (fgets/fgetws: the line and its NUL, not the n bytes it may
// use; fread/readv: the count returned, at end of file too; getline:
// its own buffer). None may report.
#define _GNU_SOURCE
#include "../common.h"
#include <sys/uio.h>
#include <unistd.h>
#include <wchar.h>
static FILE *lines(const char *text) {
  FILE *f = tmpfile();
  if (!f || write(fileno(f), text, strlen(text)) != (ssize_t)strlen(text) || lseek(fileno(f), 0, SEEK_SET))
    abort();
  return f;
}
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'q'), *dst = malloc(n);
  FILE *f = lines("one\ntwo\nthree\n");
  FILE *w = lines("wide\n");
  amemcpy(dst, src, n);
  csync(dst, 8192); /* bytes 8192.. stay pending */
  char *edge = dst + 8192 - 16;
  int good = fgets(edge, 64, f) && !strcmp(edge, "one\n"); /* may use 64, stores 5 */
  wchar_t *wedge = (wchar_t *)(dst + 8192 - 6 * sizeof(wchar_t));
  good &= fgetws(wedge, 32, w) && !wcscmp(wedge, L"wide\n");
  char *line = NULL;
  size_t cap = 0;
  good &= getline(&line, &cap, f) == 4 && !strcmp(line, "two\n");
  char *tail = dst + 8192 - 6;
  good &= fread(tail, 1, 100, f) == 6 && !memcmp(tail, "three\n", 6); /* short read at EOF */
  rewind(f);
  struct iovec iov[2] = {{dst + 4096, 14}, {dst + 8192, 100}}; /* the second stays unused */
  good &= readv(fileno(f), iov, 2) == 14;
  free(line);
  fclose(f);
  fclose(w);
  csync_all();
  free(src);
  free(dst);
  printf("%s\n", good ? "ok" : "wrong");
  return !good;
}
