// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "frame_build.h"

#define ETH_HLEN	14
#define IPV4_HLEN	20
#define IPV6_HLEN	40
#define TCP_HLEN	32	/* with the timestamp option, as Linux sends bulk data */
#define UDP_HLEN	8

static void put_be16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* IPv4 header checksum: a capture reader may check it, so make it right. */
static void ipv4_checksum(uint8_t *ip)
{
	uint32_t sum = 0;
	int i;

	put_be16(ip + 10, 0);
	for (i = 0; i < IPV4_HLEN; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put_be16(ip + 10, ~sum & 0xffff);
}

static void tcp_header(uint8_t *tcp)
{
	put_be16(tcp, 40000);		/* source port */
	put_be16(tcp + 2, 5201);	/* destination port */
	tcp[12] = (TCP_HLEN / 4) << 4;	/* data offset */
	tcp[13] = 0x10;			/* ACK */
	put_be16(tcp + 14, 502);	/* window */
	tcp[20] = 1;			/* NOP, NOP, timestamps (kind 8, len 10) */
	tcp[21] = 1;
	tcp[22] = 8;
	tcp[23] = 10;
}

size_t frame_build(uint8_t *buf, enum frame_build_proto proto, uint32_t payload)
{
	static const uint8_t macs[12] = { 0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01 };
	uint8_t *ip = buf + ETH_HLEN;
	uint32_t l4 = proto == FRAME_BUILD_UDP4 ? UDP_HLEN : TCP_HLEN;

	memset(buf, 0, FRAME_BUILD_MAX_HDR);
	memcpy(buf, macs, sizeof(macs));
	if (proto == FRAME_BUILD_TCP6) {
		if (payload + l4 > 0xffff)
			return 0;
		put_be16(buf + 12, 0x86dd);
		ip[0] = 0x60;
		put_be16(ip + 4, payload + l4);
		ip[6] = 6;		/* next header: TCP */
		ip[7] = 64;		/* hop limit */
		ip[8] = 0x20;		/* 2001:db8::1 -> 2001:db8::2 */
		ip[9] = 0x01;
		ip[10] = 0x0d;
		ip[11] = 0xb8;
		ip[23] = 1;
		memcpy(ip + 24, ip + 8, 15);
		ip[39] = 2;
		tcp_header(ip + IPV6_HLEN);
		return ETH_HLEN + IPV6_HLEN + l4;
	}
	if (payload + IPV4_HLEN + l4 > 0xffff)
		return 0;
	put_be16(buf + 12, 0x0800);
	ip[0] = 0x45;
	put_be16(ip + 2, IPV4_HLEN + l4 + payload);
	put_be16(ip + 6, 0x4000);	/* DF */
	ip[8] = 64;
	ip[9] = proto == FRAME_BUILD_UDP4 ? 17 : 6;
	ip[12] = 192;			/* 192.0.2.1 -> 192.0.2.2 */
	ip[14] = 2;
	ip[15] = 1;
	memcpy(ip + 16, ip + 12, 3);
	ip[19] = 2;
	ipv4_checksum(ip);
	if (proto == FRAME_BUILD_UDP4) {
		put_be16(ip + IPV4_HLEN, 40000);
		put_be16(ip + IPV4_HLEN + 2, 5201);
		put_be16(ip + IPV4_HLEN + 4, UDP_HLEN + payload);
	} else {
		tcp_header(ip + IPV4_HLEN);
	}
	return ETH_HLEN + IPV4_HLEN + l4;
}
