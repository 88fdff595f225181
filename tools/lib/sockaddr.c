// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "sockaddr.h"

bool inet_addr_parse(struct inet_addr *addr, int family, const char *host,
		     uint16_t port)
{
	memset(addr, 0, sizeof(*addr));
	if (family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&addr->ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		sin6->sin6_addr = in6addr_any;
		addr->len = sizeof(*sin6);
		return !host || inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1;
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&addr->ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(INADDR_ANY);
		addr->len = sizeof(*sin);
		return !host || inet_pton(AF_INET, host, &sin->sin_addr) == 1;
	}
}

void inet_addr_format(const struct inet_addr *addr, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (addr->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)&addr->ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
		snprintf(buf, size, "[%s]:%u", host, ntohs(sin6->sin6_port));
	} else {
		const struct sockaddr_in *sin = (const void *)&addr->ss;

		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		snprintf(buf, size, "%s:%u", host, ntohs(sin->sin_port));
	}
}
