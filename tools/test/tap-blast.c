// SPDX-License-Identifier: GPL-2.0-only
/*
 * tap-blast: write one TCP GSO frame into a tap, as fast as it takes them,
 * for a while: the load of the host-path benchmark (scripts/bench-split.sh).
 *
 *   tap-blast TAP BRIDGE SECONDS PAYLOAD [MSS]
 *
 * Creates TAP with a virtio-net header (as QEMU opens it), puts it in
 * BRIDGE, waits until the bridge forwards on it (BRIDGE "-": leaves it
 * out of any bridge, a routed tap: the host must own the frame's
 * destination MAC 02:00:00:00:00:02, tests/tools-paths.sh), then writes the same
 * IPv4 TCP frame of PAYLOAD bytes (gso_size MSS, default 1448; the TCP
 * checksum left partial, as a Linux guest leaves it) for SECONDS.  A tap
 * write runs the whole host path (bridge, egress port, its software
 * segmentation) in the writer's context, so the system's CPU time over the
 * run is the path's cost.  Prints one line:
 *
 *   tap-blast: frames=N bytes=B seconds=S
 *
 * (bytes: Ethernet frames without the virtio-net header).  A TAP that is a
 * macvtap (libvirt's type='direct') is written through its character
 * device, /dev/tapIFINDEX as QEMU opens it (made aside from sysfs's
 * major:minor: the namespace's /dev may have none), with BRIDGE "-": it
 * sends through its lower device.  The destination
 * MAC is nobody's: the bridge floods the frame to its other ports and the
 * receivers drop it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <linux/virtio_net.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lib/fail.h"

#define ETH_HLEN	14
#define IP_HLEN		20
#define TCP_HLEN	20
#define HDRS		(ETH_HLEN + IP_HLEN + TCP_HLEN)
#define VNET_HLEN	sizeof(struct virtio_net_hdr)
#define FORWARD_WAIT_S	10

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t sum16(uint32_t sum, const uint8_t *p, size_t len)
{
	for (; len > 1; len -= 2, p += 2)
		sum += (uint32_t)(p[0] << 8 | p[1]);
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* Ethernet + IPv4 (DF) + TCP (ACK|PSH) + PAYLOAD, after a virtio-net header. */
static size_t build(uint8_t *buf, unsigned int payload, unsigned int mss)
{
	struct virtio_net_hdr *vh = (struct virtio_net_hdr *)buf;
	uint8_t *eth = buf + VNET_HLEN, *ip = eth + ETH_HLEN, *tcp = ip + IP_HLEN;
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	unsigned int l4len = TCP_HLEN + payload, i;
	uint32_t pseudo;

	memset(buf, 0, VNET_HLEN + HDRS);
	memcpy(eth, macs, sizeof(macs));
	put16(eth + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, IP_HLEN + l4len);
	put16(ip + 4, 1);
	put16(ip + 6, 0x4000);		/* DF */
	ip[8] = 64;
	ip[9] = 6;
	inet_pton(AF_INET, "192.0.2.1", ip + 12);
	inet_pton(AF_INET, "192.0.2.2", ip + 16);
	put16(ip + 10, (uint16_t)~fold(sum16(0, ip, IP_HLEN)));
	put16(tcp, 40000);
	put16(tcp + 2, 5201);
	put16(tcp + 4, 0);
	put16(tcp + 6, 1);		/* seq 1 */
	put16(tcp + 10, 1);		/* ack 1 */
	tcp[12] = (TCP_HLEN / 4) << 4;
	tcp[13] = 0x18;			/* ACK|PSH */
	put16(tcp + 14, 65535);
	for (i = 0; i < payload; i++)
		tcp[TCP_HLEN + i] = (uint8_t)(i * 7);
	pseudo = sum16(0, ip + 12, 8) + 6 + l4len;
	put16(tcp + 16, fold(pseudo));	/* CHECKSUM_PARTIAL */

	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	vh->gso_size = (uint16_t)mss;
	vh->hdr_len = HDRS;
	vh->csum_start = ETH_HLEN + IP_HLEN;
	vh->csum_offset = 16;
	return VNET_HLEN + HDRS + payload;
}

static int ifindex(int fd, const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFINDEX, &ifr))
		fail_errno(name);
	return ifr.ifr_ifindex;
}

static void wait_forwarding(const char *tap)
{
	char path[128], state = 0;
	double end = now_s() + FORWARD_WAIT_S;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/net/%s/brport/state", tap);
	while (now_s() < end) {
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			if (read(fd, &state, 1) != 1)
				state = 0;
			close(fd);
			if (state == '3')	/* BR_STATE_FORWARDING */
				return;
		}
		usleep(20000);
	}
	fail_msg("%s: not a forwarding bridge port after %d s", tap, FORWARD_WAIT_S);
}

/* The first line of a small file, newline cut; 0, or -1 if unreadable. */
static int read_line(const char *path, char *buf, int len)
{
	FILE *f = fopen(path, "r");
	char *ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f);
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* A decimal number that is all of @s, at most @max; 0, or -1. */
static int parse_ulong(const char *s, unsigned long max, unsigned long *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*val = strtoul(s, &end, 10);
	return errno || *end || *val > max ? -1 : 0;
}

/* A macvtap's character device, opened (it has IFF_VNET_HDR from the start); -1 if not one. */
static int macvtap_open(const char *tap)
{
	char path[160], node[64], line[64], *colon;
	unsigned long ifidx, maj, min;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", tap);
	if (read_line(path, line, sizeof(line)) || parse_ulong(line, INT32_MAX, &ifidx))
		return -1;
	snprintf(path, sizeof(path), "/sys/class/net/%s/macvtap/tap%lu/dev", tap, ifidx);
	if (read_line(path, line, sizeof(line)))
		return -1;	/* not a macvtap */
	colon = strchr(line, ':');
	if (!colon)
		fail_msg("%s: no major:minor in '%s'", path, line);
	*colon = '\0';
	if (parse_ulong(line, UINT32_MAX, &maj) || parse_ulong(colon + 1, UINT32_MAX, &min))
		fail_msg("%s: no major:minor", path);
	snprintf(node, sizeof(node), "/tmp/tap-blast.%d", (int)getpid());
	unlink(node);
	if (mknod(node, S_IFCHR | 0600, makedev((unsigned int)maj, (unsigned int)min)))
		fail_errno("mknod");
	fd = open(node, O_RDWR);
	unlink(node);
	if (fd < 0)
		fail_errno("open macvtap");
	return fd;
}

static int tap_open(const char *tap, const char *bridge)
{
	struct ifreq ifr;
	int fd, sfd;

	if (!bridge && (fd = macvtap_open(tap)) >= 0)
		return fd;

	fd = open("/dev/net/tun", O_RDWR);
	if (fd < 0)
		fail_errno("open /dev/net/tun");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", tap);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr))
		fail_errno("TUNSETIFF");

	sfd = socket(AF_INET, SOCK_DGRAM, 0);
	if (sfd < 0)
		fail_errno("socket");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", bridge ? bridge : "");
	ifr.ifr_ifindex = ifindex(sfd, tap);
	if (bridge && ioctl(sfd, SIOCBRADDIF, &ifr))
		fail_errno("SIOCBRADDIF");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", tap);
	if (ioctl(sfd, SIOCGIFFLAGS, &ifr))
		fail_errno("SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(sfd, SIOCSIFFLAGS, &ifr))
		fail_errno("SIOCSIFFLAGS");
	close(sfd);
	if (bridge)
		wait_forwarding(tap);
	return fd;
}

int main(int argc, char **argv)
{
	static uint8_t buf[VNET_HLEN + 65536];
	unsigned long long frames = 0, bytes = 0;
	unsigned int payload, mss = 1448;
	double seconds, start, end;
	char *rest;
	size_t len;
	int fd;

	fail_prog = "tap-blast";
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: tap-blast TAP BRIDGE SECONDS PAYLOAD [MSS]\n");
		return 2;
	}
	seconds = strtod(argv[3], &rest);
	if (rest == argv[3] || *rest || !(seconds > 0))
		fail_msg("SECONDS must be a positive number, got '%s'", argv[3]);
	payload = (unsigned int)strtoul(argv[4], NULL, 0);
	if (argc == 6)
		mss = (unsigned int)strtoul(argv[5], NULL, 0);
	if (seconds <= 0 || seconds > 600 || !mss || payload <= mss ||
	    HDRS + payload > 65535)
		fail_msg("bad arguments: SECONDS 0..600, PAYLOAD > MSS, frame < 64 KiB");

	fd = tap_open(argv[1], strcmp(argv[2], "-") ? argv[2] : NULL);
	len = build(buf, payload, mss);
	start = now_s();
	end = start + seconds;
	do {
		/* a batch between clock reads keeps the clock out of the cost */
		for (int i = 0; i < 16; i++) {
			if (write(fd, buf, len) != (ssize_t)len)
				fail_errno("write tap");
			frames++;
			bytes += len - VNET_HLEN;
		}
	} while (now_s() < end);
	printf("tap-blast: frames=%llu bytes=%llu seconds=%.3f\n", frames, bytes,
	       now_s() - start);
	close(fd);
	return 0;
}
