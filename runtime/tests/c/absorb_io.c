/* The write/send family with absorption (copier_write, copier_writev,
 * copier_pwrite, copier_pwritev, copier_send, copier_sendto,
 * copier_sendmsg, copier_fwrite): the bytes the kernel receives are the
 * ones a csync would have left in the buffer, and return values and errno
 * are the plain call's, for pending, partially pending, chained and
 * handler copies, nothing pending, short writes to a pipe, EAGAIN on a full
 * non-blocking pipe and socket, EINTR, a bad fd, after fork and from
 * threads.
 * "strict" (run it under COPIER_OPTIONS=spawn=0, where a copy stays
 * pending until a wait executes it) also checks that the copies are still
 * pending after the call (the kernel read their sources: no csync) and
 * that their destinations were not written yet. Exit 0 on success. */
#define _GNU_SOURCE
#include <copier.h>
#include "check.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define N (64u << 10) /* above the default 16 KiB threshold */

static int strict;
static unsigned char *buf(unsigned char fill) {
  unsigned char *p = malloc(4 * N);
  if (!p)
    abort();
  memset(p, fill, 4 * N);
  return p;
}

/* A pipe whose capacity holds `cap` bytes. */
static void mkpipe(int p[2], int cap, int nonblock) {
  if (pipe2(p, nonblock ? O_NONBLOCK : 0) != 0)
    abort();
  if (cap && fcntl(p[1], F_SETPIPE_SZ, cap) < cap)
    abort();
}

/* Read exactly n bytes from fd (blocking). */
static void readn(int fd, unsigned char *out, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, out + got, n - got);
    if (r <= 0) {
      fprintf(stderr, "readn: %zd (%s)\n", r, strerror(errno));
      abort();
    }
    got += (size_t)r;
  }
}

/* The copy `h` is still pending (strict mode only). */
static void still_pending(copier_desc h, size_t n, const char *what) {
  if (strict)
    CHECK(h != 0 && copier_query(h, 0, n) == 0, "%s: copy no longer pending after the call (a csync ran?)", what);
}

/* Each entry point on a buffer written by one pending copy. */
static void each_entry_point(void) {
  unsigned char *src = buf(0), *dst = buf('x'), *got = buf(0), *plain = buf('p');
  pattern(src, N, 1);
  int p[2];
  mkpipe(p, 1 << 20, 0);

  /* write */
  copier_desc h = copier_submit(dst, src, N, 0, NULL, NULL);
  CHECK(copier_write(p[1], dst, N) == (ssize_t)N, "write");
  still_pending(h, N, "write");
  if (strict)
    CHECK(dst[0] == 'x' && dst[N - 1] == 'x', "write: destination written before its csync");
  readn(p[0], got, N);
  CHECK(memcmp(got, src, N) == 0, "write: wrong bytes");
  csync(dst, N);
  CHECK(memcmp(dst, src, N) == 0, "write: copy wrong after csync");

  /* writev: a pending buffer, a plain one, another pending one */
  unsigned char *dst2 = buf('y');
  pattern(src + N, N, 2);
  memset(dst, 'x', N);
  h = copier_submit(dst, src, N, 0, NULL, NULL);
  copier_desc h2 = copier_submit(dst2, src + N, N, 0, NULL, NULL);
  struct iovec iov[3] = {{dst, N}, {plain, 100}, {dst2, N}};
  CHECK(copier_writev(p[1], iov, 3) == (ssize_t)(2 * N + 100), "writev");
  still_pending(h, N, "writev");
  still_pending(h2, N, "writev");
  readn(p[0], got, 2 * N + 100);
  CHECK(memcmp(got, src, N) == 0 && memcmp(got + N, plain, 100) == 0 && memcmp(got + N + 100, src + N, N) == 0, "writev: wrong bytes");
  csync(dst, N);
  csync(dst2, N);

  /* send, sendto, sendmsg on a stream socketpair */
  int sv[2];
  big_socketpair(sv, 0, 4 << 20);
  memset(dst, 'x', N);
  h = copier_submit(dst, src, N, 0, NULL, NULL);
  CHECK(copier_send(sv[0], dst, N, MSG_NOSIGNAL) == (ssize_t)N, "send");
  still_pending(h, N, "send");
  readn(sv[1], got, N);
  CHECK(memcmp(got, src, N) == 0, "send: wrong bytes");
  csync(dst, N);
  memset(dst, 'x', N);
  h = copier_submit(dst, src, N, 0, NULL, NULL);
  CHECK(copier_sendto(sv[0], dst, N, 0, NULL, 0) == (ssize_t)N, "sendto");
  still_pending(h, N, "sendto");
  readn(sv[1], got, N);
  CHECK(memcmp(got, src, N) == 0, "sendto: wrong bytes");
  csync(dst, N);
  memset(dst, 'x', N);
  memset(dst2, 'y', N);
  h = copier_submit(dst, src, N, 0, NULL, NULL);
  h2 = copier_submit(dst2, src + N, N, 0, NULL, NULL);
  struct iovec mv[2] = {{dst2, N}, {dst, N}};
  struct msghdr m = {0};
  m.msg_iov = mv;
  m.msg_iovlen = 2;
  CHECK(copier_sendmsg(sv[0], &m, 0) == (ssize_t)(2 * N), "sendmsg");
  still_pending(h, N, "sendmsg");
  readn(sv[1], got, 2 * N);
  CHECK(memcmp(got, src + N, N) == 0 && memcmp(got + N, src, N) == 0, "sendmsg: wrong bytes");
  csync_all();

  /* pwrite, pwritev, fwrite to a file */
  FILE *f = tmpfile();
  int fd = fileno(f);
  memset(dst, 'x', N);
  h = copier_submit(dst, src, N, 0, NULL, NULL);
  CHECK(copier_pwrite(fd, dst, N, 4096) == (ssize_t)N, "pwrite");
  still_pending(h, N, "pwrite");
  CHECK(pread(fd, got, N, 4096) == (ssize_t)N && memcmp(got, src, N) == 0, "pwrite: wrong bytes");
  csync(dst, N);
  memset(dst, 'x', N);
  h = copier_submit(dst, src + N, N, 0, NULL, NULL);
  struct iovec pv[2] = {{plain, 10}, {dst, N}};
  CHECK(copier_pwritev(fd, pv, 2, 100) == (ssize_t)(N + 10), "pwritev");
  still_pending(h, N, "pwritev");
  CHECK(pread(fd, got, N + 10, 100) == (ssize_t)(N + 10) && memcmp(got, plain, 10) == 0 && memcmp(got + 10, src + N, N) == 0,
        "pwritev: wrong bytes");
  csync(dst, N);
  memset(dst, 'x', N);
  amemcpy(dst, src, N);
  rewind(f);
  CHECK(copier_fwrite(dst, 1, N, f) == N, "fwrite");
  CHECK(fflush(f) == 0, "fflush");
  CHECK(pread(fd, got, N, 0) == (ssize_t)N && memcmp(got, src, N) == 0, "fwrite: wrong bytes");
  CHECK(memcmp(dst, src, N) == 0, "fwrite: the copy is synced by copier_fwrite");
  fclose(f);
  close(sv[0]);
  close(sv[1]);
  close(p[0]);
  close(p[1]);
  free(src), free(dst), free(dst2), free(got), free(plain);
}

/* Only part of the buffer pending; a chain A->B->C; a copy with a
 * completion handler (waited for); nothing pending at all. */
static int handler_runs;
static void on_done(void *arg) {
  (void)arg;
  __atomic_add_fetch(&handler_runs, 1, __ATOMIC_RELAXED);
}

static void shapes(void) {
  unsigned char *a = buf(0), *b = buf('b'), *c = buf('c'), *got = buf(0), *want = buf(0);
  pattern(a, 2 * N, 3);
  int p[2];
  mkpipe(p, 1 << 20, 0);

  /* partially pending: bytes [N/2, N + N/2) of b from a */
  memset(b, 'b', 2 * N);
  copier_desc h = copier_submit(b + N / 2, a, N, 0, NULL, NULL);
  memcpy(want, b, 2 * N);
  memcpy(want + N / 2, a, N);
  CHECK(copier_write(p[1], b, 2 * N) == (ssize_t)(2 * N), "partial write");
  still_pending(h, N, "partial");
  readn(p[0], got, 2 * N);
  CHECK(memcmp(got, want, 2 * N) == 0, "partial: wrong bytes");
  csync_all();

  /* chain: a -> b pending, b -> c pending, write(c) */
  memset(b, 'b', 2 * N);
  memset(c, 'c', 2 * N);
  copier_desc h1 = copier_submit(b, a, N, 0, NULL, NULL);
  copier_desc h2 = copier_submit(c + 8, b, N, 0, NULL, NULL);
  memcpy(want, c, 2 * N);
  memcpy(want + 8, a, N);
  CHECK(copier_write(p[1], c, N + 64) == (ssize_t)(N + 64), "chain write");
  still_pending(h1, N, "chain (first)");
  still_pending(h2, N, "chain (second)");
  readn(p[0], got, N + 64);
  CHECK(memcmp(got, want, N + 64) == 0, "chain: wrong bytes");
  csync_all();
  CHECK(memcmp(c + 8, a, N) == 0, "chain: copies wrong after csync_all");

  /* a later copy overwrites the first copy's source before write(c): the
   * kernel must not read the source's new bytes */
  memset(b, 'b', 2 * N);
  memset(c, 'c', 2 * N);
  pattern(a, 2 * N, 4);
  copier_submit(b, a, N, 0, NULL, NULL);
  copier_submit(c, b, N, 0, NULL, NULL);
  memcpy(want, a, N);
  copier_submit(b, a + N, N, 0, NULL, NULL); /* b rewritten after c read it */
  CHECK(copier_write(p[1], c, N) == (ssize_t)N, "rewritten-source write");
  readn(p[0], got, N);
  CHECK(memcmp(got, want, N) == 0, "rewritten source: wrong bytes");
  csync_all();

  /* a copy with a completion handler is waited for, never absorbed */
  memset(b, 'b', 2 * N);
  handler_runs = 0;
  copier_submit(b, a, N, 0, on_done, NULL);
  CHECK(copier_write(p[1], b, N) == (ssize_t)N, "handler write");
  readn(p[0], got, N);
  CHECK(memcmp(got, a, N) == 0, "handler: wrong bytes");
  csync_all();
  CHECK(handler_runs == 1, "handler ran %d times", handler_runs);

  /* nothing pending: plain bytes, empty writes */
  CHECK(copier_write(p[1], a, 100) == 100, "plain write");
  readn(p[0], got, 100);
  CHECK(memcmp(got, a, 100) == 0, "plain: wrong bytes");
  CHECK(copier_write(p[1], a, 0) == 0, "empty write");
  struct iovec none[1] = {{a, 0}};
  CHECK(copier_writev(p[1], none, 1) == 0, "empty writev");
  close(p[0]);
  close(p[1]);
  free(a), free(b), free(c), free(got), free(want);
}

/* Short writes, EAGAIN, EBADF, EINVAL and errno on success, each compared
 * with the plain call on an identical descriptor. */
static void errors_and_short_writes(void) {
  unsigned char *src = buf(0), *dst = buf('x'), *got = buf(0);
  pattern(src, 4 * N, 5);
  /* short write: 256 KiB into an empty non-blocking pipe of 64 KiB */
  int p[2], q[2];
  mkpipe(p, 64 << 10, 1);
  mkpipe(q, 64 << 10, 1);
  copier_submit(dst, src, 4 * N, 0, NULL, NULL);
  ssize_t rp = write(q[1], src, 4 * N);
  ssize_t rc = copier_write(p[1], dst, 4 * N);
  CHECK(rp > 0 && rp < (ssize_t)(4 * N) && rc == rp, "short write: plain %zd, copier %zd", rp, rc);
  if (rc > 0) {
    readn(p[0], got, (size_t)rc);
    CHECK(memcmp(got, src, (size_t)rc) == 0, "short write: wrong bytes");
  }
  /* EAGAIN: the pipe is full again */
  while (write(p[1], src, 4096) > 0)
    ;
  errno = 0;
  rc = copier_write(p[1], dst, N);
  CHECK(rc == -1 && errno == EAGAIN, "full pipe: %zd errno %d", rc, errno);
  errno = 0;
  rc = copier_writev(p[1], (struct iovec[]){{dst, N}}, 1);
  CHECK(rc == -1 && errno == EAGAIN, "full pipe writev: %zd errno %d", rc, errno);
  /* EAGAIN on a full non-blocking socket, send and sendmsg */
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
    abort();
  while (send(sv[0], src, 4096, MSG_DONTWAIT) > 0)
    ;
  errno = 0;
  rc = copier_send(sv[0], dst, N, 0);
  CHECK(rc == -1 && errno == EAGAIN, "full socket send: %zd errno %d", rc, errno);
  struct iovec v = {dst, N};
  struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
  errno = 0;
  rc = copier_sendmsg(sv[0], &m, MSG_DONTWAIT);
  CHECK(rc == -1 && errno == EAGAIN, "full socket sendmsg: %zd errno %d", rc, errno);
  /* a bad fd, a non-socket, a non-seekable pwrite: errno as libc */
  errno = 0;
  rc = copier_write(-1, dst, N);
  CHECK(rc == -1 && errno == EBADF, "bad fd: %zd errno %d", rc, errno);
  errno = 0;
  rc = copier_send(p[1], dst, N, 0);
  CHECK(rc == -1 && errno == ENOTSOCK, "send on a pipe: %zd errno %d", rc, errno);
  errno = 0;
  rc = copier_pwrite(p[1], dst, N, 0);
  CHECK(rc == -1 && errno == ESPIPE, "pwrite on a pipe: %zd errno %d", rc, errno);
  errno = 0;
  rc = copier_writev(p[1], (struct iovec[]){{dst, N}}, -1);
  CHECK(rc == -1 && errno == EINVAL, "writev count -1: %zd errno %d", rc, errno);
  /* an unmapped iovec array or msghdr (a copy pending): EFAULT, as libc */
  void *hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (hole == MAP_FAILED)
    abort();
  errno = 0;
  rc = copier_writev(sv[1], hole, 1);
  CHECK(rc == -1 && errno == EFAULT, "writev, unmapped iovec array: %zd errno %d", rc, errno);
  errno = 0;
  rc = copier_pwritev(p[1], hole, 1, 0);
  CHECK(rc == -1 && (errno == EFAULT || errno == ESPIPE), "pwritev, unmapped iovec array: %zd errno %d", rc, errno);
  errno = 0;
  rc = copier_sendmsg(sv[1], hole, MSG_DONTWAIT);
  CHECK(rc == -1 && errno == EFAULT, "sendmsg, unmapped msghdr: %zd errno %d", rc, errno);
  struct msghdr mh = {.msg_iov = hole, .msg_iovlen = 1};
  errno = 0;
  rc = copier_sendmsg(sv[1], &mh, MSG_DONTWAIT);
  CHECK(rc == -1 && errno == EFAULT, "sendmsg, unmapped msg_iov: %zd errno %d", rc, errno);
  munmap(hole, 4096);
  /* errno untouched on success */
  int r2[2];
  mkpipe(r2, 1 << 20, 0);
  errno = 4321;
  rc = copier_write(r2[1], dst, N);
  CHECK(rc == (ssize_t)N && errno == 4321, "errno changed on success: %d", errno);
  readn(r2[0], got, N);
  CHECK(memcmp(got, src, N) == 0, "success: wrong bytes");
  csync_all();
  close(p[0]), close(p[1]), close(q[0]), close(q[1]), close(sv[0]), close(sv[1]), close(r2[0]), close(r2[1]);
  free(src), free(dst), free(got);
}

/* EINTR: a blocking write into a full pipe, interrupted by a signal whose
 * handler does not restart it (nothing written: -1, EINTR). */
static void on_alarm(int sig) { (void)sig; }

static void eintr(void) {
  unsigned char *src = buf(0), *dst = buf('x');
  pattern(src, N, 6);
  int p[2];
  mkpipe(p, 64 << 10, 0);
  fcntl(p[1], F_SETFL, O_NONBLOCK);
  while (write(p[1], src, 4096) > 0)
    ;
  fcntl(p[1], F_SETFL, 0);
  struct sigaction sa = {0}, old;
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, &old);
  struct itimerval it = {{0, 20000}, {0, 20000}}, off = {{0, 0}, {0, 0}};
  copier_submit(dst, src, N, 0, NULL, NULL);
  setitimer(ITIMER_REAL, &it, NULL);
  errno = 0;
  ssize_t rc = copier_write(p[1], dst, N);
  int e = errno;
  setitimer(ITIMER_REAL, &off, NULL);
  sigaction(SIGALRM, &old, NULL);
  CHECK(rc == -1 && e == EINTR, "interrupted write: %zd errno %d", rc, e);
  csync_all();
  close(p[0]), close(p[1]);
  free(src), free(dst);
}

/* fork with a copy pending: the child's and the parent's writes both carry
 * the copy's bytes. */
static void forked(void) {
  unsigned char *src = buf(0), *dst = buf('x'), *got = buf(0);
  pattern(src, N, 7);
  int p[2];
  mkpipe(p, 1 << 20, 0);
  copier_submit(dst, src, N, 0, NULL, NULL);
  pid_t pid = fork();
  if (pid == 0) {
    _exit(copier_write(p[1], dst, N) == (ssize_t)N ? 0 : 1);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child write failed");
  readn(p[0], got, N);
  CHECK(memcmp(got, src, N) == 0, "child: wrong bytes");
  memset(dst, 'x', N);
  copier_submit(dst, src, N, 0, NULL, NULL);
  CHECK(copier_write(p[1], dst, N) == (ssize_t)N, "parent write");
  readn(p[0], got, N);
  CHECK(memcmp(got, src, N) == 0, "parent: wrong bytes");
  csync_all();
  close(p[0]), close(p[1]);
  free(src), free(dst), free(got);
}

/* Threads, each copying into its own buffers and sending them (chained
 * copies too) over its own socketpair, checking what arrives. */
struct worker {
  int id, bad;
};

static void *work(void *arg) {
  struct worker *w = arg;
  unsigned char *src = buf(0), *mid = buf(0), *dst = buf(0), *got = buf(0);
  int sv[2];
  big_socketpair(sv, 0, 1 << 20);
  for (unsigned k = 0; k < 64; k++) {
    pattern(src, N, (unsigned)w->id * 1000 + k);
    amemcpy(mid, src, N);
    amemcpy(dst, mid, N);
    ssize_t r = (k & 1) ? copier_send(sv[0], dst, N, 0) : copier_write(sv[0], dst, N);
    if (r != (ssize_t)N) {
      w->bad++;
      break;
    }
    readn(sv[1], got, N);
    if (memcmp(got, src, N) != 0)
      w->bad++;
    csync(dst, N);
    csync(mid, N);
  }
  close(sv[0]), close(sv[1]);
  free(src), free(mid), free(dst), free(got);
  return NULL;
}

static void threads(void) {
  enum { T = 4 };
  pthread_t t[T];
  struct worker w[T];
  for (int i = 0; i < T; i++) {
    w[i] = (struct worker){i, 0};
    pthread_create(&t[i], NULL, work, &w[i]);
  }
  for (int i = 0; i < T; i++) {
    pthread_join(t[i], NULL);
    CHECK(w[i].bad == 0, "thread %d: %d bad rounds", i, w[i].bad);
  }
}

int main(int argc, char **argv) {
  strict = argc > 1 && !strcmp(argv[1], "strict");
  signal(SIGPIPE, SIG_IGN);
  /* before any copy: the fast path */
  int p[2];
  mkpipe(p, 0, 0);
  CHECK(copier_write(p[1], "abc", 3) == 3, "first write");
  close(p[0]), close(p[1]);
  each_entry_point();
  shapes();
  errors_and_short_writes();
  eintr();
  forked();
  threads();
  if (failures == 0)
    printf("absorb_io: all cases passed%s\n", strict ? " (strict)" : "");
  return failures != 0;
}
