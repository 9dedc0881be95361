// SPDX-License-Identifier: GPL-2.0 OR Apache-2.0
/*
 * Process lifetime with tasks in flight: exit, kill -9, fork (the child
 * cannot drive the parent's client, the mapping is not inherited, CoW pages
 * stay private) and exec (an inherited descriptor is refused in the new
 * image). One client per process: a second open fails until the first
 * closes. `t_life hold` opens a client, prints "ready" and waits to be
 * killed (init.sh's unload test).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "copier_user.h"
#include "vmtest.h"

#define BIG (4u << 20)

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	return p;
}

/* Submit as many big copies as fit; returns how many. */
static int fill(struct cu_client *c, unsigned char *dst, unsigned char *src)
{
	int n = 0;

	while (cu_submit(c, dst, src, BIG) >= 0)
		n++;
	return n;
}

static int wait_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static void exit_and_kill(void)
{
	for (int mode = 0; mode < 2; mode++) {
		for (int rep = 0; rep < 5; rep++) {
			int p[2];
			char ch;
			pid_t pid;

			CHECK(pipe(p) == 0, "pipe");
			pid = fork();
			if (pid == 0) {
				struct cu_client c;
				unsigned char *src = map_anon(BIG), *dst = map_anon(BIG);

				memset(src, 1, BIG);
				if (cu_open(&c, 32))
					_exit(2);
				fill(&c, dst, src);
				if (mode == 0)
					_exit(0); /* exit with the ring full */
				(void)!write(p[1], "x", 1);
				for (;;)	/* keep submitting until killed */
					if (cu_submit(&c, dst, src, BIG) < 0)
						cu_wait(&c, cu_tail(&c));
			}
			close(p[1]);
			if (mode == 1) {
				CHECK(read(p[0], &ch, 1) == 1, "child ready");
				kill(pid, SIGKILL);
			}
			int st = wait_status(pid);
			CHECK(mode == 0 ? (WIFEXITED(st) && WEXITSTATUS(st) == 0)
					: (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL),
			      "mode %d status %d", mode, st);
			close(p[0]);
		}
	}
}

static void forks(void)
{
	struct cu_client c;
	unsigned char *src = map_anon(BIG), *dst = map_anon(BIG), *cow = map_anon(BIG);
	int64_t last = -1;
	int p[2];
	pid_t pid;

	CHECK(cu_open(&c, 32) == 0, "open");
	memset(src, 9, BIG);
	memset(cow, 1, BIG);
	for (int i = 0; i < 8; i++)
		last = cu_submit(&c, dst, src, BIG);
	CHECK(pipe(p) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		struct cu_client cc;
		unsigned char vec;
		char ch;
		int bad = 0;

		/* the parent's client is not this process's */
		bad |= ioctl(c.fd, COPIER_IOC_WAKE) != -1 || errno != EPERM;
		bad |= (mmap(NULL, c.map_len, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd, 0) != MAP_FAILED) << 1;
		/* the mapping was not inherited */
		bad |= (mincore(c.map, 4096, &vec) != -1 || errno != ENOMEM) << 2;
		/* the child is its own client */
		bad |= (cu_open(&cc, 16) != 0) << 3;
		if (!(bad & 8)) {
			unsigned char *b = map_anon(8192);
			int64_t q;

			memset(b, 5, 4096);
			q = cu_submit(&cc, b + 4096, b, 4096);
			bad |= (q < 0 || cu_wait(&cc, q) != 0 || b[4096 + 17] != 5) << 4;
			cu_close(&cc);
		}
		/* the parent's copy into cow (after the fork) must not show here */
		(void)!read(p[0], &ch, 1);
		bad |= (cow[0] != 1 || cow[BIG - 1] != 1) << 5;
		_exit(bad);
	}
	close(p[0]);
	/* CoW: this copy writes the parent's pages only */
	int64_t q = cu_submit(&c, cow, src, BIG);
	if (q < 0) {
		cu_wait(&c, last);
		q = cu_submit(&c, cow, src, BIG);
	}
	CHECK(q >= 0 && cu_wait(&c, q) == 0 && cow[0] == 9, "copy into CoW pages");
	(void)!write(p[1], "x", 1);
	int st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork child: failure bits %d", WEXITSTATUS(st));
	CHECK(cu_wait(&c, last) == 0 && dst[0] == 9 && dst[BIG - 1] == 9, "parent's tasks after fork");
	close(p[1]);
	cu_close(&c);
}

static void execs(const char *self)
{
	int fd = open("/dev/copier", O_RDWR); /* no O_CLOEXEC: inherited by exec */
	struct copier_setup s = { .version = COPIER_ABI_VERSION, .copy_entries = 16,
				  .sync_entries = 16, .handler_entries = 16 };
	char arg[16];
	pid_t pid;

	CHECK(fd >= 0 && ioctl(fd, COPIER_IOC_SETUP, &s) == 0, "setup");
	CHECK_ERR(open("/dev/copier", O_RDWR), EBUSY);
	pid = fork();
	if (pid == 0) {
		snprintf(arg, sizeof(arg), "%d", fd);
		execl(self, self, "exec-child", arg, (char *)NULL);
		perror("execl");
		_exit(99);
	}
	int st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exec child status %d", st);
	close(fd);
	fd = open("/dev/copier", O_RDWR);
	CHECK(fd >= 0, "open after close");
	close(fd);
}

static int exec_child(int fd)
{
	struct cu_client c;
	int bad = 0;

	bad |= ioctl(fd, COPIER_IOC_WAKE) != -1 || errno != EPERM;
	bad |= (cu_open(&c, 16) != 0) << 1;
	cu_close(&c);
	return bad;
}

static int hold(void)
{
	struct cu_client c;

	if (cu_open(&c, 16))
		return 2;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "exec-child"))
		return exec_child(atoi(argv[2]));
	if (argc > 1 && !strcmp(argv[1], "hold"))
		return hold();
	exit_and_kill();
	forks();
	execs(argv[0]);
	return vmtest_exit("t_life");
}
