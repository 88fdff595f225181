#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What the host-side split (kernel-split-patches/) costs and saves: the
# host path tap -> bridge -> egress port at r8169's limits (64000 bytes /
# 64 segments), loaded by tap-blast writing one TCP GSO frame into the tap
# as fast as the path takes it, as a guest's virtio-net queue would.
#
#   scripts/bench-split.sh [--seconds S] [--plot PNG] [--data FILE]
#
# One run, two host VMs one after the other, each measuring itself
# (nothing else runs in it): the project's kernel, then the unpatched base
# (the series has no off switch: today's path is the unpatched kernel):
#   split      65160-byte payloads (over 64000 bytes), project's kernel:
#              2 GSO packets (43 segments + 2) for the port
#   fits       62264-byte payloads (43 segments, within the limits),
#              forwarded as they are, project's kernel
#   today      the 65160-byte frames on the unpatched base: cut into 45
#              MSS segments in software
#   fits-base  the 62264-byte frames on the unpatched base (the two VMs'
#              "fits" rows show how comparable the two kernels are)
# Per row: guest CPU seconds (all CPUs, /proc/stat) per GB of frames
# written, frames written per second, packets and bytes per second handed
# to the egress port's driver (its tx counters), packets per frame, and
# the split counter's change (softnet_stat column 16).  Under TCG the absolute numbers are the
# emulator's: compare rows (the ratios), not machines.
#
# Environment: GSO_KERNEL, GSO_QEMU as in tests/harness/vm.sh;
# GSO_KERNEL_UNPATCHED (default scripts/build-kernel.sh --unpatched).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../tests/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
# shellcheck source=tests/harness/extra-initrd.sh
. "$GSO_TOP/tests/harness/extra-initrd.sh"

seconds=10 plot='' data=''
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift 2 ;;
	--plot) plot=$(realpath -m "$2"); shift 2 ;;
	--data) data=$(realpath -m "$2"); shift 2 ;;
	*) echo "usage: $0 [--seconds S] [--plot PNG] [--data FILE]" >&2; exit 2 ;;
	esac
done

blast=$TEST_LOG_DIR/tap-blast
gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static -I "$GSO_TOP/tools" \
	-o "$blast" "$GSO_TOP/tools/test/tap-blast.c" "$GSO_TOP/tools/lib/fail.c"
extra=$TEST_LOG_DIR/bench-split.cpio.gz
extra_initrd "$extra" "$blast:/opt/bench/tap-blast" \
	"$(command -v ip):/opt/bench/ip"

# The host VM's /test.sh (busybox sh): NAME:PAYLOAD in $CASES.
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
	n=0 seen=
	while read -r c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 rest; do
		[ -n "$c16" ] || continue
		n=$((n + 0x$c16)) seen=1
	done < /proc/net/softnet_stat
	if [ -n "$seen" ]; then echo "$n"; else echo none; fi
}
st=/sys/class/net/out0/statistics
i=0
for c in $CASES; do
	name=${c%%:*} payload=${c#*:}
	i=$((i + 1))
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
guest_script "split:65160 fits:62264" > "$TEST_LOG_DIR/bench-patched.sh"
VM_EXTRA_INITRD=$extra VM_APPEND="loglevel=4" \
	vm_run bench-patched "$BENCHVM" "$TEST_LOG_DIR/bench-patched.sh" ||
	die "benchmark VM (project's kernel) failed: $TEST_LOG_DIR/bench-patched.console.log"
logs=("$TEST_LOG_DIR/bench-patched.console.log")
unpatched=${GSO_KERNEL_UNPATCHED:-$("$GSO_TOP/scripts/build-kernel.sh" --unpatched)}
guest_script "today:65160 fits-base:62264" > "$TEST_LOG_DIR/bench-base.sh"
VM_EXTRA_INITRD=$extra VM_APPEND="loglevel=4" VM_KERNEL=$unpatched \
	vm_run bench-base "$BENCHVM" "$TEST_LOG_DIR/bench-base.sh" ||
	die "benchmark VM (unpatched base) failed: $TEST_LOG_DIR/bench-base.console.log"
logs+=("$TEST_LOG_DIR/bench-base.console.log")
rows=4

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
		printf "# row        payload  cpu_s_per_GB  frames_per_s  egress_pkts_per_s  egress_MB_per_s  pkts_per_frame  split  cpu_vs_today\n"
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
# "fits-base" on two lines: the labels of four bars would run together.
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
