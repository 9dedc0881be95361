// SPDX-License-Identifier: GPL-2.0 OR Apache-2.0
/*
 * Cross-process copies through shared regions (COPIER_IOC_BIND, ATTACH):
 * a child of the same uid copies from and into its parent's regions and
 * the bytes are right; a process of another uid is refused (EPERM) while
 * two processes of one unprivileged uid may share; bad offsets, lengths,
 * access modes, handles, tokens and flag combinations, an unbound region,
 * an owner that unmapped part of its region, exited, exec'd, or was killed
 * with cross copies in flight each finish with the errno kmod/copier/README.md
 * documents; a version 1 client still sets up, and its region flags are
 * unknown bits. An importer killed with cross copies in flight lets the
 * owner unbind. init.sh checks pins and clients after it.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "copier_user.h"
#include "vmtest.h"

#define RLEN ((2u << 20) + 12388)	/* several pieces and an odd tail */
#define SMALL (64u << 10)
#define KILL_LEN (4u << 20)
#define KILL_TASKS 24
#define NOBODY 65534
#define RW (COPIER_REGION_READ | COPIER_REGION_WRITE)

static unsigned char pat(size_t i, unsigned int k)
{
	return (unsigned char)(i * k + 3 + k);
}

static void fill(unsigned char *p, size_t n, size_t base, unsigned int k)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pat(base + i, k);
}

/* 0 when p[0..n) is pattern k from base, else the first bad index + 1. */
static size_t mismatch(const unsigned char *p, size_t n, size_t base, unsigned int k)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pat(base + i, k))
			return i + 1;
	return 0;
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	return p;
}

static void put(int fd, uint64_t v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		exit(3);
}

static uint64_t get(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		exit(3);
	return v;
}

static int wait_child(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* One region task, waited for: 0, the errno it finished with, or -errno. */
static int xcopy(struct cu_client *c, void *local, uint32_t h, uint64_t off, size_t len,
		 bool to_region, uint32_t extra)
{
	int64_t pos = cu_submit_region(c, local, h, off, len, to_region, extra);

	if (pos < 0)
		return (int)pos;
	return cu_wait_error(c, (uint64_t)pos);
}

#define CHECK_XCOPY(want, ...)                                                     \
	do {                                                                       \
		int got_ = xcopy(__VA_ARGS__);                                     \
		CHECK(got_ == (want), "xcopy(%s) = %d, want %d", #__VA_ARGS__, got_, (want)); \
	} while (0)

static void drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY) || getuid() != NOBODY)
		_exit(4);
}

/* Regions of the parent the same-uid importer child uses. */
struct owned {
	uint64_t a, ro, wo, unbound, hole;
};

/* The importer child of same_uid(): in from the parent, out to it. */
static int importer(pid_t owner, const struct owned *t, int in, int out)
{
	unsigned char *l = map_anon(RLEN + 8192);
	uint32_t ha, hr, hw, hu, hh;
	struct cu_client c;
	uint64_t len = 0;

	CHECK(cu_open(&c, 32) == 0, "open");
	CHECK(cu_attach(&c, owner, t->a, &ha, &len) == 0 && len == RLEN, "attach (len %llu)",
	      (unsigned long long)len);
	CHECK(cu_attach(&c, owner, t->ro, &hr, NULL) == 0, "attach read-only");
	CHECK(cu_attach(&c, owner, t->wo, &hw, NULL) == 0, "attach write-only");
	CHECK(cu_attach(&c, owner, t->unbound, &hu, NULL) == 0, "attach the one to unbind");
	CHECK(cu_attach(&c, owner, t->hole, &hh, NULL) == 0, "attach the one to unmap");

	/* from the region: all of it, then unaligned on both sides */
	CHECK_XCOPY(0, &c, l, ha, 0, RLEN, false, 0);
	CHECK(!mismatch(l, RLEN, 0, 7), "whole region read: bad byte at %zu", mismatch(l, RLEN, 0, 7));
	memset(l, 0, RLEN);
	CHECK_XCOPY(0, &c, l + 5, ha, 4093, 70000, false, 0);
	CHECK(!mismatch(l + 5, 70000, 4093, 7) && l[4] == 0 && l[5 + 70000] == 0,
	      "unaligned read: bad byte at %zu", mismatch(l + 5, 70000, 4093, 7));
	CHECK_XCOPY(0, &c, l, ha, RLEN - 1, 1, false, 0);
	CHECK(l[0] == pat(RLEN - 1, 7), "last byte");

	/* into the region; the owner checks its memory */
	fill(l, 300000, 0, 13);
	CHECK_XCOPY(0, &c, l, ha, 1000, 300000, true, 0);
	put(out, 'V');
	CHECK(get(in) == 0, "the owner sees the bytes written into its region");

	/* bounds */
	/* (the write first: l holds other bytes than the region's) */
	CHECK_XCOPY(ERANGE, &c, l, ha, RLEN - 10, 20, true, 0);
	CHECK_XCOPY(ERANGE, &c, l, ha, RLEN - 10, 20, false, 0);
	CHECK_XCOPY(ERANGE, &c, l, ha, RLEN, 1, false, 0);
	CHECK_XCOPY(ERANGE, &c, l, ha, ~0ULL - 5, 10, false, 0);
	/* access modes */
	CHECK_XCOPY(EACCES, &c, l, hr, 0, 100, true, 0);
	CHECK_XCOPY(0, &c, l, hr, 0, 100, false, 0);
	CHECK(!mismatch(l, 100, 0, 5), "read-only region read");
	CHECK_XCOPY(EACCES, &c, l, hw, 0, 100, false, 0);
	CHECK_XCOPY(0, &c, l, hw, 0, 100, true, 0);
	/* handles and flag combinations */
	CHECK_XCOPY(EBADF, &c, l, 200, 0, 100, false, 0);
	CHECK_XCOPY(EBADF, &c, l, 0, 0, 100, false, 0);
	CHECK_XCOPY(EINVAL, &c, l, ha, 0, 100, true, COPIER_F_SRC_REGION);
	CHECK_XCOPY(EINVAL, &c, l, ha, 0, 100, false, COPIER_F_LAZY);
	CHECK_XCOPY(EINVAL, &c, l, ha, 0, 100, false, COPIER_F_MOVE);
	/* the local side unmapped */
	CHECK_XCOPY(EFAULT, &c, (void *)8, ha, 0, 100, false, 0);
	CHECK_XCOPY(EFAULT, &c, (void *)8, ha, 0, 100, true, 0);

	/* tokens, pids and arguments of ATTACH and DETACH */
	CHECK(cu_attach(&c, owner, t->a + 100000, &hr, NULL) == -ENOENT, "unknown token");
	CHECK(cu_attach(&c, getpid(), t->a, &hr, NULL) == -ENOENT, "a token of another process");
	CHECK(cu_attach(&c, 0x3ffffff0, t->a, &hr, NULL) == -ESRCH, "no such pid");
	CHECK(cu_attach(&c, -1, t->a, &hr, NULL) == -EINVAL, "negative pid");
	CHECK(cu_attach(&c, owner, 0, &hr, NULL) == -EINVAL, "token 0");
	struct copier_attach bad = { .pid = owner, .flags = 1, .token = t->a };
	CHECK_ERR(ioctl(c.fd, COPIER_IOC_ATTACH, &bad), EINVAL);
	bad.flags = 0;
	bad.handle = 1;
	CHECK_ERR(ioctl(c.fd, COPIER_IOC_ATTACH, &bad), EINVAL);
	CHECK_ERR(ioctl(c.fd, COPIER_IOC_ATTACH, NULL), EFAULT);
	CHECK(cu_detach(&c, hr) == 0, "detach");
	CHECK_XCOPY(EBADF, &c, l, hr, 0, 100, false, 0);
	CHECK(cu_detach(&c, hr) == -ENOENT, "detach twice");
	CHECK(cu_detach(&c, 0) == -EINVAL, "detach 0");
	CHECK_ERR(ioctl(c.fd, COPIER_IOC_DETACH, NULL), EFAULT);

	/* unbound by the owner */
	put(out, 'U');
	CHECK(get(in) == 0, "the owner unbound");
	CHECK_XCOPY(EIDRM, &c, l, hu, 0, 100, false, 0);
	CHECK_XCOPY(EIDRM, &c, l, hu, 0, 100, true, 0);
	CHECK(cu_attach(&c, owner, t->unbound, &hr, NULL) == -ENOENT, "attach an unbound region");

	/* the owner unmapped the second half of a region */
	put(out, 'H');
	CHECK(get(in) == 0, "the owner unmapped");
	CHECK_XCOPY(0, &c, l, hh, 0, SMALL / 2, false, 0);
	CHECK(!mismatch(l, SMALL / 2, 0, 9), "the mapped half");
	CHECK_XCOPY(EFAULT, &c, l, hh, SMALL / 2, 100, false, 0);
	CHECK_XCOPY(EFAULT, &c, l, hh, SMALL / 2 - 100, 200, true, 0);

	put(out, 'Q');
	cu_close(&c);
	return vmtest_failures ? 1 : 0;
}

/* BIND and UNBIND with bad arguments. */
static void bind_args(struct cu_client *c)
{
	unsigned char *m = map_anon(3 * 4096);
	struct copier_bind b = { .addr = (uintptr_t)m, .len = 4096, .access = RW, .flags = 1 };
	struct copier_unbind u = { .token = 1, .reserved = 1 };
	uint64_t tok[300], t;
	int n = 0, err = 0;
	pid_t pid;

	CHECK(cu_bind(c, m, 0, RW, &t) == -EINVAL, "len 0");
	CHECK(cu_bind(c, m, 4096, 0, &t) == -EINVAL, "access 0");
	CHECK(cu_bind(c, m, 4096, 4, &t) == -EINVAL, "unknown access bit");
	CHECK(cu_bind(c, (void *)~0xfffULL, 8192, RW, &t) == -EINVAL, "overflow");
	/* past TASK_SIZE_MAX with 4- and 5-level page tables */
	CHECK(cu_bind(c, (void *)(1ULL << 56), 4096, RW, &t) == -EINVAL, "beyond user space");
	CHECK(cu_bind(c, (void *)4096, 4096, RW, &t) == -EFAULT, "unmapped");
	CHECK_ERR(ioctl(c->fd, COPIER_IOC_BIND, &b), EINVAL);
	CHECK_ERR(ioctl(c->fd, COPIER_IOC_BIND, NULL), EFAULT);
	CHECK(mprotect(m + 4096, 4096, PROT_READ) == 0 && mprotect(m + 8192, 4096, PROT_NONE) == 0,
	      "mprotect");
	CHECK(cu_bind(c, m, 8192, RW, &t) == -EFAULT, "write access to a read-only page");
	CHECK(cu_bind(c, m + 4096, 8192, COPIER_REGION_READ, &t) == -EFAULT, "PROT_NONE");
	CHECK(cu_bind(c, m, 8192, COPIER_REGION_READ, &t) == 0 && cu_unbind(c, t) == 0,
	      "read access to a read-only page");
	CHECK(cu_unbind(c, t) == -ENOENT, "unbind twice");
	CHECK_ERR(ioctl(c->fd, COPIER_IOC_UNBIND, &u), EINVAL);
	CHECK_ERR(ioctl(c->fd, COPIER_IOC_UNBIND, NULL), EFAULT);
	/* at most 256 regions per client */
	while (n < (int)(sizeof(tok) / sizeof(tok[0])) && !(err = cu_bind(c, m, 4096, RW, &tok[n])))
		n++;
	CHECK(n == 256 && err == -ENOSPC, "%d regions, then %d", n, err);
	while (n--)
		CHECK(cu_unbind(c, tok[n]) == 0, "unbind %d", n);
	/* before COPIER_IOC_SETUP (another process: one client each) */
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/copier", O_RDWR);

		b.flags = 0;
		_exit(fd >= 0 && ioctl(fd, COPIER_IOC_BIND, &b) == -1 && errno == ENODEV ? 0 : 1);
	}
	CHECK(wait_child(pid) == 0, "BIND before SETUP is not ENODEV");
	munmap(m, 3 * 4096);
}

static void same_uid(void)
{
	unsigned char *a = map_anon(RLEN), *ro = map_anon(SMALL), *wo = map_anon(SMALL);
	unsigned char *un = map_anon(SMALL), *hole = map_anon(SMALL);
	int to_child[2], to_parent[2];
	struct cu_client c;
	struct owned t;
	uint64_t req;
	pid_t pid;

	CHECK(cu_open(&c, 32) == 0, "open");
	bind_args(&c);
	fill(a, RLEN, 0, 7);
	fill(ro, SMALL, 0, 5);
	fill(hole, SMALL, 0, 9);
	CHECK(cu_bind(&c, a, RLEN, RW, &t.a) == 0, "bind");
	CHECK(cu_bind(&c, ro, SMALL, COPIER_REGION_READ, &t.ro) == 0, "bind read-only");
	CHECK(cu_bind(&c, wo, SMALL, COPIER_REGION_WRITE, &t.wo) == 0, "bind write-only");
	CHECK(cu_bind(&c, un, SMALL, RW, &t.unbound) == 0, "bind the one to unbind");
	CHECK(cu_bind(&c, hole, SMALL, RW, &t.hole) == 0, "bind the one to unmap");
	CHECK(t.a && t.ro != t.a, "tokens %llu %llu", (unsigned long long)t.a,
	      (unsigned long long)t.ro);
	CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0, "pipe");
	pid = fork();
	if (pid == 0)
		_exit(importer(getppid(), &t, to_child[0], to_parent[1]));
	while ((req = get(to_parent[0])) != 'Q') {
		size_t bad;

		switch (req) {
		case 'V':
			bad = mismatch(a, 1000, 0, 7);
			if (!bad)
				bad = mismatch(a + 1000, 300000, 0, 13);
			if (!bad)
				bad = mismatch(a + 301000, RLEN - 301000, 301000, 7);
			put(to_child[1], bad);
			break;
		case 'U':
			put(to_child[1], cu_unbind(&c, t.unbound) != 0);
			break;
		case 'H':
			put(to_child[1], munmap(hole + SMALL / 2, SMALL / 2) != 0);
			break;
		default:
			put(to_child[1], 1);
		}
	}
	CHECK(wait_child(pid) == 0, "the importer child failed");
	CHECK(!mismatch(wo, 100, 0, 5) && wo[100] == 0, "write-only region written");
	CHECK(mismatch(a + RLEN - 10, 10, RLEN - 10, 7) == 0, "an out-of-bounds write changed nothing");
	cu_close(&c);
}

/* Another uid is refused; one unprivileged uid may share with itself. */
static void other_uid(void)
{
	unsigned char *a = map_anon(SMALL);
	int p[2], q[2];
	struct cu_client c;
	uint64_t tok;
	pid_t pid, owner;

	CHECK(cu_open(&c, 16) == 0, "open");
	fill(a, SMALL, 0, 7);
	CHECK(cu_bind(&c, a, SMALL, RW, &tok) == 0, "bind");
	pid = fork();
	if (pid == 0) {
		struct cu_client cc;
		uint32_t h;

		drop_to_nobody();
		if (cu_open(&cc, 16))
			_exit(5);
		_exit(cu_attach(&cc, getppid(), tok, &h, NULL) == -EPERM ? 0 : 1);
	}
	CHECK(wait_child(pid) == 0, "uid %d attached a root process's region", NOBODY);

	CHECK(pipe(p) == 0 && pipe(q) == 0, "pipe");
	owner = fork();
	if (owner == 0) {
		unsigned char *b = map_anon(SMALL);
		struct cu_client oc;
		uint64_t t;

		drop_to_nobody();
		/* setuid made it non-dumpable; Yama (if relational) wants a ptracer */
		prctl(PR_SET_DUMPABLE, 1);
		prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY);
		fill(b, SMALL, 0, 11);
		if (cu_open(&oc, 16) || cu_bind(&oc, b, SMALL, RW, &t))
			_exit(5);
		put(p[1], t);
		get(q[0]);
		_exit(0);
	}
	tok = get(p[0]);
	pid = fork();
	if (pid == 0) {
		unsigned char *l = map_anon(SMALL);
		struct cu_client ic;
		uint32_t h;

		drop_to_nobody();
		if (cu_open(&ic, 16) || cu_attach(&ic, owner, tok, &h, NULL))
			_exit(6);
		_exit(xcopy(&ic, l, h, 100, 5000, false, 0) || mismatch(l, 5000, 100, 11) ? 7 : 0);
	}
	CHECK(wait_child(pid) == 0, "two processes of uid %d could not share", NOBODY);
	put(q[1], 'x');
	CHECK(wait_child(owner) == 0, "the unprivileged owner");
	cu_close(&c);
}

/* Tasks naming a region whose owner exited finish with ESRCH. */
static void owner_exit(void)
{
	unsigned char *l = map_anon(SMALL);
	int p[2], q[2];
	struct cu_client c;
	uint64_t tok;
	uint32_t h;
	pid_t owner;

	CHECK(cu_open(&c, 16) == 0 && pipe(p) == 0 && pipe(q) == 0, "open");
	owner = fork();
	if (owner == 0) {
		unsigned char *b = map_anon(SMALL);
		struct cu_client oc;
		uint64_t t;

		fill(b, SMALL, 0, 3);
		if (cu_open(&oc, 16) || cu_bind(&oc, b, SMALL, RW, &t))
			_exit(5);
		put(p[1], t);
		get(q[0]);
		_exit(0);	/* exits with the region bound */
	}
	tok = get(p[0]);
	CHECK(cu_attach(&c, owner, tok, &h, NULL) == 0, "attach");
	CHECK_XCOPY(0, &c, l, h, 0, 4096, false, 0);
	CHECK(!mismatch(l, 4096, 0, 3), "read before the exit");
	put(q[1], 'x');
	CHECK(wait_child(owner) == 0, "owner");
	CHECK_XCOPY(ESRCH, &c, l, h, 0, 4096, false, 0);
	CHECK_XCOPY(ESRCH, &c, l, h, 0, 4096, true, 0);
	CHECK(cu_attach(&c, owner, tok, &h, NULL) == -ESRCH, "attach a reaped owner");
	cu_close(&c);
}

/* kill -9 of the owner while cross copies run: each copied or ESRCH. */
static void kill_in_flight(void)
{
	unsigned char *l = map_anon(2 * KILL_LEN);
	int64_t pos[KILL_TASKS];
	int ok = 0, gone = 0;

	fill(l + KILL_LEN, KILL_LEN, 0, 17);
	for (int rep = 0; rep < 3; rep++) {
		struct cu_client c;
		uint64_t tok;
		uint32_t h;
		int p[2];
		pid_t owner;
		bool read_ok = false;

		CHECK(cu_open(&c, 32) == 0 && pipe(p) == 0, "open");
		owner = fork();
		if (owner == 0) {
			unsigned char *b = map_anon(KILL_LEN);
			struct cu_client oc;
			uint64_t t;

			fill(b, KILL_LEN, 0, 17);
			if (cu_open(&oc, 16) || cu_bind(&oc, b, KILL_LEN, RW, &t))
				_exit(5);
			put(p[1], t);
			for (;;)
				pause();
		}
		tok = get(p[0]);
		CHECK(cu_attach(&c, owner, tok, &h, NULL) == 0, "attach");
		memset(l, 0, KILL_LEN);
		/*
		 * Reads of the region, and writes of the bytes it already holds;
		 * the kill comes once the first (short) one copied, while the
		 * others (4 MiB each, 8 pieces) are queued or running.
		 */
		for (int i = 0; i < KILL_TASKS; i++)
			pos[i] = i & 1 ? cu_submit_region(&c, l + KILL_LEN, h, 0, KILL_LEN, true, 0)
				       : cu_submit_region(&c, l, h, 0, i ? KILL_LEN : SMALL, false, 0);
		CHECK(pos[0] >= 0 && cu_wait_error(&c, (uint64_t)pos[0]) == 0 &&
		      !mismatch(l, SMALL, 0, 17), "the first cross copy");
		kill(owner, SIGKILL);
		for (int i = 1; i < KILL_TASKS; i++) {
			int e = pos[i] < 0 ? (int)pos[i] : cu_wait_error(&c, (uint64_t)pos[i]);

			CHECK(e == 0 || e == ESRCH, "task %d: %d", i, e);
			ok += e == 0;
			gone += e == ESRCH;
			read_ok |= !(i & 1) && e == 0;
		}
		CHECK(wait_child(owner) == 128 + SIGKILL, "owner killed");
		/* a read that completed left all of it; a failed one, pieces of the same bytes */
		if (read_ok)
			CHECK(!mismatch(l, KILL_LEN, 0, 17), "bytes read before the kill");
		else
			CHECK(!mismatch(l, SMALL, 0, 17), "bytes read before the kill");
		CHECK_XCOPY(ESRCH, &c, l, h, 0, 4096, false, 0);
		cu_close(&c);
		close(p[0]);
		close(p[1]);
	}
	printf("t_xproc: kill -9 in flight: %d tasks copied, %d finished ESRCH\n", ok, gone);
}

/*
 * kill -9 of the importer while its cross copies run: the owner's unbind
 * still returns (the dead client's pieces finish and let the region go)
 * and its memory holds the bytes it had or the ones written, nothing else.
 */
static void importer_killed(void)
{
	unsigned char *b = map_anon(KILL_LEN);
	struct cu_client c;
	uint64_t tok;
	int p[2];
	pid_t pid;

	fill(b, KILL_LEN, 0, 19);
	CHECK(cu_open(&c, 16) == 0 && pipe(p) == 0, "open");
	CHECK(cu_bind(&c, b, KILL_LEN, RW, &tok) == 0, "bind");
	pid = fork();
	if (pid == 0) {
		unsigned char *l = map_anon(KILL_LEN);
		struct cu_client ic;
		uint32_t h;

		fill(l, KILL_LEN, 0, 19);
		if (cu_open(&ic, 32) || cu_attach(&ic, getppid(), tok, &h, NULL))
			_exit(5);
		for (int i = 0; i < 31; i++)
			cu_submit_region(&ic, l, h, 0, KILL_LEN, i & 1, 0);
		put(p[1], 'x');
		for (;;)
			pause();
	}
	get(p[0]);
	kill(pid, SIGKILL);
	CHECK(wait_child(pid) == 128 + SIGKILL, "importer killed");
	CHECK(cu_unbind(&c, tok) == 0, "unbind after the importer died");
	CHECK(!mismatch(b, KILL_LEN, 0, 19), "the owner's bytes");
	cu_close(&c);
	close(p[0]);
	close(p[1]);
	munmap(b, KILL_LEN);
}

/* The owner execs (its client is O_CLOEXEC): tasks finish ESRCH. */
static void owner_exec(const char *self)
{
	unsigned char *l = map_anon(SMALL);
	int p[2], q[2];
	struct cu_client c;
	uint64_t tok;
	uint32_t h;
	pid_t owner;

	CHECK(cu_open(&c, 16) == 0 && pipe(p) == 0 && pipe(q) == 0, "open");
	owner = fork();
	if (owner == 0) {
		unsigned char *b = map_anon(SMALL);
		struct cu_client oc;
		char fd[16];
		uint64_t t;

		fill(b, SMALL, 0, 23);
		if (cu_open(&oc, 16) || cu_bind(&oc, b, SMALL, RW, &t))
			_exit(5);
		put(p[1], t);
		get(q[0]);
		snprintf(fd, sizeof(fd), "%d", p[1]);
		dup2(q[0], 0);
		execl(self, self, "execd", fd, (char *)NULL);
		_exit(6);
	}
	tok = get(p[0]);
	CHECK(cu_attach(&c, owner, tok, &h, NULL) == 0, "attach");
	CHECK_XCOPY(0, &c, l, h, 0, 4096, false, 0);
	CHECK(!mismatch(l, 4096, 0, 23), "read before the exec");
	put(q[1], 'x');
	CHECK(get(p[0]) == 'e', "the new image runs");
	CHECK_XCOPY(ESRCH, &c, l, h, 0, 4096, false, 0);
	CHECK_XCOPY(ESRCH, &c, l, h, 0, 4096, true, 0);
	CHECK(cu_attach(&c, owner, tok, &h, NULL) == -ENOENT, "attach across the exec");
	put(q[1], 'x');
	CHECK(wait_child(owner) == 0, "the exec'd owner");
	cu_close(&c);
}

/* The image owner_exec() runs: says so on fd, exits once stdin has a byte. */
static int execd(int fd)
{
	uint64_t v;

	put(fd, 'e');
	return read(0, &v, sizeof(v)) == sizeof(v) ? 0 : 1;
}

/*
 * A version 1 client: SETUP takes it, and a region flag is an unknown bit
 * to it, handed back faulted as before; versions 0 and 3 do not exist.
 */
static void version1(void)
{
	unsigned char *b = map_anon(SMALL);
	struct cu_client c;
	uint64_t tok;

	CHECK(cu_open_version(&c, 16, 0) == -EINVAL, "version 0");
	CHECK(cu_open_version(&c, 16, COPIER_ABI_VERSION + 1) == -EINVAL, "a version to come");
	CHECK(cu_open_version(&c, 16, 1) == 0, "version 1");
	CHECK(cu_bind(&c, b, SMALL, RW, &tok) == 0, "bind (version 1)");
	CHECK_XCOPY(-EPROTO, &c, b, 1, 0, 100, false, 0);
	cu_close(&c);
	munmap(b, SMALL);
}

int main(int argc, char **argv)
{
	FILE *f;
	int scope = -1;

	if (argc > 2 && !strcmp(argv[1], "execd"))
		return execd(atoi(argv[2]));
	f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	printf("t_xproc: yama ptrace_scope %d\n", scope);
	same_uid();
	other_uid();
	owner_exit();
	kill_in_flight();
	importer_killed();
	owner_exec(argv[0]);
	version1();
	return vmtest_exit("t_xproc");
}
