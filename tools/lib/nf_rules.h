/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whether any netfilter rule of the current network namespace mentions a
 * name (an interface such as tap106i0, or a chain such as Proxmox's
 * "tap106i0-IN"), read-only:
 * - nftables (and iptables-nft): an NFT_MSG_GETRULE dump over nfnetlink;
 *   a rule mentions NAME when NAME occurs in its message (interface
 *   names are compared as strings in meta/cmp expressions, xt physdev
 *   matches carry them in their info blob, the chain name is an attribute);
 * - iptables-legacy: IPT_SO_GET_ENTRIES / IP6T_SO_GET_ENTRIES of every
 *   table in /proc/net/ip{,6}_tables_names, searched the same way.
 * A substring search can count a rule too many (tap1 inside tap10), never
 * one too few.  Needs CAP_NET_ADMIN: without it the result is -EPERM.
 */
#ifndef GSO_TOOLS_NF_RULES_H
#define GSO_TOOLS_NF_RULES_H

struct nf_rules_count {
	unsigned int rules;		/* rules seen (nftables rules + legacy tables' blobs) */
	unsigned int matching;		/* of those, mentioning the name */
};

/* 0 or -errno (-EPERM: not allowed to read the rules). */
int nf_rules_mentioning(const char *name, struct nf_rules_count *out);

#endif
