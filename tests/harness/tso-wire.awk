# The headers a NIC gave each wire segment of the TSO packets it took.
# Input: first the TSO packets handed to the NIC's driver (lines
# "TSO START END FLAGS", absolute sequence numbers, tcpdump's flags), then
# tcpdump -nn -vv -S of the wire (IPv4, one flow's data frames).  Per wire
# data segment, inside the TSO packet [START, END) that holds it:
#   PSH and FIN only on the segment that ends at END, and there only if the
#   TSO packet had them (and then it must); CWR only on the segment that
#   starts at START; IP total length at most MTU (1500); checksums correct
#   (tcpdump -vv says "incorrect" otherwise); sequence numbers contiguous
#   and IPv4 IDs one more than the frame before.
# Output: one line "segments N outside N psh_bad N fin_bad N cwr_bad N
# over_mtu N bad_csum N gaps N id_bad N psh N tso N".
# Used by tests/demo.sh on the split row's wire capture.
$1 == "TSO" { tn++; ts[tn] = $2 + 0; te[tn] = $3 + 0; tf[tn] = $4; next }
function proc(r,    s, a, b, i, k, f, id, len) {
	if (r !~ /Flags \[/ || !match(r, / seq [0-9]+:[0-9]+/))
		return
	split(substr(r, RSTART + 5, RLENGTH - 5), s, ":")
	a = s[1] + 0; b = s[2] + 0
	if (b <= a)
		return
	segs++
	match(r, /Flags \[[^]]*\]/)
	f = substr(r, RSTART + 7, RLENGTH - 8)
	if (match(r, /, length [0-9]+\)/)) {
		len = substr(r, RSTART + 9, RLENGTH - 10) + 0
		if (len > 1500) over++
	}
	if (r ~ /incorrect/) bad++
	if (match(r, /, id [0-9]+,/)) {
		id = substr(r, RSTART + 5, RLENGTH - 6) + 0
		if (haveid && id != (lastid + 1) % 65536) idbad++
		lastid = id; haveid = 1
	}
	if (haveend && a != lastend) gaps++
	lastend = b; haveend = 1
	if (f ~ /P/) psh++
	k = 0
	for (i = tn; i >= 1; i--)
		if (ts[i] <= a && b <= te[i]) { k = i; break }
	if (!k) { outside++; return }
	if ((f ~ /P/) != (b == te[k] && tf[k] ~ /P/)) pshbad++
	if ((f ~ /F/) != (b == te[k] && tf[k] ~ /F/)) finbad++
	if ((f ~ /W/) != (a == ts[k] && tf[k] ~ /W/)) cwrbad++
}
/^[0-9]/ { if (rec != "") proc(rec); rec = $0; next }
{ rec = rec " " $0 }
END {
	if (rec != "") proc(rec)
	printf "segments %d outside %d psh_bad %d fin_bad %d cwr_bad %d over_mtu %d bad_csum %d gaps %d id_bad %d psh %d tso %d\n",
		segs, outside, pshbad, finbad, cwrbad, over, bad, gaps, idbad, psh, tn
}
