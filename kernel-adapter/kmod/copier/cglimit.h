/* SPDX-License-Identifier: GPL-2.0 */
/* Per-cgroup byte-rate limits (cglimit.c). */
#ifndef COPIER_CGLIMIT_H
#define COPIER_CGLIMIT_H

#include <linux/sysfs.h>
#include <linux/types.h>

/* The misc device's attribute cgroup_limits. */
extern const struct attribute_group copier_cglimit_group;

/* May a client of cgroup cgid be served now? Takes its own lock. */
bool copier_cglimit_allow(u64 cgid);
/* Charge bytes copied for a client of cgroup cgid. */
void copier_cglimit_charge(u64 cgid, u64 bytes);

#endif /* COPIER_CGLIMIT_H */
