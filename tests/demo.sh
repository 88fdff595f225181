#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
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
#
# Third row, "unpatched guest, patched host": the project's kernel
# (kernel-split-patches/ included) booted as the host in a VM, an UNPATCHED
# guest (the base kernel, no VIRTIO_NET_F_GSO_LIMITS) nested in it sends
# 8 MiB through tap -> bridge -> a netdevsim port at 64000/64, vhost=off
# (tests/harness/splitvm.sh, as t63 runs it): the host splits each
# oversize packet into GSO packets within the limits instead of cutting it
# into MSS segments.  Nested TCG: ~3-5 min.  DEMO_SPLIT=0 leaves it out.
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
# shellcheck source=tests/harness/extra-initrd.sh
. "$GSO_TOP/tests/harness/extra-initrd.sh"
# shellcheck source=tests/harness/splitvm.sh
. "$GSO_TOP/tests/harness/splitvm.sh"

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

# Third row: the unpatched guest on the patched host (tier 2).  Its
# histogram and plot data come back on the host VM's console
# (splitvm_files: $TEST_LOG_DIR/demo-split-p0.*).
modes="off on"
if [ "${DEMO_SPLIT:-1}" = 1 ]; then
	log "unpatched guest, patched host: the project's kernel as a host VM, the unpatched base nested in it (~3-5 min)"
	unpatched=$("$GSO_TOP/scripts/build-kernel.sh" --unpatched) || die "unpatched kernel build failed"
	split_initrd=$(splitvm_initrd "$unpatched") || die "host VM initramfs failed"
	setup_ns SPLIT_NS
	splitvm_start demo-split "$SPLIT_NS" "$GSO_KERNEL" "$split_initrd" base 0
	vm_wait demo-split || die "the tier-2 host VM failed; logs in $TEST_LOG_DIR/demo-split.console.log"
	splitvm_files demo-split p0 || die "no histogram from the tier-2 host VM ($TEST_LOG_DIR/demo-split.console.log)"
	grep -q "bytes=$SPLITVM_BYTES .*content=ok" <<< "$(splitvm_val demo-split p0-recv)" ||
		die "the unpatched guest's stream failed: $(splitvm_val demo-split p0-recv)"
	for f in hist.json hist.txt plot.dat; do
		cp "$TEST_LOG_DIR/demo-split-p0.$f" "$TEST_LOG_DIR/demo-split.$f"
	done
	link[split]=$(splitvm_console demo-split | sed -n 's/^SPL-CON-base: NESTED-LINK: p0 eth0 [^ ]* //p')
	mbit[split]=$(splitvm_val demo-split p0-send | sed -n 's/.*mbit_per_s=\([0-9.]*\).*/\1/p')
	modes="off on split"
fi

cat <<TXT

What you are looking at: TCP payload sizes a guest handed to the host (tap) and that left the host's
NIC port, as in seed 000. Feature off: 65160-byte guest frames leave as 1448-byte software segments.
Feature on: the host daemon gso-limitsd set the path's limit (64000/64) on the guest's device at
run time, the device told the guest, so frames cross intact.
Split (unpatched guest, patched host): a guest without the feature sends 65160-byte frames
as before; the host kernel (kernel-split-patches/) splits each into 2 GSO packets within the
port's limits (62264 + 2896 bytes) instead of 45 software segments. Nothing changes in the guest.

TXT
declare -A title=([off]="Feature off" [on]="Feature on" [split]="Split: unpatched guest, patched host")
for mode in $modes; do
	echo "${title[$mode]} (guest: $(link_field "${link[$mode]}" gso_max_size) gso_max_size," \
		"$(link_field "${link[$mode]}" tso_max_size) tso_max_size):"
	jq -r '"  TCP payload size | TAP count | NIC count",
		(.histogram | sort_by(-(.counts[0] + .counts[1])) | .[:6][] |
		 "  \(.payload_size) bytes | \(.counts[0]) | \(.counts[1])")' \
		"$TEST_LOG_DIR/demo-$mode.hist.json"
	echo
done
printf '%-8s %11s %11s %12s %18s %16s %13s\n' feature "tap frames" "NIC frames" "largest tap" \
	"NIC frames 1 MSS" "sw-segmented" "guest Mbit/s"
for mode in $modes; do
	j=$TEST_LOG_DIR/demo-$mode.hist.json
	printf '%-8s %11s %11s %12s %17.1f%% %15.1f%% %13s\n' "$mode" \
		"$(jq '.files[0].frames' "$j")" "$(jq '.files[1].frames' "$j")" \
		"$(jq '.files[0].max_payload' "$j")" \
		"$(echo "$(hist_mss_frame_share "demo-$mode" 1) * 100" | bc -l)" \
		"$(jq '.segmented_in_software.share * 100' "$j")" "${mbit[$mode]:-?}"
done
echo "(Mbit/s under $GSO_ACCEL, through veths on one machine: a ratio, not a NIC figure;"
echo " split: 8 MiB from a guest nested in a TCG host VM, through a netdevsim port)"

png=$TEST_LOG_DIR/demo.png
if command -v gnuplot >/dev/null; then
	gnuplot <<GP || warn "gnuplot failed; the data is in $TEST_LOG_DIR/*.plot.dat"
set terminal pngcairo size $((600 * $(wc -w <<< "$modes"))),500 noenhanced font ",10"
set output "$png"
set multiplot layout 1,$(wc -w <<< "$modes") title "TCP payload sizes on the tap and the NIC port (r8169 profile, 64000 bytes / 64 segments)"
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
$(if [ "$modes" = "off on split" ]; then cat <<SPLIT
set title "unpatched guest, patched host (split)"
plot "$TEST_LOG_DIR/demo-split.plot.dat" using 1:(\$2 > 0 ? \$2 : 1/0) with impulses lw 3 title "tap", \
     "" using (\$1 + 400):(\$3 > 0 ? \$3 : 1/0) with impulses lw 3 title "NIC"
SPLIT
fi)
unset multiplot
GP
fi
echo
echo "plot:  $png"
echo "pcaps: $TEST_LOG_DIR/demo-{off,on}.{tap,nic}.pcap (open them in Wireshark; the split row's"
echo "       stay in its host VM: histograms in $TEST_LOG_DIR/demo-split.hist.txt)"
echo "logs:  $TEST_LOG_DIR"
