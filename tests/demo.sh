#!/usr/bin/env bash
# make demo: seed 000's before/after, on the built-in r8169 topology.
#
# A guest sends 32 MiB of TCP to a peer behind tap -> bridge -> "NIC" (a
# veth limited like r8169: 64000 bytes / 64 segments), once with the
# feature off (today's virtio-net) and once with it on; tcpdump records the
# TCP payload sizes on the tap and on the NIC, as seed 000 did by hand.
# Feature on is what a user runs: the host daemon gso-limitsd in the host
# namespace sets the tap's path limits on the running guest's device
# (started with the feature offered and no limit).  DEMO_ON_PROPS=... sets
# the device's properties instead, without the daemon.
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"

TEST_LOG_DIR=$GSO_CACHE/demo/$(date +%Y%m%d-%H%M%S)
mkdir -p "$TEST_LOG_DIR"
BYTES=$((32 << 20))
ON_PROPS=${DEMO_ON_PROPS:-}

log "building (first run: ~20 min on 2 cores; then seconds)"
vm_init >&2
topo_tier1 r8169

declare -A link mbit
for mode in off on; do
	props="" wait_limits=""
	if [ $mode = on ] && [ -n "$ON_PROPS" ]; then
		props=$ON_PROPS
	elif [ $mode = on ]; then
		limitsd_start "$HOST_NS" || die "gso-limitsd did not start"
		props=$LIMITSD_NIC_PROPS wait_limits="64000 64"
	fi
	log "feature $mode: booting the guest, sending $((BYTES >> 20)) MiB, capturing"
	BULK_WAIT_LIMITS=$wait_limits bulk_run "demo-$mode" $BYTES 4 "$props"
	[ "$BULK_OK" = 1 ] || die "the feature-$mode stream failed; logs in $TEST_LOG_DIR"
	bulk_hist "demo-$mode" || die "gso-hist failed on the demo-$mode captures"
	link[$mode]=$BULK_GUEST_LINK
	mbit[$mode]=$(grep -o 'role=send.*' "$TEST_LOG_DIR/demo-$mode.console.log" |
		sed -n 's/.*mbit_per_s=\([0-9.]*\).*/\1/p')
done

cat <<TXT

What you are looking at: TCP payload sizes a guest handed to the host (tap) and that left the host's
NIC port, as in seed 000. Feature off: 65160-byte guest frames leave as 1448-byte software segments.
Feature on: the host daemon gso-limitsd set the path's limit (64000/64) on the guest's device at
run time, the device told the guest, so frames cross intact.

TXT
for mode in off on; do
	echo "Feature $mode (guest: $(link_field "${link[$mode]}" gso_max_size) gso_max_size," \
		"$(link_field "${link[$mode]}" tso_max_size) tso_max_size):"
	jq -r '"  TCP payload size | TAP count | NIC count",
		(.histogram | sort_by(-(.counts[0] + .counts[1])) | .[:6][] |
		 "  \(.payload_size) bytes | \(.counts[0]) | \(.counts[1])")' \
		"$TEST_LOG_DIR/demo-$mode.hist.json"
	echo
done
printf '%-8s %11s %11s %12s %18s %16s %13s\n' feature "tap frames" "NIC frames" "largest tap" \
	"NIC frames 1 MSS" "sw-segmented" "guest Mbit/s"
for mode in off on; do
	j=$TEST_LOG_DIR/demo-$mode.hist.json
	printf '%-8s %11s %11s %12s %17.1f%% %15.1f%% %13s\n' "$mode" \
		"$(jq '.files[0].frames' "$j")" "$(jq '.files[1].frames' "$j")" \
		"$(jq '.files[0].max_payload' "$j")" \
		"$(echo "$(hist_mss_frame_share "demo-$mode" 1) * 100" | bc -l)" \
		"$(jq '.segmented_in_software.share * 100' "$j")" "${mbit[$mode]:-?}"
done
echo "(Mbit/s under $GSO_ACCEL, through veths on one machine: a ratio, not a NIC figure)"

png=$TEST_LOG_DIR/demo.png
if command -v gnuplot >/dev/null; then
	gnuplot <<GP || warn "gnuplot failed; the data is in $TEST_LOG_DIR/*.plot.dat"
set terminal pngcairo size 1200,500 noenhanced font ",10"
set output "$png"
set multiplot layout 1,2 title "TCP payload sizes on the tap and the NIC port (r8169 profile, 64000 bytes / 64 segments)"
set logscale y
set xlabel "TCP payload size (bytes)"
set ylabel "frames"
set xrange [0:66000]
set key top center
set title "feature off (today)"
plot "$TEST_LOG_DIR/demo-off.plot.dat" using 1:(\$2 > 0 ? \$2 : 1/0) with impulses lw 3 title "tap", \
     "" using (\$1 + 400):(\$3 > 0 ? \$3 : 1/0) with impulses lw 3 title "NIC"
set title "feature on (VIRTIO_NET_F_GSO_LIMITS)"
plot "$TEST_LOG_DIR/demo-on.plot.dat" using 1:(\$2 > 0 ? \$2 : 1/0) with impulses lw 3 title "tap", \
     "" using (\$1 + 400):(\$3 > 0 ? \$3 : 1/0) with impulses lw 3 title "NIC"
unset multiplot
GP
fi
echo
echo "plot:  $png"
echo "pcaps: $TEST_LOG_DIR/demo-{off,on}.{tap,nic}.pcap (open them in Wireshark)"
echo "logs:  $TEST_LOG_DIR"
