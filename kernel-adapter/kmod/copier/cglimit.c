// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cgroup byte-rate limits: a token bucket per cgroup id (the cgroup v2
 * id of a client's opener at open time; the inode number of its cgroup
 * directory), refilled at the limit's rate with a burst of 100 ms worth.
 * A round may overdraw a bucket (by at most one round's bytes); the
 * cgroup's clients are then skipped until it refills, so the long-run rate
 * is the limit.
 *
 * Set through sysfs, /sys/class/misc/copier/cgroup_limits:
 *   write "<cgroup id> <bytes per second>" to set a limit, rate 0 removes it;
 *   read: one "<cgroup id> <bytes per second>" line per limit.
 * At most COPIER_CGLIMITS limits; writing is root-only (mode 0644).
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/spinlock.h>

#include "cglimit.h"

#define COPIER_CGLIMITS 64

struct cg_bucket {
	u64 id;		/* 0: free slot */
	u64 rate;	/* bytes per second */
	s64 tokens;	/* bytes that may still be copied */
	u64 last_ns;	/* last refill */
};

static DEFINE_SPINLOCK(cg_lock);
static struct cg_bucket cg_buckets[COPIER_CGLIMITS];

/* Lock held. */
static struct cg_bucket *find(u64 id)
{
	unsigned int i;

	for (i = 0; i < COPIER_CGLIMITS; i++)
		if (cg_buckets[i].id == id)
			return &cg_buckets[i];
	return NULL;
}

static s64 burst(const struct cg_bucket *b)
{
	return (s64)max_t(u64, b->rate / 10, 4096);
}

/* Lock held. */
static void refill(struct cg_bucket *b, u64 now)
{
	u64 dt = now - b->last_ns;

	b->last_ns = now;
	/* dt capped at 1 s keeps the product far from overflow */
	b->tokens += (s64)mul_u64_u64_div_u64(b->rate, min_t(u64, dt, NSEC_PER_SEC), NSEC_PER_SEC);
	b->tokens = min(b->tokens, burst(b));
}

bool copier_cglimit_allow(u64 cgid)
{
	struct cg_bucket *b;
	bool ok = true;

	if (!cgid)
		return true;
	spin_lock(&cg_lock);
	b = find(cgid);
	if (b) {
		refill(b, ktime_get_ns());
		ok = b->tokens > 0;
	}
	spin_unlock(&cg_lock);
	return ok;
}

void copier_cglimit_charge(u64 cgid, u64 bytes)
{
	struct cg_bucket *b;

	if (!cgid || !bytes)
		return;
	spin_lock(&cg_lock);
	b = find(cgid);
	if (b)
		b->tokens -= (s64)min_t(u64, bytes, S64_MAX / 2);
	spin_unlock(&cg_lock);
}

static ssize_t cgroup_limits_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	ssize_t n = 0;
	unsigned int i;

	spin_lock(&cg_lock);
	for (i = 0; i < COPIER_CGLIMITS; i++)
		if (cg_buckets[i].id)
			n += sysfs_emit_at(buf, n, "%llu %llu\n", cg_buckets[i].id, cg_buckets[i].rate);
	spin_unlock(&cg_lock);
	return n;
}

static ssize_t cgroup_limits_store(struct device *dev, struct device_attribute *attr,
				   const char *buf, size_t count)
{
	struct cg_bucket *b;
	u64 id, rate;
	ssize_t ret = count;

	if (sscanf(buf, "%llu %llu", &id, &rate) != 2 || !id)
		return -EINVAL;
	spin_lock(&cg_lock);
	b = find(id);
	if (!rate) {
		if (b)
			b->id = 0;
		goto out_unlock;
	}
	if (!b)
		b = find(0);
	if (!b) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	b->id = id;
	b->rate = rate;
	b->last_ns = ktime_get_ns();
	b->tokens = burst(b);
out_unlock:
	spin_unlock(&cg_lock);
	return ret;
}

static DEVICE_ATTR_RW(cgroup_limits);

static struct attribute *copier_cglimit_attrs[] = {
	&dev_attr_cgroup_limits.attr,
	NULL,
};

const struct attribute_group copier_cglimit_group = {
	.attrs = copier_cglimit_attrs,
};
