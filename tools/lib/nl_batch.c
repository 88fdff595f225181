// SPDX-License-Identifier: GPL-2.0-only
#include <linux/netlink.h>
#include <string.h>

#include "nl_batch.h"

bool nl_batch_ok(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t off = 0;

	while (len - off >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr nlh;

		memcpy(&nlh, p + off, sizeof(nlh));
		/*
		 * Aligned as well: libmnl reads attributes up to the aligned
		 * end (and NLMSG_ALIGN() of a length near 2^32 wraps to 0).
		 */
		if (nlh.nlmsg_len < sizeof(nlh) || nlh.nlmsg_len > len - off ||
		    NLMSG_ALIGN(nlh.nlmsg_len) > len - off)
			return false;
		/* The next message starts at the aligned end; past the buffer ends the walk. */
		if (NLMSG_ALIGN(nlh.nlmsg_len) >= len - off)
			break;
		off += NLMSG_ALIGN(nlh.nlmsg_len);
	}
	return true;
}
