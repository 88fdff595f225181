#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What the host-side split (kernel-split-patches/) costs and saves: the
# host path tap -> bridge -> egress port at r8169's limits (64000 bytes /
# 64 segments), loaded by tap-blast writing one TCP GSO frame into the tap
# as fast as the path takes it, as a guest's virtio-net queue would.
#
#   scripts/bench-split.sh [--seconds S] [--plot PNG] [--data FILE] [--base]
#
# One run, one host VM on the project's kernel measuring itself (nothing
# else runs in it), three rows one after the other:
#   today   65160-byte payloads (over 64000 bytes) with net.core.gso_split=0:
#           cut into 45 MSS segments in software, as without the series
#   split   the same frames, net.core.gso_split=1: 2 GSO packets (43
#           segments + 2) for the port
#   fits    62264-byte payloads (43 segments, within the limits),
#           forwarded as they are
# --base adds a second VM on the unpatched base with today's frames and
# frames that fit (today-base, fits-base): the same as "today" and "fits"
# within noise if the knob reproduces the old path faithfully.
# Per row: guest CPU seconds (all CPUs, /proc/stat) per GB of frames
# written, frames written per second, packets and bytes per second handed
# to the egress port's driver (its tx counters), packets per frame, and
# the GSOSplit counter's change.  Under TCG the absolute numbers are the
# emulator's: compare rows (the ratios), not machines.
#
# Environment: GSO_KERNEL, GSO_QEMU as in tests/harness/vm.sh;
# GSO_KERNEL_UNPATCHED for --base (default scripts/build-kernel.sh
# --unpatched).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../tests/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
# shellcheck source=tests/harness/extra-initrd.sh
. "$GSO_TOP/tests/harness/extra-initrd.sh"

seconds=10 plot='' data='' base=0
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift 2 ;;
	--plot) plot=$(realpath -m "$2"); shift 2 ;;
	--data) data=$(realpath -m "$2"); shift 2 ;;
	--base) base=1; shift ;;
	*) echo "usage: $0 [--seconds S] [--plot PNG] [--data FILE] [--base]" >&2; exit 2 ;;
	esac
done

blast=$TEST_LOG_DIR/tap-blast
gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static -I "$GSO_TOP/tools" \
	-o "$blast" "$GSO_TOP/tools/test/tap-blast.c" "$GSO_TOP/tools/lib/fail.c"
extra=$TEST_LOG_DIR/bench-split.cpio.gz
extra_initrd "$extra" "$blast:/opt/bench/tap-blast" \
	"$(command -v ip):/opt/bench/ip"

# The host VM's /test.sh (busybox sh): NAME:PAYLOAD:GSO_SPLIT in $CASES
# (GSO_SPLIT "-": the kernel has no such sysctl).
guest_script() {
	cat <<GUEST
SECONDS_RUN=$seconds
CASES="$1"
GUEST
	cat <<'GUEST'
ip=/opt/bench/ip
$ip link add br0 type bridge && $ip link set br0 up || exit 1
$ip link add out0 type veth peer name dst0 || exit 1
$ip link set out0 master br0 up && $ip link set dst0 up || exit 1
$ip link set out0 gso_max_size 64000 gso_max_segs 64 || exit 1
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
split_count() {
	awk '/^TcpExt:/ && !n { for (i = 1; i <= NF; i++) c[$i] = i; n = 1; next }
	     /^TcpExt:/ { print ("GSOSplit" in c) ? $c["GSOSplit"] : "none"; exit }' /proc/net/netstat
}
st=/sys/class/net/out0/statistics
i=0
for c in $CASES; do
	name=${c%%:*} rest=${c#*:}
	payload=${rest%%:*} knob=${rest#*:}
	i=$((i + 1))
	if [ "$knob" != - ]; then
		sysctl -wq net.core.gso_split="$knob" || exit 1
	fi
	b0=$(busy) p0=$(cat $st/tx_packets) y0=$(cat $st/tx_bytes) s0=$(split_count)
	out=$(/opt/bench/tap-blast tap$i br0 "$SECONDS_RUN" "$payload") || exit 1
	b1=$(busy) p1=$(cat $st/tx_packets) y1=$(cat $st/tx_bytes) s1=$(split_count)
	echo "BENCH: case=$name payload=$payload ${out#tap-blast: } cpu_ticks=$((b1 - b0)) hz=100 egress_packets=$((p1 - p0)) egress_bytes=$((y1 - y0)) split_before=$s0 split_after=$s1"
done
exit 0
GUEST
}

vm_init
setup_ns BENCHVM
guest_script "today:65160:0 split:65160:1 fits:62264:1" > "$TEST_LOG_DIR/bench-patched.sh"
VM_EXTRA_INITRD=$extra VM_APPEND="loglevel=4" \
	vm_run bench-patched "$BENCHVM" "$TEST_LOG_DIR/bench-patched.sh" ||
	die "benchmark VM (project's kernel) failed: $TEST_LOG_DIR/bench-patched.console.log"
logs=("$TEST_LOG_DIR/bench-patched.console.log")
rows=3
if [ $base = 1 ]; then
	unpatched=${GSO_KERNEL_UNPATCHED:-$("$GSO_TOP/scripts/build-kernel.sh" --unpatched)}
	guest_script "today-base:65160:- fits-base:62264:-" > "$TEST_LOG_DIR/bench-base.sh"
	VM_EXTRA_INITRD=$extra VM_APPEND="loglevel=4" VM_KERNEL=$unpatched \
		vm_run bench-base "$BENCHVM" "$TEST_LOG_DIR/bench-base.sh" ||
		die "benchmark VM (unpatched base) failed: $TEST_LOG_DIR/bench-base.console.log"
	logs+=("$TEST_LOG_DIR/bench-base.console.log")
	rows=5
fi

raw=$TEST_LOG_DIR/bench-split.raw
cat "${logs[@]}" | tr -d '\r' | sed -n 's/^BENCH: //p' > "$raw"
[ "$(wc -l < "$raw")" -eq $rows ] || die "expected $rows benchmark rows, got: $(cat "$raw")"

# One table: per row, the figures and the ratios to "today".
table=$TEST_LOG_DIR/bench-split.dat
awk -v accel="$GSO_ACCEL" '
	function kv(line, key,    n, i, a, p) {
		n = split(line, a, " ")
		for (i = 1; i <= n; i++) { split(a[i], p, "="); if (p[1] == key) return p[2] }
		return ""
	}
	{
		c = kv($0, "case"); order[++rows] = c; kv_payload[c] = kv($0, "payload")
		sec[c] = kv($0, "seconds"); by[c] = kv($0, "bytes"); fr[c] = kv($0, "frames")
		cpu[c] = kv($0, "cpu_ticks") / kv($0, "hz")
		ep[c] = kv($0, "egress_packets"); eb[c] = kv($0, "egress_bytes")
		sb = kv($0, "split_before"); sa = kv($0, "split_after")
		spl[c] = (sb == "none" || sa == "none") ? "-" : sa - sb
	}
	END {
		printf "# %s: host CPU per GB written into the tap, rates on the egress port (64000/64)\n", accel
		printf "# row        payload  cpu_s_per_GB  frames_per_s  egress_pkts_per_s  egress_MB_per_s  pkts_per_frame  GSOSplit  cpu_vs_today\n"
		t = "today"
		tcpu = cpu[t] / (by[t] / 1e9)
		for (r = 1; r <= rows; r++) {
			c = order[r]
			cg = cpu[c] / (by[c] / 1e9)
			printf "%-10s %8s %13.2f %13.0f %18.0f %16.1f %15.2f %9s %13.2f\n", c,
				kv_payload[c], cg, fr[c] / sec[c], ep[c] / sec[c],
				eb[c] / sec[c] / 1e6, ep[c] / fr[c], spl[c], cg / tcpu
		}
	}' "$raw" > "$table"
cat "$table"
[ -z "$data" ] || cp "$table" "$data"

if [ -n "$plot" ]; then
	gnuplot <<GP
set terminal pngcairo size 900,420 font "Liberation Sans,11"
set output "$plot"
set multiplot layout 1,2 title "Host path tap -> bridge -> port at 64000 bytes / 64 segments ($GSO_ACCEL)"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.7
set grid ytics
set yrange [0:*]
unset key
# "today-base" on two lines: the labels of five bars would run together.
set bmargin 4
lbl(s) = strstrt(s, "-") ? s[1:strstrt(s, "-") - 1] . "\n" . s[strstrt(s, "-") + 1:] : s
set title "host CPU seconds per GB"
plot "$table" using 3:xtic(lbl(strcol(1))) lc rgb "#4477aa"
set title "packets per second handed to the port"
plot "$table" using 5:xtic(lbl(strcol(1))) lc rgb "#cc6677"
unset multiplot
GP
	log "plot: $plot"
fi
