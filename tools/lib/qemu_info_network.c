// SPDX-License-Identifier: GPL-2.0-only
/*
 * What QEMU's "info network" text says holds a tap, a netdev or a hub's
 * port (lib/qemu_info_network.h).  Pure: the unit test
 * (test/test-limitsd-records.c) and the fuzzer
 * (fuzz/fuzz-qemu-info-network.c) run the code gso-limitsd runs.
 */
#include <limits.h>
#include <string.h>

#include "qemu_info_network.h"

/*
 * A net client's name: an id (id_wellformed()), or one QEMU makes up:
 * "virtio-net-pci.0", "hub0port1", "#net153" (-net without a name).
 */
static size_t name_len(const char *p, const char *end)
{
	const char *s = p;

	while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			   (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-' || *p == '#'))
		p++;
	return (size_t)(p - s);
}

static bool starts(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && !memcmp(p, s, n);
}

/* Whether [@p, @end) is one of @fds in digits. */
static bool is_fd(const char *p, const char *end, const int *fds, size_t nfds)
{
	long long v = 0;
	size_t k;

	if (p == end)
		return false;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			return false;
	}
	for (k = 0; k < nfds; k++)
		if (fds[k] == v)
			return true;
	return false;
}

/*
 * Line [@p, @end) as "[ \ [PORT: ]]NAME: index=N,type=tap,INFO": whether
 * INFO is tap @ifname's or one of @fds', with the name of what holds it
 * (PORT if there is one, else NAME) in [*@name, +*@nlen) and *@hub set
 * if it is a hub's port.
 */
static bool tap_line(const char *p, const char *end, const char *ifname, const int *fds,
		     size_t nfds, const char **name, size_t *nlen, bool *hub)
{
	size_t n, ilen = strlen(ifname);

	if (starts(p, end, " \\ "))
		p += 3;
	n = name_len(p, end);
	if (!n || !starts(p + n, end, ": "))
		return false;
	*name = p;
	*nlen = n;
	*hub = !starts(p + n, end, ": index=");
	if (*hub) {
		/* A hub's port, then the client on it (net_hub_info()). */
		p += n + 2;
		n = name_len(p, end);
		if (!n || !starts(p + n, end, ": index="))
			return false;
	}
	p += n + strlen(": index=");
	if (p == end || *p < '0' || *p > '9')
		return false;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (!starts(p, end, ",type=tap,"))
		return false;
	p += strlen(",type=tap,");
	if (starts(p, end, "fd="))
		return is_fd(p + 3, end, fds, nfds);
	if (!ilen || !starts(p, end, "ifname=") || (size_t)(end - p) < 7 + ilen ||
	    memcmp(p + 7, ifname, ilen))
		return false;
	p += 7 + ilen;
	return p == end || starts(p, end, ",script=");
}

enum qemu_tap_holder qemu_info_network_tap(const char *info, const char *ifname, const int *fds,
					   size_t nfds, char *out, size_t len)
{
	const char *line = info;

	while (*line) {
		const char *end = strchr(line, '\n'), *next, *name;
		size_t n;
		bool hub;

		if (!end)
			end = line + strlen(line);
		next = *end ? end + 1 : end;
		if (end > line && end[-1] == '\r')
			end--;
		if (tap_line(line, end, ifname, fds, nfds, &name, &n, &hub)) {
			if (n >= len)
				return QEMU_TAP_NONE;
			memcpy(out, name, n);
			out[n] = '\0';
			return hub ? QEMU_TAP_HUB : QEMU_TAP_NETDEV;
		}
		line = next;
	}
	return QEMU_TAP_NONE;
}
