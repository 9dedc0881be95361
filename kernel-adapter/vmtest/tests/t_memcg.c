// SPDX-License-Identifier: GPL-2.0 OR Apache-2.0
/*
 * What a client allocates is charged to its memory cgroup: the process
 * moves into a new cgroup v2 directory (the memory controller enabled in
 * its parent), opens a client with the largest rings, and memory.current
 * must grow by (nearly) the shared area's size.
 * Usage: t_memcg <new cgroup v2 directory>.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copier_user.h"
#include "vmtest.h"

/* memory.current of cgroup directory cg, in bytes; -1 if unreadable. */
static long long memory_current(const char *cg)
{
	char path[512];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.current", cg);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	char parent[512], path[600], pid[32];
	struct cu_client c;
	long long before, after;

	if (argc != 2) {
		fprintf(stderr, "usage: t_memcg <new cgroup v2 directory>\n");
		return 2;
	}
	snprintf(parent, sizeof(parent), "%s", argv[1]);
	dirname(parent);
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", parent);
	CHECK(vmtest_write_file(path, "+memory") == 0, "enable the memory controller in %s", parent);
	CHECK(mkdir(argv[1], 0755) == 0 || errno == EEXIST, "mkdir %s", argv[1]);
	snprintf(path, sizeof(path), "%s/cgroup.procs", argv[1]);
	snprintf(pid, sizeof(pid), "%d", getpid());
	CHECK(vmtest_write_file(path, pid) == 0, "join %s", argv[1]);
	if (vmtest_failures)
		return vmtest_exit("t_memcg");

	before = memory_current(argv[1]);
	CHECK(cu_open(&c, 65536) == 0, "cu_open with 65536 entries");
	after = memory_current(argv[1]);
	/* (the counter moves in per-CPU batches: a few pages either way) */
	CHECK(before >= 0 && after - before >= (long long)c.map_len * 9 / 10,
	      "memory.current grew by %lld bytes for a %zu-byte shared area", after - before,
	      c.map_len);
	printf("t_memcg: shared area %zu bytes, memory.current +%lld\n", c.map_len, after - before);
	cu_close(&c);

	snprintf(path, sizeof(path), "%s/cgroup.procs", parent);
	CHECK(vmtest_write_file(path, pid) == 0, "leave %s", argv[1]);
	rmdir(argv[1]);
	return vmtest_exit("t_memcg");
}
