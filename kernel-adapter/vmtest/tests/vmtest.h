/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Assertions and result lines shared by the VM tests. */
#ifndef VMTEST_H
#define VMTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int vmtest_failures;

#define CHECK(cond, ...)                                                           \
	do {                                                                       \
		if (!(cond)) {                                                     \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                              \
			fprintf(stderr, " (errno %d %s)\n", errno, strerror(errno)); \
			vmtest_failures++;                                         \
		}                                                                  \
	} while (0)

/* Expect a call to fail with errno e. */
#define CHECK_ERR(call, e)                                                         \
	do {                                                                       \
		errno = 0;                                                         \
		long r_ = (long)(call);                                            \
		CHECK(r_ < 0 && errno == (e), "%s returned %ld, want errno %d", #call, r_, (e)); \
	} while (0)

static inline int vmtest_exit(const char *name)
{
	printf("%s: %s (%d failures)\n", name, vmtest_failures ? "FAIL" : "PASS", vmtest_failures);
	return vmtest_failures ? 1 : 0;
}

/* Write s to the file at path (a sysfs or cgroup file): 0, or -1 when it
 * cannot be opened or takes less than all of s. */
static inline int vmtest_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* xorshift64*: deterministic per seed. */
static inline unsigned long long vmtest_rand(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

#endif /* VMTEST_H */
