#!/usr/bin/env bash
# Tier 2, vhost-net half: boot the patched kernel as a host VM with an
# emulated e1000e NIC and run the kernel selftest
# tools/testing/selftests/net/vhost_gso_limits inside it.  The selftest
# opens /dev/vhost-net with a tap backend and checks
# VHOST_NET_GET_GSO_LIMITS / VHOST_NET_SET_GSO_LIMITS_EVENTFD against
# bridges over netdevsim ports with r8169's limits (64000 bytes / 64
# segments) and over the e1000e, whose driver sets no limits (65536 /
# 65535); each change of a port's limits or of the bridge's ports must
# signal the eventfd within 1 s.  One TEST line per selftest case.
#
# Environment: GSO_VHOST_TREE (a kernel tree to take the selftest and
# uapi headers from; default: the tree of kernel-patches/) and GSO_KERNEL
# (its bzImage), e.g. for a developer tree:
#   GSO_VHOST_TREE=$GSO_CACHE/dev/linux-vhost \
#   GSO_KERNEL=$(scripts/build-kernel.sh --tree $GSO_CACHE/dev/linux-vhost) \
#   tests/run.sh tests/t60-vhost-selftest.sh
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"

# What the e1000e driver leaves a device at: it sets no TSO limits.
E1000E_LIMITS=65536/65535

tree=${GSO_VHOST_TREE:-$("$GSO_TOP/scripts/tree.sh" linux)}
src=$tree/tools/testing/selftests/net/vhost_gso_limits.c
if [ ! -f "$src" ] || ! grep -q VHOST_NET_GET_GSO_LIMITS "$tree/include/uapi/linux/vhost.h"; then
	# The project's tree has them: their absence is a failure.
	log_test "vhost selftest" FAIL "no vhost-net GSO limits patches in $tree"
	exit $ksft_fail
fi
require_command gcc "vhost selftest"

# The selftest, static, against the tree's exported uapi headers
# ("make headers" exports them to usr/include as headers_install would,
# without its rsync step).
make -s -C "$tree" ARCH=x86_64 headers >/dev/null
prog=$TEST_LOG_DIR/vhost_gso_limits
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static -isystem "$tree/usr/include" \
	-I "$tree/tools/testing/selftests" -o "$prog" "$src"
check_err $? "the selftest does not build"
log_test "vhost selftest: builds statically against the tree's uapi"

vm_init
setup_ns HOSTVM

# The guest init is busybox: the selftest travels inside the script.
script=$TEST_LOG_DIR/vhost.guest.sh
{
	echo 'base64 -d > /tmp/vhost_gso_limits <<"EOF"'
	base64 "$prog"
	echo 'EOF'
	cat <<GUEST
chmod +x /tmp/vhost_gso_limits
nic=
for d in /sys/class/net/*; do
	drv=\$(readlink "\$d/device/driver" 2>/dev/null) || continue
	[ "\${drv##*/}" = e1000e ] && nic=\${d##*/}
done
[ -n "\$nic" ] && ip link set "\$nic" up
echo "VGL-NIC: \${nic:-none}"
VHOST_GSO_EGRESS=\$nic VHOST_GSO_EXPECT=$E1000E_LIMITS /tmp/vhost_gso_limits > /tmp/out 2>&1
rc=\$?
sed 's/^/VGL: /' /tmp/out
exit \$rc
GUEST
} > "$script"

rc=0
VM_APPEND="loglevel=4" vm_run vhost "$HOSTVM" "$script" -device e1000e,romfile= || rc=$?
con=$TEST_LOG_DIR/vhost.console.log

grep -q 'VGL-NIC: eth' "$con"
check_err $? "no e1000e NIC in the host VM ($con)"
log_test "vhost selftest: host VM boots with an e1000e NIC ($GSO_ACCEL)"

# KTAP from kselftest_harness: "ok N gso.bridge_r8169", "not ok ...", "# SKIP".
results=$(tr -d '\r' < "$con" | sed -n 's/^VGL: \(\(not \)\{0,1\}ok [0-9][0-9]* .*\)/\1/p')
[ -n "$results" ]
check_err $? "no selftest results on the console ($con)"
log_test "vhost selftest: results reported"
while IFS= read -r line; do
	[ -n "$line" ] || continue
	name=$(sed -E 's/^(not )?ok [0-9]+ ([^ ]+).*/\2/' <<< "$line")
	case "$line" in
	not\ ok*) log_test "vhost selftest: $name" FAIL "see $con" ;;
	# The host VM boots the project's kernel with every option the
	# selftest needs (netdevsim, vhost-net): a skipped case is a failure.
	*"# SKIP"*) log_test "vhost selftest: $name" FAIL "skipped:${line##*# SKIP}" ;;
	*) log_test "vhost selftest: $name" OK ;;
	esac
done <<< "$results"

check_eq "selftest exit code in the host VM" "$rc" 0
log_test "vhost selftest: exit code"

tests_exit
