// A just-copied buffer that only goes to write/send and then dies (free,
// or the end of a local buffer's frame): the copy is submitted lazy
// (amemcpy_lazy, remark LazyCopy), the write reads the copy's source
// (copier_write), and the copy is dropped at the end (copier_drop), never
// run. A buffer read after the write keeps its eager copy and its csync.
// What arrives at the other end of the pipe is what the plain build sends.
// LIBS: -lpthread
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define N (256 << 10)
#define LOCAL (32 << 10)

static unsigned sum(const unsigned char *p, size_t n) {
  unsigned h = 0;
  for (size_t i = 0; i < n; i++) h = h * 31 + p[i];
  return h;
}

static void drain(int fd, unsigned char *got, size_t n) {
  size_t off = 0;
  while (off < n) {
    ssize_t r = read(fd, got + off, n - off);
    if (r <= 0) exit(3);
    off += (size_t)r;
  }
}

// lazy: the copy is dropped at the free
__attribute__((noinline)) int send_heap(int fd, const unsigned char *src, size_t n) {
  unsigned char *b = malloc(n);
  if (!b) return -1;
  memcpy(b, src, n);
  ssize_t r = write(fd, b, n);
  free(b);
  return r == (ssize_t)n ? 0 : -1;
}

// lazy: the copy is dropped at the end of the frame
__attribute__((noinline)) int send_local(int fd, const unsigned char *src) {
  unsigned char b[LOCAL];
  memcpy(b, src, LOCAL);
  return send(fd, b, LOCAL, 0) == LOCAL ? 0 : -1;
}

// eager: the buffer is read after the write
__attribute__((noinline)) int send_then_read(int fd, const unsigned char *src, size_t n) {
  unsigned char *b = malloc(n);
  if (!b) return -1;
  memcpy(b, src, n);
  ssize_t r = write(fd, b, n);
  int last = b[n - 1];
  free(b);
  return r == (ssize_t)n ? last : -1;
}

int main(void) {
  unsigned char *src = malloc(N), *got = malloc(N);
  int p[2], sv[2];
  if (!src || !got || pipe(p) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
  if (fcntl(p[1], F_SETPIPE_SZ, N) < N) return 2;
  int big = 1 << 20;
  setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  for (int round = 0; round < 8; round++) {
    for (size_t i = 0; i < N; i++) src[i] = (unsigned char)(i * 7 + (i >> 10) + round);
    int r = send_heap(p[1], src, N);
    drain(p[0], got, N);
    printf("heap %d: %d %08x\n", round, r, sum(got, N));
    r = send_local(sv[0], src + round);
    drain(sv[1], got, LOCAL);
    printf("local %d: %d %08x\n", round, r, sum(got, LOCAL));
    r = send_then_read(p[1], src, N - round);
    drain(p[0], got, N - round);
    printf("read %d: %d %08x\n", round, r, sum(got, N - round));
  }
  free(src), free(got);
  return 0;
}
