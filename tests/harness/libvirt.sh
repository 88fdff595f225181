# shellcheck shell=bash
# Debian's libvirt (libvirtd 11.3 from bookworm-backports) run for one test,
# isolated from the machine (../shared/FACTS.md "libvirt"): inside the
# test's network namespace and a private mount namespace, with tmpfs over
# libvirt's run, state, cache, log and config directories, no systemd, no
# security driver, no cgroups, QEMU run as root.
#
#   libvirt_start NS        start libvirtd in NS; sets LIBVIRT_PID
#   lv CMD...               run CMD in libvirtd's namespaces (virsh, the daemon)
#   lvsh ARGS...            virsh in them
#   libvirt_domain_xml NAME EMULATOR BIOS NIC_XML...
#                           a small domain: TCG, 64 MiB, no disk, qboot, each
#                           NIC_XML an <interface> element
#
# Stopped at cleanup: the domains destroyed, libvirtd killed by its pid
# (the namespace's removal ends the rest).

# libvirt_start NS
libvirt_start() {
	local ns=$1 log=$TEST_LOG_DIR/libvirtd-$1.log
	require_command libvirtd "libvirt (scripts/setup-deps.sh installs it)" || return 1
	LIBVIRT_READY=$(mktemp /tmp/gso-libvirt.XXXXXX)
	defer "rm -f $LIBVIRT_READY"
	# The inner shell mounts the private directories, writes the configs
	# and becomes libvirtd (exec keeps the pid: LIBVIRT_PID is libvirtd's).
	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$ns" unshare -m --propagation private bash -c '
		set -e
		for d in /run/libvirt /var/lib/libvirt /var/cache/libvirt /var/log/libvirt /etc/libvirt; do
			mkdir -p "$d"; mount -t tmpfs tmpfs "$d"
		done
		printf "%s\n" "auth_unix_rw = \"none\"" "auth_unix_ro = \"none\"" >/etc/libvirt/libvirtd.conf
		printf "%s\n" "stdio_handler = \"file\"" "user = \"root\"" "group = \"root\"" \
			"security_driver = \"none\"" "namespaces = [ ]" "cgroup_controllers = [ ]" \
			"dynamic_ownership = 0" >/etc/libvirt/qemu.conf
		echo $$ >"$1"
		exec libvirtd
	' libvirt-harness "$LIBVIRT_READY" >"$log" 2>&1 &
	slowwait 10 test -s "$LIBVIRT_READY" || { cat "$log" >&2; return 1; }
	LIBVIRT_PID=$(cat "$LIBVIRT_READY")
	defer "kill $LIBVIRT_PID"
	slowwait 30 lvsh version >/dev/null 2>&1 || {
		echo "libvirtd did not answer" >&2; cat "$log" >&2; return 1; }
}

# lv CMD...: CMD in libvirtd's network and mount namespaces.
lv() {
	nsenter -t "$LIBVIRT_PID" -n -m -- "$@"
}

lvsh() {
	lv virsh -q -c qemu:///system "$@"
}

# libvirt_domain_xml NAME EMULATOR BIOS NIC_XML...
libvirt_domain_xml() {
	local name=$1 emulator=$2 bios=$3 nic
	shift 3
	cat <<EOF
<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
  <name>$name</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type><loader type='rom'>$bios</loader></os>
  <features><acpi/></features>
  <clock offset='utc'/>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <emulator>$emulator</emulator>
EOF
	for nic in "$@"; do
		printf '    %s\n' "$nic"
	done
	cat <<EOF
    <video><model type='none'/></video>
    <memballoon model='none'/>
  </devices>
</domain>
EOF
}
