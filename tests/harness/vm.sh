# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Boot the project's kernel under the project's QEMU, virtme-ng style:
# the guest runs a test script the host hands it, its console goes to a
# log file, its exit code comes back on a virtio-serial port, and a hung or
# crashed guest ends in bounded time (-no-reboot, panic=-1, a host timeout).
#
# Source after tests/lib.sh.  Environment overrides (all optional):
#   GSO_QEMU     a qemu-system-x86_64 to use instead of scripts/build-qemu.sh
#   GSO_KERNEL   a bzImage to use instead of scripts/build-kernel.sh
#   GSO_ACCEL    kvm or tcg (default: kvm when /dev/kvm works, else tcg)
#   GSO_VM_TIMEOUT  seconds before a VM is killed (default 300)
#   GSO_TCG_CPU  the CPU model under TCG (default max)
#   GSO_WAIT_SCALE  factor on vm_console_wait's bounds (default 1; a
#                KASAN + lockdep kernel boots several times slower)

: "${GSO_VM_TIMEOUT:=300}"
# shellcheck source=tests/harness/qmp.sh
. "$GSO_TOP/tests/harness/qmp.sh"
GSO_FIRMWARE=${GSO_FIRMWARE:-/usr/share/qemu}

# /dev/kvm may exist and even create VMs without being able to run a
# vCPU (seen on nested machines: KVM_CREATE_VM works, the guest never
# prints a line).  So boot the real kernel once with the real CPU model and
# no initramfs: a working KVM reaches the "no root fs" panic in about a
# second and QEMU exits (-no-reboot).  The answer is remembered for this
# boot of the machine.
kvm_usable() {
	local probe out
	[ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	probe=$GSO_CACHE/kvm-probe-$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
	if [ -f "$probe" ]; then
		[ "$(cat "$probe")" = yes ]
		return
	fi
	out=$(timeout 20 "$GSO_QEMU" -M pc -accel kvm -cpu host -m 256 -nodefaults \
		-no-user-config -display none -vga none -no-reboot \
		-L "$GSO_FIRMWARE" -bios "$GSO_FIRMWARE/qboot.rom" -kernel "$GSO_KERNEL" \
		-append "console=ttyS0 panic=-1" -serial stdio 2>&1 </dev/null || true)
	if grep -q 'Kernel panic' <<< "$out"; then
		echo yes > "$probe"
		return 0
	fi
	echo no > "$probe"
	log "/dev/kvm is present but a KVM guest did not boot; using TCG"
	return 1
}

vm_init() {
	[ -n "${GSO_VM_READY:-}" ] && return 0
	GSO_QEMU=${GSO_QEMU:-$("$GSO_TOP/scripts/build-qemu.sh")} || die "QEMU build failed"
	GSO_KERNEL=${GSO_KERNEL:-$("$GSO_TOP/scripts/build-kernel.sh")} || die "kernel build failed"
	GSO_INITRAMFS=$("$GSO_TOP/scripts/build-initramfs.sh") || die "initramfs build failed"
	if [ -z "${GSO_ACCEL:-}" ]; then
		if kvm_usable; then GSO_ACCEL=kvm; else GSO_ACCEL=tcg; fi
	fi
	case "$GSO_ACCEL" in
	kvm) GSO_ACCEL_ARGS=(-accel kvm -cpu host) ;;
	# GSO_TCG_CPU: the CPU model under TCG (make check-debug turns LA57
	# off: tests/check-debug.sh says why).
	tcg) GSO_ACCEL_ARGS=(-accel tcg -cpu "${GSO_TCG_CPU:-max}") ;;
	*) die "GSO_ACCEL must be kvm or tcg" ;;
	esac
	log "VMs: $GSO_ACCEL, qemu $GSO_QEMU, kernel $GSO_KERNEL"
	export GSO_QEMU GSO_KERNEL GSO_INITRAMFS GSO_ACCEL
	GSO_VM_READY=1
}

# vm_initrd SCRIPT OUT: the base initramfs with SCRIPT appended as /test.sh
# (and VM_EXTRA_INITRD, e.g. a distribution kernel's modules, before it).
vm_initrd() {
	local script=$1 out=$2 tmp
	tmp=$(mktemp -d)
	install -m 0755 "$script" "$tmp/test.sh"
	{
		cat "$GSO_INITRAMFS"
		if [ -n "${VM_EXTRA_INITRD:-}" ]; then cat "$VM_EXTRA_INITRD"; fi
		(cd "$tmp" && touch -d @0 test.sh &&
			echo test.sh | cpio -o -H newc -R 0:0 --quiet) | gzip -9n
	} > "$out"
	rm -rf "$tmp"
}

# vm_start NAME NETNS SCRIPT [QEMU ARGS...]
# Boot a VM in the background inside network namespace NETNS (where its
# tap lives).  Its files are in $TEST_LOG_DIR/NAME.*: console.log, ret,
# qmp.sock.  Extra arguments (netdev, device) are passed to QEMU.
# Per-VM overrides, set on the call (VM_KERNEL=... vm_start ...):
#   VM_QEMU, VM_KERNEL, VM_EXTRA_INITRD, VM_APPEND, VM_MACHINE (default pc:
#   the newest i440fx machine type of that QEMU)
vm_start() {
	local name=$1 ns=$2 script=$3 dir=$TEST_LOG_DIR
	shift 3
	vm_init
	# A name used again: its first console is scanned before it goes.
	vm_scan_pending "$name"
	rm -f "$dir/$name".{console.log,ret,qmp.sock,cmdline}
	echo "$name" >> "$VM_SCAN_DIR/started"
	vm_initrd "$script" "$dir/$name.initrd"
	# no_timer_check: under TCG on a loaded machine the kernel's check that
	# the IO-APIC timer ticks can run out before a tick arrives and panic
	# the boot ("IO-APIC + timer doesn't work!", seen twice in session 8);
	# the emulated timer is known to work.
	local args=("${VM_QEMU:-$GSO_QEMU}" -M "${VM_MACHINE:-pc}" -m 512 -smp 2 "${GSO_ACCEL_ARGS[@]}"
		-nodefaults -no-user-config -display none -vga none -no-reboot
		-L "$GSO_FIRMWARE" -bios "$GSO_FIRMWARE/qboot.rom"
		-kernel "${VM_KERNEL:-$GSO_KERNEL}" -initrd "$dir/$name.initrd"
		-append "console=ttyS0 panic=-1 oops=panic panic_on_warn=1 no_timer_check loglevel=6 ${VM_APPEND:-}"
		-chardev "file,id=con,path=$dir/$name.console.log" -serial chardev:con
		-device "virtio-serial-pci,id=vser0"
		-chardev "file,id=ret,path=$dir/$name.ret"
		-device "virtserialport,bus=vser0.0,chardev=ret,name=gso.ret"
		-qmp "unix:$dir/$name.qmp.sock,server=on,wait=off"
		"$@")
	printf '%q ' "${args[@]}" > "$dir/$name.cmdline"
	ip netns exec "$ns" timeout --kill-after=5 "$GSO_VM_TIMEOUT" "${args[@]}" \
		> "$dir/$name.qemu.log" 2>&1 &
	eval "VM_PID_${name//[^a-zA-Z0-9_]/_}=$!"
	defer "kill $! 2>/dev/null"
}

# vm_wait NAME: wait for the VM to end; return the guest's exit code, or
# 255 when none came back (crash, hang, QEMU failure), as virtme-ng does.
vm_wait() {
	local name=$1 var="VM_PID_${1//[^a-zA-Z0-9_]/_}" rc dir=$TEST_LOG_DIR
	wait "${!var}" || true
	vm_scan_pending "$name"
	rc=$(tr -dc '0-9' < "$dir/$name.ret" 2>/dev/null)
	if [ -z "$rc" ]; then
		printf '    VM %s returned no exit code; last console lines:\n' "$name"
		tail -n 15 "$dir/$name.console.log" 2>/dev/null | sed 's/^/      /'
		tail -n 5 "$dir/$name.qemu.log" 2>/dev/null | sed 's/^/      qemu: /'
		return 255
	fi
	return "$rc"
}

# vm_run NAME NETNS SCRIPT [QEMU ARGS...]: vm_start + vm_wait.
vm_run() {
	vm_start "$@"
	vm_wait "$1"
}

# vm_console_wait NAME REGEX TIMEOUT: wait for a console line.
vm_console_wait() {
	slowwait "$(($3 * ${GSO_WAIT_SCALE:-1}))" grep -sqE "$2" "$TEST_LOG_DIR/$1.console.log"
}

# vm_qmp NAME JSON...: send QMP commands to a running VM, one at a time,
# each after the reply to the one before; print the replies (qmp_cmds).
vm_qmp() {
	local sock=$TEST_LOG_DIR/$1.qmp.sock
	shift
	qmp_cmds "$sock" "$@"
}

# --- kernel reports on the consoles ---------------------------------------
# Every VM this script started has its console scanned for a kernel's
# reports: WARN (panic_on_warn=1 also turns it into a panic), BUG, KASAN,
# UBSAN, lockdep, RCU stalls, hung tasks, Oops, panics.  Only kernel lines
# count (a printk timestamp before the match, anywhere on the line: a host
# VM copies its nested guests' reports to its own console with a prefix,
# console_splats in tests/guest/lib.sh).  The scan runs when a VM ends
# (vm_wait), before its name is used again (vm_start), and at the script's
# exit for every VM not scanned yet (one killed, or never waited for); the
# result is reported at exit, on the script's own output, as one check
#   TEST: kernel consoles of N VMs: no WARNING, BUG, KASAN, ...  [ OK ]|[FAIL]
# with each report printed under the FAIL line.  A report fails the script
# whatever its own checks said.  Case matters: every boot under qboot says
# "..MP-BIOS bug: 8254 timer not connected", which is not a BUG: report.
GSO_SPLAT_RE='\[ *[0-9]+\.[0-9]+\].*(WARNING:|BUG:|KASAN|UBSAN|possible circular locking|possible recursive locking|INFO: |self-detected stall|rcu: INFO|Call Trace|Kernel panic|Oops)'
if [ -z "${VM_SCAN_DIR:-}" ]; then
	VM_SCAN_DIR=$TEST_LOG_DIR/.vmscan-$$
	rm -rf "$VM_SCAN_DIR"
	mkdir -p "$VM_SCAN_DIR"
	: > "$VM_SCAN_DIR/started"
	: > "$VM_SCAN_DIR/scanned"
	: > "$VM_SCAN_DIR/reports"
	EXIT_CHECKS+=(vm_scan_exit)
fi

# vm_splats FILE: FILE's kernel reports, each with the lines after it
# (the trace), at most 60 lines in all.
vm_splats() {
	tr -d '\r' < "$1" 2>/dev/null | grep -E -A 12 "$GSO_SPLAT_RE" | head -n 60
}

# vm_scan_pending NAME: scan NAME's console if NAME was started and not
# scanned since; a report goes to $VM_SCAN_DIR/reports.
vm_scan_pending() {
	local name=$1 out
	grep -qxF "$name" "$VM_SCAN_DIR/started" 2>/dev/null || return 0
	[ "$(grep -cxF "$name" "$VM_SCAN_DIR/started")" -gt "$(grep -cxF "$name" "$VM_SCAN_DIR/scanned")" ] ||
		return 0
	echo "$name" >> "$VM_SCAN_DIR/scanned"
	out=$(vm_splats "$TEST_LOG_DIR/$name.console.log")
	[ -z "$out" ] && return 0
	{
		echo "    kernel report on the console of VM $name ($TEST_LOG_DIR/$name.console.log):"
		printf '      %s\n' "${out//$'\n'/$'\n'      }"
	} >> "$VM_SCAN_DIR/reports"
}

vm_scan_exit() {
	local name n
	[ -d "$VM_SCAN_DIR" ] || return 0
	while read -r name; do
		vm_scan_pending "$name"
	done < <(sort -u "$VM_SCAN_DIR/started")
	n=$(wc -l < "$VM_SCAN_DIR/started")
	if [ "$n" -eq 0 ]; then
		rm -rf "$VM_SCAN_DIR"
		return 0
	fi
	if [ -s "$VM_SCAN_DIR/reports" ]; then
		log_test "kernel consoles of $n VMs: no WARN, BUG, KASAN, lockdep, stall" FAIL
		cat "$VM_SCAN_DIR/reports"
		rm -rf "$VM_SCAN_DIR"
		return 1
	fi
	log_test "kernel consoles of $n VMs: no WARN, BUG, KASAN, lockdep, stall" OK
	rm -rf "$VM_SCAN_DIR"
}
