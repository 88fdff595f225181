// SPDX-License-Identifier: GPL-2.0-only
/*
 * One network namespace: its rtnetlink event socket, its link table, its
 * taps and what their paths depend on.
 *
 * Events are only a trigger.  After a burst has settled (ld_cfg.settle_s
 * of quiet, at most max_settle_s after its first event) the namespace is
 * dumped once and compared with the previous dump: the devices whose
 * path-relevant attributes changed (master, lower, kind, GSO/TSO limits),
 * appeared or went away are "changed".  A tap's path is recomputed only
 * when a changed device, or the old or new master of one, is among the
 * devices its path visited (tap->deps); a tap with more egress devices
 * than struct path_limits tracks ("wide") is recomputed on any change.
 * Routes are dumped with the links (a route through a nexthop object with
 * the object's devices): a routed tap, or one behind a tunnel that finds
 * its underlay by route, is recomputed when they changed.
 * QEMU is told only when the result differs from what it was last told,
 * so a port change costs one dump, a few walks and one QMP conversation
 * per VM whose limits really change.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/array_grow.h"
#include "lib/clock.h"
#include "limitsd.h"

/* net/if.h does not name it; linux/if.h clashes with net/if.h. */
#define LINK_IFF_LOWER_UP	0x10000

#define EVENT_RCVBUF	(4 << 20)	/* a storm of 1000 taps is ~10000 messages */

static int cmp_link(const void *a, const void *b)
{
	const struct link_info *x = a, *y = b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static const struct link_info *find_link(const struct link_info *links, size_t n, int ifindex)
{
	struct link_info key = { .ifindex = ifindex };

	return n ? bsearch(&key, links, n, sizeof(*links), cmp_link) : NULL;
}

/* Run @fn inside @ns (sockets are bound to the namespace they are created in). */
static int in_netns(struct netns *ns, int (*fn)(struct netns *))
{
	int self = -1, ret;

	if (ns->nsfd >= 0) {
		self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (self < 0)
			return -errno;
		if (setns(ns->nsfd, CLONE_NEWNET) < 0) {
			ret = -errno;
			close(self);
			return ret;
		}
	}
	ret = fn(ns);
	if (self >= 0) {
		if (setns(self, CLONE_NEWNET) < 0)
			fail_errno("setns back to the daemon's namespace");
		close(self);
	}
	return ret;
}

static int open_sockets(struct netns *ns)
{
	int fd, size = EVENT_RCVBUF, group;

	ns->events = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!ns->events)
		return -errno;
	fd = mnl_socket_get_fd(ns->events);
	/* SO_RCVBUFFORCE needs CAP_NET_ADMIN; without it the plain limit applies. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	/*
	 * Route and rule events too: routed taps and tunnels without a link
	 * follow the routes, and the policy rules choose the tables a routed
	 * tap's packets are looked up in (lib/path_limits.c, rule 7).
	 */
	if (mnl_socket_bind(ns->events, RTMGRP_LINK | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE |
			    RTMGRP_IPV4_RULE, MNL_SOCKET_AUTOPID) < 0)
		return -errno;
	group = RTNLGRP_IPV6_RULE;	/* no RTMGRP_ mask of its own */
	if (mnl_socket_setsockopt(ns->events, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0 &&
	    errno != EINVAL)
		return -errno;
	/*
	 * And nexthop objects: replacing one's device changes the routes
	 * through it without a route event.  Group 32 needs the socket option
	 * (bind() takes groups 1..32 as a mask; a kernel without the group
	 * refuses it: its routes have no objects).
	 */
	group = RTNLGRP_NEXTHOP;
	if (mnl_socket_setsockopt(ns->events, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0 &&
	    errno != EINVAL)
		return -errno;
	link_query_init(&ns->dumpq);
	return 0;
}

int netns_open(struct netns *ns, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	int ret;

	memset(ns, 0, sizeof(*ns));
	ns->nsfd = -1;
	snprintf(ns->name, sizeof(ns->name), "%s", name ? name : "");
	if (name) {
		if (!name[0] || strchr(name, '/') || strlen(name) >= sizeof(ns->name))
			return -EINVAL;
		snprintf(path, sizeof(path), "/run/netns/%s", name);
		ns->nsfd = open(path, O_RDONLY | O_CLOEXEC);
		if (ns->nsfd < 0)
			return -errno;
		if (fstat(ns->nsfd, &st) < 0)
			return -errno;
	} else if (stat("/proc/self/ns/net", &st) < 0) {
		return -errno;
	}
	ns->dev = st.st_dev;
	ns->ino = st.st_ino;
	ns->first_event = ns->last_event = clock_now_s();
	ret = in_netns(ns, open_sockets);
	/* The first pass sets every tap: after our own restart QEMU's values are unknown. */
	ns->dirty = true;
	ns->resync = true;
	return ret;
}

static void tap_free(struct tap *t)
{
	if (t->job)
		job_cancel(t->job);
	free(t->deps);
	free(t);
}

void netns_close(struct netns *ns)
{
	size_t i;

	for (i = 0; i < ns->ntaps; i++)
		tap_free(ns->taps[i]);
	free(ns->taps);
	free(ns->links);
	free(ns->routes);
	free(ns->rules);
	if (ns->events)
		mnl_socket_close(ns->events);
	link_query_fini(&ns->dumpq);
	if (ns->nsfd >= 0)
		close(ns->nsfd);
}

int netns_event_fd(const struct netns *ns)
{
	return mnl_socket_get_fd(ns->events);
}

void netns_read_events(struct netns *ns, double now)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	for (;;) {
		ssize_t n = mnl_socket_recvfrom(ns->events, buf, sizeof(buf));
		const struct nlmsghdr *nlh;
		size_t len;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				/* Events were dropped: nothing tells which, so re-read everything. */
				ld_count.overruns++;
				ns->overrun = true;
				goto mark;
			}
			break;	/* EAGAIN: drained */
		}
		len = (size_t)n;
		for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, (int)len);
		     nlh = mnl_nlmsg_next(nlh, (int *)&len))
			if (nlh->nlmsg_type == RTM_NEWLINK || nlh->nlmsg_type == RTM_DELLINK ||
			    nlh->nlmsg_type == RTM_NEWROUTE || nlh->nlmsg_type == RTM_DELROUTE ||
			    nlh->nlmsg_type == RTM_NEWNEXTHOP || nlh->nlmsg_type == RTM_DELNEXTHOP ||
			    nlh->nlmsg_type == RTM_NEWRULE || nlh->nlmsg_type == RTM_DELRULE)
				ld_count.events++;
mark:
		if (!ns->dirty)
			ns->first_event = now;
		ns->dirty = true;
		ns->last_event = now;
	}
}

double netns_due(const struct netns *ns)
{
	double a, b;

	if (!ns->dirty)
		return ns->recheck_at;	/* a holder to look at again, or 0 */
	if (ns->resync && !ns->links)
		return ns->first_event;	/* the first pass: at once */
	a = ns->last_event + ld_cfg.settle_s;
	b = ns->first_event + ld_cfg.max_settle_s;
	return a < b ? a : b;
}

const char *tap_state_name(enum tap_state s)
{
	static const char *const names[] = {
		[TAP_NO_PATH] = "no_path", [TAP_NO_VMM] = "no_vmm",
		[TAP_NO_ENDPOINT] = "no_endpoint", [TAP_PENDING] = "pending",
		[TAP_IN_FLIGHT] = "in_flight", [TAP_SYNCED] = "synced",
		[TAP_RETRY] = "retry", [TAP_UNSUPPORTED] = "unsupported",
		[TAP_FAILED] = "failed", [TAP_DRY_RUN] = "dry_run",
		[TAP_UNTRUSTED] = "untrusted",
	};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

void tap_set_state(struct tap *t, enum tap_state s, const char *fmt, ...)
{
	char msg[sizeof(t->error)] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
	/* Log a problem once, not at every retry: the status shows it meanwhile. */
	if (msg[0] && strcmp(msg, t->logged)) {
		ld_logp(LD_WARNING, "%s%s%s: %s", t->ns->name, t->ns->name[0] ? "/" : "", t->ifname,
			msg);
		snprintf(t->logged, sizeof(t->logged), "%s", msg);
	}
	/* A conversation under way keeps the last problem visible in the status. */
	if (s != TAP_IN_FLIGHT || msg[0])
		snprintf(t->error, sizeof(t->error), "%s", msg);
	if (s == TAP_SYNCED || s == TAP_DRY_RUN)
		t->logged[0] = '\0';
	t->state = s;
}

/* Whether two dumps of one device differ in anything a path walk reads. */
static bool link_changed(const struct link_info *a, const struct link_info *b)
{
	return a->master != b->master || a->lower != b->lower ||
	       a->lower_in_other_netns != b->lower_in_other_netns || a->type != b->type ||
	       strcmp(a->kind, b->kind) || strcmp(a->name, b->name) ||
	       a->present != b->present || a->gso_max_size != b->gso_max_size ||
	       a->gso_max_segs != b->gso_max_segs ||
	       a->gso_ipv4_max_size != b->gso_ipv4_max_size ||
	       a->tso_max_size != b->tso_max_size || a->tso_max_segs != b->tso_max_segs ||
	       strcmp(a->slave_kind, b->slave_kind) || a->tunnel_link != b->tunnel_link ||
	       a->tunnel_family != b->tunnel_family ||
	       a->tunnel_remote_known != b->tunnel_remote_known ||
	       a->tunnel_external != b->tunnel_external ||
	       memcmp(a->tunnel_remote, b->tunnel_remote, sizeof(a->tunnel_remote));
}

struct int_set {
	int *v;
	size_t n, cap;
};

static void set_add(struct int_set *s, int x)
{
	if (!x)
		return;
	s->v = array_grow(s->v, s->n, &s->cap, sizeof(*s->v));
	s->v[s->n++] = x;
}

static void set_sort(struct int_set *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_int);
}

static bool set_has(const int *v, size_t n, int x)
{
	return n && bsearch(&x, v, n, sizeof(*v), cmp_int);
}

/* The devices @p visited: a change to any of them, or to their ports, can change @p. */
static void compute_deps(struct tap *t, const struct link_table *tbl, const struct path_limits *p,
			 const struct link_info *start)
{
	struct int_set s = { 0 };
	size_t i;

	set_add(&s, start->ifindex);
	set_add(&s, start->master);
	if (start->lower && !start->lower_in_other_netns)
		set_add(&s, start->lower);
	for (i = 0; i < p->egress_count; i++) {
		const struct link_info *e = p->egress[i];

		set_add(&s, e->ifindex);
		/* A tunnel's underlay, also one not found yet (it may appear). */
		if (e->tunnel_link)
			set_add(&s, e->tunnel_link);
		/* The fwbr hop: the veth's peer and the bridge the peer is a port of. */
		if (!strcmp(e->kind, "veth") && e->lower && !e->lower_in_other_netns) {
			const struct link_info *peer = link_table_by_index(tbl, e->lower);

			set_add(&s, e->lower);
			if (peer)
				set_add(&s, peer->master);
		}
	}
	set_sort(&s);
	free(t->deps);
	t->deps = s.v;
	t->ndeps = s.n;
	t->wide = p->truncated;
}

/*
 * One pass's path of the first tap seen on each bridge, for the others on
 * the same bridge (issue 24, item 7): a thousand taps on one bridge were a
 * thousand walks over a thousand ports each when one port changed.  A tap
 * of a bridge leaves by the bridge's other ports; two taps A and B of the
 * same bridge differ only in which of them is left out.  So B's path is A's
 * with B taken out and A put in: the same limits unless B is the port that
 * limits A's path (then B is walked itself), lowered by A's own limits.
 */
static void walk(struct netns *ns, struct tap *t, const struct link_info *li);

struct bridge_memo {
	const struct link_info *first;	/* the tap walked; NULL: none yet */
	struct tap *t;			/* its results */
};

static bool plain_bridge_tap(const struct netns *ns, const struct link_info *li,
			     const struct link_info **master)
{
	if (strcmp(li->kind, "tun") || !li->master)
		return false;
	*master = find_link(ns->links, ns->nlinks, li->master);
	return *master && !strcmp((*master)->kind, "bridge");
}

/* @t's path from @m's, if it applies (see struct bridge_memo). */
static bool from_memo(struct tap *t, const struct link_info *li, const struct bridge_memo *m)
{
	const struct tap *a = m->t;
	uint32_t own_size = path_device_max_size(m->first), own_segs = path_device_max_segs(m->first);
	size_t i, n = 0;
	int *deps;

	if (a->status != PATH_OK || !strcmp(a->size_from, li->name) ||
	    !strcmp(a->segs_from, li->name))
		return false;
	deps = malloc((a->ndeps + 1) * sizeof(*deps));
	if (!deps)
		fail_errno("malloc");
	/* A's dependencies (A, its bridge, their other ports) and B itself, sorted. */
	for (i = 0; i < a->ndeps && a->deps[i] < li->ifindex; i++)
		deps[n++] = a->deps[i];
	if (i == a->ndeps || a->deps[i] != li->ifindex)
		deps[n++] = li->ifindex;
	for (; i < a->ndeps; i++)
		deps[n++] = a->deps[i];
	free(t->deps);
	t->deps = deps;
	t->ndeps = n;
	t->wide = a->wide;
	t->status = PATH_OK;
	t->incomplete = a->incomplete;
	t->uses_routes = a->uses_routes;
	t->size = a->size;
	t->segs = a->segs;
	memcpy(t->size_from, a->size_from, sizeof(t->size_from));
	memcpy(t->segs_from, a->segs_from, sizeof(t->segs_from));
	t->size_rule = a->size_rule;
	t->segs_rule = a->segs_rule;
	if (own_size < t->size) {
		t->size = own_size;
		snprintf(t->size_from, sizeof(t->size_from), "%s", m->first->name);
		t->size_rule = PATH_RULE_BRIDGE_PORT;
	}
	if (own_segs < t->segs) {
		t->segs = own_segs;
		snprintf(t->segs_from, sizeof(t->segs_from), "%s", m->first->name);
		t->segs_rule = PATH_RULE_BRIDGE_PORT;
	}
	return true;
}

static void recompute(struct netns *ns, struct tap *t, const struct link_info *li,
		      struct bridge_memo *memo)
{
	const struct link_info *master = NULL;
	struct bridge_memo *m = NULL;

	if (memo && !ld_cfg.unoptimised && plain_bridge_tap(ns, li, &master)) {
		m = &memo[master - ns->links];
		if (m->first && from_memo(t, li, m))
			return;
	}
	walk(ns, t, li);
	if (m && !m->first) {
		m->first = li;
		m->t = t;
	}
}

static void walk(struct netns *ns, struct tap *t, const struct link_info *li)
{
	struct link_table tbl = { .links = ns->links, .count = ns->nlinks, .routes = ns->routes,
				  .nroutes = ns->nroutes, .rules = ns->rules, .nrules = ns->nrules,
				  .routes_known = true };
	struct path_limits p;

	ld_count.recomputes++;
	path_limits_compute(&tbl, li, &p);
	t->status = p.status;
	t->size = p.max_size;
	t->segs = p.max_segs;
	snprintf(t->size_from, sizeof(t->size_from), "%s", p.size_from ? p.size_from->name : "");
	snprintf(t->segs_from, sizeof(t->segs_from), "%s", p.segs_from ? p.segs_from->name : "");
	t->size_rule = p.size_from ? p.size_rule : PATH_RULE_NONE;
	t->segs_rule = p.segs_from ? p.segs_rule : PATH_RULE_NONE;
	t->incomplete = p.incomplete;
	t->uses_routes = p.used_routes;
	compute_deps(t, &tbl, &p, li);
}

/* Whether @t's holder gave no endpoint (yet): looked at again on a timer. */
static bool no_endpoint(const struct tap *t)
{
	return t->state == TAP_NO_ENDPOINT || t->state == TAP_UNTRUSTED;
}

/* Decide what @t needs after its path or VMM may have changed. */
static void update_want(struct tap *t, bool force)
{
	if (t->status != PATH_OK) {
		/* Unknown path: leave QEMU's values alone rather than guess (docs/daemon.md). */
		if (t->state != TAP_NO_VMM && !no_endpoint(t) && !t->job)
			tap_set_state(t, TAP_NO_PATH, NULL);
		/*
		 * A value set for an earlier path (a tap routed for the moment
		 * before it was bridged, a bridge that lost its last port) must
		 * not stay: QEMU goes back to no limit.
		 */
		t->want_sync = t->applied && t->pid && !no_endpoint(t) &&
			       (t->applied_size != LD_NO_LIMIT_SIZE ||
				t->applied_segs != LD_NO_LIMIT_SEGS);
		return;
	}
	if (force || !t->applied || t->applied_size != t->size || t->applied_segs != t->segs) {
		if (t->state == TAP_UNSUPPORTED || t->state == TAP_FAILED) {
			/* Told once; a new VMM (force) or a new value earns one more try. */
			if (!force && t->applied_size == t->size && t->applied_segs == t->segs)
				return;
		}
		t->want_sync = true;
		t->retry_at = 0;
		t->backoff_s = 0;
	}
}

static struct tap *tap_new(struct netns *ns, const struct link_info *li)
{
	struct tap *t = calloc(1, sizeof(*t));
	struct tap **taps;

	if (!t)
		fail_errno("calloc");
	/* An array of pointers. NOLINTNEXTLINE(bugprone-sizeof-expression) */
	taps = realloc(ns->taps, (ns->ntaps + 1) * sizeof(*taps));
	if (!taps)
		fail_errno("realloc");
	ns->taps = taps;
	ns->taps[ns->ntaps++] = t;
	t->ns = ns;
	t->ifindex = li->ifindex;
	t->state = TAP_NO_VMM;
	t->negotiated = -1;
	return t;
}

/* Find each listed tap's holder in one /proc scan; a new holder means a new (or restarted) QEMU. */
static void resolve_holders(struct netns *ns, struct tap **list, size_t n, double now)
{
	struct tap_holders all;
	size_t i;
	int ret;

	if (!n)
		return;
	ld_count.proc_scans++;
	ret = tap_holders_scan(ns->dev, ns->ino, &all);
	if (ret) {
		ld_logp(LD_ERR, "scanning /proc for tap holders: %s", strerror(-ret));
		return;
	}
	for (i = 0; i < n; i++) {
		struct tap *t = list[i];
		char key[IF_NAMESIZE];
		const struct tap_holder *h;

		if (!strcmp(t->kind, "macvtap"))
			tap_holder_macvtap_key(t->ifindex, key, sizeof(key));
		else
			snprintf(key, sizeof(key), "%s", t->ifname);
		h = tap_holders_find(&all, key, t->pid);

		if (!h) {
			if (t->job)
				job_cancel(t->job);
			t->pid = 0;
			t->starttime = 0;
			t->applied = false;
			t->want_sync = false;
			tap_set_state(t, TAP_NO_VMM, NULL);
			continue;
		}
		/*
		 * The same QEMU as before, unless it gave no endpoint: libvirtd
		 * holds a tap before it execs QEMU (exec keeps the pid and start
		 * time), and the manager's records appear after that.
		 */
		if (h->pid == t->pid && h->starttime == t->starttime && !no_endpoint(t))
			continue;
		if (t->job)
			job_cancel(t->job);
		if (h->pid != t->pid || h->starttime != t->starttime)
			t->recheck_s = 0;
		t->pid = h->pid;
		t->starttime = h->starttime;
		t->applied = false;
		t->negotiated = -1;
		t->recheck_at = 0;
		if (endpoint_resolve(t, h, &all)) {
			/* A new QEMU starts from its configured values: set ours again. */
			tap_set_state(t, TAP_PENDING, NULL);
			update_want(t, true);
			t->recheck_s = 0;
		} else {
			t->want_sync = false;
			if (t->untrusted)
				tap_set_state(t, TAP_UNTRUSTED, "not acted on: %s", t->vmm_note);
			else
				tap_set_state(t, TAP_NO_ENDPOINT, "%s", t->vmm_note);
			t->recheck_s = t->recheck_s ? t->recheck_s * 2 : 0.25;
			if (t->recheck_s > 30)
				t->recheck_s = 30;
			if (!ld_cfg.once)
				t->recheck_at = now + t->recheck_s;
		}
	}
	tap_holders_free(&all);
}

static void remove_tap(struct netns *ns, size_t i)
{
	tap_free(ns->taps[i]);
	ns->taps[i] = ns->taps[--ns->ntaps];
}

void netns_process(struct netns *ns)
{
	struct link_info *links, *old = ns->links;
	struct route_info *routes;
	struct rule_info *rules = NULL;
	size_t count, nold = ns->nlinks, nroutes, nrules = 0, i, j;
	const char *what = "route";
	bool routes_changed;
	struct int_set touched = { 0 }, holders_due = { 0 };
	struct tap **check, **tap_at;
	struct bridge_memo *memo = NULL;
	size_t ncheck = 0;
	bool all = ns->overrun || ns->resync || !old;
	double now = clock_now_s();
	int ret;

	ns->dirty = false;
	ld_count.bursts++;
	ld_count.dumps++;
	ret = link_query_dump(&ns->dumpq, &links, &count);
	if (ret) {
		ld_logp(LD_ERR, "%s: link dump failed: %s; retrying", ns->name[0] ? ns->name : "netns",
		       strerror(-ret));
		ns->dirty = true;
		ns->last_event = clock_now_s();
		return;
	}
	ret = route_query_dump(&ns->dumpq, &routes, &nroutes);
	if (!ret) {
		what = "rule";
		ret = rule_query_dump(&ns->dumpq, &rules, &nrules);
		if (ret)
			free(routes);
	}
	if (ret) {
		free(links);
		ld_logp(LD_ERR, "%s: %s dump failed: %s; retrying", ns->name[0] ? ns->name : "netns",
		       what, strerror(-ret));
		ns->dirty = true;
		ns->last_event = clock_now_s();
		return;
	}
	/*
	 * route_info_parse() and rule_info_parse() zero each entry: equal
	 * entries compare equal bytewise.  A rule change counts as a route
	 * change: it moves routed taps' packets to other tables.
	 */
	routes_changed = nroutes != ns->nroutes || nrules != ns->nrules ||
			 (nroutes && memcmp(routes, ns->routes, nroutes * sizeof(*routes))) ||
			 (nrules && memcmp(rules, ns->rules, nrules * sizeof(*rules)));
	free(ns->routes);
	ns->routes = routes;
	ns->nroutes = nroutes;
	free(ns->rules);
	ns->rules = rules;
	ns->nrules = nrules;
	qsort(links, count, sizeof(*links), cmp_link);

	/* Changed devices, and the masters they left or joined. */
	for (i = 0, j = 0; i < count || j < nold;) {
		const struct link_info *n = i < count ? &links[i] : NULL;
		const struct link_info *o = j < nold ? &old[j] : NULL;

		if (n && o && n->ifindex == o->ifindex) {
			if (link_changed(n, o)) {
				set_add(&touched, n->ifindex);
				set_add(&touched, n->master);
				set_add(&touched, o->master);
			}
			/* Carrier of a tap: its holder attached or detached (QEMU restarted). */
			if (path_is_tap(n) && ((n->flags ^ o->flags) & LINK_IFF_LOWER_UP))
				set_add(&holders_due, n->ifindex);
			i++, j++;
		} else if (n && (!o || n->ifindex < o->ifindex)) {
			set_add(&touched, n->ifindex);
			set_add(&touched, n->master);
			i++;
		} else if (o) {
			set_add(&touched, o->ifindex);
			set_add(&touched, o->master);
			j++;
		}
	}
	set_sort(&touched);
	set_sort(&holders_due);
	ns->links = links;
	ns->nlinks = count;
	free(old);

	/* Taps that went away. */
	for (i = 0; i < ns->ntaps;) {
		const struct link_info *li = find_link(links, count, ns->taps[i]->ifindex);

		if (!li || !path_is_tap(li)) {
			if (ld_cfg.verbose)
				ld_logp(LD_DEBUG, "%s: gone", ns->taps[i]->ifname);
			remove_tap(ns, i);
		} else {
			i++;
		}
	}

	/* An array of pointers. NOLINTNEXTLINE(bugprone-sizeof-expression) */
	check = calloc(count + 1, sizeof(*check));
	if (!check)
		fail_errno("calloc");
	/* Each link's tap, by the link's slot: no search per link. */
	/* NOLINTNEXTLINE(bugprone-sizeof-expression) */
	tap_at = calloc(count + 1, sizeof(*tap_at));
	if (!tap_at)
		fail_errno("calloc");
	for (i = 0; i < ns->ntaps; i++) {
		const struct link_info *li = find_link(links, count, ns->taps[i]->ifindex);

		if (li)
			tap_at[li - links] = ns->taps[i];
	}
	for (i = 0; i < count; i++) {
		const struct link_info *li = &links[i];
		struct tap *t = NULL;
		bool is_new = false, affected;

		/* tun taps, and macvtaps (held as /dev/tapIFINDEX: tap_holders.h) */
		if (!path_is_tap(li))
			continue;
		t = tap_at[i];
		if (!t) {
			t = tap_new(ns, li);
			is_new = true;
		}
		snprintf(t->ifname, sizeof(t->ifname), "%s", li->name);
		snprintf(t->kind, sizeof(t->kind), "%s", li->kind);
		t->flags = li->flags;
		affected = all || is_new || (t->wide && touched.n) ||
			   (t->uses_routes && routes_changed);
		for (j = 0; !affected && j < t->ndeps; j++)
			affected = set_has(touched.v, touched.n, t->deps[j]);
		if (affected) {
			uint32_t size = t->size, segs = t->segs;
			enum path_status st = t->status;

			if (!memo) {
				memo = calloc(count, sizeof(*memo));
				if (!memo)
					fail_errno("calloc");
			}
			recompute(ns, t, li, memo);
			if (ld_cfg.verbose && !is_new &&
			    (size != t->size || segs != t->segs || st != t->status))
				ld_logp(LD_DEBUG, "%s: path now %s %u/%u", t->ifname, path_status_name(t->status),
				       t->size, t->segs);
			if (!is_new && !ns->resync)
				update_want(t, false);
		}
		if (is_new || ns->resync || set_has(holders_due.v, holders_due.n, li->ifindex) ||
		    (!t->pid && (affected || ns->rescan)) ||
		    (no_endpoint(t) && t->recheck_at && t->recheck_at <= now))
			check[ncheck++] = t;
	}
	resolve_holders(ns, check, ncheck, now);
	ns->recheck_at = 0;
	for (i = 0; i < ns->ntaps; i++) {
		const struct tap *t = ns->taps[i];

		if (no_endpoint(t) && t->recheck_at &&
		    (!ns->recheck_at || t->recheck_at < ns->recheck_at))
			ns->recheck_at = t->recheck_at;
	}
	if (ns->resync) {
		for (i = 0; i < ns->ntaps; i++)
			if (ns->taps[i]->pid && !no_endpoint(ns->taps[i]))
				update_want(ns->taps[i], true);
	}
	for (i = 0; i < ns->ntaps; i++)
		if (ns->taps[i]->status != PATH_OK)
			update_want(ns->taps[i], false);
	free(check);
	free(memo);
	free(tap_at);
	free(touched.v);
	free(holders_due.v);
	/* A guest negotiates after its QEMU was set: ask again on every rescan until it has. */
	for (i = 0; ns->rescan && i < ns->ntaps; i++)
		if (ns->taps[i]->state == TAP_SYNCED && ns->taps[i]->negotiated != 1)
			ns->taps[i]->want_status = true;
	ns->overrun = false;
	ns->resync = false;
	ns->rescan = false;
	sched_changed();
}
