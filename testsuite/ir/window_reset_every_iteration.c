// CFLAGS: -O2
// copy_parse's shape: read(2) into a receive buffer, copy it to a message
// buffer, parse the message. The read writes the copy's source, so it
// waits for the previous iteration's copy; the window it could cache is
// reset by the copy that follows on every path, so the pass emits a plain
// csync there: no inline check against an always-empty window, no
// csync_ready_end whose result nobody reads.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 20000

__attribute__((noinline)) long pump(int fd, char *io, char *msg) {
  long lines = 0, sum = 0;
  for (;;) {
    ssize_t n = read(fd, io, CHUNK);
    if (n <= 0)
      break;
    memcpy(msg, io, (size_t)n);
    for (ssize_t i = 0; i < n; i++) {
      lines += msg[i] == '\n';
      sum = sum * 31 + msg[i];
    }
  }
  return lines * 1000003 + sum;
}

int main(void) {
  FILE *f = tmpfile();
  if (!f)
    return 1;
  for (int i = 0; i < 9000; i++)
    fprintf(f, "line %d: %x\n", i, i * 2654435761u);
  fflush(f);
  rewind(f);
  char *io = malloc(CHUNK), *msg = malloc(CHUNK);
  printf("%ld\n", pump(fileno(f), io, msg));
  free(io);
  free(msg);
  fclose(f);
  return 0;
}
