// SPDX-License-Identifier: GPL-2.0 OR Apache-2.0
/*
 * The DMA path and the ATCache, through /dev/copier:
 *
 *   t_dma dma     a DMA_MEMCPY channel is in use: bytes_dma must grow
 *   t_dma nodma   DMA is off (no channel, or dma=0): bytes_dma stays 0
 *
 * Cases:
 * - differential copies over huge-page-backed buffers (physically
 *   contiguous runs long enough for DMA) with random sizes and offsets,
 *   checked against memcpy;
 * - dependent chains in one round (a CPU copy, a DMA copy that reads it, CPU
 *   copies that read the DMA's bytes): ring order holds across engines;
 * - ATCache: copies that reuse buffers hit the cache; a munmap + mmap at
 *   the same address (destination, then source) and an mremap are seen:
 *   the copy lands in the new mapping and reads the new source, and the
 *   notifier's invalidations are counted;
 * - DMA addresses of cached pages: a DMA copy repeated between the same
 *   buffers finds its pages mapped for the channel's device (atc_dma_hits)
 *   and maps nothing new; without DMA neither counter moves;
 * - cached pins are charged to VmPin (the mm's pinned_vm); a client opened
 *   without CAP_IPC_LOCK under a small RLIMIT_MEMLOCK caches at most that
 *   much and copies everything else with per-copy pins, and with a limit
 *   of 0 caches nothing.
 */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "copier_user.h"
#include "vmtest.h"

#define AREA (4u << 20)
#define HUGE (2u << 20)
#define INFLIGHT 32

static unsigned long long seed = 0x243f6a8885a308d3ULL;

/* AREA bytes, 2 MiB aligned, so that THP backs them with contiguous pages. */
static unsigned char *map_huge(void)
{
	unsigned char *p = mmap(NULL, AREA + HUGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	a = ((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	munmap((void *)(a + AREA), (uintptr_t)p + HUGE - a);
	madvise((void *)a, AREA, MADV_HUGEPAGE);
	memset((void *)a, 0, AREA);
	return (unsigned char *)a;
}

static struct copier_stats stats(struct cu_client *c)
{
	struct copier_stats s;

	memset(&s, 0, sizeof(s));
	CHECK(ioctl(c->fd, COPIER_IOC_STATS, &s) == 0, "COPIER_IOC_STATS");
	return s;
}

static int64_t submit_retry(struct cu_client *c, void *d, const void *s, size_t n)
{
	int64_t pos = cu_submit_retry(c, d, s, n, 0);

	CHECK(pos >= 0, "submit");
	return pos;
}

/* One copy, waited for; the service (not the waiter) must have done it. */
static void copy_sync(struct cu_client *c, void *d, const void *s, size_t n)
{
	CHECK(cu_wait(c, submit_retry(c, d, s, n)) == 0, "copy re-executed by the waiter");
}

static size_t rand_len(void)
{
	unsigned long long r = vmtest_rand(&seed);

	switch (r % 4) {
	case 0: return r >> 8 & 4095;
	case 1: return (r >> 8 & 65535) + 1;
	default: return (r >> 8) % (1u << 20) + 1;
	}
}

static void differential(struct cu_client *c, unsigned char *src, unsigned char *dst,
			 unsigned char *ref, int rounds)
{
	for (size_t i = 0; i < AREA; i += 8) {
		unsigned long long v = vmtest_rand(&seed);

		memcpy(src + i, &v, 8);
	}
	for (int r = 0; r < rounds; r++) {
		int64_t pos[INFLIGHT];
		size_t off = 0;
		int n = 0;

		memset(dst, 0x5a, AREA);
		memset(ref, 0x5a, AREA);
		while (n < INFLIGHT) {
			size_t len = rand_len();
			size_t doff = off + (vmtest_rand(&seed) & 255);
			size_t soff = vmtest_rand(&seed) % (AREA - len);

			if (doff + len > AREA)
				break;
			memcpy(ref + doff, src + soff, len);
			pos[n++] = submit_retry(c, dst + doff, src + soff, len);
			off = doff + len;
		}
		for (int k = n - 1; k >= 0; k--)
			CHECK(cu_wait(c, pos[k]) == 0, "task %d re-executed", k);
		CHECK(memcmp(dst, ref, AREA) == 0, "round %d differs from memcpy", r);
	}
}

/*
 * One round's worth, all in flight at once: t -> x head (short: CPU), then
 * x -> y (long: DMA, reads what the CPU writes), y tail -> z and z -> w
 * (short: CPU, read what the DMA writes). The dispatcher submits DMA
 * before it runs CPU pieces, so only its conflict check keeps this order.
 */
static void chains(struct cu_client *c, unsigned char *a, unsigned char *b)
{
	const size_t big = 64 << 10, small = 3000;
	unsigned char *x = a, *t = a + (2u << 20), *y = b, *z = b + (1u << 20), *w = a + (1u << 20);

	for (int rep = 0; rep < 32; rep++) {
		unsigned char head = (unsigned char)(100 + rep), body = (unsigned char)(rep + 1);
		int64_t p[4];

		memset(x, body, big);
		memset(t, head, small);
		memset(y, 0, big);
		memset(z, 0, small);
		memset(w, 0, small);
		p[0] = submit_retry(c, x, t, small);
		p[1] = submit_retry(c, y, x, big);
		p[2] = submit_retry(c, z, y + big - small, small);
		p[3] = submit_retry(c, w, z, small);
		for (int k = 3; k >= 0; k--)
			cu_wait(c, p[k]);
		CHECK(y[0] == head && y[small - 1] == head && y[small] == body &&
			      y[big - 1] == body && z[0] == body && w[small - 1] == body,
		      "rep %d: a dependent copy ran out of order (y %d/%d z %d w %d)", rep, y[0],
		      y[big - 1], z[0], w[small - 1]);
	}
}

/* A fresh anonymous mapping exactly at addr. */
static void remap_fixed(void *addr, size_t len)
{
	CHECK(munmap(addr, len) == 0, "munmap");
	CHECK(mmap(addr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		   -1, 0) == addr,
	      "mmap MAP_FIXED");
}

/* VmPin of this process in KiB (the mm's pinned_vm), -1 if unreadable. */
static long vm_pin_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static void atcache(struct cu_client *c)
{
	const size_t len = 256 << 10;
	unsigned char *s = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *d = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct copier_stats s0, s1, s2;
	unsigned char *moved, *target;

	CHECK(s != MAP_FAILED && d != MAP_FAILED, "mmap");
	memset(s, 1, len);
	memset(d, 0, len);
	s0 = stats(c);
	for (int i = 0; i < 8; i++)
		copy_sync(c, d, s, len);
	s1 = stats(c);
	CHECK(d[0] == 1 && d[len - 1] == 1, "reused copy");
	CHECK(s1.atc_hits - s0.atc_hits >= 7 * 2 * (len / 4096),
	      "reused buffers should hit the ATCache: %llu hits, %llu misses",
	      (unsigned long long)(s1.atc_hits - s0.atc_hits),
	      (unsigned long long)(s1.atc_misses - s0.atc_misses));
	CHECK(vm_pin_kib() >= (long)(2 * len / 1024), "cached pins not in VmPin: %ld KiB",
	      vm_pin_kib());

	/* destination replaced: the copy must land in the new pages */
	remap_fixed(d, len);
	memset(s, 2, len);
	copy_sync(c, d, s, len);
	CHECK(d[0] == 2 && d[len / 2] == 2 && d[len - 1] == 2,
	      "copy into a remapped destination went to the old pages (%d)", d[len / 2]);

	/* source replaced: the copy must read the new pages */
	remap_fixed(s, len);
	memset(s, 3, len);
	copy_sync(c, d, s, len);
	CHECK(d[0] == 3 && d[len - 1] == 3, "copy from a remapped source read old pages (%d)", d[0]);

	/* mremap the destination away; new memory at the old address */
	target = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(target != MAP_FAILED, "mmap a target for mremap");
	moved = mremap(d, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, target);
	CHECK(moved == target, "mremap");
	CHECK(mmap(d, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		      d,
	      "mmap at the old address");
	memset(s, 4, len);
	copy_sync(c, d, s, len);
	CHECK(d[0] == 4 && d[len - 1] == 4 && moved[0] == 3 && moved[len - 1] == 3,
	      "after mremap: old address %d, moved pages %d (want 4, 3)", d[0], moved[0]);
	memset(s, 5, len);
	copy_sync(c, moved, s, len);
	CHECK(moved[0] == 5 && d[0] == 4, "copy into the moved mapping: %d (old address %d)",
	      moved[0], d[0]);

	/* freed by the program (MADV_DONTNEED, as allocators do): zero-fill seen */
	madvise(d, len, MADV_DONTNEED);
	CHECK(d[0] == 0, "MADV_DONTNEED");
	memset(s, 6, len);
	copy_sync(c, d, s, len);
	CHECK(d[0] == 6 && d[len - 1] == 6, "copy after MADV_DONTNEED went to the old pages");

	/* shared memory is not cached (pinned per copy), and still copied */
	{
		unsigned char *sh = mmap(NULL, len, PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		struct copier_stats a0 = stats(c), a1;

		CHECK(sh != MAP_FAILED, "mmap shared");
		memset(s, 7, len);
		copy_sync(c, sh, s, len);
		a1 = stats(c);
		CHECK(sh[0] == 7 && sh[len - 1] == 7, "copy into shared memory");
		CHECK(a1.atc_misses - a0.atc_misses == 0,
		      "shared memory should not enter the ATCache (%llu misses)",
		      (unsigned long long)(a1.atc_misses - a0.atc_misses));
		munmap(sh, len);
	}

	s2 = stats(c);
	CHECK(s2.atc_invalidated - s1.atc_invalidated >= 4 * (len / 4096),
	      "the mmu notifier should have invalidated the replaced pages: %llu",
	      (unsigned long long)(s2.atc_invalidated - s1.atc_invalidated));
	printf("t_dma: atcache hits %llu misses %llu invalidated %llu\n",
	       (unsigned long long)s2.atc_hits, (unsigned long long)s2.atc_misses,
	       (unsigned long long)s2.atc_invalidated);
	munmap(s, len);
	munmap(d, len);
	munmap(moved, len);
}

/*
 * The first DMA copy between two fresh buffers maps their cached pages for
 * the channel's device (atc_dma_misses), the same copy again finds every
 * one mapped (atc_dma_hits) and maps nothing new.
 */
static void dma_cache(struct cu_client *c, int want_dma)
{
	const size_t len = 1 << 20;
	unsigned char *s = map_huge(), *d = map_huge();
	struct copier_stats s0, s1, s2;

	memset(s, 0x33, len);
	s0 = stats(c);
	copy_sync(c, d, s, len);
	s1 = stats(c);
	memset(s, 0x44, len);
	copy_sync(c, d, s, len);
	s2 = stats(c);
	CHECK(d[0] == 0x44 && d[len / 2] == 0x44 && d[len - 1] == 0x44, "reused DMA copy");
	printf("t_dma: dma address cache: first copy %llu hits %llu misses, second %llu hits %llu misses\n",
	       (unsigned long long)(s1.atc_dma_hits - s0.atc_dma_hits),
	       (unsigned long long)(s1.atc_dma_misses - s0.atc_dma_misses),
	       (unsigned long long)(s2.atc_dma_hits - s1.atc_dma_hits),
	       (unsigned long long)(s2.atc_dma_misses - s1.atc_dma_misses));
	if (!want_dma) {
		CHECK(s2.atc_dma_hits == 0 && s2.atc_dma_misses == 0,
		      "no DMA, yet DMA addresses cached: %llu hits %llu misses",
		      (unsigned long long)s2.atc_dma_hits, (unsigned long long)s2.atc_dma_misses);
	} else {
		CHECK(s1.bytes_dma > s0.bytes_dma && s2.bytes_dma > s1.bytes_dma,
		      "the copies did not go through DMA");
		CHECK(s1.atc_dma_misses > s0.atc_dma_misses,
		      "the first DMA copy should map its cached pages");
		CHECK(s2.atc_dma_hits - s1.atc_dma_hits >= s1.atc_dma_misses - s0.atc_dma_misses &&
			      s2.atc_dma_misses == s1.atc_dma_misses,
		      "the second DMA copy of reused buffers should hit the DMA-address cache");
	}
	munmap(s, AREA);
	munmap(d, AREA);
}

/*
 * In a child (its own mm, so VmPin starts at 0): drop CAP_IPC_LOCK, set
 * RLIMIT_MEMLOCK to limit bytes, open a client, and copy small reused
 * buffers (which fit) and large ones (which do not): every copy right,
 * VmPin never above the limit, and hits only when the small pair fits.
 */
static void memlock_child(size_t limit)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];
		struct rlimit rl = { limit, limit };
		const size_t small = 16 << 10, big = 1 << 20;
		unsigned char *s, *d2, *bs, *bd;
		struct copier_stats s0, s1;
		struct cu_client c;

		CHECK(syscall(SYS_capget, &h, d) == 0, "capget");
		d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
		d[CAP_IPC_LOCK / 32].permitted &= ~(1u << (CAP_IPC_LOCK % 32));
		CHECK(syscall(SYS_capset, &h, d) == 0, "capset without CAP_IPC_LOCK");
		CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0, "setrlimit");
		CHECK(cu_open(&c, 64) == 0, "cu_open");
		if (vmtest_failures)
			_exit(1);
		s = mmap(NULL, 2 * small, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		bs = mmap(NULL, 2 * big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(s != MAP_FAILED && bs != MAP_FAILED, "mmap");
		if (vmtest_failures)
			_exit(1);
		d2 = s + small;
		bd = bs + big;
		s0 = stats(&c);
		for (int i = 0; i < 8; i++) {
			memset(s, 10 + i, small);
			copy_sync(&c, d2, s, small);
			CHECK(d2[0] == 10 + i && d2[small - 1] == 10 + i, "small copy %d", i);
			CHECK(vm_pin_kib() >= 0 && vm_pin_kib() <= (long)(limit / 1024),
			      "VmPin %ld KiB above RLIMIT_MEMLOCK %zu KiB", vm_pin_kib(), limit / 1024);
		}
		s1 = stats(&c);
		if (limit >= 2 * small)
			CHECK(s1.atc_hits > s0.atc_hits, "the small pair fits the limit: no hit");
		for (int i = 0; i < 4; i++) {
			memset(bs, 20 + i, big);
			copy_sync(&c, bd, bs, big);
			CHECK(bd[0] == 20 + i && bd[big / 2] == 20 + i && bd[big - 1] == 20 + i,
			      "big copy %d", i);
			CHECK(vm_pin_kib() >= 0 && vm_pin_kib() <= (long)(limit / 1024),
			      "VmPin %ld KiB above RLIMIT_MEMLOCK %zu KiB", vm_pin_kib(), limit / 1024);
		}
		s1 = stats(&c);
		if (limit < 2 * small)
			CHECK(s1.atc_hits == s0.atc_hits && s1.atc_misses == s0.atc_misses,
			      "RLIMIT_MEMLOCK %zu: %llu pages cached", limit,
			      (unsigned long long)(s1.atc_misses - s0.atc_misses));
		cu_close(&c);
		_exit(vmtest_failures ? 1 : 0);
	}
	CHECK(pid > 0, "fork");
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "RLIMIT_MEMLOCK %zu child: status %#x", limit, status);
}

int main(int argc, char **argv)
{
	struct cu_client c;
	struct copier_stats before, after;
	unsigned char *src, *dst, *ref;
	int want_dma;

	if (argc != 2 || (strcmp(argv[1], "dma") && strcmp(argv[1], "nodma"))) {
		fprintf(stderr, "usage: t_dma dma|nodma\n");
		return 2;
	}
	want_dma = !strcmp(argv[1], "dma");
	CHECK(cu_open(&c, 256) == 0, "cu_open");
	if (vmtest_failures)
		return vmtest_exit("t_dma");
	src = map_huge();
	dst = map_huge();
	ref = map_huge();
	before = stats(&c);
	differential(&c, src, dst, ref, 6);
	chains(&c, src, dst);
	after = stats(&c);
	printf("t_dma: %llu bytes, %llu by DMA\n",
	       (unsigned long long)(after.bytes - before.bytes),
	       (unsigned long long)(after.bytes_dma - before.bytes_dma));
	if (want_dma)
		CHECK(after.bytes_dma > before.bytes_dma, "no byte went through DMA");
	else
		CHECK(after.bytes_dma == 0, "DMA is off but carried %llu bytes",
		      (unsigned long long)after.bytes_dma);
	atcache(&c);
	dma_cache(&c, want_dma);
	cu_close(&c);
	memlock_child(64 << 10);
	memlock_child(0);
	return vmtest_exit("t_dma");
}
