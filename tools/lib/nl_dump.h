/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rtnetlink dumps for the query files (lib/link_query.c, route_query.c,
 * nexthop_query.c, rule_query.c), on the socket of a struct link_query:
 * send the request, read the multipart reply, and start the whole dump
 * over when a concurrent change interrupted it (NLM_F_DUMP_INTR: the
 * kernel's walk saw the list change, so what it sent may miss entries or
 * hold one twice).  The kernel gives no partial-retry, so each try begins
 * again from an empty result.
 */
#ifndef GSO_TOOLS_NL_DUMP_H
#define GSO_TOOLS_NL_DUMP_H

#include <stddef.h>
#include <stdint.h>

struct link_query;
struct nlmsghdr;

/* A dump interrupted this many times in a row is given up (-EINTR). */
#define NL_DUMP_TRIES	8

/*
 * A dump request of @type in @buf (MNL_SOCKET_BUFFER_SIZE bytes): the
 * netlink header and a zeroed family header of @hdr_len bytes whose first
 * byte, the family in each of them (struct rtmsg, ifinfomsg, nhmsg,
 * fib_rule_hdr), is @family.  The sequence number is set per try.
 */
struct nlmsghdr *nl_dump_request(void *buf, uint16_t type, size_t hdr_len, uint8_t family);

/*
 * Send dump request @nlh on @q, a new sequence number each try, and run
 * @cb (libmnl's mnl_cb_t) over the replies; before each try @restart
 * (if set) puts @data back to where it was before the first, so an
 * interrupted try leaves nothing behind.  0, or -errno: -EINTR when every
 * try was interrupted, an error the kernel answered (-EOPNOTSUPP for a
 * message type it does not know) as it answered it.
 */
int nl_dump_retry(struct link_query *q, struct nlmsghdr *nlh,
		  int (*cb)(const struct nlmsghdr *nlh, void *data), void *data,
		  void (*restart)(void *data));

/* A dump into a malloc()ed array of items (lib/array_grow.h), one per reply message kept. */
struct nl_dump_array {
	uint16_t msg_type;	/* the replies read: RTM_NEWLINK, RTM_NEWROUTE, ... */
	size_t item_size;
	/* Fill the item from one message: 0 keeps it, else it is skipped, not half-read. */
	int (*parse)(const struct nlmsghdr *nlh, void *item);
	void *items;
	size_t count, cap;
};

/*
 * nl_dump_retry() appending to @d's items: what @d held before the call
 * stays (two families dumped into one array), what an interrupted try
 * added is dropped.  The caller frees @d->items, also on an error.
 */
int nl_dump_collect(struct link_query *q, struct nlmsghdr *nlh, struct nl_dump_array *d);

#endif
