// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/frame_parse.c on frames from lib/frame_build.c and
 * hand-edited variants: the payload length must come from the IP header
 * (header-only captures), for IPv4 and IPv6, behind VLAN tags, IPv6
 * extension headers and Linux cooked headers; truncated or inconsistent
 * frames must be reported, not counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/frame_build.h"
#include "lib/frame_parse.h"
#include "test/check.h"

/* The frame of @caplen bytes, @wirelen on the wire (0: @caplen plus the claimed payload). */
static void check_frame_wire(const char *what, int linktype, const uint8_t *data,
			     uint32_t caplen, uint32_t wirelen, enum frame_kind want_kind,
			     uint32_t want_payload)
{
	uint32_t payload = 0xdeadbeef;
	enum frame_kind kind = frame_tcp_payload(linktype, data, caplen, wirelen, &payload);

	check(kind == want_kind && (kind != FRAME_TCP || payload == want_payload),
	      "%s (kind %d payload %u)", what, kind, kind == FRAME_TCP ? payload : 0);
}

static void check_frame(const char *what, int linktype, const uint8_t *data,
			uint32_t caplen, enum frame_kind want_kind, uint32_t want_payload)
{
	check_frame_wire(what, linktype, data, caplen, caplen, want_kind, want_payload);
}

int main(void)
{
	static const uint32_t sizes[] = { 0, 1, 1448, 2896, 64000, 65160, 65483 };
	uint8_t f[FRAME_BUILD_MAX_HDR], g[FRAME_BUILD_MAX_HDR + 16];
	char what[80];
	size_t len, i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		len = frame_build(f, FRAME_BUILD_TCP4, sizes[i]);
		snprintf(what, sizeof(what), "IPv4 payload %u", sizes[i]);
		check_frame(what, FRAME_LINK_ETHERNET, f, len, FRAME_TCP, sizes[i]);
		len = frame_build(f, FRAME_BUILD_TCP6, sizes[i]);
		snprintf(what, sizeof(what), "IPv6 payload %u", sizes[i]);
		check_frame(what, FRAME_LINK_ETHERNET, f, len, FRAME_TCP, sizes[i]);
	}
	check(frame_build(f, FRAME_BUILD_TCP4, 65484) == 0,
	      "frame_build refuses an IPv4 payload beyond the 16-bit length");

	len = frame_build(f, FRAME_BUILD_UDP4, 100);
	check_frame("UDP is not TCP", FRAME_LINK_ETHERNET, f, len, FRAME_OTHER, 0);

	len = frame_build(f, FRAME_BUILD_TCP4, 1448);
	check_frame("cut inside the TCP header", FRAME_LINK_ETHERNET, f, 14 + 20 + 10,
		    FRAME_MALFORMED, 0);
	check_frame("cut inside the IP header", FRAME_LINK_ETHERNET, f, 20, FRAME_MALFORMED, 0);
	check_frame("raw IP", FRAME_LINK_RAW, f + 14, len - 14, FRAME_TCP, 1448);

	/* IPv4 total length smaller than its own headers. */
	memcpy(g, f, len);
	g[14 + 2] = 0;
	g[14 + 3] = 40;
	check_frame("IPv4 length below headers", FRAME_LINK_ETHERNET, g, len, FRAME_MALFORMED, 0);

	/* A later IPv4 fragment has no TCP header. */
	memcpy(g, f, len);
	g[14 + 6] = 0x00;
	g[14 + 7] = 0xb9;
	check_frame("IPv4 non-first fragment", FRAME_LINK_ETHERNET, g, len, FRAME_OTHER, 0);

	/* An 802.1Q tag between the MACs and the EtherType. */
	memcpy(g, f, 12);
	g[12] = 0x81;
	g[13] = 0x00;
	g[14] = 0x00;
	g[15] = 0x0a;
	memcpy(g + 16, f + 12, len - 12);
	check_frame("VLAN-tagged IPv4", FRAME_LINK_ETHERNET, g, len + 4, FRAME_TCP, 1448);

	/* Linux cooked v1: 16-byte header, protocol at offset 14. */
	memset(g, 0, 16);
	g[14] = 0x08;
	memcpy(g + 16, f + 14, len - 14);
	check_frame("Linux cooked (SLL)", FRAME_LINK_LINUX_SLL, g, len + 2, FRAME_TCP, 1448);

	/* Linux cooked v2: 20-byte header, protocol at offset 0. */
	memset(g, 0, 20);
	g[0] = 0x08;
	memcpy(g + 20, f + 14, len - 14);
	check_frame("Linux cooked v2 (SLL2)", FRAME_LINK_LINUX_SLL2, g, len + 6, FRAME_TCP, 1448);

	/* IPv6 with an 8-byte destination options header before TCP. */
	len = frame_build(f, FRAME_BUILD_TCP6, 1428);
	memcpy(g, f, 14 + 40);
	g[14 + 6] = 60;				/* next header: destination options */
	g[14 + 4] = (uint8_t)((1428 + 32 + 8) >> 8);
	g[14 + 5] = (uint8_t)(1428 + 32 + 8);
	memset(g + 54, 0, 8);
	g[54] = 6;				/* then TCP */
	g[55] = 0;				/* (0 + 1) * 8 bytes */
	memcpy(g + 62, f + 54, len - 54);
	check_frame("IPv6 with an extension header", FRAME_LINK_ETHERNET, g, len + 8,
		    FRAME_TCP, 1428);

	check_frame("unknown link type", 9999, f, len, FRAME_OTHER, 0);

	/* IPv4 BIG TCP: total length 0, the length is the wire length. */
	len = frame_build(f, FRAME_BUILD_TCP4, 1448);
	f[14 + 2] = f[14 + 3] = 0;
	check_frame_wire("IPv4 BIG TCP (total length 0)", FRAME_LINK_ETHERNET, f, len,
			 14 + 20 + 32 + 185000, FRAME_TCP, 185000);
	check_frame_wire("IPv4 total length 0, only headers on the wire", FRAME_LINK_ETHERNET,
			 f, len, len, FRAME_TCP, 0);

	/* IPv6 BIG TCP without a hop-by-hop header (Linux 6.x): payload length 0. */
	len = frame_build(f, FRAME_BUILD_TCP6, 1428);
	f[14 + 4] = f[14 + 5] = 0;
	check_frame_wire("IPv6 BIG TCP (payload length 0)", FRAME_LINK_ETHERNET, f, len,
			 14 + 40 + 32 + 185000, FRAME_TCP, 185000);

	/* An RFC 2675 jumbogram: hop-by-hop header with the Jumbo Payload option. */
	len = frame_build(f, FRAME_BUILD_TCP6, 1428);
	memcpy(g, f, 14 + 40);
	g[14 + 4] = g[14 + 5] = 0;
	g[14 + 6] = 0;				/* next header: hop-by-hop */
	memset(g + 54, 0, 8);
	g[54] = 6;				/* then TCP */
	g[55] = 0;				/* 8 bytes */
	g[56] = 0xc2;				/* Jumbo Payload */
	g[57] = 4;
	g[58] = 0x00;				/* 8 + 32 + 200000 = 0x00030d68 */
	g[59] = 0x03;
	g[60] = 0x0d;
	g[61] = 0x68;
	memcpy(g + 62, f + 54, len - 54);
	check_frame_wire("IPv6 jumbogram (Jumbo Payload option)", FRAME_LINK_ETHERNET, g,
			 len + 8, 14 + 40 + 8 + 32 + 200000, FRAME_TCP, 200000);
	g[57] = 3;				/* a bad option length: no jumbo length */
	check_frame_wire("IPv6 jumbogram with a broken option: the wire length", FRAME_LINK_ETHERNET,
			 g, len + 8, 14 + 40 + 8 + 32 + 1000, FRAME_TCP, 1000);

	return check_exit_status();
}
