#!/bin/busybox sh
# /init of the VM test's initramfs (busybox): loads copier.ko, runs the
# static tests in /t, prints one "VMTEST-RESULT <name> pass|fail" line per
# test, dumps dmesg between markers and powers off. run.sh judges.
/bin/busybox --install -s /bin
echo # end the firmware's last console line
result() { echo "VMTEST-RESULT $1 $2"; }
mkdir -p /proc /sys /dev /tmp /cgroup
if mount -t proc proc /proc && mount -t sysfs sysfs /sys && mount -t devtmpfs devtmpfs /dev &&
	mount -t tmpfs tmpfs /tmp && mount -t cgroup2 cgroup2 /cgroup; then
	result mounts pass
else
	result mounts fail
fi
echo "VMTEST-BOOTED $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"

run() {
	name=$1
	shift
	start=$(date +%s)
	if "$@"; then
		result "$name" pass
	else
		result "$name" "fail(rc=$?)"
	fi
	echo "VMTEST-TIME $name $(( $(date +%s) - start ))s"
}
# vmstat counters lag per CPU: stat_refresh folds them first
pins() { echo 1 > /proc/sys/vm/stat_refresh; awk '$1 == "nr_foll_pin_acquired" { a = $2 } $1 == "nr_foll_pin_released" { r = $2 } END { print a - r }' /proc/vmstat; }

if insmod /copier.ko poll_mode=ondemand && [ "$(cat /sys/module/copier/parameters/poll_mode)" = ondemand ]; then
	result insmod pass
else
	result insmod fail
fi
pins_before=$(pins)
run diff-ondemand /t/t_diff 12
if echo napi > /sys/module/copier/parameters/poll_mode &&
	[ "$(cat /sys/module/copier/parameters/poll_mode)" = napi ]; then
	run diff-napi /t/t_diff 12
else
	result diff-napi "fail(cannot set poll_mode)"
fi
run fair /t/t_fair
run cglimit /t/t_cglimit /cgroup/copier-limited
run memcg /t/t_memcg /cgroup/copier-memcg
run fuzz /t/t_fuzz
run life /t/t_life
run xproc /t/t_xproc
run atc-nodma /t/t_dma nodma
# libcopier's own tests with backend=kernel (runtime.sh)
/bin/busybox sh /runtime.sh device

# no page stays pinned and no client object stays once the tests' clients are
# gone (the last reference may be a service thread finishing its round, or a
# delayed fput: poll the condition for up to 10 s)
clients_gone() {
	i=0
	while { [ "$(cat /sys/class/misc/copier/clients)" != 0 ] || [ "$(cat /sys/module/copier/refcnt)" != 0 ]; } &&
		[ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
clients_gone
clients=$(cat /sys/class/misc/copier/clients)
if [ "$clients" = 0 ]; then result clients-freed pass; else result clients-freed "fail($clients)"; fi
pins_after=$(pins)
if [ -n "$pins_before" ] && [ "$pins_after" -eq "$pins_before" ]; then result pins-released pass; else result pins-released "fail($pins_after vs $pins_before)"; fi

# unload is refused while a client is open, allowed once it closed
mkfifo /tmp/ready
/t/t_life hold > /tmp/ready &
holder=$!
read -r line < /tmp/ready
if [ "$line" = ready ] && ! rmmod copier 2>/dev/null && [ -e /dev/copier ]; then
	kill "$holder"
	wait "$holder"
	if rmmod copier; then result unload pass; else result unload "fail(rmmod after close)"; fi
	/bin/busybox sh /runtime.sh nodevice
else
	result unload "fail(rmmod with a client open: $line)"
	kill "$holder"
fi

# two service threads: rounds of different clients run in parallel
if insmod /copier.ko nr_threads=2 poll_mode=napi; then
	run diff-2threads /t/t_diff 6
	run fair-2threads /t/t_fair
	clients_gone
	if rmmod copier; then result unload-2threads pass; else result unload-2threads fail; fi
else
	result diff-2threads "fail(insmod)"
fi

# DMA through copier_swdma.ko: its own dmaengine client test, then the
# service with DMA (also with every third descriptor failing, which the CPU
# redoes), then with dma=0; no pin outlives the clients
pins_before=$(pins)
if insmod /copier_swdma.ko && insmod /copier_swdma_test.ko; then
	result swdma pass
	rmmod copier_swdma_test
else
	result swdma fail
fi
if insmod /copier.ko poll_mode=ondemand; then
	run diff-swdma /t/t_diff 6
	run dma-swdma /t/t_dma dma
	# the ATCache's DMA mappings go with the clients' cached pages
	clients_gone
	mapped=$(cat /sys/module/copier/parameters/atc_dma_mapped)
	if [ "$mapped" = 0 ]; then result dma-maps-released pass; else result dma-maps-released "fail($mapped)"; fi
	rmmod copier
fi
# two service threads sharing the channels (two clients' packs at once)
if insmod /copier.ko nr_threads=2 poll_mode=ondemand dma_chans=2; then
	/t/t_dma dma > /tmp/dma2a.log 2>&1 &
	a=$!
	if /t/t_diff 4 && wait $a; then result dma-2threads pass; else result dma-2threads fail; fi
	cat /tmp/dma2a.log
	rmmod copier
fi
echo 3 > /sys/module/copier_swdma/parameters/fail_every
if insmod /copier.ko poll_mode=ondemand dma_min_bytes=4096; then
	run dma-failing /t/t_dma dma
	redone=$(cat /sys/module/copier/parameters/dma_redone)
	if [ "$redone" -gt 0 ]; then result dma-redone pass; else result dma-redone "fail($redone)"; fi
	rmmod copier
fi
echo 0 > /sys/module/copier_swdma/parameters/fail_every
# a lost completion: the pack gives up after dma_timeout_ms, terminates the
# channel and the CPU copies what was not completed
echo 50 > /sys/module/copier_swdma/parameters/stall_every
if insmod /copier.ko poll_mode=ondemand dma_timeout_ms=100; then
	run dma-stalling /t/t_diff 2
	redone=$(cat /sys/module/copier/parameters/dma_redone)
	if [ "$redone" -gt 0 ] && dmesg | grep -q 'no DMA completion'; then
		result dma-stall-redone pass
	else
		result dma-stall-redone "fail($redone)"
	fi
	rmmod copier
fi
echo 0 > /sys/module/copier_swdma/parameters/stall_every
if insmod /copier.ko poll_mode=ondemand dma=0; then
	run diff-dma-off /t/t_diff 6
	run dma-off /t/t_dma nodma
	rmmod copier
fi
if [ "$(pins)" = "$pins_before" ]; then result dma-pins-released pass; else result dma-pins-released "fail($(pins) vs $pins_before)"; fi
if rmmod copier_swdma; then result swdma-unload pass; else result swdma-unload fail; fi

echo VMTEST-DMESG-BEGIN
dmesg
echo VMTEST-DMESG-END
echo VMTEST-DONE
poweroff -f
