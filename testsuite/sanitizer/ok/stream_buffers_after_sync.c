// Buffers handed to a stream after their csync (the other bytes of the
// copy still pending): fmemopen over exactly the synced bytes, read and
// written; a setvbuf buffer and an open_memstream slot in the synced part.
// None may report.
#define _GNU_SOURCE
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'q'), *dst = malloc(n);
  strcpy(src, "line one\nline two\n");
  amemcpy(dst, src, n);
  csync(dst, 8192); /* bytes 8192.. stay pending */
  FILE *f = fmemopen(dst, 4096, "r");
  char line[64];
  int lines = 0;
  while (f && fgets(line, sizeof line, f) && lines < 2)
    lines++;
  FILE *w = fmemopen(dst + 4096, 4096, "w+");
  fputs("written", w);
  FILE *d = fopen("/dev/null", "w");
  setvbuf(d, dst + 6144, _IOFBF, 1024);
  fputs("buffered", d);
  char **slot = (char **)(dst + 8184);
  size_t len = 0;
  FILE *m = open_memstream(slot, &len);
  fputs("memstream", m);
  fclose(m);
  fclose(d);
  fclose(w);
  fclose(f);
  printf("%d %s %zu %s\n", lines, dst + 4096, len, *slot);
  int good = lines == 2 && !strcmp(dst + 4096, "written") && len == 9 && !strcmp(*slot, "memstream");
  free(*slot);
  csync_all();
  free(src);
  free(dst);
  return !good;
}
