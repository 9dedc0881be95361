// SPDX-License-Identifier: GPL-2.0
/*
 * May the caller reach another process's memory? The kernel's answer is
 * ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS): the same uid and
 * gid on all three ids, or CAP_SYS_PTRACE over the target, a dumpable
 * target, and the LSMs' ptrace hooks (Yama, AppArmor, SELinux). It is what
 * pidfd_getfd() and process_vm_writev() ask, and it is taken here under
 * the target's exec_update_lock with the mm read in the same section, as
 * mm_access() (kernel/fork.c) does, so a setuid exec cannot slip between
 * the check and the mm.
 *
 * Linux 6.1 does not export ptrace_may_access to modules. Its address is
 * found once at load through a kprobe registration (the kprobe is removed
 * at once; kallsyms_lookup_name is not exported either). Without kprobes
 * the check cannot be made, and cross-process attachment is refused
 * (-EOPNOTSUPP) rather than checked by a partial copy of the rules.
 */
#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>

#include "region.h"

static bool (*may_access)(struct task_struct *task, unsigned int mode);

/* The address a kprobe on name gets, 0 when none can be registered. */
static unsigned long probe_addr(const char *name)
{
	unsigned long addr = 0;
#ifdef CONFIG_KPROBES
	struct kprobe kp = { .symbol_name = name };

	if (register_kprobe(&kp) == 0) {
		addr = (unsigned long)kp.addr;
		unregister_kprobe(&kp);
	}
#endif
	return addr;
}

void copier_access_init(void)
{
	/*
	 * A kprobe's address may sit past the function's first instruction
	 * (x86 skips an ENDBR); get_task_mm, exported, tells by how much.
	 */
	unsigned long ref = probe_addr("get_task_mm"), addr = probe_addr("ptrace_may_access");

	if (ref && addr && ref - (unsigned long)get_task_mm < 16)
		may_access = (void *)(addr - (ref - (unsigned long)get_task_mm));
	if (!may_access)
		pr_info("copier: ptrace_may_access not found: cross-process copies disabled\n");
}

/*
 * The mm of task (mmget) when the caller may ptrace it with
 * PTRACE_MODE_ATTACH_REALCREDS; ERR_PTR(-EPERM) when not, -ESRCH when it
 * has no mm (exited, a kernel thread), -EOPNOTSUPP when no check can be
 * made, -EINTR on a fatal signal. Context: process context, the caller's.
 */
struct mm_struct *copier_access_mm(struct task_struct *task)
{
	struct mm_struct *mm;
	int err;

	if (!may_access)
		return ERR_PTR(-EOPNOTSUPP);
	err = down_read_killable(&task->signal->exec_update_lock);
	if (err)
		return ERR_PTR(err);
	mm = get_task_mm(task);
	if (!mm) {
		mm = ERR_PTR(-ESRCH);
	} else if (mm != current->mm && !may_access(task, PTRACE_MODE_ATTACH_REALCREDS)) {
		mmput(mm);
		mm = ERR_PTR(-EPERM);
	}
	up_read(&task->signal->exec_update_lock);
	return mm;
}
