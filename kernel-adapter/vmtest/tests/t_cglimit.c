// SPDX-License-Identifier: GPL-2.0 OR Apache-2.0
/*
 * Per-cgroup byte-rate limit: a client in a cgroup limited to RATE bytes/s
 * copies TOTAL bytes; it cannot finish sooner than the limit allows
 * ((TOTAL - burst - one round's overdraw) / RATE; a slower machine only takes longer, so the check
 * is one-sided). Usage: t_cglimit [new cgroup v2 directory]. An unlimited client copying at the same time still
 * completes. The limit shows in sysfs and is removed by rate 0.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "copier_user.h"
#include "vmtest.h"

#define LIMITS "/sys/class/misc/copier/cgroup_limits"
#define TASK (64u << 10)
#define RATE (16ULL << 20)
#define TOTAL (16ULL << 20)
/* a round may overdraw the bucket: one round per service thread */
#define OVERDRAW (512ULL << 10)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Copy total bytes in TASK-sized tasks; returns the elapsed seconds. */
static double copy_flat_out(uint64_t total)
{
	struct cu_client c;
	unsigned char *src = mmap(NULL, TASK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *dst = mmap(NULL, TASK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t ntasks = total / TASK, submitted = 0;
	double t0;

	memset(src, 1, TASK);
	if (cu_open(&c, 32))
		_exit(2);
	t0 = now_s();
	while (submitted < ntasks) {
		if (cu_submit(&c, dst, src, TASK) >= 0)
			submitted++;
		else
			cu_wait(&c, cu_tail(&c));
	}
	cu_wait(&c, c.head - 1);
	cu_close(&c);
	return now_s() - t0;
}

int main(int argc, char **argv)
{
	const char *cg = argc > 1 ? argv[1] : "/sys/fs/cgroup/copier-limited";
	char procs[256];
	struct stat st;
	char line[64], buf[256];
	int p[2], fd;
	pid_t limited, free_;
	double elapsed = 0, min_s = (double)(TOTAL - RATE / 10 - OVERDRAW) / RATE;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	if (mkdir(cg, 0755) && errno != EEXIST) {
		perror(cg);
		return 1;
	}
	CHECK(stat(cg, &st) == 0, "stat");
	snprintf(line, sizeof(line), "%llu %llu\n", (unsigned long long)st.st_ino, RATE);
	CHECK(vmtest_write_file(LIMITS, line) == 0, "set limit");
	CHECK(vmtest_write_file(LIMITS, "0 5\n") != 0, "cgroup id 0 refused");
	CHECK(vmtest_write_file(LIMITS, "garbage\n") != 0, "garbage refused");
	fd = open(LIMITS, O_RDONLY);
	memset(buf, 0, sizeof(buf));
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf) - 1) > 0 && strstr(buf, line), "limit listed: %s", buf);
	close(fd);

	CHECK(pipe(p) == 0, "pipe");
	limited = fork();
	if (limited == 0) {
		double t;

		if (vmtest_write_file(procs, "0"))
			_exit(3);
		t = copy_flat_out(TOTAL);
		(void)!write(p[1], &t, sizeof(t));
		_exit(0);
	}
	free_ = fork();
	if (free_ == 0)
		_exit(copy_flat_out(TOTAL * 4) > 0 ? 0 : 1);
	CHECK(read(p[0], &elapsed, sizeof(elapsed)) == sizeof(elapsed), "limited child result");
	for (int i = 0; i < 2; i++) {
		int s;
		pid_t w = wait(&s);

		CHECK(WIFEXITED(s) && WEXITSTATUS(s) == 0, "child %d status %d", (int)w, s);
	}
	printf("t_cglimit: %llu MiB at a limit of %llu MiB/s took %.2f s (%.1f MiB/s; at least %.2f s)\n",
	       TOTAL >> 20, RATE >> 20, elapsed, (TOTAL >> 20) / elapsed, min_s);
	CHECK(elapsed >= min_s, "the limited cgroup copied faster than its limit");

	snprintf(line, sizeof(line), "%llu 0\n", (unsigned long long)st.st_ino);
	CHECK(vmtest_write_file(LIMITS, line) == 0, "remove limit");
	fd = open(LIMITS, O_RDONLY);
	memset(buf, 0, sizeof(buf));
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 0, "limit still listed: %s", buf);
	close(fd);
	rmdir(cg);
	return vmtest_exit("t_cglimit");
}
