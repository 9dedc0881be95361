// SPDX-License-Identifier: GPL-2.0 OR Apache-2.0
/*
 * Fuzz of /dev/copier's interface: every ioctl and mmap with bad pointers,
 * sizes and flags gets a clean error; then the rings are filled with
 * garbage (kernel and unmapped addresses, huge and overflowing lengths,
 * random descriptors and heads) and the service must survive it, write
 * nothing outside the client's writable memory and still copy afterwards.
 * run.sh checks dmesg for oops and warnings.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "copier_user.h"
#include "vmtest.h"

#define KADDR ((void *)0xffff888000000000ULL)

static unsigned long long seed = 12345;

static struct copier_setup good_setup(void)
{
	struct copier_setup s = { .version = COPIER_ABI_VERSION, .copy_entries = 16,
				  .sync_entries = 16, .handler_entries = 16 };
	return s;
}

static void before_setup(void)
{
	int fd = open("/dev/copier", O_RDWR);
	struct copier_setup s;
	struct copier_stats st;

	CHECK(fd >= 0, "open");
	CHECK_ERR(open("/dev/copier", O_RDWR), EBUSY);
	CHECK_ERR(ioctl(fd, COPIER_IOC_WAKE), ENODEV);
	CHECK_ERR(ioctl(fd, COPIER_IOC_STATS, &st), ENODEV);
	CHECK_ERR(ioctl(fd, 0x1234), ENOTTY);
	CHECK(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	      errno == ENODEV, "mmap before setup");
	CHECK_ERR(ioctl(fd, COPIER_IOC_SETUP, NULL), EFAULT);
	CHECK_ERR(ioctl(fd, COPIER_IOC_SETUP, KADDR), EFAULT);
	CHECK_ERR(ioctl(fd, COPIER_IOC_SETUP, (void *)1), EFAULT);

	uint32_t bad_sizes[] = { 0, 1, 3, 100, 65537, 131072, 0x80000000u, 0xffffffffu };
	for (unsigned i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		s = good_setup(); s.copy_entries = bad_sizes[i];
		CHECK_ERR(ioctl(fd, COPIER_IOC_SETUP, &s), EINVAL);
		s = good_setup(); s.sync_entries = bad_sizes[i];
		CHECK_ERR(ioctl(fd, COPIER_IOC_SETUP, &s), EINVAL);
		s = good_setup(); s.handler_entries = bad_sizes[i];
		CHECK_ERR(ioctl(fd, COPIER_IOC_SETUP, &s), EINVAL);
	}
	s = good_setup(); s.version = 99;
	CHECK_ERR(ioctl(fd, COPIER_IOC_SETUP, &s), EINVAL);
	s = good_setup(); s.flags = 1;
	CHECK_ERR(ioctl(fd, COPIER_IOC_SETUP, &s), EINVAL);
	s = good_setup(); s.reserved = 1;
	CHECK_ERR(ioctl(fd, COPIER_IOC_SETUP, &s), EINVAL);
	/* the largest setup is allowed */
	s = good_setup(); s.copy_entries = s.sync_entries = s.handler_entries = 65536;
	CHECK(ioctl(fd, COPIER_IOC_SETUP, &s) == 0, "largest setup");
	CHECK_ERR(ioctl(fd, COPIER_IOC_SETUP, &s), EBUSY);
	close(fd);
}

static void bad_maps_and_ioctls(void)
{
	int fd = open("/dev/copier", O_RDWR);
	struct copier_setup s = good_setup();
	struct copier_limits l = { 0 };
	struct copier_wait w = { 0 };
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *m;

	CHECK(ioctl(fd, COPIER_IOC_SETUP, &s) == 0, "setup");
	CHECK(mmap(NULL, s.map_len - 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED, "short map");
	CHECK(mmap(NULL, s.map_len + 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED, "long map");
	CHECK(mmap(NULL, s.map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096) == MAP_FAILED, "offset map");
	CHECK(mmap(NULL, s.map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0) == MAP_FAILED, "private map");
	CHECK(mmap(NULL, s.map_len, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0) == MAP_FAILED, "exec map");
	m = mmap(NULL, s.map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "good map");
	CHECK(mprotect(m, 4096, PROT_READ | PROT_EXEC) != 0, "mprotect exec");
	CHECK(mremap(m, s.map_len, s.map_len * 2, 0) == MAP_FAILED, "mremap grow");
	CHECK(munmap((char *)m + 4096, 4096) == 0, "partial munmap");

	CHECK_ERR(ioctl(fd, COPIER_IOC_LIMITS, NULL), EFAULT);
	l.max_bytes_per_round = 1;
	CHECK_ERR(ioctl(fd, COPIER_IOC_LIMITS, &l), EINVAL);
	l.max_bytes_per_round = ~0ULL;
	CHECK_ERR(ioctl(fd, COPIER_IOC_LIMITS, &l), EINVAL);
	l.max_bytes_per_round = 1 << 20;
	l.reserved[1] = 1;
	CHECK_ERR(ioctl(fd, COPIER_IOC_LIMITS, &l), EINVAL);
	l.reserved[1] = 0;
	CHECK(ioctl(fd, COPIER_IOC_LIMITS, &l) == 0, "limits");
	CHECK_ERR(ioctl(fd, COPIER_IOC_STATS, NULL), EFAULT);
	CHECK_ERR(ioctl(fd, COPIER_IOC_STATS, ro), EFAULT);
	CHECK_ERR(ioctl(fd, COPIER_IOC_STATS, KADDR), EFAULT);
	/* version 1's COPIER_IOC_STATS (64 bytes) is answered with 64 bytes; other sizes are not */
	{
		unsigned char st[sizeof(struct copier_stats) + 16];

		memset(st, 0xee, sizeof(st));
		CHECK(ioctl(fd, _IOR(COPIER_IOC_MAGIC, 4, char[COPIER_STATS_SIZE_V1]), st) == 0 &&
			      st[COPIER_STATS_SIZE_V1] == 0xee,
		      "version 1 STATS");
		CHECK_ERR(ioctl(fd, _IOR(COPIER_IOC_MAGIC, 4, char[COPIER_STATS_SIZE_V1 - 8]), st), ENOTTY);
		CHECK_ERR(ioctl(fd, _IOR(COPIER_IOC_MAGIC, 4, char[sizeof(struct copier_stats) + 8]), st),
			  ENOTTY);
	}
	CHECK_ERR(ioctl(fd, COPIER_IOC_WAIT, NULL), EFAULT);
	w.pos = 5;
	CHECK_ERR(ioctl(fd, COPIER_IOC_WAIT, &w), EINVAL);
	w.pos = ~0ULL;
	CHECK_ERR(ioctl(fd, COPIER_IOC_WAIT, &w), EINVAL);
	w.reserved[0] = 1;
	CHECK_ERR(ioctl(fd, COPIER_IOC_WAIT, &w), EINVAL);

	/* random ioctl numbers in the device's space and around it */
	for (int i = 0; i < 3000; i++) {
		unsigned long long r = vmtest_rand(&seed);
		unsigned int cmd = (unsigned int)r;
		void *args[] = { NULL, KADDR, ro, (void *)(uintptr_t)(r >> 20), &l };

		if (i & 1)
			cmd = _IOC(r >> 8 & 3, COPIER_IOC_MAGIC, r >> 12 & 15, r >> 16 & 255);
		if (cmd == COPIER_IOC_WAIT || cmd == COPIER_IOC_SETUP)
			continue;
		ioctl(fd, cmd, args[(r >> 40) % 5]);
	}
	munmap(m, s.map_len);
	munmap(ro, 4096);
	close(fd);
}

static const unsigned char rodata[4096] = { 42 };

/* Garbage in the rings: the service must neither crash nor write out of bounds. */
static void garbage_rings(void)
{
	struct cu_client c;
	unsigned char *buf = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t addrs[] = { 0, 1, 4096, (uint64_t)(uintptr_t)KADDR, 0xffffffffff600000ULL,
			     0x00007ffffffff000ULL, 0x0000800000000000ULL, ~0ULL,
			     (uint64_t)(uintptr_t)rodata, (uint64_t)(uintptr_t)buf,
			     (uint64_t)(uintptr_t)buf + (1 << 20) - 100 };
	unsigned na = sizeof(addrs) / sizeof(addrs[0]);

	CHECK(cu_open(&c, 64) == 0, "open");
	for (int round = 0; round < 200; round++) {
		uint64_t n = 1 + vmtest_rand(&seed) % 64;

		for (uint64_t k = 0; k < n; k++) {
			uint64_t pos = c.head + k;
			struct copier_entry *e = &c.entries[pos & 63];
			struct copier_desc *d = &c.descs[pos & 63];
			unsigned long long r = vmtest_rand(&seed);

			e->dst = addrs[r % na] + (r >> 8 & 0xfff);
			e->src = addrs[(r >> 4) % na];
			e->len = (r >> 20 & 1) ? (r >> 24) : (r >> 24 & 0xfffff);
			e->flags = (r >> 30 & 1) ? (uint32_t)(r >> 32) : 0;
			e->handler = r & 1 ? r : 0;
			d->pos = (r >> 21 & 7) ? pos : r;
			d->nsegs = (r >> 22 & 3) ? (uint32_t)((e->len + 4095) >> 12) : (uint32_t)(r >> 33);
			d->seg_shift = (r >> 23 & 3) ? 12 : (uint32_t)(r >> 50);
			d->flags = 0;
			d->done_count = 0;
			d->prefix = 0;
			memset(d->words, (r >> 40 & 1) ? 0 : 0xff, sizeof(d->words));
		}
		switch (vmtest_rand(&seed) % 8) {
		case 0: c.head += 1000000; break;          /* beyond the ring */
		case 1: c.head = c.head - 3; break;        /* backwards */
		default: c.head += n; break;
		}
		__atomic_store_n(&c.copy->head, c.head, __ATOMIC_RELEASE);
		if (vmtest_rand(&seed) % 4 == 0)
			c.copy->tail = vmtest_rand(&seed); /* the kernel owns tail */
		if (vmtest_rand(&seed) % 4 == 0)
			c.handler->tail = vmtest_rand(&seed);
		cu_wake(&c);
		struct copier_wait w = { .pos = c.head - 1, .timeout_ns = 1000000 };
		ioctl(c.fd, COPIER_IOC_WAIT, &w);
	}
	CHECK(rodata[0] == 42, "a read-only page was written");
	cu_close(&c);

	/* a fresh client still copies */
	CHECK(cu_open(&c, 16) == 0, "reopen");
	memset(buf, 3, 4096);
	int64_t pos = cu_submit(&c, buf + 8192, buf, 4096);
	CHECK(pos >= 0 && cu_wait(&c, pos) == 0 && buf[8192] == 3 && buf[8192 + 4095] == 3,
	      "copy after the fuzz");
	/* an unknown flag bit: the kernel hands the task back, the waiter copies */
	memset(buf, 5, 4096);
	pos = cu_submit_full(&c, buf + 16384, buf, 4096, 1U << 7, 0, 0);
	CHECK(pos >= 0 && cu_wait(&c, pos) == 1 && buf[16384] == 5 && buf[16384 + 4095] == 5,
	      "a task with an unknown flag is handed back and copied by the waiter");
	cu_close(&c);
	munmap(buf, 1 << 20);
}

#define RACE_LEN (1u << 20)

static unsigned char *volatile race_area;
static volatile int race_stop;

/* Unmap and remap (and protect) the copies' destination under them. */
static void *race_mapper(void *arg)
{
	unsigned char *base = race_area;

	while (!race_stop) {
		munmap(base, RACE_LEN);
		mmap(base, RACE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		mprotect(base, RACE_LEN / 2, PROT_READ);
		madvise(base, RACE_LEN, MADV_DONTNEED);
		mprotect(base, RACE_LEN, PROT_READ | PROT_WRITE);
	}
	return NULL;
}

/* Copies into memory another thread unmaps, protects and discards meanwhile. */
static void racing_munmap(void)
{
	struct cu_client c;
	unsigned char *src = mmap(NULL, RACE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_t t;
	int faulted = 0;

	memset(src, 4, RACE_LEN);
	race_area = mmap(NULL, RACE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(cu_open(&c, 32) == 0, "open");
	pthread_create(&t, NULL, race_mapper, NULL);
	for (int i = 0; i < 400; i++) {
		int64_t pos = cu_submit(&c, race_area, src, RACE_LEN);

		if (pos < 0) {
			i--;
			pos = (int64_t)cu_tail(&c);
		}
		if (cu_settle(&c, (uint64_t)pos) == 1) {
			faulted++;
			cu_fail(&c, (uint64_t)pos);
		}
	}
	race_stop = 1;
	pthread_join(t, NULL);
	printf("t_fuzz: %d of 400 racing copies faulted\n", faulted);
	cu_close(&c);
	munmap(src, RACE_LEN);
}

int main(void)
{
	before_setup();
	bad_maps_and_ioctls();
	garbage_rings();
	racing_munmap();
	return vmtest_exit("t_fuzz");
}
