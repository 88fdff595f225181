# The headers a NIC gave each wire segment of the TSO packets it took.
# Input: first the TSO packets handed to the NIC's driver (lines
# "TSO START END FLAGS [FLOW]", absolute sequence numbers, tcpdump's flags,
# FLOW "SRC.PORT>DST.PORT" as tcpdump -nn prints them; a line without FLOW
# holds for every flow), then tcpdump -nn -vv -S of the wire (IPv4 or IPv6,
# one side's frames of one or more flows).  Per wire data segment, inside
# the TSO packet [START, END) of its flow that holds it (the first at or
# after the one before, as the NIC sends in order; any other as a fallback):
#   PSH and FIN only on the segment that ends at END, and there only if the
#   TSO packet had them (and then it must); CWR only on the segment that
#   starts at START; per flow, sequence numbers contiguous.  Per frame,
#   data or not: IP total length at most MTU (1500; an IPv6 payload length
#   plus its 40-byte header; a length not found counts as over), checksums
#   correct (tcpdump -vv says "incorrect" otherwise), IPv4 IDs one more
#   than the flow's frame before.
# Output: one line "segments N outside N psh_bad N fin_bad N cwr_bad N
# over_mtu N bad_csum N gaps N id_bad N psh N tso N flows N fin N"
# (over_mtu, bad_csum, id_bad count frames; flows: the flows with data
# segments; fin: those of them a FIN ended).
# Used by tests/harness/wire.sh (wire_check); judged there.
$1 == "TSO" {
	fl = NF >= 5 ? $5 : "*"
	n = ++tn[fl]
	ts[fl, n] = $2 + 0; te[fl, n] = $3 + 0; tf[fl, n] = $4
	ntso++
	next
}
# place(FL, A, B): the index of the TSO packet of list FL holding [A, B),
# 0 if none.
function place(fl, a, b,    i) {
	for (i = cur[fl] ? cur[fl] : 1; i <= tn[fl]; i++)
		if (ts[fl, i] <= a && b <= te[fl, i]) { cur[fl] = i; return i }
	for (i = tn[fl]; i >= 1; i--)
		if (ts[fl, i] <= a && b <= te[fl, i]) return i
	return 0
}
function proc(r,    s, a, b, k, f, id, len, flow, fl) {
	if (r !~ /Flags \[/ || !match(r, /[0-9a-f:.]+\.[0-9]+ > [0-9a-f:.]+\.[0-9]+:/))
		return
	flow = substr(r, RSTART, RLENGTH - 1)
	sub(/ > /, ">", flow)
	match(r, /Flags \[[^]]*\]/)
	f = substr(r, RSTART + 7, RLENGTH - 8)
	if (match(r, /, id [0-9]+,/)) {
		id = substr(r, RSTART + 5, RLENGTH - 6) + 0
		if ((flow in lastid) && id != (lastid[flow] + 1) % 65536) idbad++
		lastid[flow] = id
	}
	if (f ~ /F/) fin[flow] = 1
	if (match(r, /proto TCP \([0-9]+\), length [0-9]+\)/)) {
		len = substr(r, RSTART, RLENGTH - 1)
		sub(/.* /, "", len)
		len += 0
	} else if (match(r, /payload length: [0-9]+\)/)) {
		len = substr(r, RSTART + 16, RLENGTH - 17) + 40
	} else {
		len = 99999
	}
	if (len > 1500) over++
	if (r ~ /incorrect/) bad++
	if (!match(r, / seq [0-9]+:[0-9]+/))
		return
	split(substr(r, RSTART + 5, RLENGTH - 5), s, ":")
	a = s[1] + 0; b = s[2] + 0
	if (b <= a)
		return
	segs++
	if ((flow in lastend) && a != lastend[flow]) gaps++
	lastend[flow] = b
	if (f ~ /P/) psh++
	fl = (flow in tn) ? flow : "*"
	k = place(fl, a, b)
	if (!k) { outside++; return }
	if ((f ~ /P/) != (b == te[fl, k] && tf[fl, k] ~ /P/)) pshbad++
	if ((f ~ /F/) != (b == te[fl, k] && tf[fl, k] ~ /F/)) finbad++
	if ((f ~ /W/) != (a == ts[fl, k] && tf[fl, k] ~ /W/)) cwrbad++
}
/^[0-9]/ { if (rec != "") proc(rec); rec = $0; next }
{ rec = rec " " $0 }
END {
	if (rec != "") proc(rec)
	for (f in lastend) { flows++; if (f in fin) fins++ }
	printf "segments %d outside %d psh_bad %d fin_bad %d cwr_bad %d over_mtu %d bad_csum %d gaps %d id_bad %d psh %d tso %d flows %d fin %d\n",
		segs, outside, pshbad, finbad, cwrbad, over, bad, gaps, idbad, psh, ntso, flows, fins
}
