// SPDX-License-Identifier: GPL-2.0
/*
 * copier.ko: /dev/copier, a host-wide asynchronous memcpy service.
 *
 * A process opens /dev/copier (one client per process), sets up and maps
 * its rings (COPIER_IOC_SETUP, mmap), and submits copy tasks there; service
 * threads execute them in the process's address space and complete them
 * in the shared descriptors (see <linux/copier.h>). Unloading is refused
 * while a client's file is open (the file holds the module, fops.owner).
 */
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/copier.h>

#include "cglimit.h"
#include "exec.h"
#include "fops.h"
#include "region.h"
#include "sched.h"

static const struct attribute_group *copier_groups[] = {
	&copier_cglimit_group,
	&copier_client_group,
	NULL,
};

static struct miscdevice copier_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "copier",
	.fops = &copier_fops,
	.mode = 0666,
	.groups = copier_groups,
};

static int __init copier_init(void)
{
	int ret;

	ret = copier_exec_init();
	if (ret)
		return ret;
	copier_access_init();
	ret = copier_sched_start();
	if (ret)
		goto out_exec;
	ret = misc_register(&copier_misc);
	if (ret)
		goto out_sched;
	pr_info("copier: /dev/copier ready, cpu engine %s, abi %d\n",
		copier_exec_cpu_engine(), COPIER_ABI_VERSION);
	return 0;

out_sched:
	copier_sched_stop();
out_exec:
	copier_exec_exit();
	return ret;
}

static void __exit copier_exit(void)
{
	misc_deregister(&copier_misc);
	copier_sched_stop();
	copier_exec_exit();
}

module_init(copier_init);
module_exit(copier_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Copier: asynchronous memcpy service (/dev/copier)");
