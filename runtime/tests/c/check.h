/* What libcopier's C tests share: a CHECK that counts failures and goes on
 * (the test's main returns `failures != 0`), the byte pattern the tests copy,
 * and a stream socketpair with room for `bytes` in flight. */
#ifndef COPIER_TESTS_CHECK_H
#define COPIER_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

static int failures;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: ", __func__, __LINE__);                          \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      failures++;                                                              \
    }                                                                          \
  } while (0)

/* `n` bytes of a pattern that differs per `seed` and per 512-byte block. */
static inline void pattern(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)(i * 131 + seed * 7 + (i >> 9));
}

/* An AF_UNIX stream socketpair (`flags` such as SOCK_NONBLOCK added)
 * whose send and receive buffers hold `bytes`; aborts when it cannot. */
static inline void big_socketpair(int sv[2], int flags, int bytes) {
  if (socketpair(AF_UNIX, SOCK_STREAM | flags, 0, sv) != 0)
    abort();
  setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
  setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
}

#endif
