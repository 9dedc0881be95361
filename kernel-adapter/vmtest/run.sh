#!/usr/bin/env bash
# VM test of copier.ko: builds the module against Debian's 6.1 kernel
# headers, the static C tests and libcopier's C tests (against
# target/release/libcopier.so, which must be built), packs a busybox
# initramfs with them and the shared libraries they load, boots that
# kernel under QEMU (TCG unless a short probe shows KVM works), runs the
# tests inside (init.sh) and judges the serial log: every test must pass,
# and the kernel log must hold no oops, BUG, WARNING or lockdep report.
#
# Installs nothing: scripts/deps.sh provides linux-image-amd64,
# linux-headers-amd64, qemu-system-x86, busybox-static and cpio.
#
# Environment: COPIER_VMTEST_KVER (kernel version, default: the newest 6.1
# one with both headers and an image), COPIER_VMTEST_ACCEL (auto|tcg|kvm,
# default auto), COPIER_VMTEST_TIMEOUT (seconds for the whole boot, 480),
# COPIER_VMTEST_KEEP=1 keeps the work directory, COPIER_VMTEST_LIBDIR (the
# folder of libcopier.so, default target/release).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ka=$(cd "$here/.." && pwd)
timeout_s=${COPIER_VMTEST_TIMEOUT:-480}
accel=${COPIER_VMTEST_ACCEL:-auto}

die() { echo "vmtest: $*" >&2; exit 2; }

for tool in qemu-system-x86_64 cpio make gcc timeout readelf ldd; do
	command -v "$tool" >/dev/null || die "missing $tool (run scripts/deps.sh)"
done
busybox=/bin/busybox
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'install ok installed' ||
	die "missing busybox-static (run scripts/deps.sh)"

kver=${COPIER_VMTEST_KVER:-}
if [ -z "$kver" ]; then
	for d in /lib/modules/6.1.*; do
		v=$(basename "$d")
		if [ -e "$d/build/Makefile" ] && [ -e "/boot/vmlinuz-$v" ]; then kver=$v; fi
	done
fi
[ -n "$kver" ] || die "no Debian 6.1 kernel with headers (linux-image-amd64, linux-headers-amd64: run scripts/deps.sh)"
kdir=/lib/modules/$kver/build
vmlinuz=/boot/vmlinuz-$kver
[ -e "$kdir/Makefile" ] || die "no headers for $kver at $kdir"
[ -r "$vmlinuz" ] || die "cannot read $vmlinuz"

work=$(mktemp -d "${TMPDIR:-/tmp}/copier-vmtest.XXXXXX")
if [ "${COPIER_VMTEST_KEEP:-0}" != 1 ]; then trap 'rm -rf "$work"' EXIT; else echo "vmtest: work dir $work" >&2; fi

# 1. the module, built in a copy so the source tree stays clean
mkdir -p "$work/kmod/copier"
cp "$ka"/kmod/copier/Kbuild "$ka"/kmod/copier/*.[ch] "$work/kmod/copier/"
mkdir -p "$work/abi" && cp -r "$ka/abi/include" "$work/abi/"
mkdir -p "$work/kmod/swdma"
cp "$ka"/kmod/swdma/Kbuild "$ka"/kmod/swdma/*.c "$work/kmod/swdma/"
for m in copier swdma; do
	make -s -C "$kdir" M="$work/kmod/$m" modules >>"$work/kbuild.log" 2>&1 || { cat "$work/kbuild.log" >&2; die "module build failed ($m)"; }
done
if grep -E 'warning:' "$work/kbuild.log" >&2; then die "module build has warnings"; fi

# 2. the static tests
mkdir -p "$work/initramfs/t" "$work/initramfs/bin"
for t in "$here"/tests/t_*.c; do
	gcc -static -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -pthread -fmacro-prefix-map="$here/tests/=" \
		-I"$ka/abi/include" -o "$work/initramfs/t/$(basename "$t" .c)" "$t" "$here/tests/copier_user.c"
done

# 2b. libcopier's C tests (runtime/tests/c) against libcopier.so, which
# with the shared libraries it needs goes into the initramfs
libdir=${COPIER_VMTEST_LIBDIR:-$ka/../target/release}
[ -e "$libdir/libcopier.so" ] || die "no libcopier.so in $libdir (cargo build --release -p copier)"
rt=$ka/../runtime
mkdir -p "$work/initramfs/rt" "$work/initramfs/lib"
for t in basic chain handler pending fork fork_threads fuzz fault fault_recover absorb_io lazy_drop; do
	# (-Wno-clobbered: gcc flags fault_recover.c's buffers, set before its
	# sigsetjmp and never after; clang-22 builds it clean in stage 20)
	gcc -O2 -g -Wall -Wextra -Werror -Wno-clobbered -pthread -I"$rt/include" -o "$work/initramfs/rt/$t" "$rt/tests/c/$t.c" \
		-L"$libdir" -lcopier -Wl,-rpath,/lib
done
gcc -O2 -g -Wall -Wextra -Werror -I"$rt/include" -o "$work/initramfs/rt/segv_default" "$here/tests/rt_segv_default.c" \
	-L"$libdir" -lcopier -Wl,-rpath,/lib
cp "$libdir/libcopier.so" "$work/initramfs/lib/"
# the loader at the path the binaries name, and every library they load
interp=$(readelf -l "$work/initramfs/rt/basic" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
mkdir -p "$work/initramfs$(dirname "$interp")"
cp -L "$interp" "$work/initramfs$interp"
for lib in $(ldd "$work/initramfs/rt/basic" "$libdir/libcopier.so" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u); do
	cp -L "$lib" "$work/initramfs/lib/"
done
cp "$here/runtime.sh" "$work/initramfs/runtime.sh"

# 3. the initramfs
cp "$busybox" "$work/initramfs/bin/busybox"
cp "$here/init.sh" "$work/initramfs/init"
printf '#!/bin/busybox sh\n/bin/busybox echo VMTEST-KVM-OK\n/bin/busybox poweroff -f\n' >"$work/initramfs/probe"
chmod +x "$work/initramfs/init" "$work/initramfs/probe"
cp "$work/kmod/copier/copier.ko" "$work/initramfs/copier.ko"
cp "$work/kmod/swdma/copier_swdma.ko" "$work/kmod/swdma/copier_swdma_test.ko" "$work/initramfs/"
(cd "$work/initramfs" && find . | cpio -o -H newc --quiet) | gzip -1 >"$work/initrd.gz"

# 4. boot
qemu=(qemu-system-x86_64 -m 512 -smp 2 -nographic -no-reboot -kernel "$vmlinuz"
	-initrd "$work/initrd.gz" -append "console=ttyS0 panic=-1 oops=panic rdinit=/init quiet")
if [ "$accel" = auto ]; then
	accel=tcg
	if [ -w /dev/kvm ] &&
		timeout 8 "${qemu[@]}" -accel kvm -cpu max -append "console=ttyS0 panic=-1 rdinit=/probe" \
			</dev/null 2>&1 | grep -q 'VMTEST-KVM-OK'; then
		accel=kvm
	else
		echo "vmtest: KVM does not boot here (8 s probe), using TCG" >&2
	fi
fi
echo "vmtest: kernel $kver, accel $accel, timeout ${timeout_s}s" >&2
start=$(date +%s)
rc=0
timeout "$timeout_s" "${qemu[@]}" -accel "$accel" -cpu max </dev/null >"$work/console.log" 2>&1 || rc=$?
echo "vmtest: VM ran $(( $(date +%s) - start ))s (qemu rc $rc)" >&2

# 5. judge
log=$work/console.log
# drop carriage returns and the firmware's terminal escapes (ESC c, ESC [ ... X)
tr -d '\r' <"$log" | sed -E 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' >"$log.txt"
grep -E '^(VMTEST-|t_|FAIL )' "$log.txt" >&2 || true
fail=0
expected="mounts insmod diff-ondemand diff-napi fair cglimit memcg fuzz life xproc atc-nodma clients-freed pins-released unload diff-2threads fair-2threads unload-2threads
	rt-basic rt-chain rt-handler-all rt-handler-range rt-handler-threads rt-pending rt-pending-strict rt-fork rt-fork-threads
	rt-basic-depth2 rt-fuzz rt-fuzz-small rt-fault-src rt-fault-dst rt-fault-exit rt-fault-depsegv rt-fault-depmap rt-segv-default rt-auto
	rt-absorb-io rt-lazy-drop rt-lazy-drop-deferred
	rt-fault-recover-csync rt-fault-recover-exit rt-fault-recover-all rt-fault-recover-wait rt-fault-recover-chain
	rt-fault-recover-csync-once rt-fault-recover-exit-once rt-fault-recover-all-once rt-fault-recover-wait-once rt-fault-recover-chain-once
	rt-fault-recover-dep rt-fault-recover-depsync rt-fault-recover-depchain rt-fault-recover-deppart
	rt-fault-recover-dep-once rt-fault-recover-depsync-once rt-fault-recover-depchain-once rt-fault-recover-deppart-once rt-nodevice rt-nodevice-warning
	swdma diff-swdma dma-swdma dma-maps-released dma-2threads dma-failing dma-redone dma-stalling dma-stall-redone diff-dma-off dma-off dma-pins-released swdma-unload"
for t in $expected; do
	if ! grep -qx "VMTEST-RESULT $t pass" "$log.txt"; then echo "vmtest: $t did not pass" >&2; fail=1; fi
done
grep -q '^VMTEST-DONE' "$log.txt" || { echo "vmtest: the VM did not finish (timeout or crash)" >&2; fail=1; }
if grep -nE 'Oops|BUG:|WARNING:|Call Trace|general protection|Kernel panic|possible circular locking|INFO: task .* blocked' "$log.txt" >&2; then
	echo "vmtest: the kernel log reports a problem" >&2
	fail=1
fi
if [ "$fail" != 0 ]; then
	echo "vmtest: FAILED; last console lines:" >&2
	tail -n 60 "$log.txt" >&2
	exit 1
fi
echo "vmtest: all $(echo $expected | wc -w) checks passed" >&2
