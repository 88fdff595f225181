/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A received netlink buffer, checked before libmnl walks it.
 *
 * libmnl 1.0.4's mnl_nlmsg_ok() compares (int)nlmsg_len with the bytes
 * left: a length of 2^31 or more turns negative, passes, and
 * mnl_nlmsg_next() then steps far outside the buffer (found by
 * fuzz/fuzz-link-parse.c).  And mnl_attr_parse() walks a message's
 * attributes up to its aligned end, MNL_ALIGN(nlmsg_len): an attribute
 * in the last message of a buffer may claim up to 3 bytes past the
 * buffer's end when nlmsg_len is not a multiple of 4 (found by the same
 * harness in an RTM_NEWRULE's FRA_DST).  The kernel never sends either
 * (nlmsg_end() leaves lengths aligned); the tools check anyway, since a
 * wild read in a root tool is not an option.
 */
#ifndef GSO_TOOLS_NL_BATCH_H
#define GSO_TOOLS_NL_BATCH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Whether every message of the @len bytes at @buf has a length that holds
 * its header and, rounded up to NLMSG_ALIGNTO, fits in what is left.
 * Trailing bytes too short for a header are ignored, as libmnl ignores
 * them.
 */
bool nl_batch_ok(const void *buf, size_t len);

#endif
