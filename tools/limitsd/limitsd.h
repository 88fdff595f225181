/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gso-limitsd: one daemon per host that keeps every virtio-net device's
 * GSO limits equal to its tap's host path (docs/daemon.md).
 *
 *   netns.c     one rtnetlink socket per watched namespace; coalesced
 *               events; which taps an event can touch; their paths
 *   manager.c   the management layer's records: libvirt's domain status,
 *               qemu-server's pid files
 *   endpoint.c  a tap's QEMU and how to reach its QMP (Proxmox, libvirt,
 *               a plain -qmp / -chardev socket listed in the configuration)
 *   job.c       the QMP conversation that sets one tap's limits, over a
 *               unix socket or `virsh qemu-monitor-command`, non-blocking
 *   status.c    the JSON status (--once --json, `gso-limitsd status`)
 *   log.c       log lines with journald priorities, sd_notify readiness
 *   state.c     configuration defaults, counters, which tap is served next
 *   options.c   the command line into ld_cfg and struct ld_options
 *   loop.c      the event loop: namespaces opened, signals, control socket, poll()
 *   ../gso-limitsd.c  main only: options_parse(), then status or loop_run()
 * No module includes anything of the main program: everything they share is here.
 */
#ifndef GSO_LIMITSD_H
#define GSO_LIMITSD_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/fail.h"
#include "lib/link_query.h"
#include "lib/path_limits.h"
#include "lib/qemu_cmdline.h"
#include "lib/tap_holders.h"

struct mnl_socket;

/* QEMU's "no limit" (docs/qemu.md): what a tap whose path became unknown is set back to. */
#define LD_NO_LIMIT_SIZE	4294967295u
#define LD_NO_LIMIT_SEGS	65535u

struct ld_config {
	bool dry_run;
	bool once;
	bool verbose;
	bool json;		/* --once --json: stdout is one JSON document */
	bool unoptimised;	/* GSO_LIMITSD_UNOPTIMISED=1: one path walk per tap and every
				 * tap looked at on each turn of the event loop, as before
				 * issue 24 item 7 (the scale benchmark's comparison) */
	double settle_s;	/* quiet time after a link event before acting */
	double max_settle_s;	/* longest an event waits during a storm */
	double qmp_timeout_s;	/* each QMP step (connect, greeting, reply) */
	double retry_max_s;	/* cap of the retry back-off */
	unsigned int max_jobs;	/* QMP conversations in flight */
	double rescan_s;	/* a full re-read this often, for events never sent (0: off) */
	const char *proxmox_run_dir;
	const char *libvirt_run_dir;	/* libvirtd's domain status files */
	const char *virsh;
	const char **qmp_sockets;	/* plain QEMU: the QMP sockets (globs) it may use */
	size_t nqmp_sockets;
};

/* What the daemon did: the benchmark's "bounded work" figures. */
struct ld_counters {
	unsigned long events;		/* rtnetlink messages received */
	unsigned long overruns;		/* ENOBUFS: events lost, full re-read */
	unsigned long bursts;		/* times a settled burst was processed */
	unsigned long rescans;		/* periodic re-reads (--rescan) */
	unsigned long dumps;		/* RTM_GETLINK dumps */
	unsigned long proc_scans;	/* /proc scans for tap holders */
	unsigned long recomputes;	/* path computations */
	unsigned long qmp_connects;	/* QMP connections (or virsh runs) */
	unsigned long qmp_commands;	/* QMP commands sent, qmp_capabilities included */
	unsigned long sets;		/* successful qom-set of host_gso_max */
	unsigned long failures;		/* conversations that failed (retried or not) */
};

extern struct ld_config ld_cfg;
extern struct ld_counters ld_count;

enum ep_kind { EP_NONE, EP_PROXMOX, EP_LIBVIRT, EP_QMP_SOCKET };

struct endpoint {
	enum ep_kind kind;
	char socket[108];		/* EP_PROXMOX, EP_QMP_SOCKET */
	char domain[QEMU_OPT_MAX];	/* EP_LIBVIRT: its name, for messages only */
	char uuid[40];			/* EP_LIBVIRT: what virsh is given (a name "7" is ID 7) */
	/* From the manager's records (libvirt) or from QEMU over QMP, never from argv: */
	char netdev[QEMU_OPT_MAX];
	char device_id[QEMU_OPT_MAX];	/* "": an anonymous device, found with qom-list */
	/* The holder's command line: a hint, used only where QMP cannot say and checked there. */
	char hint_netdev[QEMU_OPT_MAX];
	char hint_device_id[QEMU_OPT_MAX];
	char qom[QEMU_OPT_MAX + 64];	/* the device's QOM path once known */
	bool backend;			/* the property sits on qom + "/virtio-backend" */
	enum { PROP_UNKNOWN, PROP_V3, PROP_V2 } prop;	/* host_gso_max, host-gso-limits */
};

enum tap_state {
	TAP_NO_PATH,		/* path unknown (not a bridge port...): nothing set */
	TAP_NO_VMM,		/* no process holds the tap */
	TAP_NO_ENDPOINT,	/* its QEMU has no QMP we can reach, or no virtio-net device */
	TAP_UNTRUSTED,		/* the holder is not the VM the manager's records name: never acted on */
	TAP_PENDING,		/* to be set */
	TAP_IN_FLIGHT,
	TAP_SYNCED,
	TAP_RETRY,		/* QMP busy or unreachable: tried again later */
	TAP_UNSUPPORTED,	/* no host_gso_max (feature not offered), or a tap on a hub */
	TAP_FAILED,		/* QEMU refused; not retried until the VM or path changes */
	TAP_DRY_RUN,		/* would have been set */
};

struct job;
struct netns;

struct tap {
	struct netns *ns;
	int ifindex;
	char ifname[IF_NAMESIZE];
	char kind[32];
	unsigned int flags;
	/* the path */
	enum path_status status;
	uint32_t size, segs;
	char size_from[IF_NAMESIZE], segs_from[IF_NAMESIZE];
	enum path_rule size_rule, segs_rule;	/* the rules that reached them */
	bool incomplete;		/* a part of the path not followed (path_limits.h) */
	bool uses_routes;		/* routed, or a tunnel without a link: routes count */
	int *deps;			/* sorted ifindexes the path depends on */
	size_t ndeps;
	bool wide;			/* more egress devices than tracked: any change counts */
	/* its QEMU */
	pid_t pid;
	unsigned long long starttime;
	int fds[TAP_HOLDER_MAX_FDS];	/* the holder's descriptors of this tap ("info network": fd=N) */
	size_t nfds;
	struct endpoint ep;
	char vmm_note[QEMU_OPT_MAX + 256];		/* why there is no endpoint */
	bool untrusted;			/* the holder does not match the manager's records */
	double recheck_at;		/* no endpoint yet: look at the holder again then */
	double recheck_s;		/* its back-off */
	/* what QEMU was told */
	enum tap_state state;
	bool applied;
	uint32_t applied_size, applied_segs;
	bool want_sync;
	bool want_status;		/* ask whether the guest negotiated the feature */
	int negotiated;			/* x-query-virtio-status: 1 yes, 0 not (yet), -1 not known */
	double retry_at;
	double backoff_s;
	char error[512];
	char logged[512];		/* the last problem logged, not logged again */
	struct job *job;
	unsigned long commands;		/* QMP commands for this tap */
};

struct netns {
	char name[64];			/* "" for the daemon's own namespace */
	dev_t dev;
	ino_t ino;
	int nsfd;			/* to enter it (setns), -1 for our own */
	struct mnl_socket *events;
	struct link_query dumpq;
	struct link_info *links;	/* last dump, sorted by ifindex */
	size_t nlinks;
	struct route_info *routes;	/* last route dump, in the kernel's order */
	size_t nroutes;
	struct rule_info *rules;	/* last rule dump, in the kernel's order */
	size_t nrules;
	struct tap **taps;
	size_t ntaps;
	bool dirty;			/* events not processed yet */
	bool overrun;			/* events were lost: treat everything as changed */
	bool resync;			/* set every tap again (SIGHUP, start) */
	bool rescan;			/* periodic re-read: also look for holders of unheld taps */
	double first_event, last_event;
	double recheck_at;		/* the earliest tap's recheck_at, or 0 */
};

/* netns.c */
int netns_open(struct netns *ns, const char *name);
void netns_close(struct netns *ns);
int netns_event_fd(const struct netns *ns);
void netns_read_events(struct netns *ns, double now);
/* The time at which @ns's events should be processed, or 0. */
double netns_due(const struct netns *ns);
void netns_process(struct netns *ns);
const char *tap_state_name(enum tap_state s);
void tap_set_state(struct tap *t, enum tap_state s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* endpoint.c */
/* Fill t->ep (and t->pid...) from holder @h; false with t->vmm_note set if unusable. */
bool endpoint_resolve(struct tap *t, const struct tap_holder *h, const struct tap_holders *all);
const char *endpoint_kind_name(enum ep_kind k);
void endpoint_describe(const struct endpoint *ep, char *buf, size_t len);

/* manager.c: 1 the records name the tap and pid (@ep filled), 0 no record, -1 mismatch */
int manager_libvirt(const char *dir, const char *ifname, pid_t pid, struct endpoint *ep,
		    char *note, size_t nlen);
int manager_proxmox_pid(const char *dir, unsigned int vmid, pid_t pid, char *note, size_t nlen);

/* job.c */
/* Start setting @t's limits; false (and the tap's state set) if it could not start. */
bool job_start(struct tap *t, double now);
void job_cancel(struct job *j);
int job_fd(const struct job *j);
short job_events(const struct job *j);
void job_io(struct job *j, double now);
double job_deadline(const struct job *j);
void job_check_timeout(struct job *j, double now);
unsigned int job_count(void);
struct job *job_at(unsigned int i);

/* state.c: which tap gets a QMP conversation next */
/* Something may have given a tap work (a namespace pass, a conversation's end). */
void sched_changed(void);
/* Start conversations while slots are free; the next retry time, or 0. */
double sched_start_jobs(struct netns *const *nss, size_t nns, double now);
/* --once: nothing left to do; its exit status (EXIT_FAILURE: a held tap not reached). */
bool sched_settled(struct netns *const *nss, size_t nns);
int sched_once_status(struct netns *const *nss, size_t nns);

/* status.c */
void status_print(FILE *f, struct netns *const *nss, size_t count);
int control_listen(const char *path);
void control_serve(int lfd, struct netns *const *nss, size_t count);
/* `gso-limitsd status`: the daemon's answer on stdout within @timeout_s. */
int control_client(const char *path, double timeout_s);

/* options.c */
#define LD_MAX_NETNS		64
#define LD_DEFAULT_CONTROL	"/run/gso-limitsd/control"
struct ld_options {
	bool status_cmd;		/* `gso-limitsd status` */
	const char *control;		/* --control */
	double status_timeout_s;	/* status --timeout */
	const char *netns_names[LD_MAX_NETNS];	/* --netns; none: our own namespace */
	size_t nnetns;
};
/* argv into ld_cfg and @o; exits on --help, --version or a usage error. */
void options_parse(int argc, char **argv, struct ld_options *o);

/* loop.c: run until a signal (--once: until settled); the exit status. */
int loop_run(const struct ld_options *o);

/* log.c: syslog priorities (<syslog.h>'s values) */
enum { LD_ERR = 3, LD_WARNING = 4, LD_INFO = 6, LD_DEBUG = 7 };
void ld_logp(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define ld_log(...)	ld_logp(LD_INFO, __VA_ARGS__)
/* sd_notify(3) @state ("READY=1"...) if a service manager asked for it. */
void ld_notify(const char *state);

#endif
