/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gso-doctor's shared types: the run's context, and the findings each
 * check family (one file each in doctor/) adds to the report.
 *
 * A check reads (rtnetlink, ethtool ioctls, sysfs, procfs) and reports;
 * none of them writes anything anywhere.  A finding has a stable id
 * (docs/doctor/<id>.md), a severity, the interface it is about, a one-line
 * summary, the evidence it read (key/value, iproute2's or ethtool's names
 * where one exists), and the commands that fix it.
 */
#ifndef GSO_DOCTOR_H
#define GSO_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/ethtool_query.h"
#include "lib/json_value.h"
#include "lib/link_query.h"
#include "lib/path_limits.h"

enum doctor_severity {
	DOCTOR_INFO,
	DOCTOR_WARNING,
	DOCTOR_ERROR,
};

#define DOCTOR_MAX_EVIDENCE	24
#define DOCTOR_MAX_FIXES	4

enum doctor_value_type { DOCTOR_U64, DOCTOR_STR, DOCTOR_BOOL, DOCTOR_DOUBLE };

struct doctor_evidence {
	char key[40];
	enum doctor_value_type type;
	uint64_t u;
	double d;
	char s[256];
};

struct doctor_finding {
	const char *id;
	enum doctor_severity severity;
	char ifname[64];
	char summary[512];
	struct doctor_evidence evidence[DOCTOR_MAX_EVIDENCE];
	size_t evidence_count;
	char fix[DOCTOR_MAX_FIXES][512];
	size_t fix_count;
};

struct doctor_report {
	struct doctor_finding *findings;
	size_t count;
	size_t cap;
	const char *checks_run[32];
	size_t checks_count;
};

enum doctor_mode { DOCTOR_MODE_NONE, DOCTOR_MODE_HOST, DOCTOR_MODE_GUEST };

struct doctor_ctx {
	enum doctor_mode mode;
	char **ifaces;			/* IFACE arguments, or NULL/0: automatic */
	size_t iface_count;
	unsigned int sample_ms;		/* sampling interval for the counters */
	struct link_info *links;	/* RTM_GETLINK dump of this namespace */
	size_t link_count;
	struct route_info *routes;	/* RTM_GETROUTE dump (routed taps, tunnel underlays) */
	size_t route_count;
	struct rule_info *rules;	/* RTM_GETRULE dump (which tables routed taps use) */
	size_t rule_count;
	struct link_table table;
	struct ethtool_query eth;
	struct doctor_report report;
	unsigned int online_cpus;
	const char *limitsd_control;	/* gso-limitsd's control socket, or "none" */
	bool limitsd_read;		/* asked already */
	struct jv *limitsd;		/* its status, or NULL */
};

/* host_limitsd.c: what gso-limitsd says about a tap (its status JSON) */
struct doctor_limitsd_tap {
	char state[32];			/* synced, untrusted, unsupported, ... */
	bool set;			/* what QEMU was last told */
	uint64_t size, segs;
	char error[512];
	const char *negotiated;		/* "true", "false" (the guest has not accepted it), "" */
};
bool doctor_limitsd_tap(struct doctor_ctx *ctx, const struct link_info *tap,
			struct doctor_limitsd_tap *out);

/* host_offer.c: whether the tap's device offers VIRTIO_NET_F_GSO_LIMITS with no limit given */
struct vmm_info;
struct qemu_args;
enum doctor_offer_state {
	DOCTOR_OFFER_UNKNOWN,		/* the QEMU binary could not be read */
	DOCTOR_OFFER_NO_SERIES,		/* a QEMU without the series: never offered */
	DOCTOR_OFFER_ON,		/* offered (machine type >= 11.0, or host_gso_limits=on) */
	DOCTOR_OFFER_MACHINE_OFF,	/* machine type 10.2 or older (hw_compat_10_2): not offered */
	DOCTOR_OFFER_PROP_OFF,		/* host_gso_limits=off: not offered */
};
struct doctor_offer {
	enum doctor_offer_state state;
	char machine[64];		/* -machine's type as given (qemu_machine_type()), "" if none */
	int series;			/* the binary has the series: 1, 0, -1 not known */
	int prop;			/* host_gso_limits= on the device or -global: 1, 0, -1 absent */
};
void doctor_offer(const struct vmm_info *v, const char *tap, struct doctor_offer *o);

/* report.c */
void doctor_report_init(struct doctor_report *r);
void doctor_report_fini(struct doctor_report *r);
void doctor_report_check(struct doctor_report *r, const char *id);
struct doctor_finding *doctor_report_add(struct doctor_report *r, const char *id,
					 enum doctor_severity sev, const char *ifname,
					 const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void doctor_ev_u64(struct doctor_finding *f, const char *key, uint64_t v);
void doctor_ev_str(struct doctor_finding *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void doctor_ev_bool(struct doctor_finding *f, const char *key, bool v);
void doctor_ev_double(struct doctor_finding *f, const char *key, double v);
void doctor_fix(struct doctor_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *doctor_severity_name(enum doctor_severity s);
void doctor_report_print_text(const struct doctor_report *r, const char *mode);
void doctor_report_print_json(const struct doctor_report *r, const char *mode,
			      unsigned int sample_ms);
/* 1 if any finding is at warning or above, else 0. */
int doctor_report_status(const struct doctor_report *r);

/* devices.c: which devices the checks look at. */
/* Whether IFACE arguments were given and @name is one of them. */
bool doctor_iface_selected(const struct doctor_ctx *ctx, const char *name);
/* @check_tap on every tap, or with IFACE arguments on each of those. */
void doctor_for_each_tap(struct doctor_ctx *ctx,
			 void (*check_tap)(struct doctor_ctx *ctx, const struct link_info *tap));
/* Whether @li's driver is virtio_net; its driver name into @driver either way. */
bool doctor_is_virtio_net(struct doctor_ctx *ctx, const struct link_info *li, char *driver,
			  size_t len);
/* The bridge a tap's VM is attached to: its master, or behind a firewall hop the next one. */
const char *doctor_vm_bridge(const struct doctor_ctx *ctx, const struct link_info *tap);

/* Host checks (doctor/host_*.c). */
void doctor_host_path_run(struct doctor_ctx *ctx);		/* gso-path-limit */
void doctor_host_offload_run(struct doctor_ctx *ctx);	/* gro-off, tso-off */
void doctor_host_queues_run(struct doctor_ctx *ctx);	/* single-queue-tap */
void doctor_host_fwbr_run(struct doctor_ctx *ctx);		/* fwbr-hop */

/*
 * Guest checks (doctor/guest_*.c).  The counters need two readings
 * sample_ms apart: guest_rx has an _init (first reading) and a _fini
 * (second reading, report) around one shared sleep.
 */
struct doctor_guest_dev {
	char ifname[64];
	char driver[32];
};
struct doctor_guest {
	struct doctor_guest_dev *devs;
	size_t count;
	void *rx_state;			/* guest_rx.c's first reading */
};
/* devices.c: the virtio_net devices (or the IFACE arguments) to check. */
void doctor_guest_devs_init(struct doctor_ctx *ctx, struct doctor_guest *g);
void doctor_guest_devs_fini(struct doctor_guest *g);
void doctor_guest_queues_run(struct doctor_ctx *ctx, const struct doctor_guest *g);	/* guest-queues, guest-rings */
void doctor_guest_offload_run(struct doctor_ctx *ctx, const struct doctor_guest *g);	/* guest-offloads-off, guest-gso-limits */
void doctor_guest_rx_init(struct doctor_ctx *ctx, struct doctor_guest *g);
void doctor_guest_rx_fini(struct doctor_ctx *ctx, struct doctor_guest *g);	/* guest-rps-unset, guest-softnet-skew, guest-rx-dropped */

#endif
