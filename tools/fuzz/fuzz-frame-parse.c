// SPDX-License-Identifier: GPL-2.0-only
/*
 * The frame parser (lib/frame_parse.c) on arbitrary frames: input byte 0
 * picks the link type, bytes 1-4 the wire length (big-endian), the rest
 * is the captured frame.
 */
#include "fuzz/fuzz_input.h"
#include "lib/frame_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int linktypes[] = {
		FRAME_LINK_ETHERNET, FRAME_LINK_RAW, FRAME_LINK_RAW_ALT,
		FRAME_LINK_LINUX_SLL, FRAME_LINK_LINUX_SLL2, 9999,
	};
	uint32_t wirelen, payload = 0, caplen;
	enum frame_kind kind;
	uint8_t *frame;
	int linktype;

	if (size < 5)
		return 0;
	linktype = linktypes[data[0] % (sizeof(linktypes) / sizeof(linktypes[0]))];
	wirelen = (uint32_t)data[1] << 24 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 8 | data[4];
	caplen = (uint32_t)(size - 5);
	/* A copy of exactly the captured length: a read past it is a finding. */
	frame = malloc(caplen ? caplen : 1);
	if (!frame)
		abort();
	memcpy(frame, data + 5, caplen);
	kind = frame_tcp_payload(linktype, frame, caplen, wirelen, &payload);
	fuzz_assert(kind == FRAME_TCP || kind == FRAME_OTHER || kind == FRAME_MALFORMED);
	free(frame);
	return 0;
}
