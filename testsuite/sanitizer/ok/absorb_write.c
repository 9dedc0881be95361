// A pending destination handed to the absorbing write/send family
// (copier_write, copier_writev, copier_send, copier_sendmsg): the kernel
// reads the copy's source, which is allowed; the copy stays pending, and
// the later read of the destination comes after its csync.
#include "../common.h"
#include <copier.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n), *got = malloc(2 * n);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
    return 2;
  int big = 1 << 20;
  setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  amemcpy(dst, src, n);
  long sent = copier_write(sv[0], dst, n);
  struct iovec v[2] = {{dst, n / 2}, {dst + n / 2, n / 2}};
  sent += copier_writev(sv[0], v, 2);
  sent += copier_send(sv[0], dst, 100, 0);
  struct msghdr m = {0};
  m.msg_iov = v;
  m.msg_iovlen = 1;
  sent += copier_sendmsg(sv[0], &m, 0);
  size_t want = 2 * n + 100 + n / 2, off = 0;
  long sum = 0;
  while (off < want) {
    ssize_t r = read(sv[1], got, want - off > 2 * n ? 2 * n : want - off);
    if (r <= 0)
      return 3;
    for (ssize_t i = 0; i < r; i++)
      sum += got[i];
    off += (size_t)r;
  }
  csync(dst, n);
  printf("%ld %ld %d\n", sent, sum, dst[n - 1]);
  free(got);
  free(dst);
  free(src);
  return 0;
}
