// A just-copied buffer handed to write, writev and send: each call becomes
// the runtime's absorbing entry point (copier_write, copier_writev,
// copier_send) instead of a csync and the call; the copy stays pending, so
// the later read of the destination still gets its csync. What arrives at
// the other end of the pipe and the socket is what the plain build sends.
// LIBS: -lpthread
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define N 40000

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

__attribute__((noinline)) int relay(int fd, unsigned char *dst, const unsigned char *src, size_t n) {
  memcpy(dst, src, n);
  if (write(fd, dst, n) != (ssize_t)n) return -1;
  return dst[n / 2]; // read after the write: needs its csync
}

__attribute__((noinline)) int relay_v(int fd, unsigned char *hdr, unsigned char *dst, const unsigned char *src, size_t n) {
  memcpy(dst, src, n);
  struct iovec v[2] = {{hdr, 16}, {dst, n}};
  if (writev(fd, v, 2) != (ssize_t)(n + 16)) return -1;
  return dst[7];
}

__attribute__((noinline)) int relay_chain(int fd, unsigned char *mid, unsigned char *dst, const unsigned char *src, size_t n) {
  memcpy(mid, src, n);
  memcpy(dst, mid, n);
  if (send(fd, dst, n, 0) != (ssize_t)n) return -1;
  return dst[n - 1] + mid[0];
}

int main(void) {
  unsigned char *src = malloc(N), *dst = malloc(N), *mid = malloc(N), *got = malloc(N + 16), hdr[16];
  for (size_t i = 0; i < N; i++) src[i] = (unsigned char)(i * 7 + (i >> 10));
  memset(hdr, 'h', sizeof hdr);
  memset(dst, 'x', N);
  int p[2];
  if (pipe(p) != 0) return 1;
  int r = relay(p[1], dst, src, N);
  drain(p[0], got, N);
  printf("write: %d %08x\n", r, sum(got, N));
  memset(dst, 'y', N);
  r = relay_v(p[1], hdr, dst, src, N - 100);
  drain(p[0], got, N - 100 + 16);
  printf("writev: %d %08x\n", r, sum(got, N - 100 + 16));
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
  int big = 1 << 20;
  setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  memset(dst, 'z', N);
  r = relay_chain(sv[0], mid, dst, src, N);
  drain(sv[1], got, N);
  printf("send: %d %08x\n", r, sum(got, N));
  free(src), free(dst), free(mid), free(got);
  return 0;
}
