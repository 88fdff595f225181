# tcpdump -nn -vv output of one side's TCP frames -> one summary line:
# data frames, how many continue their flow's sequence exactly (gaps:
# retransmissions or loss), IPv4 IDs that follow the previous frame's by
# one (per flow), frames with PSH, flows, flows that carried a FIN.
# Used by tests/t65-r8169-model.sh on the wire captures.
# One record per packet (tcpdump -nn -vv prints IPv4 packets on two lines).
function proc(r,    flow, s, a, b, id) {
	if (!match(r, /[0-9a-f:.]+\.[0-9]+ > [0-9a-f:.]+\.[0-9]+:/))
		return
	flow = substr(r, RSTART, RLENGTH)
	if (match(r, /, id [0-9]+,/)) {
		id = substr(r, RSTART + 5, RLENGTH - 6) + 0
		if (flow in lid) {
			if (id == (lid[flow] + 1) % 65536) idok++; else idbad++
		}
		lid[flow] = id
	}
	if (r ~ /Flags \[[^]]*F/)
		fin[flow] = 1
	if (!match(r, / seq [0-9]+:[0-9]+/))
		return
	split(substr(r, RSTART + 5, RLENGTH - 5), s, ":")
	a = s[1] + 0; b = s[2] + 0
	data++
	if (flow in end) {
		if (a == end[flow]) cont++; else gap++
	}
	end[flow] = b
	if (r ~ /Flags \[[^]]*P/) psh++
}
/^[0-9]/ { if (rec != "") proc(rec); rec = $0; next }
{ rec = rec " " $0 }
END {
	if (rec != "") proc(rec)
	for (f in end) { flows++; if (f in fin) fins++ }
	printf "data %d contiguous %d gaps %d id_next %d id_other %d psh %d flows %d fin %d\n",
		data, cont, gap, idok, idbad, psh, flows, fins
}
