/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read-only ethtool queries through the SIOCETHTOOL ioctl: driver name,
 * offload features by their kernel names (ETH_SS_FEATURES strings, as
 * `ethtool -k` reads them), channels (`ethtool -l`) and ring sizes
 * (`ethtool -g`).  Only ETHTOOL_G* commands, which the kernel lets an
 * unprivileged caller run (dev_ethtool(): no CAP_NET_ADMIN for "get"
 * commands); nothing here can change a setting.
 */
#ifndef GSO_TOOLS_ETHTOOL_QUERY_H
#define GSO_TOOLS_ETHTOOL_QUERY_H

#include <stdbool.h>
#include <stdint.h>

struct ethtool_query {
	int fd;			/* an AF_INET datagram socket for the ioctl */
};

/* Features of one device: the kernel's feature names and four bit sets. */
struct ethtool_features {
	unsigned int count;
	char (*names)[32];	/* ETH_GSTRING_LEN each */
	uint32_t *available;	/* changeable (hw_features); not available = "[fixed]" */
	uint32_t *requested;
	uint32_t *active;
};

/* The state of one named feature: found, on, and whether it can change. */
struct ethtool_feature_state {
	bool found;
	bool active;
	bool fixed;
};

void ethtool_query_init(struct ethtool_query *q);
void ethtool_query_fini(struct ethtool_query *q);

/* Driver name (`ethtool -i`: "virtio_net", "veth", "tun").  0 or -errno. */
int ethtool_query_driver(struct ethtool_query *q, const char *ifname, char *driver, size_t len);

/* All features (ETHTOOL_GSSET_INFO + GSTRINGS + GFEATURES).  0 or -errno. */
int ethtool_query_features(struct ethtool_query *q, const char *ifname,
			   struct ethtool_features *f);
void ethtool_features_free(struct ethtool_features *f);
/* A feature by kernel name ("rx-gro", "tx-tcp-segmentation", ...). */
struct ethtool_feature_state ethtool_feature(const struct ethtool_features *f, const char *name);

/* `ethtool -l`: ETHTOOL_GCHANNELS.  0 or -errno (-EOPNOTSUPP: driver has none). */
struct ethtool_channels_info {
	uint32_t max_rx, max_tx, max_other, max_combined;
	uint32_t rx, tx, other, combined;
};
int ethtool_query_channels(struct ethtool_query *q, const char *ifname,
			   struct ethtool_channels_info *c);

/* `ethtool -g`: ETHTOOL_GRINGPARAM.  0 or -errno. */
struct ethtool_rings_info {
	uint32_t rx_max, tx_max;
	uint32_t rx, tx;
};
int ethtool_query_rings(struct ethtool_query *q, const char *ifname,
			struct ethtool_rings_info *r);

#endif
