#!/bin/busybox sh
# libcopier against copier.ko, inside the VM (init.sh runs it with the
# module loaded): the runtime's C tests (runtime/tests/c, stage 20's
# programs, in /rt with libcopier.so) and a short run of the C API
# differential fuzzer with COPIER_OPTIONS=backend=kernel. Each test must
# also show, on its stats line, that the kernel backend served it
# (backend=kernel device_tasks=N, N > 0). Prints VMTEST-RESULT lines.
result() { echo "VMTEST-RESULT $1 $2"; }
log=/tmp/rt.err
t0=$(date +%s)

# rt NAME WANT-RC kernel|handlers|inprocess|- -- CMD...: run CMD with the
# kernel backend and stats on; pass when it exits WANT-RC and its stats
# line names the expected backend (kernel: with device tasks; handlers:
# the kernel backend, whose copies with a completion handler all run
# synchronously; -: no line, the program dies of its fault first).
rt() {
	name=$1 want=$2 backend=$3
	shift 4
	COPIER_OPTIONS="backend=kernel${RT_OPTS:+:$RT_OPTS}" COPIER_STATS=1 "$@" >/tmp/rt.out 2>$log
	rc=$?
	line=$(grep '^copier: tasks=' $log | tail -n 1)
	case "$backend" in
	kernel) echo "$line" | grep -qE ' backend=kernel device_tasks=[1-9][0-9]*$' ;;
	handlers) echo "$line" | grep -qE ' backend=kernel device_tasks=[0-9]+$' ;;
	-) true ;;
	*) echo "$line" | grep -qE ' backend=inprocess device_tasks=0$' ;;
	esac
	seen=$?
	if [ "$rc" = "$want" ] && [ "$seen" = 0 ]; then
		result "$name" pass
	else
		result "$name" "fail(rc=$rc want $want, stats '$line')"
		tail -n 5 $log
	fi
}

if [ "${1:-device}" = nodevice ]; then
	# without the module: backend=kernel warns once, and the in-process
	# service runs the copies
	rt rt-nodevice 0 inprocess -- /rt/basic
	n=$(grep -c '^copier: backend=kernel: cannot use /dev/copier' $log)
	if [ "$n" = 1 ]; then result rt-nodevice-warning pass; else result rt-nodevice-warning "fail($n lines)"; fi
	echo "VMTEST-TIME runtime-$1 $(( $(date +%s) - t0 ))s"
	exit 0
fi

rt rt-basic 0 kernel -- /rt/basic
rt rt-chain 0 kernel -- /rt/chain 16 4096
rt rt-handler-all 0 handlers -- /rt/handler all
rt rt-handler-range 0 handlers -- /rt/handler range
rt rt-handler-threads 0 handlers -- /rt/handler threads
rt rt-pending 0 kernel -- /rt/pending
# device tasks stay pending (the gate held) until a wait sees them retired
rt rt-pending-strict 0 kernel -- /rt/pending strict
rt rt-fork 0 kernel -- /rt/fork
rt rt-fork-threads 0 kernel -- /rt/fork_threads 20
RT_OPTS=queue_depth=2 rt rt-basic-depth2 0 kernel -- /rt/basic
rt rt-fuzz 0 kernel -- /rt/fuzz 1 4 300
RT_OPTS=threshold=0:segment_size=64 rt rt-fuzz-small 0 kernel -- /rt/fuzz 2 2 300
# a bad source or destination: SIGSEGV on the waiting thread (fault.c's
# handler exits 42), and without a handler of the program the default
# action (128 + 11)
rt rt-fault-src 42 - -- /rt/fault src
rt rt-fault-dst 42 - -- /rt/fault dst
rt rt-fault-exit 42 - -- /rt/fault exit
# a copy that read a faulted copy's destination: the module ran it on the
# stale bytes, so only csync of its destination must raise the fault
# (depsegv: fault.c's dep without its check that the dependent never ran);
# depmap: the bad source is readable by the wait, which re-executes both
rt rt-fault-depsegv 42 - -- /rt/fault depsegv
rt rt-fault-depmap 0 kernel -- /rt/fault depmap
rt rt-segv-default 139 - -- /rt/segv_default
# a program that leaves the fault by siglongjmp (fault_recover.c): the
# fault is delivered once, then the task is finished with a fault; later
# waits and the exit drain neither fault again nor hang
for mode in csync exit all wait chain dep depsync depchain deppart; do
	faults=1
	[ $mode = chain ] && faults=2
	rt rt-fault-recover-$mode 0 kernel -- /rt/fault_recover $mode
	n=$(grep -c '^recovered' /tmp/rt.out /tmp/rt.err | awk -F: '{ s += $2 } END { print s }')
	if [ "$n" = "$faults" ] && ! grep -qE 'LOOP|MISMATCH|no fault' /tmp/rt.out /tmp/rt.err; then
		result rt-fault-recover-$mode-once pass
	else
		result rt-fault-recover-$mode-once "fail(recovered x$n, want $faults)"
	fi
done
# the write/send family (copier_write...) and copier_drop: under the kernel
# backend they wait for the device's copies and make the plain call (no
# absorption, no lazy copies); the bytes that arrive and errno are memcpy's
rt rt-absorb-io 0 kernel -- /rt/absorb_io
rt rt-lazy-drop 0 kernel -- /rt/lazy_drop
RT_OPTS=defer_absorbed=1 rt rt-lazy-drop-deferred 0 kernel -- /rt/lazy_drop
# auto (no option) picks the device too
COPIER_STATS=1 /rt/basic >/dev/null 2>$log
if [ $? = 0 ] && grep -qE ' backend=kernel device_tasks=[1-9]' $log; then result rt-auto pass; else result rt-auto "fail($(tail -n 1 $log))"; fi
echo "VMTEST-TIME runtime-$1 $(( $(date +%s) - t0 ))s"
