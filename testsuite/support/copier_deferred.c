/*
 * copier_deferred.c - an adversarial stand-in for libcopier, for tests.
 *
 * Same C entry points as runtime/include/copier.h (amemcpy, amemmove,
 * amemcpy_lazy, copier_drop, csync, csync_all, csync_ready_end; defined
 * under their reserved symbols, __copier_csync, ..., with the public
 * names as weak aliases, as libcopier has them), but a
 * copy is NOT performed when it is submitted: it waits in a FIFO until a
 * sync needs it. csync(addr, n) performs, in submission order, every
 * pending copy up to the last one whose destination or source overlaps
 * [addr, addr + n). So a program rewritten by
 * CopierGen prints the same output as its plain build only if every access
 * that needs a copy's bytes is preceded by a sync covering it: a missing sync
 * reads the old destination bytes, or lets a later write of the source leak
 * into the copy. free/realloc of a buffer with a pending copy, and copies
 * still pending at exit, abort with a message.
 *
 * COPIER_DEFERRED_STATS=1 prints "copier-deferred: submitted=N ... dropped=N" to stderr
 * at exit. COPIER_DEFERRED_WINDOW=exact makes csync_ready_end(addr, n) return
 * exactly addr + n (the sanitizer's contract), so cached windows miss as
 * often as possible. __copier_pending (the pending word compiled code reads
 * before its guards) is 1 while a copy is queued, 0 otherwise;
 * COPIER_DEFERRED_PENDING=always keeps it 1, so every guard calls in.
 * Thread-safe (one global queue under a mutex): a csync on another
 * thread performs the copies it needs, as the real service would.
 * copier_write, copier_writev, copier_pwrite, copier_pwritev, copier_send,
 * copier_sendto and copier_sendmsg hand the kernel the bytes a csync would
 * leave in their buffers, computed from the queue without running a copy
 * (the copies stay pending, as with libcopier's absorption); the iovec
 * array, msghdr and address they read in place are synced first.
 * copier_fwrite syncs its buffer, then calls fwrite.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define QUEUE_CAP 4096

struct task {
  char *dst;
  const char *src;
  size_t n;
  int move;
  int lazy;
};

static struct task queue[QUEUE_CAP];
static size_t head, tail; /* pending tasks are queue[head..tail) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long submitted, executed, syncs, window_calls, dropped;
static int stats_registered;
size_t __copier_pending;

static void publish_pending(void) { /* lock held */
  static int always = -1;
  if (always < 0) {
    const char *p = getenv("COPIER_DEFERRED_PENDING");
    always = p && !strcmp(p, "always");
  }
  __atomic_store_n(&__copier_pending, (size_t)(always || tail > head),
                   __ATOMIC_RELEASE);
}

extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);

static int overlaps(const char *a, size_t an, const char *b, size_t bn) {
  return an && bn && a < b + bn && b < a + an;
}

static void run_until(size_t last) { /* lock held; runs queue[head..last] */
  for (; head <= last; head++) {
    struct task *t = &queue[head];
    memmove(t->dst, t->src, t->n); /* memcpy ranges never overlap */
    executed++;
  }
  if (head == tail)
    head = tail = 0;
  publish_pending();
}

static void sync_range(const char *a, size_t n) { /* lock held */
  size_t last = SIZE_MAX;
  for (size_t i = head; i < tail; i++)
    if (overlaps(queue[i].dst, queue[i].n, a, n) ||
        overlaps(queue[i].src, queue[i].n, a, n))
      last = i;
  if (last != SIZE_MAX)
    run_until(last);
}

static void report(void) {
  if (tail > head) {
    fprintf(stderr, "copier-deferred: %zu copies still pending at exit\n",
            tail - head);
    _Exit(97);
  }
  const char *s = getenv("COPIER_DEFERRED_STATS");
  if (s && *s == '1')
    fprintf(stderr,
            "copier-deferred: submitted=%lu executed=%lu syncs=%lu "
            "window_calls=%lu dropped=%lu\n",
            submitted, executed, syncs, window_calls, dropped);
}

static void *submit(void *dst, const void *src, size_t n, int move, int lazy) {
  pthread_mutex_lock(&lock);
  if (!stats_registered) {
    stats_registered = 1;
    atexit(report);
  }
  submitted++;
  if (n) {
    if (tail == QUEUE_CAP)
      run_until(tail - 1);
    queue[tail++] = (struct task){dst, src, n, move, lazy};
  }
  publish_pending();
  pthread_mutex_unlock(&lock);
  return dst;
}

void *__copier_amemcpy(void *dst, const void *src, size_t n) {
  return submit(dst, src, n, 0, 0);
}

void *__copier_amemmove(void *dst, const void *src, size_t n) {
  return submit(dst, src, n, 1, 0);
}

/* CopierGen's per-site entry points: the site (its state stays 0,
 * "learning", so the compiled code never takes its inline path) is
 * ignored. */
void *__copier_amemcpy_site(void *dst, const void *src, size_t n, void *site) {
  (void)site;
  return submit(dst, src, n, 0, 0);
}

void *__copier_amemmove_site(void *dst, const void *src, size_t n, void *site) {
  (void)site;
  return submit(dst, src, n, 1, 0);
}

void *__copier_amemcpy_lazy(void *dst, const void *src, size_t n) {
  return submit(dst, src, n, 0, 1);
}

/* copier_drop: a pending lazy copy whose destination lies in [addr, addr +
 * n) and that no later pending copy touches is dropped (never performed:
 * its destination keeps its old bytes, so a read the program still makes
 * shows); then as csync. */
void __copier_drop(const void *addr, size_t n) {
  const char *a = addr;
  pthread_mutex_lock(&lock);
  syncs++;
  for (size_t i = head; i < tail; i++) {
    struct task *t = &queue[i];
    if (!t->lazy || !t->n || t->dst < a || t->dst + t->n > a + n)
      continue;
    int touched = 0;
    for (size_t j = i + 1; j < tail; j++)
      touched |= overlaps(queue[j].src, queue[j].n, t->dst, t->n) ||
                 overlaps(queue[j].dst, queue[j].n, t->dst, t->n);
    if (!touched) {
      t->n = 0;
      dropped++;
    }
  }
  sync_range(a, n);
  pthread_mutex_unlock(&lock);
}

void __copier_csync(const void *addr, size_t n) {
  pthread_mutex_lock(&lock);
  syncs++;
  sync_range(addr, n);
  pthread_mutex_unlock(&lock);
}

void __copier_csync_all(void) {
  pthread_mutex_lock(&lock);
  syncs++;
  if (tail > head)
    run_until(tail - 1);
  pthread_mutex_unlock(&lock);
}

/* Waits like csync, then returns the end of the largest window [addr, end)
 * no pending copy touches (capped at 1 MiB past addr + n), or addr + n in
 * exact mode. */
const void *__copier_csync_ready_end(const void *addr, size_t n) {
  const char *a = addr;
  static int exact = -1;
  pthread_mutex_lock(&lock);
  if (exact < 0) {
    const char *w = getenv("COPIER_DEFERRED_WINDOW");
    exact = w && strcmp(w, "exact") == 0;
  }
  window_calls++;
  sync_range(a, n);
  uintptr_t end = (uintptr_t)a + n + (exact ? 0 : (1u << 20));
  for (size_t i = head; i < tail; i++) {
    uintptr_t starts[2] = {(uintptr_t)queue[i].dst, (uintptr_t)queue[i].src};
    for (int k = 0; k < 2; k++)
      if (starts[k] >= (uintptr_t)a + n && starts[k] < end)
        end = starts[k];
  }
  pthread_mutex_unlock(&lock);
  return (const void *)end;
}

static void check_release(void *p, const char *what) {
  if (!p)
    return;
  size_t size = malloc_usable_size(p);
  pthread_mutex_lock(&lock);
  for (size_t i = head; i < tail; i++)
    if (overlaps(queue[i].dst, queue[i].n, p, size) ||
        overlaps(queue[i].src, queue[i].n, p, size)) {
      fprintf(stderr, "copier-deferred: %s of %p with a pending copy\n", what,
              p);
      _Exit(98);
    }
  pthread_mutex_unlock(&lock);
}

void free(void *p) {
  check_release(p, "free");
  __libc_free(p);
}

void *realloc(void *p, size_t n) {
  check_release(p, "realloc");
  return __libc_realloc(p, n);
}

/* The bytes [a, a + n) as they would be once the pending copies
 * queue[head..upto) ran, into out (lock held): the current bytes, then each
 * overlapping copy in order with its source as it would be just before it. */
static void read_as_synced(char *out, const char *a, size_t n, size_t upto) {
  memcpy(out, a, n);
  for (size_t i = head; i < upto; i++) {
    struct task *t = &queue[i];
    if (!overlaps(t->dst, t->n, a, n))
      continue;
    const char *lo = t->dst > a ? t->dst : a;
    const char *hi = t->dst + t->n < a + n ? t->dst + t->n : a + n;
    read_as_synced(out + (lo - a), t->src + (lo - t->dst), (size_t)(hi - lo), i);
  }
}

/* Copies of the buffers of iov[0..cnt) as a csync would leave them (lock
 * held), in fresh iovecs; the caller frees both with free_snapshot. */
static struct iovec *snapshot(const struct iovec *iov, int cnt) {
  struct iovec *v = calloc((size_t)(cnt > 0 ? cnt : 1), sizeof *v);
  for (int i = 0; i < cnt; i++) {
    v[i].iov_len = iov[i].iov_len;
    v[i].iov_base = malloc(iov[i].iov_len ? iov[i].iov_len : 1);
    read_as_synced(v[i].iov_base, iov[i].iov_base, iov[i].iov_len, tail);
  }
  return v;
}

static void free_snapshot(struct iovec *v, int cnt) {
  for (int i = 0; i < cnt; i++)
    __libc_free(v[i].iov_base);
  __libc_free(v);
}

#define ABSORBED(call_on_v, cnt)                                               \
  do {                                                                         \
    pthread_mutex_lock(&lock);                                                 \
    struct iovec *v = snapshot(iov, cnt);                                      \
    pthread_mutex_unlock(&lock);                                               \
    ssize_t r = call_on_v;                                                     \
    int e = errno;                                                             \
    free_snapshot(v, cnt);                                                     \
    errno = e;                                                                 \
    return r;                                                                  \
  } while (0)

ssize_t __copier_writev(int fd, const struct iovec *iov, int cnt) {
  if (cnt <= 0 || cnt > 1024)
    return writev(fd, iov, cnt);
  __copier_csync(iov, (size_t)cnt * sizeof *iov);
  ABSORBED(writev(fd, v, cnt), cnt);
}

ssize_t __copier_pwritev(int fd, const struct iovec *iov, int cnt, off_t off) {
  if (cnt <= 0 || cnt > 1024)
    return pwritev(fd, iov, cnt, off);
  __copier_csync(iov, (size_t)cnt * sizeof *iov);
  ABSORBED(pwritev(fd, v, cnt, off), cnt);
}

ssize_t __copier_write(int fd, const void *buf, size_t n) {
  struct iovec iov[1] = {{(void *)buf, n}};
  ABSORBED(write(fd, v[0].iov_base, n), 1);
}

ssize_t __copier_pwrite(int fd, const void *buf, size_t n, off_t off) {
  struct iovec iov[1] = {{(void *)buf, n}};
  ABSORBED(pwrite(fd, v[0].iov_base, n, off), 1);
}

ssize_t __copier_send(int fd, const void *buf, size_t n, int flags) {
  struct iovec iov[1] = {{(void *)buf, n}};
  ABSORBED(send(fd, v[0].iov_base, n, flags), 1);
}

ssize_t __copier_sendto(int fd, const void *buf, size_t n, int flags,
                      const struct sockaddr *to, socklen_t tolen) {
  struct iovec iov[1] = {{(void *)buf, n}};
  if (to)
    __copier_csync(to, tolen);
  ABSORBED(sendto(fd, v[0].iov_base, n, flags, to, tolen), 1);
}

ssize_t __copier_sendmsg(int fd, const struct msghdr *msg, int flags) {
  __copier_csync(msg, sizeof *msg);
  if (msg->msg_iovlen > 1024)
    return sendmsg(fd, msg, flags);
  __copier_csync(msg->msg_iov, msg->msg_iovlen * sizeof(struct iovec));
  __copier_csync(msg->msg_name, msg->msg_namelen);
  __copier_csync(msg->msg_control, msg->msg_controllen);
  const struct iovec *iov = msg->msg_iov;
  struct msghdr m = *msg;
  int cnt = (int)msg->msg_iovlen;
  ABSORBED((m.msg_iov = v, sendmsg(fd, &m, flags)), cnt);
}

size_t __copier_fwrite(const void *buf, size_t size, size_t n, FILE *f) {
  __copier_csync(buf, size * n);
  return fwrite(buf, size, n, f);
}

/* The public names, as libcopier has them: weak aliases of the reserved
 * symbols, which the pass calls. */
__typeof__(__copier_amemcpy) amemcpy __attribute__((weak, alias("__copier_amemcpy")));
__typeof__(__copier_amemmove) amemmove __attribute__((weak, alias("__copier_amemmove")));
__typeof__(__copier_amemcpy_lazy) amemcpy_lazy __attribute__((weak, alias("__copier_amemcpy_lazy")));
__typeof__(__copier_drop) copier_drop __attribute__((weak, alias("__copier_drop")));
__typeof__(__copier_csync) csync __attribute__((weak, alias("__copier_csync")));
__typeof__(__copier_csync_all) csync_all __attribute__((weak, alias("__copier_csync_all")));
__typeof__(__copier_csync_ready_end) csync_ready_end __attribute__((weak, alias("__copier_csync_ready_end")));
__typeof__(__copier_writev) copier_writev __attribute__((weak, alias("__copier_writev")));
__typeof__(__copier_pwritev) copier_pwritev __attribute__((weak, alias("__copier_pwritev")));
__typeof__(__copier_write) copier_write __attribute__((weak, alias("__copier_write")));
__typeof__(__copier_pwrite) copier_pwrite __attribute__((weak, alias("__copier_pwrite")));
__typeof__(__copier_send) copier_send __attribute__((weak, alias("__copier_send")));
__typeof__(__copier_sendto) copier_sendto __attribute__((weak, alias("__copier_sendto")));
__typeof__(__copier_sendmsg) copier_sendmsg __attribute__((weak, alias("__copier_sendmsg")));
__typeof__(__copier_fwrite) copier_fwrite __attribute__((weak, alias("__copier_fwrite")));
