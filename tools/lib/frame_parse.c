// SPDX-License-Identifier: GPL-2.0-only
#include "frame_parse.h"

#define ETH_HLEN		14
#define ETH_P_IP		0x0800
#define ETH_P_IPV6		0x86dd
#define ETH_P_8021Q		0x8100
#define ETH_P_8021AD		0x88a8
#define SLL_HLEN		16
#define SLL2_HLEN		20
#define IPPROTO_TCP_NUM		6
#define IPV6_HLEN		40
#define TCP_MIN_HLEN		20
#define MAX_VLAN_TAGS		2
#define MAX_IPV6_EXT_HDRS	8	/* bound the walk: a capture is untrusted input */
#define IPV6_TLV_PAD1		0
#define IPV6_TLV_JUMBO		0xc2	/* RFC 2675 Jumbo Payload option */

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* What a capture record says about a frame's length. */
struct frame_lens {
	uint32_t caplen;	/* bytes captured */
	uint32_t wirelen;	/* bytes on the wire, at least caplen */
};

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

bool frame_linktype_supported(int linktype)
{
	switch (linktype) {
	case FRAME_LINK_ETHERNET:
	case FRAME_LINK_RAW:
	case FRAME_LINK_RAW_ALT:
	case FRAME_LINK_LINUX_SLL:
	case FRAME_LINK_LINUX_SLL2:
		return true;
	default:
		return false;
	}
}

/* TCP header length at @tcp, or 0 if it is not captured or invalid. */
static uint32_t tcp_hlen(const uint8_t *data, uint32_t caplen, uint32_t tcp)
{
	uint32_t hlen;

	if (caplen < tcp + 13)
		return 0;
	hlen = (data[tcp + 12] >> 4) * 4u;
	return hlen >= TCP_MIN_HLEN ? hlen : 0;
}

/* The frame's bytes from @l3 on, by its wire length; 0 if the wire length is too short. */
static uint32_t wire_l3_len(const struct frame_lens *f, uint32_t l3)
{
	return f->wirelen > l3 ? f->wirelen - l3 : 0;
}

static enum frame_kind ipv4_tcp_payload(const uint8_t *data, const struct frame_lens *f,
					uint32_t l3, uint32_t *payload)
{
	uint32_t ihl, tot_len, thl, caplen = f->caplen;

	if (caplen < l3 + 20)
		return FRAME_MALFORMED;
	if (data[l3] >> 4 != 4)
		return FRAME_MALFORMED;
	ihl = (data[l3] & 0x0f) * 4u;
	tot_len = get_be16(data + l3 + 2);
	if (data[l3 + 9] != IPPROTO_TCP_NUM)
		return FRAME_OTHER;
	if (get_be16(data + l3 + 6) & 0x1fff)	/* not the first fragment: no TCP header */
		return FRAME_OTHER;
	if (ihl < 20)
		return FRAME_MALFORMED;
	thl = tcp_hlen(data, caplen, l3 + ihl);
	/*
	 * IPv4 BIG TCP (Linux 6.3+, gso_ipv4_max_size above 65535): the
	 * packet is longer than the 16-bit field holds, the kernel sets it
	 * to 0, and the length is the packet's own (skb->len, the capture's
	 * wire length).
	 */
	if (tot_len == 0)
		tot_len = wire_l3_len(f, l3);
	if (!thl || tot_len < ihl + thl)
		return FRAME_MALFORMED;
	*payload = tot_len - ihl - thl;
	return FRAME_TCP;
}

/*
 * The Jumbo Payload option's length in the hop-by-hop header at @off of
 * @len bytes, or 0 if it has none.
 */
static uint32_t ipv6_jumbo_len(const uint8_t *data, uint32_t caplen, uint32_t off, uint32_t len)
{
	uint32_t opt = off + 2, end = off + len;

	if (end > caplen)
		return 0;
	while (opt < end) {
		if (data[opt] == IPV6_TLV_PAD1) {
			opt++;
			continue;
		}
		if (opt + 2 > end || opt + 2 + data[opt + 1] > end)
			return 0;
		if (data[opt] == IPV6_TLV_JUMBO && data[opt + 1] == 4)
			return get_be32(data + opt + 2);
		opt += 2 + data[opt + 1];
	}
	return 0;
}

static enum frame_kind ipv6_tcp_payload(const uint8_t *data, const struct frame_lens *f,
					uint32_t l3, uint32_t *payload)
{
	uint32_t plen, off = l3 + IPV6_HLEN, ext = 0, thl, caplen = f->caplen;
	uint8_t next;
	int i;

	if (caplen < off)
		return FRAME_MALFORMED;
	if (data[l3] >> 4 != 6)
		return FRAME_MALFORMED;
	plen = get_be16(data + l3 + 4);
	next = data[l3 + 6];
	/* Skip hop-by-hop, routing and destination options headers. */
	for (i = 0; i < MAX_IPV6_EXT_HDRS && (next == 0 || next == 43 || next == 60); i++) {
		uint32_t len;

		if (caplen < off + 2)
			return FRAME_MALFORMED;
		len = (data[off + 1] + 1u) * 8;
		/* A jumbogram (RFC 2675): payload length 0, the length in the hop-by-hop header. */
		if (i == 0 && next == 0 && plen == 0)
			plen = ipv6_jumbo_len(data, caplen, off, len);
		next = data[off];
		off += len;
		ext += len;
	}
	if (next != IPPROTO_TCP_NUM)
		return FRAME_OTHER;
	thl = tcp_hlen(data, caplen, off);
	/*
	 * Payload length 0 without a Jumbo option: IPv6 BIG TCP since Linux
	 * 6.x sends no hop-by-hop header; the length is the packet's own.
	 */
	if (plen == 0)
		plen = wire_l3_len(f, l3) > IPV6_HLEN ? wire_l3_len(f, l3) - IPV6_HLEN : 0;
	if (!thl || plen < ext + thl)
		return FRAME_MALFORMED;
	*payload = plen - ext - thl;
	return FRAME_TCP;
}

static enum frame_kind ip_tcp_payload(const uint8_t *data, const struct frame_lens *f,
				      uint32_t l3, uint16_t proto, uint32_t *payload)
{
	if (proto == ETH_P_IP)
		return ipv4_tcp_payload(data, f, l3, payload);
	if (proto == ETH_P_IPV6)
		return ipv6_tcp_payload(data, f, l3, payload);
	return FRAME_OTHER;
}

enum frame_kind frame_tcp_payload(int linktype, const uint8_t *data, uint32_t caplen,
				  uint32_t wirelen, uint32_t *payload)
{
	struct frame_lens f = { .caplen = caplen, .wirelen = wirelen > caplen ? wirelen : caplen };
	uint32_t l3;
	uint16_t proto;
	int tags;

	switch (linktype) {
	case FRAME_LINK_ETHERNET:
		if (caplen < ETH_HLEN)
			return FRAME_MALFORMED;
		proto = get_be16(data + 12);
		l3 = ETH_HLEN;
		for (tags = 0; tags < MAX_VLAN_TAGS &&
		     (proto == ETH_P_8021Q || proto == ETH_P_8021AD); tags++) {
			if (caplen < l3 + 4)
				return FRAME_MALFORMED;
			proto = get_be16(data + l3 + 2);
			l3 += 4;
		}
		return ip_tcp_payload(data, &f, l3, proto, payload);
	case FRAME_LINK_LINUX_SLL:
		if (caplen < SLL_HLEN)
			return FRAME_MALFORMED;
		return ip_tcp_payload(data, &f, SLL_HLEN, get_be16(data + 14), payload);
	case FRAME_LINK_LINUX_SLL2:
		if (caplen < SLL2_HLEN)
			return FRAME_MALFORMED;
		return ip_tcp_payload(data, &f, SLL2_HLEN, get_be16(data), payload);
	case FRAME_LINK_RAW:
	case FRAME_LINK_RAW_ALT:
		if (caplen < 1)
			return FRAME_MALFORMED;
		return ip_tcp_payload(data, &f, 0,
				      data[0] >> 4 == 6 ? ETH_P_IPV6 : ETH_P_IP, payload);
	default:
		return FRAME_OTHER;
	}
}
