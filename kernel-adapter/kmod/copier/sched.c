// SPDX-License-Identifier: GPL-2.0
/*
 * Service threads of copier.ko and their choice of client.
 *
 * Fairness (CFS-like, after kernel/sched/fair.c's vruntime): every client
 * has a charge, the bytes copied for it. A round serves the least-charged
 * runnable client, for at most its max_round_bytes, then charges it. A
 * client that becomes runnable after idling starts at the smallest charge
 * served so far (min_charge, as CFS places a waking task at min_vruntime),
 * so idling earns no credit. A client is served by one thread at a time
 * (@busy), which also keeps its ring single-consumer.
 *
 * Polling modes (module parameter poll_mode):
 * - "napi": after a round, keep polling the rings for poll_us microseconds
 *   without sleeping; park only when that long passed without work (as
 *   NAPI's busy-poll, net/core/dev.c napi_busy_loop);
 * - "ondemand": park as soon as no client is runnable.
 *
 * Parking (Dekker-style with submitters, as io_uring's SQPOLL need_wakeup
 * flag, io_uring/sqpoll.c): the thread stores copy_ring->waiters = 1 in
 * every client, a full barrier, then re-reads every head; a submitter
 * stores head, a full barrier, then reads waiters and calls COPIER_IOC_WAKE
 * when it is set. One of the two sees the other's store.
 */
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "cglimit.h"
#include "client.h"
#include "round.h"
#include "sched.h"

#define COPIER_MAX_THREADS 8

static unsigned int nr_threads = 1;
module_param(nr_threads, uint, 0444);
MODULE_PARM_DESC(nr_threads, "service threads (1..8, default 1)");

static bool poll_napi = true;
static int poll_mode_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "napi"))
		poll_napi = true;
	else if (sysfs_streq(val, "ondemand"))
		poll_napi = false;
	else
		return -EINVAL;
	return 0;
}

static int poll_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", poll_napi ? "napi" : "ondemand");
}

static const struct kernel_param_ops poll_mode_ops = {
	.set = poll_mode_set,
	.get = poll_mode_get,
};
module_param_cb(poll_mode, &poll_mode_ops, NULL, 0644);
MODULE_PARM_DESC(poll_mode, "napi (busy-poll poll_us after work, then sleep) or ondemand (sleep until a submit wakes)");

static unsigned int poll_us = 50;
module_param(poll_us, uint, 0644);
MODULE_PARM_DESC(poll_us, "napi mode: microseconds to keep polling without work (default 50)");

unsigned int copier_round_bytes = 256 << 10;
module_param_named(round_bytes, copier_round_bytes, uint, 0644);
MODULE_PARM_DESC(round_bytes, "default bytes per round and client (default 262144)");

static DEFINE_SPINLOCK(copier_sched_lock);
static LIST_HEAD(copier_clients);
static u64 copier_min_charge;
static atomic_t copier_kicks = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(copier_svc_wq);
static struct task_struct *copier_threads[COPIER_MAX_THREADS];

static u64 ring_head(struct copier_client *c)
{
	return smp_load_acquire(&c->copy_ring->head);
}

/* Lock held. Runnable: not idle, or new work published since it idled. */
static bool runnable(struct copier_client *c)
{
	if (c->dead || !smp_load_acquire(&c->ready) || c->mm_gone)
		return false;
	if (!c->idle)
		return true;
	if (ring_head(c) == c->idle_head)
		return false;
	c->idle = false;
	c->charge = max(c->charge, copier_min_charge);
	return true;
}

/*
 * Take the least-charged runnable client that no thread serves and whose
 * cgroup is within its byte rate; *throttled says whether a rate limit
 * held some client back.
 */
static struct copier_client *pick(bool *throttled)
{
	struct copier_client *c, *best = NULL;

	*throttled = false;
	spin_lock(&copier_sched_lock);
	list_for_each_entry(c, &copier_clients, node) {
		if (c->busy || !runnable(c))
			continue;
		if (!copier_cglimit_allow(c->cgroup_id)) {
			*throttled = true;
			continue;
		}
		if (!best || c->charge < best->charge)
			best = c;
	}
	if (best) {
		best->busy = true;
		kref_get(&best->ref);
		copier_min_charge = max(copier_min_charge, best->charge);
	}
	spin_unlock(&copier_sched_lock);
	return best;
}

static void charge(struct copier_client *c, const struct copier_round_result *r)
{
	copier_cglimit_charge(c->cgroup_id, r->bytes);
	spin_lock(&copier_sched_lock);
	c->charge += r->bytes;
	c->busy = false;
	if (!r->progress) {
		c->idle = true;
		c->idle_head = r->head;
	}
	spin_unlock(&copier_sched_lock);
	copier_client_put(c);
}

static void set_waiters(u32 v)
{
	struct copier_client *c;

	spin_lock(&copier_sched_lock);
	list_for_each_entry(c, &copier_clients, node)
		if (smp_load_acquire(&c->ready))
			WRITE_ONCE(c->copy_ring->waiters, v);
	spin_unlock(&copier_sched_lock);
}

static bool any_runnable(void)
{
	struct copier_client *c;
	bool any = false;

	spin_lock(&copier_sched_lock);
	list_for_each_entry(c, &copier_clients, node) {
		if (!c->busy && runnable(c)) {
			any = true;
			break;
		}
	}
	spin_unlock(&copier_sched_lock);
	return any;
}

/* Sleep until a kick; see the file comment for the protocol. */
static void park(void)
{
	int k = atomic_read(&copier_kicks);

	set_waiters(1);
	smp_mb(); /* pairs with the submitter's barrier between head and waiters */
	if (!any_runnable())
		wait_event_idle(copier_svc_wq,
				atomic_read(&copier_kicks) != k || kthread_should_stop());
	set_waiters(0);
}

static int copier_thread(void *unused)
{
	u64 last_work = ktime_get_ns();

	while (!kthread_should_stop()) {
		bool throttled;
		struct copier_client *c = pick(&throttled);

		if (c) {
			struct copier_round_result r;

			copier_round(c, &r);
			charge(c, &r);
			if (r.progress)
				last_work = ktime_get_ns();
			cond_resched();
			continue;
		}
		if (throttled) {
			/* a rate-limited client waits for its bucket to refill */
			schedule_timeout_idle(1);
			continue;
		}
		if (poll_napi &&
		    ktime_get_ns() - last_work < (u64)READ_ONCE(poll_us) * NSEC_PER_USEC) {
			cond_resched();
			cpu_relax();
			continue;
		}
		park();
		last_work = ktime_get_ns();
	}
	return 0;
}

int copier_sched_add(struct copier_client *c)
{
	struct copier_client *o;
	int ret = 0;

	spin_lock(&copier_sched_lock);
	list_for_each_entry(o, &copier_clients, node) {
		if (o->mm == c->mm) {
			ret = -EBUSY;
			goto out_unlock;
		}
	}
	c->charge = copier_min_charge;
	c->max_round_bytes = READ_ONCE(copier_round_bytes);
	list_add_tail(&c->node, &copier_clients);
out_unlock:
	spin_unlock(&copier_sched_lock);
	return ret;
}

void copier_sched_remove(struct copier_client *c)
{
	spin_lock(&copier_sched_lock);
	c->dead = true;
	list_del_init(&c->node);
	spin_unlock(&copier_sched_lock);
}

void copier_sched_wake(struct copier_client *c)
{
	spin_lock(&copier_sched_lock);
	if (c->idle) {
		c->idle = false;
		c->charge = max(c->charge, copier_min_charge);
	}
	spin_unlock(&copier_sched_lock);
	atomic_inc(&copier_kicks);
	wake_up(&copier_svc_wq);
}

void copier_sched_set_limit(struct copier_client *c, u64 max_round_bytes)
{
	spin_lock(&copier_sched_lock);
	c->max_round_bytes = max_round_bytes;
	spin_unlock(&copier_sched_lock);
}

int copier_sched_start(void)
{
	unsigned int i;

	if (nr_threads < 1 || nr_threads > COPIER_MAX_THREADS)
		return -EINVAL;
	for (i = 0; i < nr_threads; i++) {
		struct task_struct *t = kthread_run(copier_thread, NULL, "copier/%u", i);

		if (IS_ERR(t)) {
			copier_sched_stop();
			return PTR_ERR(t);
		}
		copier_threads[i] = t;
	}
	return 0;
}

void copier_sched_stop(void)
{
	unsigned int i;

	for (i = 0; i < COPIER_MAX_THREADS; i++) {
		if (copier_threads[i]) {
			kthread_stop(copier_threads[i]);
			copier_threads[i] = NULL;
		}
	}
}
