# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The check of an emulated NIC's wire: each data segment a NIC put on the
# wire against the TSO packet its driver took (tests/harness/tso-wire.awk),
# with the captures' drop counts.  One verdict for every test that has a
# wire capture and the driver's TSO packets: tests/t65-r8169-model.sh,
# tests/t66-e1000e-passthrough.sh and, through tests/harness/splitvm.sh's
# splitvm_wire_check, tests/t63-split-unpatched-guest.sh and tests/demo.sh.
# Source after tests/lib.sh.

# wire_drops WHAT LOG: the drop count in tcpdump's closing lines LOG (its
# standard error after a SIGINT or SIGTERM): prints nothing when it
# dropped 0 packets, else one line naming the capture WHAT and the figure
# (or that LOG holds no count: tcpdump did not end cleanly, what it lost
# is unknown).
wire_drops() {
	local what=$1 log=$2 kernel iface
	kernel=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel$/\1/p' "$log" 2>/dev/null | tail -n 1)
	iface=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by interface$/\1/p' "$log" 2>/dev/null | tail -n 1)
	if [ -z "$kernel" ]; then
		echo "$what capture: no drop count in $log (tcpdump did not end cleanly): what it missed is unknown"
	elif [ "$kernel" != 0 ] || [ "${iface:-0}" != 0 ]; then
		echo "$what capture dropped packets: $kernel by kernel${iface:+, $iface by interface} ($log): segments are missing, the wire checks cannot hold"
	fi
}

# wire_tso PCAP: the TSO packets in PCAP, a capture on the port whose
# driver took them (tcpdump -s 200 is enough), as wire_check's TSO lines
# "START END FLAGS FLOW" (FLOW "SRC.PORT>DST.PORT", IPv4 or IPv6).
wire_tso() {
	tcpdump -r "$1" -nn -S 2> /dev/null |
		sed -n 's/^[^ ]* IP6\{0,1\} \([^ ]*\) > \([^ ]*\): Flags \[\([^]]*\)\], seq \([0-9]*\):\([0-9]*\),.*/\4 \5 \3 \1>\2/p'
}

# wire_check NAME TSO PCAP FILTER FLOWS [WHAT=LOG...]: check NAME's wire
# capture PCAP (the sender's frames: tcpdump FILTER) against TSO, a file of
# the TSO packets the driver took ("START END FLAGS [FLOW]", see
# tests/harness/tso-wire.awk), and the drop counts of the captures named
# WHAT=LOG (LOG: that tcpdump's standard error, with its closing lines):
# the wire's ("wire=LOG") and the one the TSO packets come from.
# Checks, each failed one a line of WIRE_BAD naming its figure:
#   every named capture dropped 0 packets;
#   over 1000 data segments; FLOWS flows, each ended by a FIN;
#   no segment outside every TSO packet of its flow;
#   PSH and FIN only on a TSO packet's last segment, there if it had them;
#   at least one pushed segment; CWR only on a TSO packet's first segment;
#   every frame's IP length within the MTU (1500) and its IPv4 and TCP
#   checksums correct (SYN, pure ACKs and FIN too);
#   sequence gaps and IPv4 IDs not one more (per flow): at most 1 % of
#   the segments each (retransmissions).
# Sets WIRE (the awk's line), WIRE_SEGS, WIRE_TSO, WIRE_PSH and WIRE_BAD
# (empty: all hold).  Returns 1 when a check failed.
wire_check() {
	local name=$1 tso=$2 pcap=$3 filter=$4 flows=$5 spec bad=() line key
	local -A wire_fig=()
	shift 5
	for spec in "$@"; do
		line=$(wire_drops "$name: the ${spec%%=*}" "${spec#*=}")
		[ -z "$line" ] || bad+=("$line")
	done
	WIRE=$( { sed 's/^/TSO /' "$tso" 2> /dev/null
		tcpdump -r "$pcap" -nn -vv -S "$filter" 2> /dev/null
		} | awk -f "$GSO_TOP/tests/harness/tso-wire.awk") || true
	# "segments N outside N ... fin N" -> wire_fig[segments]=N ...
	# shellcheck disable=SC2086
	set -- $WIRE
	while [ $# -ge 2 ]; do
		wire_fig[$1]=$2
		shift 2
	done
	for key in segments outside psh_bad fin_bad cwr_bad over_mtu bad_csum gaps id_bad psh tso flows fin; do
		[[ "${wire_fig[$key]:-}" =~ ^[0-9]+$ ]] || { bad+=("$name: no '$key' from tso-wire.awk: '$WIRE'"); wire_fig[$key]=0; }
	done
	WIRE_SEGS=${wire_fig[segments]} WIRE_TSO=${wire_fig[tso]} WIRE_PSH=${wire_fig[psh]}
	[ "$WIRE_SEGS" -gt 1000 ] ||
		bad+=("$name: $WIRE_SEGS data segments on the wire of $WIRE_TSO TSO packets the driver took, want over 1000")
	[ "${wire_fig[flows]}" = "$flows" ] || bad+=("$name: ${wire_fig[flows]} flows with data on the wire, want $flows")
	[ "${wire_fig[fin]}" = "${wire_fig[flows]}" ] || bad+=("$name: ${wire_fig[fin]} of ${wire_fig[flows]} flows ended by a FIN on the wire")
	[ "${wire_fig[outside]}" = 0 ] || bad+=("$name: segments outside every TSO packet the driver took: ${wire_fig[outside]}")
	[ "${wire_fig[psh_bad]}" = 0 ] || bad+=("$name: PSH off a TSO packet's last segment (or missing there): ${wire_fig[psh_bad]}")
	[ "$WIRE_PSH" -gt 0 ] || bad+=("$name: no pushed segment")
	[ "${wire_fig[fin_bad]}" = 0 ] || bad+=("$name: FIN off a TSO packet's last segment (or missing there): ${wire_fig[fin_bad]}")
	[ "${wire_fig[cwr_bad]}" = 0 ] || bad+=("$name: CWR off a TSO packet's first segment (or missing there): ${wire_fig[cwr_bad]}")
	[ "${wire_fig[over_mtu]}" = 0 ] || bad+=("$name: frames with an IP length over the MTU (1500): ${wire_fig[over_mtu]}")
	[ "${wire_fig[bad_csum]}" = 0 ] || bad+=("$name: frames with a wrong IPv4 or TCP checksum: ${wire_fig[bad_csum]}")
	[ $(( wire_fig[gaps] * 100 )) -le "$WIRE_SEGS" ] ||
		bad+=("$name: sequence gaps: ${wire_fig[gaps]} of $WIRE_SEGS segments, over 1 %")
	[ $(( wire_fig[id_bad] * 100 )) -le "$WIRE_SEGS" ] ||
		bad+=("$name: IPv4 ID not one more per segment: ${wire_fig[id_bad]} of $WIRE_SEGS segments, over 1 %")
	# shellcheck disable=SC2034 # read by the caller
	WIRE_BAD=$(printf '%s\n' "${bad[@]}")
	[ ${#bad[@]} = 0 ]
}
