// SPDX-License-Identifier: GPL-2.0-only
/*
 * ovs-dp: make an Open vSwitch kernel datapath that sends every Ethernet
 * frame received on one port out of another, without ovsdb or
 * ovs-vswitchd (Debian ships ovs-dpctl only with the switch daemon, whose
 * package starts it): the tier-2 path test's OVS topology
 * (tests/t64-paths-tier2.sh).
 *
 *   ovs-dp DATAPATH IN_DEV OUT_DEV [IN_PORT OUT_PORT]
 *
 * IN_DEV "internal:NAME": an internal port NAME (OVS_VPORT_TYPE_INTERNAL:
 * the datapath makes the device, as ovs-vswitchd does for Proxmox's
 * fwln<VMID>o<N>), which the caller may then put into a Linux bridge.  A
 * DATAPATH that exists already gets the ports and the flow added (port
 * numbers other than the default 1 and 2 then).
 *
 * Creates DATAPATH (OVS_DP_CMD_NEW: its local port is a device of that
 * name, the master of the ports), adds IN_DEV as port 1 and OUT_DEV as
 * port 2 (OVS_VPORT_TYPE_NETDEV: ovs_netdev_link() makes the datapath's
 * device their master), and one flow, in_port(1) and any Ethernet frame
 * -> output(2) (the mask wildcards everything but the port and that the
 * frame has an Ethernet header).  What the kernel sends back are errors;
 * missed frames would go to upcall port id 0, nobody.  Exits 0 when all
 * three were acknowledged; the datapath stays until its device is deleted
 * (`ip link del DATAPATH` is refused: ovs_dp_cmd_del; the VM that made it
 * just ends).
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/openvswitch.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "lib/fail.h"

#define IN_PORT		1
#define OUT_PORT	2

static const char usage[] = "usage: ovs-dp DATAPATH [internal:]IN_DEV OUT_DEV [IN_PORT OUT_PORT]\n";

static struct mnl_socket *nl;
static unsigned int seq = 1;

static int family_id_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			*(uint16_t *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

/* Send @nlh and read the replies until the ACK; fails on an error reply. */
static void transact(struct nlmsghdr *nlh, mnl_cb_t cb, void *data, const char *what)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int portid = mnl_socket_get_portid(nl);
	ssize_t n;
	int ret;

	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq++;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		fail_errno(what);
	do {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			fail_errno(what);
		ret = mnl_cb_run(buf, (size_t)n, nlh->nlmsg_seq, portid, cb, data);
	} while (ret > 0);
	if (ret < 0) {
		fprintf(stderr, "ovs-dp: %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

/* A generic netlink request of family @family, command @cmd, with an ovs_header. */
static struct nlmsghdr *request(char *buf, uint16_t family, uint8_t cmd, uint8_t version,
				int dp_ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;
	struct ovs_header *oh;

	nlh->nlmsg_type = family;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	oh = mnl_nlmsg_put_extra_header(nlh, sizeof(*oh));
	oh->dp_ifindex = dp_ifindex;
	return nlh;
}

static uint16_t family(const char *name)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;
	uint16_t id = 0;

	nlh->nlmsg_type = GENL_ID_CTRL;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	transact(nlh, family_id_cb, &id, name);
	if (!id)
		fail_msg("generic netlink family %s not found", name);
	return id;
}

static void add_port(uint16_t vport_family, int dp_ifindex, const char *dev, uint32_t port)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = request(buf, vport_family, OVS_VPORT_CMD_NEW, OVS_VPORT_VERSION,
				       dp_ifindex);
	bool internal = !strncmp(dev, "internal:", 9);

	if (internal)
		dev += 9;
	mnl_attr_put_strz(nlh, OVS_VPORT_ATTR_NAME, dev);
	mnl_attr_put_u32(nlh, OVS_VPORT_ATTR_TYPE,
			 internal ? OVS_VPORT_TYPE_INTERNAL : OVS_VPORT_TYPE_NETDEV);
	mnl_attr_put_u32(nlh, OVS_VPORT_ATTR_PORT_NO, port);
	mnl_attr_put_u32(nlh, OVS_VPORT_ATTR_UPCALL_PID, 0);
	transact(nlh, NULL, NULL, dev);
}

/* in_port(@in) and an Ethernet header, everything else wildcarded -> output(@out). */
static void add_flow(uint16_t flow_family, int dp_ifindex, uint32_t in, uint32_t out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = request(buf, flow_family, OVS_FLOW_CMD_NEW, OVS_FLOW_VERSION,
				       dp_ifindex);
	struct ovs_key_ethernet eth;
	struct nlattr *nest;

	memset(&eth, 0, sizeof(eth));
	nest = mnl_attr_nest_start(nlh, OVS_FLOW_ATTR_KEY);
	mnl_attr_put_u32(nlh, OVS_KEY_ATTR_IN_PORT, in);
	mnl_attr_put(nlh, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth);
	mnl_attr_nest_end(nlh, nest);
	/* Mask: the port exactly; addresses and EtherType not at all. */
	nest = mnl_attr_nest_start(nlh, OVS_FLOW_ATTR_MASK);
	mnl_attr_put_u32(nlh, OVS_KEY_ATTR_IN_PORT, UINT32_MAX);
	mnl_attr_put(nlh, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth);
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, OVS_FLOW_ATTR_ACTIONS);
	mnl_attr_put_u32(nlh, OVS_ACTION_ATTR_OUTPUT, out);
	mnl_attr_nest_end(nlh, nest);
	transact(nlh, NULL, NULL, "flow");
}

int main(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint16_t dp_family, vport_family, flow_family;
	struct nlmsghdr *nlh;
	unsigned int dp_ifindex;
	uint32_t in_port = IN_PORT, out_port = OUT_PORT;

	fail_prog = "ovs-dp";
	if (argc != 4 && argc != 6)
		fail_usage(usage, "three or five arguments expected");
	if (argc == 6) {
		in_port = (uint32_t)strtoul(argv[4], NULL, 10);
		out_port = (uint32_t)strtoul(argv[5], NULL, 10);
		if (!in_port || !out_port || in_port == out_port)
			fail_usage(usage, "two different port numbers above 0 expected");
	}
	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		fail_errno("generic netlink socket");
	dp_family = family(OVS_DATAPATH_FAMILY);
	vport_family = family(OVS_VPORT_FAMILY);
	flow_family = family(OVS_FLOW_FAMILY);

	if (!if_nametoindex(argv[1])) {
		nlh = request(buf, dp_family, OVS_DP_CMD_NEW, OVS_DATAPATH_VERSION, 0);
		mnl_attr_put_strz(nlh, OVS_DP_ATTR_NAME, argv[1]);
		mnl_attr_put_u32(nlh, OVS_DP_ATTR_UPCALL_PID, 0);
		transact(nlh, NULL, NULL, argv[1]);
	}
	dp_ifindex = if_nametoindex(argv[1]);
	if (!dp_ifindex)
		fail_errno(argv[1]);

	add_port(vport_family, (int)dp_ifindex, argv[2], in_port);
	add_port(vport_family, (int)dp_ifindex, argv[3], out_port);
	add_flow(flow_family, (int)dp_ifindex, in_port, out_port);
	mnl_socket_close(nl);
	printf("ovs-dp: %s: %s (port %u) -> %s (port %u)\n", argv[1], argv[2], in_port, argv[3],
	       out_port);
	return 0;
}
