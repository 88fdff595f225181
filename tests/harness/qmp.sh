# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# A QMP client for the harness that waits for each reply: it reads QEMU's
# greeting, negotiates capabilities, sends one command at a time with an
# "id" and reads until the reply carrying that id (events in between are
# skipped), then closes.  Nothing is timed by sleeping.
#
#   qmp_cmds SOCKET JSON...   print each reply (one line each); status 0 if
#                             every reply is a "return", 1 if one is an
#                             "error", 2 if QEMU did not answer in time or
#                             closed the socket (the rest is not sent)
#
# Each command is a JSON object without an "id"; one is added.  Bounded:
# QMP_TIMEOUT seconds (default 10) per step (connect, greeting, reply).
: "${QMP_TIMEOUT:=10}"

# _qmp_read_until REGEX: read lines from socat until one matches REGEX,
# into QMP_LINE (no subshell, so the caller sees it).
# Status 2 on a timeout or end of file.
_qmp_read_until() {
	while IFS= read -r -t "$QMP_TIMEOUT" QMP_LINE <&"$_qmp_rfd"; do
		[[ $QMP_LINE =~ $1 ]] && return 0
	done
	return 2
}

qmp_cmds() {
	local sock=$1 id=0 cmd rc=0 _qmp_rfd _qmp_wfd pid dir
	shift
	[ -S "$sock" ] || { echo "qmp: no socket $sock" >&2; return 2; }
	# socat between two FIFOs whose other ends are this shell's own file
	# descriptors (a coprocess's would vanish when it exits early).
	dir=$(mktemp -d)
	mkfifo "$dir/in" "$dir/out"
	timeout $((QMP_TIMEOUT * ($# + 2))) socat - "UNIX-CONNECT:$sock" \
		< "$dir/in" > "$dir/out" 2>/dev/null &
	pid=$!
	exec {_qmp_wfd}> "$dir/in" {_qmp_rfd}< "$dir/out"
	rm -rf "$dir"
	if ! _qmp_read_until '"QMP"'; then
		echo "qmp: no greeting on $sock" >&2
		rc=2
	fi
	for cmd in '{"execute":"qmp_capabilities"}' "$@"; do
		[ $rc -eq 2 ] && break
		id=$((id + 1))
		# Add the id as the object's last member.
		printf '%s\n' "${cmd%\}},\"id\":$id}" >&"$_qmp_wfd"
		if ! _qmp_read_until "\"id\": *${id}[,}]"; then
			echo "qmp: no reply to $cmd on $sock" >&2
			rc=2
			break
		fi
		[ $id -gt 1 ] && printf '%s\n' "$QMP_LINE"
		if [[ $QMP_LINE == *'"error"'* ]]; then
			[ $id -eq 1 ] && { echo "qmp: $QMP_LINE" >&2; rc=2; break; }
			rc=1
		fi
	done
	exec {_qmp_wfd}>&- {_qmp_rfd}<&-
	wait "$pid" 2>/dev/null || true
	return $rc
}

# qmp_gso_set SOCKET QOM-PATH SIZE SEGS: set a virtio-net device's GSO
# limits at run time, as management does.
qmp_gso_set() {
	qmp_cmds "$1" "{\"execute\":\"qom-set\",\"arguments\":{\"path\":\"$2\",\"property\":\"host_gso_max\",\"value\":{\"size\":$3,\"segs\":$4}}}"
}
