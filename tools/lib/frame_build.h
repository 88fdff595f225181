/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Header-only Ethernet/IP/TCP frames with a given TCP payload length, as
 * `tcpdump -s 200` stores them: the IP length fields claim the full
 * payload, the bytes after the TCP header are not there.  Used to write
 * test captures whose histogram is known (pcap-synth) and by unit tests.
 */
#ifndef GSO_TOOLS_FRAME_BUILD_H
#define GSO_TOOLS_FRAME_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ethernet 14 + IPv6 40 + TCP with timestamps 32 = 86: room for any built frame. */
#define FRAME_BUILD_MAX_HDR	128

enum frame_build_proto {
	FRAME_BUILD_TCP4,
	FRAME_BUILD_TCP6,
	FRAME_BUILD_UDP4,	/* a non-TCP frame, to check it is not counted */
};

/*
 * Write the headers of one frame carrying @payload bytes into @buf (at least
 * FRAME_BUILD_MAX_HDR bytes).  Returns the header length (the captured
 * length); the frame's wire length is that plus @payload.  Returns 0 if
 * @payload does not fit the IP length field.
 */
size_t frame_build(uint8_t *buf, enum frame_build_proto proto, uint32_t payload);

#endif
