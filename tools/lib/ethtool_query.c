// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <unistd.h>

#include "ethtool_query.h"
#include "fail.h"

void ethtool_query_init(struct ethtool_query *q)
{
	q->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (q->fd < 0)
		q->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (q->fd < 0)
		fail_errno("socket");
}

void ethtool_query_fini(struct ethtool_query *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
}

static int ethtool_ioctl(struct ethtool_query *q, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	if (!ifname[0] || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strlen(ifname) + 1);
	ifr.ifr_data = cmd;
	if (ioctl(q->fd, SIOCETHTOOL, &ifr) < 0)
		return -errno;
	return 0;
}

int ethtool_query_driver(struct ethtool_query *q, const char *ifname, char *driver, size_t len)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	int ret = ethtool_ioctl(q, ifname, &info);

	if (ret)
		return ret;
	info.driver[sizeof(info.driver) - 1] = '\0';
	if (len)
		snprintf(driver, len, "%s", info.driver);
	return 0;
}

void ethtool_features_free(struct ethtool_features *f)
{
	free(f->names);
	free(f->available);
	free(f->requested);
	free(f->active);
	memset(f, 0, sizeof(*f));
}

int ethtool_query_features(struct ethtool_query *q, const char *ifname,
			   struct ethtool_features *f)
{
	/* One set asked for: the reply's data[] holds one length (heap: a flexible array). */
	struct ethtool_sset_info *sset = calloc(1, sizeof(*sset) + sizeof(sset->data[0]));
	struct ethtool_gstrings *strings = NULL;
	struct ethtool_gfeatures *feats = NULL;
	unsigned int n, blocks, i;
	int ret;

	memset(f, 0, sizeof(*f));
	if (!sset)
		fail_errno("calloc");
	sset->cmd = ETHTOOL_GSSET_INFO;
	sset->sset_mask = 1ULL << ETH_SS_FEATURES;
	ret = ethtool_ioctl(q, ifname, sset);
	n = sset->data[0];
	if (!ret && !(sset->sset_mask & (1ULL << ETH_SS_FEATURES)))
		ret = -EOPNOTSUPP;
	free(sset);
	if (ret)
		return ret;
	blocks = (n + 31) / 32;

	strings = calloc(1, sizeof(*strings) + (size_t)n * ETH_GSTRING_LEN);
	feats = calloc(1, sizeof(*feats) + blocks * sizeof(feats->features[0]));
	f->names = calloc(n ? n : 1, sizeof(*f->names));
	f->available = calloc(blocks ? blocks : 1, sizeof(uint32_t));
	f->requested = calloc(blocks ? blocks : 1, sizeof(uint32_t));
	f->active = calloc(blocks ? blocks : 1, sizeof(uint32_t));
	if (!strings || !feats || !f->names || !f->available || !f->requested || !f->active)
		fail_errno("calloc");

	strings->cmd = ETHTOOL_GSTRINGS;
	strings->string_set = ETH_SS_FEATURES;
	strings->len = n;
	ret = ethtool_ioctl(q, ifname, strings);
	if (ret)
		goto out;
	feats->cmd = ETHTOOL_GFEATURES;
	feats->size = blocks;
	ret = ethtool_ioctl(q, ifname, feats);
	if (ret)
		goto out;

	f->count = n;
	for (i = 0; i < n; i++) {
		memcpy(f->names[i], strings->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		f->names[i][ETH_GSTRING_LEN - 1] = '\0';
	}
	for (i = 0; i < blocks; i++) {
		f->available[i] = feats->features[i].available;
		f->requested[i] = feats->features[i].requested;
		f->active[i] = feats->features[i].active;
	}
out:
	free(strings);
	free(feats);
	if (ret)
		ethtool_features_free(f);
	return ret;
}

struct ethtool_feature_state ethtool_feature(const struct ethtool_features *f, const char *name)
{
	struct ethtool_feature_state st = { 0 };
	unsigned int i;

	for (i = 0; i < f->count; i++) {
		uint32_t bit = 1u << (i % 32);

		if (strcmp(f->names[i], name))
			continue;
		st.found = true;
		st.active = f->active[i / 32] & bit;
		st.fixed = !(f->available[i / 32] & bit);
		break;
	}
	return st;
}

int ethtool_query_channels(struct ethtool_query *q, const char *ifname,
			   struct ethtool_channels_info *c)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	int ret = ethtool_ioctl(q, ifname, &ch);

	if (ret)
		return ret;
	*c = (struct ethtool_channels_info){
		.max_rx = ch.max_rx, .max_tx = ch.max_tx, .max_other = ch.max_other,
		.max_combined = ch.max_combined, .rx = ch.rx_count, .tx = ch.tx_count,
		.other = ch.other_count, .combined = ch.combined_count,
	};
	return 0;
}

int ethtool_query_rings(struct ethtool_query *q, const char *ifname,
			struct ethtool_rings_info *r)
{
	struct ethtool_ringparam rp = { .cmd = ETHTOOL_GRINGPARAM };
	int ret = ethtool_ioctl(q, ifname, &rp);

	if (ret)
		return ret;
	*r = (struct ethtool_rings_info){
		.rx_max = rp.rx_max_pending, .tx_max = rp.tx_max_pending,
		.rx = rp.rx_pending, .tx = rp.tx_pending,
	};
	return 0;
}
