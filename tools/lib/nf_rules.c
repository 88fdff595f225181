// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
/* glibc first: it tells the uapi headers which structs it already defines. */
#include <netinet/in.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nf_rules.h"
#include "nl_batch.h"
#include "sysfs.h"

/* As in link_query.c: a dump batch is up to 32 KiB; smaller buffers truncate it. */
#ifndef MNL_SOCKET_DUMP_SIZE
#define MNL_SOCKET_DUMP_SIZE	32768
#endif
#define NF_DUMP_TRIES		8	/* dumps interrupted by a rule change are retried */

struct rule_scan {
	const char *name;
	size_t name_len;
	struct nf_rules_count *out;
};

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rule_scan *s = data;

	if (NFNL_MSG_TYPE(nlh->nlmsg_type) != NFT_MSG_NEWRULE ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct nfgenmsg))
		return MNL_CB_OK;
	s->out->rules++;
	if (memmem(nlh, nlh->nlmsg_len, s->name, s->name_len))
		s->out->matching++;
	return MNL_CB_OK;
}

static int scan_nftables_once(struct rule_scan *s)
{
	char buf[MNL_SOCKET_DUMP_SIZE];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct nfgenmsg *nfg;
	unsigned int seq = (unsigned int)time(NULL), portid;
	ssize_t len;
	int ret = 0;

	nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!nl)
		return errno == EPROTONOSUPPORT ? 0 : -errno;	/* no nfnetlink: no nftables rules */
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETRULE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = NFPROTO_UNSPEC;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = 0;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	for (;;) {
		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0) {
			ret = -errno;
			break;
		}
		if (!nl_batch_ok(buf, (size_t)len)) {
			ret = -EBADMSG;
			break;
		}
		ret = mnl_cb_run(buf, (size_t)len, seq, portid, rule_cb, s);
		if (ret < 0) {
			/* nf_tables not available in this kernel: no rules. */
			ret = (errno == EOPNOTSUPP || errno == ENOENT) ? 0 : -errno;
			break;
		}
		if (ret == MNL_CB_STOP) {
			ret = 0;
			break;
		}
	}
out:
	mnl_socket_close(nl);
	return ret;
}

/* -EINTR from mnl_cb_run(): NLM_F_DUMP_INTR, the rule set changed during the dump. */
static int scan_nftables(struct rule_scan *s)
{
	unsigned int rules = s->out->rules, matching = s->out->matching;
	int ret = -EINTR, tries;

	for (tries = 0; tries < NF_DUMP_TRIES && ret == -EINTR; tries++) {
		s->out->rules = rules;
		s->out->matching = matching;
		ret = scan_nftables_once(s);
	}
	return ret;
}

/* One legacy table: its entries blob searched for the name. */
static int scan_legacy_table(int family, const char *table, struct rule_scan *s)
{
	int level = family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	int fd = socket(family, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	struct ipt_getinfo info = { 0 };
	socklen_t len = sizeof(info);
	struct ipt_get_entries *entries;
	int ret = 0;

	/* ip6t_getinfo and ip6t_get_entries have the same layout as the IPv4 ones. */
	_Static_assert(sizeof(struct ipt_getinfo) == sizeof(struct ip6t_getinfo), "layout");
	/* The same numbers under two names today: the assertions are that they stay so. */
	// NOLINTBEGIN(misc-redundant-expression)
	_Static_assert(IPT_SO_GET_INFO == IP6T_SO_GET_INFO, "sockopt numbers");
	_Static_assert(IPT_SO_GET_ENTRIES == IP6T_SO_GET_ENTRIES, "sockopt numbers");
	// NOLINTEND(misc-redundant-expression)
	if (fd < 0)
		return -errno;
	snprintf(info.name, sizeof(info.name), "%s", table);
	if (getsockopt(fd, level, IPT_SO_GET_INFO, &info, &len) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	len = sizeof(*entries) + info.size;
	entries = calloc(1, len);
	if (!entries) {
		close(fd);
		return -ENOMEM;
	}
	snprintf(entries->name, sizeof(entries->name), "%s", table);
	entries->size = info.size;
	if (getsockopt(fd, level, IPT_SO_GET_ENTRIES, entries, &len) < 0) {
		ret = -errno;
	} else {
		s->out->rules += info.num_entries;
		if (memmem(entries->entrytable, info.size, s->name, s->name_len))
			s->out->matching++;
	}
	free(entries);
	close(fd);
	return ret;
}

static int scan_legacy(int family, const char *names_file, struct rule_scan *s)
{
	char names[512], *tok, *save = NULL;
	int ret;

	ret = sysfs_read(names_file, names, sizeof(names));
	if (ret)
		return ret == -ENOENT ? 0 : ret;	/* no file: no legacy tables loaded */
	for (tok = strtok_r(names, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		ret = scan_legacy_table(family, tok, s);
		if (ret)
			return ret;
	}
	return 0;
}

int nf_rules_mentioning(const char *name, struct nf_rules_count *out)
{
	struct rule_scan s = { .name = name, .name_len = strlen(name), .out = out };
	int ret;

	out->rules = out->matching = 0;
	ret = scan_nftables(&s);
	if (!ret)
		ret = scan_legacy(AF_INET, "/proc/net/ip_tables_names", &s);
	if (!ret)
		ret = scan_legacy(AF_INET6, "/proc/net/ip6_tables_names", &s);
	return ret;
}
