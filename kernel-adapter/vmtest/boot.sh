#!/usr/bin/env bash
# Boot Debian's 6.1 kernel under QEMU with a busybox initramfs that holds
# the given files in /t and runs /t/<script> as the test, then powers off.
#
#   boot.sh <script> <file>...     (script and files are copied into /t)
#
# The guest prints "VMTEST: PASS" when the script exits 0 and dmesg has no
# oops, BUG or WARNING; this script exits 0 only when it saw that line.
# Env: VMTEST_KVER (kernel release, default the newest 6.1 under /lib/modules),
# VMTEST_TIMEOUT (seconds, default 300: a hang guard, TCG is slow),
# VMTEST_LOG (guest console log path, default a temporary file).
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: boot.sh <script> <file>..." >&2; exit 2; }
script=$1
shift

kver=${VMTEST_KVER:-$(ls /lib/modules | grep '^6\.1\.' | sort -V | tail -1)}
kernel=/boot/vmlinuz-$kver
[ -r "$kernel" ] || { echo "boot.sh: no readable $kernel (scripts/deps.sh installs linux-image-amd64)" >&2; exit 1; }
busybox=$(command -v busybox) || { echo "boot.sh: busybox not found (busybox-static)" >&2; exit 1; }
file "$busybox" 2>/dev/null | grep -q 'statically linked' || true

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,dev,proc,sys,tmp,t}
cp "$busybox" "$root/bin/busybox"
for f in "$script" "$@"; do cp "$f" "$root/t/"; done
cat > "$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
cd /t
echo "VMTEST: start $(basename "$script")"
if sh /t/$(basename "$script"); then rc=0; else rc=\$?; fi
if dmesg | grep -E 'Oops|BUG:|WARNING:|Call Trace' >/dev/null; then
  echo "VMTEST: kernel reported a problem:"; dmesg | tail -60; rc=99
fi
if [ \$rc = 0 ]; then echo "VMTEST: PASS"; else echo "VMTEST: FAIL (\$rc)"; fi
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$work/initrd.gz"

log=${VMTEST_LOG:-$work/console.log}
timeout "${VMTEST_TIMEOUT:-300}" qemu-system-x86_64 -accel tcg -cpu max -m 512 -smp 2 \
  -nographic -no-reboot -kernel "$kernel" -initrd "$work/initrd.gz" \
  -append "console=ttyS0 panic=-1 rdinit=/init quiet loglevel=4" </dev/null >"$log" 2>&1 || true
grep -a '^VMTEST\|swdma\|copier' "$log" | grep -av '^\[' || true
grep -aq '^VMTEST: PASS' "$log"
