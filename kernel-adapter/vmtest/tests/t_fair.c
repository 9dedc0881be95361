// SPDX-License-Identifier: GPL-2.0 OR Apache-2.0
/*
 * Fairness: 4 processes (4 clients) keep their rings full of 64 KiB copies
 * at the same time. When the service has copied a fixed total for them,
 * the byte counts of the clients must be within 10% of their mean: the
 * service serves the least-charged client each round.
 *
 * The counters are in shared memory; the parent snapshots them all at one
 * moment, then stops the children.
 */
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "copier_user.h"
#include "vmtest.h"

#define NPROC 4
#define TASK (64u << 10)
#define DEPTH 64
#define TOTAL (512ULL << 20)

struct shared {
	volatile uint64_t bytes[NPROC];
	volatile int ready;
	volatile int go;
	volatile int stop;
};

static void child(struct shared *sh, int id)
{
	struct cu_client c;
	unsigned char *src = mmap(NULL, TASK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *dst = mmap(NULL, TASK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t retired = 0;

	memset(src, id, TASK);
	memset(dst, 0, TASK);
	if (cu_open(&c, DEPTH))
		_exit(2);
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		sched_yield();
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		/* top up the ring, then wait for its oldest task */
		while (cu_submit(&c, dst, src, TASK) >= 0)
			;
		cu_wait(&c, cu_tail(&c));
		for (uint64_t p = retired; p < c.head && cu_done(&c, p); p++)
			retired = p + 1;
		__atomic_store_n(&sh->bytes[id], retired * TASK, __ATOMIC_RELEASE);
	}
	_exit(dst[0] == id ? 0 : 3);
}

int main(void)
{
	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pids[NPROC];
	uint64_t snap[NPROC], sum = 0;
	double mean;
	int i;

	for (i = 0; i < NPROC; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			child(sh, i);
	}
	while (__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) < NPROC)
		sched_yield();
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	for (;;) {
		sum = 0;
		for (i = 0; i < NPROC; i++)
			sum += snap[i] = __atomic_load_n(&sh->bytes[i], __ATOMIC_ACQUIRE);
		if (sum >= TOTAL)
			break;
		usleep(1000); /* a poll interval of the parent's progress check, not a synchronisation */
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	mean = (double)sum / NPROC;
	for (i = 0; i < NPROC; i++) {
		double dev = (snap[i] - mean) / mean;

		printf("t_fair: client %d copied %llu MiB (%+.1f%% of the mean)\n", i,
		       (unsigned long long)(snap[i] >> 20), dev * 100);
		CHECK(dev < 0.10 && dev > -0.10, "client %d share off by %.1f%%", i, dev * 100);
	}
	for (i = 0; i < NPROC; i++) {
		int st;

		waitpid(pids[i], &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d status %d", i, st);
	}
	return vmtest_exit("t_fair");
}
