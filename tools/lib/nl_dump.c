// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <libmnl/libmnl.h>

#include "array_grow.h"
#include "link_query.h"
#include "nl_dump.h"

struct nlmsghdr *nl_dump_request(void *buf, uint16_t type, size_t hdr_len, uint8_t family)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	uint8_t *hdr;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	hdr = mnl_nlmsg_put_extra_header(nlh, hdr_len);
	hdr[0] = family;
	return nlh;
}

int nl_dump_retry(struct link_query *q, struct nlmsghdr *nlh,
		  int (*cb)(const struct nlmsghdr *nlh, void *data), void *data,
		  void (*restart)(void *data))
{
	int ret = -EINTR, tries;

	for (tries = 0; tries < NL_DUMP_TRIES && ret == -EINTR; tries++) {
		/* A new number: replies to the try before are never taken for this one's. */
		nlh->nlmsg_seq = ++q->seq;
		if (restart)
			restart(data);
		ret = link_query_request(q, nlh, cb, data);
	}
	return ret;
}

struct collect {
	struct nl_dump_array *d;
	size_t start;		/* items held before the dump */
};

static int collect_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_dump_array *d = ((struct collect *)data)->d;

	if (nlh->nlmsg_type != d->msg_type)
		return MNL_CB_OK;
	d->items = array_grow(d->items, d->count, &d->cap, d->item_size);
	if (!d->parse(nlh, (char *)d->items + d->count * d->item_size))
		d->count++;
	return MNL_CB_OK;
}

static void collect_restart(void *data)
{
	struct collect *c = data;

	c->d->count = c->start;
}

int nl_dump_collect(struct link_query *q, struct nlmsghdr *nlh, struct nl_dump_array *d)
{
	struct collect c = { .d = d, .start = d->count };

	return nl_dump_retry(q, nlh, collect_cb, &c, collect_restart);
}
