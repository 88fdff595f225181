/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TCP payload length of a captured frame, from its IP header.
 *
 * Captures for the payload histograms are taken with a small snap length
 * (tcpdump -s 200) and GSO frames are captured as one packet of up to
 * 64 KiB (BIG TCP: 512 KiB), so the payload length must come from the
 * IPv4 total length or the IPv6 payload length, never from the captured
 * length.
 */
#ifndef GSO_TOOLS_FRAME_PARSE_H
#define GSO_TOOLS_FRAME_PARSE_H

#include <stdbool.h>
#include <stdint.h>

enum frame_kind {
	FRAME_TCP,		/* a TCP segment; payload length is valid */
	FRAME_OTHER,		/* not TCP over IPv4/IPv6 (ARP, UDP, ICMP, ...) */
	FRAME_MALFORMED,	/* truncated before the TCP header, or inconsistent lengths */
};

/* Link types handled, with libpcap's DLT_* numbers (ABI, see pcap/dlt.h). */
enum frame_linktype {
	FRAME_LINK_ETHERNET	= 1,	/* DLT_EN10MB, with up to two VLAN tags */
	FRAME_LINK_RAW		= 12,	/* DLT_RAW (Linux value), IP without link header */
	FRAME_LINK_RAW_ALT	= 14,	/* DLT_RAW on some BSDs */
	FRAME_LINK_LINUX_SLL	= 113,	/* tcpdump -i any, old format */
	FRAME_LINK_LINUX_SLL2	= 276,	/* tcpdump -i any, libpcap >= 1.10 */
};

/* Whether frame_tcp_payload() can read frames of this link type. */
bool frame_linktype_supported(int linktype);

/*
 * Classify the frame of @caplen captured bytes, @wirelen bytes long on the
 * wire (the capture record's original length), and, for FRAME_TCP, store
 * the TCP payload length (IP length minus IP, extension and TCP headers)
 * in *payload.  IPv4 fragments other than the first count as FRAME_OTHER.
 * BIG TCP packets, whose IP length field cannot hold their length (IPv4
 * total length 0; IPv6 payload length 0, with or without a hop-by-hop
 * Jumbo Payload option), are measured by the Jumbo option or @wirelen.
 */
enum frame_kind frame_tcp_payload(int linktype, const uint8_t *data, uint32_t caplen,
				  uint32_t wirelen, uint32_t *payload);

#endif
