# SPDX-License-Identifier: GPL-2.0-only
# The port's histogram a correct split must give, from the tap's: input is
# gso-hist --json of a tap (files[0]) and the port behind it (files[1]);
# $limit is the port's gso_max_size, $hdr the frame's header bytes
# (Ethernet + IP + TCP), $maxsegs its gso_max_segs.
#
# The rule is skb_gso_split_segs()'s (kernel-split-patches/ 0001): a
# packet is split when its frame is limit bytes or more or it has more
# than maxsegs segments, into k = min(maxsegs, (limit - 1 - hdr) / mss,
# (IP_MAX_MTU - iplen) / mss) segments per piece (iplen: the IPv4 and TCP
# headers, hdr less an untagged Ethernet header's 14 bytes), one fewer
# when that leaves a lone last segment and not more pieces; a packet of
# n = ceil(payload / mss) segments leaves as ceil(n / k) pieces, k * mss
# bytes each but the last.  So a 45-segment 65160 leaves as 62264 + 2896
# (43 + 2, not 44 + 1), and a 46-segment 65392 (a stream's last, partial
# segment) as 63712 + 1680 (44 + 2).
#
# Output: {"bad": [sizes where the port differs from the tap's frames the
# split leaves alone plus the pieces of the others], "shapes": ["COUNT x PIECE +
# PIECE", ... per oversize size]}.
def ceil_div(a; b): (a + b - 1) / b | floor;
if (.mss | type) != "number" or .mss < 1 then error("no MSS in the histogram") else . end
| .mss as $mss
| ([$maxsegs, (($limit - 1 - $hdr) / $mss | floor),
    ((65535 - ($hdr - 14)) / $mss | floor)] | min) as $k0
| def over: .payload_size + $hdr >= $limit or ceil_div(.payload_size; $mss) > $maxsegs;
  [.histogram[] | select(over and .counts[0] > 0)
   | . as $h
   | ceil_div($h.payload_size; $mss) as $n
   | (if $k0 > 2 and $n % $k0 == 1 and
	ceil_div($n; $k0 - 1) == ceil_div($n; $k0) then $k0 - 1 else $k0 end) as $k
   | ceil_div($n; $k) as $p
   | {count: $h.counts[0],
      pieces: ([range(0; $p - 1) | $k * $mss] + [$h.payload_size - ($p - 1) * $k * $mss])}
  ] as $over
| (reduce ($over[] | .count as $c | .pieces[] | {s: tostring, c: $c}) as $x
	({}; .[$x.s] += $x.c)) as $pieces
| (reduce (.histogram[] | select(over | not)) as $h
	($pieces; .[$h.payload_size | tostring] += $h.counts[0])) as $want
| (reduce .histogram[] as $h ({}; .[$h.payload_size | tostring] = $h.counts[1])) as $have
| {bad: [($want + $have | keys_unsorted[]) as $s
	 | select(($want[$s] // 0) != ($have[$s] // 0))
	 | "\($s) bytes: port \($have[$s] // 0), want \($want[$s] // 0)"] | unique,
   shapes: [$over[] | "\(.count) x \(.pieces | map(tostring) | join(" + "))"]}
