/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Numeric IPv4/IPv6 socket addresses.
 *
 * The tools run in a busybox initramfs and are linked statically, where
 * getaddrinfo() would need NSS modules that are not there: addresses are
 * numeric only and parsed with inet_pton().
 */
#ifndef GSO_TOOLS_SOCKADDR_H
#define GSO_TOOLS_SOCKADDR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct inet_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

/*
 * Fill @addr from a numeric @host (NULL: the wildcard address) and @port in
 * family AF_INET or AF_INET6.  Returns false if @host is not a numeric
 * address of that family.
 */
bool inet_addr_parse(struct inet_addr *addr, int family, const char *host,
		     uint16_t port);

/* "192.0.2.1:5001" or "[2001:db8::1]:5001" into @buf. */
void inet_addr_format(const struct inet_addr *addr, char *buf, size_t size);

#endif
