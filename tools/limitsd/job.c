// SPDX-License-Identifier: GPL-2.0-only
/*
 * One QMP conversation that sets one tap's limits, driven by the event
 * loop without ever blocking it: a hung or busy QEMU costs its own
 * timeout, never another VM's update.
 *
 * Over a unix socket (Proxmox, plain -qmp): connect, read the greeting,
 * qmp_capabilities, then the commands one at a time, each reply awaited
 * with a timeout and events in between skipped.  Over libvirt: one
 * `virsh qemu-monitor-command --pretty -- UUID JSON` per command (the
 * domain by its UUID: virsh would take a name "7" as ID 7), its
 * stdout read the same way (virsh prints QEMU's reply, errors included).
 *
 * Commands: the device first, from QEMU itself (once per QEMU, endpoint.c):
 * human-monitor-command "info network" (the netdev holding the tap), then
 * qom-get ... netdev on the command line's device id if it has one, else
 * (or if that is not the netdev's device) qom-list of the device
 * containers and qom-get netdev on each virtio-net device; then
 *   {"execute":"qom-set","arguments":{"path":P,"property":"host-gso-limits",
 *    "value":{"size":N,"segs":M}}}
 * on the device, or on its virtio-backend child if the property is not
 * found on the proxy.  Not found on either: the device does not offer the
 * feature; logged once and not retried until that QEMU is replaced.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/json_value.h"
#include "lib/qemu_info_network.h"
#include "lib/unix_socket.h"
#include "limitsd.h"

#define JOB_RBUF	65536
#define JOB_MAX_CANDIDATES	32
#define JOB_MAX		256

enum job_step { STEP_INFO, STEP_LIST, STEP_GET_NETDEV, STEP_PROBE, STEP_SET, STEP_STATUS };

/*
 * Where virtio-net devices sit in QOM: -device with an id, without one,
 * and -nic's (created by the board, "unattached").  A device known from
 * the command line is anonymous (the first only); one known from QEMU
 * alone (STEP_INFO) may be in any.
 */
static const char *const containers[] = {
	"/machine/peripheral-anon", "/machine/peripheral", "/machine/unattached",
};
enum job_phase { PH_GREETING, PH_CAPS, PH_REPLY, PH_VIRSH_READ, PH_VIRSH_REAP };

struct job {
	struct tap *tap;
	int fd;
	pid_t child;			/* virsh */
	enum job_phase phase;
	enum job_step step;
	double deadline;
	uint32_t size, segs;		/* what this conversation sets */
	char rbuf[JOB_RBUF];
	size_t rlen;
	char wbuf[2048];
	size_t wlen, woff;
	char *cand[JOB_MAX_CANDIDATES];	/* anonymous virtio-net devices */
	size_t ncand, icand;
	size_t icont, ncont;		/* STEP_LIST: containers[icont], of ncont to list */
	bool hint_cand;			/* cand[0] is the command line's device, unconfirmed */
	bool tried_backend;
	bool set_ok;			/* the qom-set went through (STEP_STATUS follows) */
	bool status_only;		/* only ask whether the guest negotiated the feature */
	unsigned int seq;
	double reap_check;		/* PH_VIRSH_REAP: next waitpid() */
};

static struct job *jobs[JOB_MAX];
static unsigned int njobs;

unsigned int job_count(void)
{
	return njobs;
}

struct job *job_at(unsigned int i)
{
	return i < njobs ? jobs[i] : NULL;
}

int job_fd(const struct job *j)
{
	return j->fd;
}

short job_events(const struct job *j)
{
	return (short)(j->wlen > j->woff ? POLLOUT : POLLIN);
}

double job_deadline(const struct job *j)
{
	/* virsh closed its stdout but has not exited yet: look again soon. */
	if (j->phase == PH_VIRSH_REAP && j->reap_check < j->deadline)
		return j->reap_check;
	return j->deadline;
}

static void job_free(struct job *j)
{
	unsigned int i;
	size_t k;

	if (j->fd >= 0)
		close(j->fd);
	if (j->child > 0) {
		kill(j->child, SIGKILL);
		waitpid(j->child, NULL, 0);
	}
	for (k = 0; k < j->ncand; k++)
		free(j->cand[k]);
	for (i = 0; i < njobs; i++)
		if (jobs[i] == j) {
			jobs[i] = jobs[--njobs];
			break;
		}
	if (j->tap)
		j->tap->job = NULL;
	free(j);
	sched_changed();
}

void job_cancel(struct job *j)
{
	if (j->tap)
		j->tap->job = NULL;
	j->tap = NULL;
	job_free(j);
}

static const char *tap_label(const struct tap *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", t->ns->name, t->ns->name[0] ? "/" : "", t->ifname);
	return buf;
}

/*
 * A conversation that failed.  @retry: QEMU or the way to it did not
 * answer: try again later, with back-off.  Else QEMU answered no (state
 * @refused): not retried until the VM or the value changes.
 */
static void job_fail(struct job *j, double now, bool retry, enum tap_state refused,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void job_fail(struct job *j, double now, bool retry, enum tap_state refused,
		     const char *fmt, ...)
{
	struct tap *t = j->tap;
	char msg[480];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (j->status_only) {
		/* Only a question about the guest: the limits stand, asked again later. */
		if (t)
			t->want_status = false;
		job_free(j);
		return;
	}
	ld_count.failures++;
	if (t && retry) {
		t->backoff_s = t->backoff_s ? t->backoff_s * 2 : 1;
		if (t->backoff_s > ld_cfg.retry_max_s)
			t->backoff_s = ld_cfg.retry_max_s;
		t->retry_at = now + t->backoff_s;
		t->want_sync = !ld_cfg.once;
		tap_set_state(t, TAP_RETRY, "%s; %s", msg,
			      ld_cfg.once ? "not retried (--once)" : "will retry");
	} else if (t) {
		t->want_sync = false;
		/* Remember the value refused, so the same one is not offered again. */
		t->applied = false;
		t->applied_size = j->size;
		t->applied_segs = j->segs;
		tap_set_state(t, refused, "%s", msg);
	}
	job_free(j);
}

#define job_retry(j, now, ...)		job_fail(j, now, true, TAP_RETRY, __VA_ARGS__)
#define job_refused(j, s, ...)		job_fail(j, 0, false, s, __VA_ARGS__)

/*
 * A NIC is hot-plugged as netdev_add, then device_add (the order QEMU
 * requires; Proxmox's qemu-server and libvirt follow it): the tap exists,
 * and may already be in its bridge, before its device does.  So a tap
 * whose netdev has no virtio-net device yet is tried again a few times
 * (1 + 2 + 4 + 8 s) before it is told once, as a netdev of another NIC
 * model (e1000, ...) is.
 */
#define JOB_NO_DEVICE_RETRY_S	8.0
#define job_no_device(j, now, ...)					\
	job_fail(j, now, (j)->tap && (j)->tap->backoff_s < JOB_NO_DEVICE_RETRY_S, \
		 TAP_FAILED, __VA_ARGS__)

static void job_done(struct job *j)
{
	struct tap *t = j->tap;
	char label[96], where[600];

	ld_count.sets++;
	if (t) {
		t->applied = true;
		t->applied_size = j->size;
		t->applied_segs = j->segs;
		t->backoff_s = 0;
		endpoint_describe(&t->ep, where, sizeof(where));
		if (t->status != PATH_OK && j->size == LD_NO_LIMIT_SIZE &&
		    j->segs == LD_NO_LIMIT_SEGS) {
			ld_log("%s: set back to no limit (size %u segs %u): its path is no longer "
			       "known (%s) via %s", tap_label(t, label, sizeof(label)), j->size,
			       j->segs, path_status_name(t->status), where);
			tap_set_state(t, TAP_NO_PATH, NULL);
		} else {
			ld_log("%s: set size %u segs %u (path limit from %s) via %s%s",
			       tap_label(t, label, sizeof(label)), j->size, j->segs,
			       t->size_from[0] ? t->size_from : "-", where,
			       t->ep.backend ? "/virtio-backend" : "");
			tap_set_state(t, TAP_SYNCED, NULL);
		}
		/* The path moved while we talked: go again. */
		t->want_sync = t->status == PATH_OK ? t->size != j->size || t->segs != j->segs :
			       j->size != LD_NO_LIMIT_SIZE || j->segs != LD_NO_LIMIT_SEGS;
	}
	job_free(j);
}

static bool queue_text(struct job *j, const char *text)
{
	size_t n = strlen(text);

	if (n + 1 > sizeof(j->wbuf))
		return false;
	memcpy(j->wbuf, text, n);
	j->wbuf[n++] = '\n';
	j->wlen = n;
	j->woff = 0;
	ld_count.qmp_commands++;
	if (j->tap)
		j->tap->commands++;
	return true;
}

/*
 * The JSON of the current step's command.  Over a socket it carries an
 * "id"; through virsh it must not: libvirt adds its own and refuses a
 * command that has one ("Unable to append command 'id' string").
 */
static void step_command(struct job *j, char *buf, size_t len)
{
	const struct endpoint *ep = &j->tap->ep;
	char id[32] = "";

	if (ep->kind != EP_LIBVIRT)
		snprintf(id, sizeof(id), ",\"id\":%u", ++j->seq);
	switch (j->step) {
	case STEP_INFO:
		snprintf(buf, len, "{\"execute\":\"human-monitor-command\",\"arguments\":"
			 "{\"command-line\":\"info network\"}%s}", id);
		break;
	case STEP_LIST:
		snprintf(buf, len, "{\"execute\":\"qom-list\",\"arguments\":"
			 "{\"path\":\"%s\"}%s}", containers[j->icont], id);
		break;
	case STEP_GET_NETDEV:
		snprintf(buf, len, "{\"execute\":\"qom-get\",\"arguments\":{\"path\":\"%s\","
			 "\"property\":\"netdev\"}%s}", j->cand[j->icand], id);
		break;
	case STEP_PROBE:
		snprintf(buf, len, "{\"execute\":\"qom-get\",\"arguments\":{\"path\":\"%s\","
			 "\"property\":\"host_gso_max\"}%s}", ep->qom, id);
		break;
	case STEP_STATUS:
		snprintf(buf, len, "{\"execute\":\"x-query-virtio-status\",\"arguments\":"
			 "{\"path\":\"%s/virtio-backend\"}%s}", ep->qom, id);
		break;
	case STEP_SET:
		snprintf(buf, len, "{\"execute\":\"qom-set\",\"arguments\":{\"path\":\"%s%s\","
			 "\"property\":\"%s\",\"value\":{\"size\":%u,\"segs\":%u}}"
			 "%s}", ep->qom, ep->backend ? "/virtio-backend" : "",
			 ep->prop == PROP_V3 ? "host_gso_max" : "host-gso-limits",
			 j->size, j->segs, id);
		break;
	}
}

/* Whether @s holds only characters a QOM path or id needs (it goes into JSON unescaped). */
static bool plain_text(const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

static void flush_write(struct job *j, double now);
static bool virsh_run(struct job *j, const char *json, double now);

static void send_step(struct job *j, double now)
{
	char cmd[1536];

	step_command(j, cmd, sizeof(cmd));
	j->deadline = now + ld_cfg.qmp_timeout_s;
	if (j->tap->ep.kind == EP_LIBVIRT) {
		if (!virsh_run(j, cmd, now))
			job_retry(j, now, "cannot run %s: %s", ld_cfg.virsh, strerror(errno));
		return;
	}
	queue_text(j, cmd);
	j->phase = PH_REPLY;
	flush_write(j, now);
}

/* A reply to the current step: the next step, or the end. */
static void step_reply(struct job *j, const struct jv *msg, double now)
{
	struct tap *t = j->tap;
	const struct jv *ret = jv_get(msg, "return"), *err = jv_get(msg, "error");
	const char *cls = jv_get_string(err, "class"), *desc = jv_get_string(err, "desc");
	size_t i;

	if (!ret && !err) {
		job_retry(j, now, "QMP reply without return or error");
		return;
	}
	switch (j->step) {
	case STEP_INFO: {
		enum qemu_tap_holder holder = QEMU_TAP_NONE;
		char holder_name[sizeof(t->ep.netdev)];

		/*
		 * QEMU's own word on which netdev holds the tap: "info network"
		 * lists each NIC and, under it, " \ NETDEV: index=0,type=tap,
		 * ifname=TAP,..." (or fd=N).  The command line's netdev only if
		 * QEMU's text does not say (no such command, a tap QEMU names
		 * otherwise); the device found on it below confirms or refutes it.
		 * A tap on a hub's port (legacy -net) has no device of its own
		 * to set: told so, not looked for.
		 */
		if (ret && ret->type == JV_STRING)
			holder = qemu_info_network_tap(ret->string, t->ifname, t->fds, t->nfds,
						       holder_name, sizeof(holder_name));
		if (holder == QEMU_TAP_HUB) {
			job_refused(j, TAP_UNSUPPORTED,
				    "legacy -net hub: not supported, use -netdev: QEMU has the tap on "
				    "hub port %s (-net nic -net tap, or -netdev hubport), where the "
				    "NICs get no virtio-net header, so no GSO and no GSO limits; "
				    "give it -netdev tap,id=ID with -device virtio-net-pci,netdev=ID "
				    "(or -nic tap)", holder_name);
			return;
		}
		if (holder == QEMU_TAP_NETDEV) {
			snprintf(t->ep.netdev, sizeof(t->ep.netdev), "%s", holder_name);
		} else {
			if (!t->ep.hint_netdev[0]) {
				job_refused(j, TAP_FAILED, "QEMU's 'info network' has no netdev with "
					    "ifname=%s or one of its descriptors", t->ifname);
				return;
			}
			/*
			 * QEMU confirms below that the device sits on this
			 * netdev, not that this netdev holds the tap: say so.
			 */
			ld_logp(LD_WARNING, "%s: QEMU's 'info network' does not name it; "
				"taking netdev %s from pid %d's command line, unconfirmed",
				t->ifname, t->ep.hint_netdev, (int)t->pid);
			snprintf(t->ep.netdev, sizeof(t->ep.netdev), "%s", t->ep.hint_netdev);
		}
		if (t->ep.hint_device_id[0] && plain_text(t->ep.hint_device_id)) {
			/* Ask about the command line's device first: one command when it is true. */
			char path[QEMU_OPT_MAX + 64];

			snprintf(path, sizeof(path), "/machine/peripheral/%s", t->ep.hint_device_id);
			j->cand[0] = strdup(path);
			if (!j->cand[0])
				fail_errno("strdup");
			j->ncand = 1;
			j->icand = 0;
			j->hint_cand = true;
			j->step = STEP_GET_NETDEV;
			break;
		}
		j->step = STEP_LIST;
		j->icont = 0;
		j->ncont = sizeof(containers) / sizeof(containers[0]);
		break;
	}
	case STEP_LIST:
		/* A container QEMU does not have (an error) holds no device: the next one. */
		for (i = 0; ret && ret->type == JV_ARRAY && i < ret->count && j->ncand < JOB_MAX_CANDIDATES; i++) {
			const char *name = jv_get_string(&ret->items[i], "name");
			const char *type = jv_get_string(&ret->items[i], "type");
			char path[QEMU_OPT_MAX + 64];

			if (!name || !type || strncmp(type, "child<virtio-net", 16) ||
			    !plain_text(name))
				continue;
			snprintf(path, sizeof(path), "%s/%s", containers[j->icont], name);
			j->cand[j->ncand++] = strdup(path);
			if (!j->cand[j->ncand - 1])
				fail_errno("strdup");
		}
		if (++j->icont < j->ncont)
			break;	/* the next container */
		if (!j->ncand) {
			job_no_device(j, now, "no virtio-net device in QEMU");
			return;
		}
		j->step = STEP_GET_NETDEV;
		j->icand = 0;
		break;
	case STEP_GET_NETDEV:
		if (ret && ret->type == JV_STRING && !strcmp(ret->string, t->ep.netdev)) {
			snprintf(t->ep.qom, sizeof(t->ep.qom), "%s", j->cand[j->icand]);
			j->step = t->ep.prop == PROP_UNKNOWN ? STEP_PROBE : STEP_SET;
		} else if (j->hint_cand) {
			char label[96];

			/* The command line's device is not there, or not on this netdev: list. */
			ld_logp(LD_WARNING, "%s: pid %d's command line names device %s for it, but "
				"QEMU says %s; not believed, looking up the device of netdev %s",
				tap_label(t, label, sizeof(label)), (int)t->pid, j->cand[0],
				ret && ret->type == JV_STRING ? "that device is on another netdev" :
				"there is no such device", t->ep.netdev);
			free(j->cand[0]);
			j->cand[0] = NULL;
			j->ncand = 0;
			j->hint_cand = false;
			j->step = STEP_LIST;
			j->icont = 0;
			j->ncont = sizeof(containers) / sizeof(containers[0]);
		} else if (++j->icand == j->ncand) {
			job_no_device(j, now, "no virtio-net device with netdev %s", t->ep.netdev);
			return;
		}
		break;
	case STEP_PROBE:
		/*
		 * QEMU's interface v3 (docs/qemu.md): host_gso_max reads
		 * {size, segs, offered}; "offered": false is the device not
		 * offering the feature, fixed for its lifetime.  Not found: the
		 * v2 property host-gso-limits (or a QEMU without the series).
		 */
		if (ret && ret->type == JV_OBJECT) {
			const struct jv *off = jv_get(ret, "offered");

			t->ep.prop = PROP_V3;
			if (off && off->type == JV_BOOL && !off->boolean) {
				job_refused(j, TAP_UNSUPPORTED,
					    "%s does not offer the GSO limits feature (machine type 10.2 "
					    "or older, host_gso_limits=off, or a backend without TSO: use "
					    "a machine type >= 11.0 or host_gso_limits=on)", t->ep.qom);
				return;
			}
		} else {
			t->ep.prop = PROP_V2;
		}
		j->step = STEP_SET;
		break;
	case STEP_STATUS:
		/*
		 * x-query-virtio-status: the guest's features name the feature once
		 * its driver accepted it.  No answer (a QEMU without the command):
		 * not known.
		 */
		t->negotiated = -1;
		if (ret) {
			const struct jv *gf = jv_get(ret, "guest-features");
			const struct jv *df = gf ? jv_get(gf, "dev-features") : NULL;

			t->negotiated = 0;
			for (i = 0; df && df->type == JV_ARRAY && i < df->count; i++)
				if (df->items[i].type == JV_STRING &&
				    !strncmp(df->items[i].string, "VIRTIO_NET_F_GSO_LIMITS", 23))
					t->negotiated = 1;
		}
		if (j->status_only) {
			t->want_status = false;
			job_free(j);
		} else {
			job_done(j);
		}
		return;
	case STEP_SET:
		if (ret) {
			/* Then whether the guest uses it, until it does (status "negotiated"). */
			if (t->negotiated != 1) {
				j->set_ok = true;
				j->step = STEP_STATUS;
				break;
			}
			job_done(j);
			return;
		}
		if (cls && !strcmp(cls, "GenericError") && desc &&
		    strstr(desc, "host-gso-limits") && strstr(desc, "does not offer")) {
			/* Patched QEMU, device started without the feature (docs/qemu.md). */
			job_refused(j, TAP_UNSUPPORTED,
				    "%s does not offer the GSO limits feature (start the device with "
				    "host_gso_max_segs=65535 to let the daemon manage it): %s",
				    t->ep.qom, desc);
			return;
		}
		if (cls && !strcmp(cls, "GenericError") && desc && strstr(desc, "not found") &&
		    strstr(desc, "host-gso-limits")) {
			if (!j->tried_backend) {
				/* The property may live on the virtio device under the proxy. */
				j->tried_backend = true;
				t->ep.backend = !t->ep.backend;
				break;
			}
			t->ep.backend = false;
			job_refused(j, TAP_UNSUPPORTED,
				    "%s has no host-gso-limits property (a QEMU without the GSO "
				    "limits series): %s",
				    t->ep.qom, desc);
			return;
		}
		if (cls && !strcmp(cls, "DeviceNotFound") && !t->ep.device_id[0])
			t->ep.qom[0] = '\0';	/* an anonymous device moved: look again next time */
		job_refused(j, TAP_FAILED, "QEMU refused qom-set %s: %s: %s", t->ep.qom,
			    cls ? cls : "?", desc ? desc : "?");
		return;
	}
	send_step(j, now);
}

/* One complete message from a socket conversation. */
static void socket_message(struct job *j, const struct jv *msg, double now)
{
	if (jv_get(msg, "event"))
		return;	/* asynchronous events come whenever QEMU likes */
	switch (j->phase) {
	case PH_GREETING:
		if (!jv_get(msg, "QMP")) {
			job_retry(j, now, "%s: no QMP greeting", j->tap->ep.socket);
			return;
		}
		queue_text(j, "{\"execute\":\"qmp_capabilities\"}");
		j->phase = PH_CAPS;
		j->deadline = now + ld_cfg.qmp_timeout_s;
		flush_write(j, now);
		return;
	case PH_CAPS:
		if (!jv_get(msg, "return")) {
			job_retry(j, now, "%s: qmp_capabilities refused", j->tap->ep.socket);
			return;
		}
		send_step(j, now);
		return;
	case PH_REPLY:
		step_reply(j, msg, now);
		return;
	default:
		return;
	}
}

static void flush_write(struct job *j, double now)
{
	while (j->woff < j->wlen) {
		ssize_t n = send(j->fd, j->wbuf + j->woff, j->wlen - j->woff,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;	/* POLLOUT will bring us back */
			job_retry(j, now, "%s: %s", j->tap->ep.socket, strerror(errno));
			return;
		}
		j->woff += (size_t)n;
	}
}

static bool virsh_run(struct job *j, const char *json, double now)
{
	int pipefd[2];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return false;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return false;
	}
	if (!pid) {
		int devnull = open("/dev/null", O_RDONLY);

		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(pipefd[1], STDOUT_FILENO);
		/*
		 * The domain by UUID, never by name: virsh tries an ID, then a
		 * UUID, then a name, so a domain named "7" would be ID 7's.
		 * "--" ends the options (a UUID never starts with '-' anyway).
		 */
		execlp(ld_cfg.virsh, ld_cfg.virsh, "qemu-monitor-command", "--pretty", "--",
		       j->tap->ep.uuid, json, (char *)NULL);
		fprintf(stderr, "gso-limitsd: exec %s: %s\n", ld_cfg.virsh, strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	if (j->fd >= 0)
		close(j->fd);
	j->fd = pipefd[0];
	j->child = pid;
	j->rlen = 0;
	j->phase = PH_VIRSH_READ;
	j->deadline = now + ld_cfg.qmp_timeout_s;
	ld_count.qmp_connects++;
	ld_count.qmp_commands++;
	j->tap->commands++;
	return true;
}

static void virsh_finish(struct job *j, int status, double now)
{
	struct jv *msg;

	j->child = 0;
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		job_retry(j, now, "%s qemu-monitor-command %s (domain %s) failed (status %d)",
			  ld_cfg.virsh, j->tap->ep.uuid, j->tap->ep.domain,
			  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return;
	}
	msg = jv_parse(j->rbuf, j->rlen);
	if (!msg) {
		job_retry(j, now, "virsh printed no QMP reply");
		return;
	}
	step_reply(j, msg, now);
	jv_free(msg);
}

static void virsh_reap(struct job *j, double now)
{
	int status;
	pid_t r = waitpid(j->child, &status, WNOHANG);

	if (r == j->child) {
		virsh_finish(j, status, now);
		return;
	}
	/* stdout closed, not exited yet: poll waitpid() from the timer, not the fd. */
	close(j->fd);
	j->fd = -1;
	j->phase = PH_VIRSH_REAP;
	j->reap_check = now + 0.005;
}

void job_io(struct job *j, double now)
{
	if (j->wlen > j->woff) {
		flush_write(j, now);
		return;
	}
	for (;;) {
		ssize_t n;

		if (j->rlen == sizeof(j->rbuf)) {
			job_retry(j, now, "QMP message larger than %d bytes", JOB_RBUF);
			return;
		}
		n = read(j->fd, j->rbuf + j->rlen, sizeof(j->rbuf) - j->rlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			if (j->phase == PH_VIRSH_READ) {
				virsh_reap(j, now);
			} else {
				job_retry(j, now, "%s: connection closed%s%s", j->tap->ep.socket,
					  n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
			}
			return;
		}
		j->rlen += (size_t)n;
	}
	if (j->phase == PH_VIRSH_READ)
		return;	/* virsh's reply is whole at EOF */
	for (;;) {
		long mlen = jv_message_len(j->rbuf, j->rlen);
		struct jv *msg;
		struct job *still;
		unsigned int i;

		if (!mlen)
			return;
		if (mlen < 0 || !(msg = jv_parse(j->rbuf, (size_t)mlen))) {
			job_retry(j, now, "%s: not QMP", j->tap->ep.socket);
			return;
		}
		memmove(j->rbuf, j->rbuf + mlen, j->rlen - (size_t)mlen);
		j->rlen -= (size_t)mlen;
		socket_message(j, msg, now);
		jv_free(msg);
		/* The message may have ended the job. */
		for (i = 0, still = NULL; i < njobs; i++)
			if (jobs[i] == j)
				still = j;
		if (!still)
			return;
	}
}

void job_check_timeout(struct job *j, double now)
{
	if (j->phase == PH_VIRSH_REAP) {
		int status;

		if (waitpid(j->child, &status, WNOHANG) == j->child) {
			virsh_finish(j, status, now);
			return;
		}
		j->reap_check = now + 0.005;
	}
	if (now < j->deadline)
		return;
	if (j->tap && j->tap->ep.kind == EP_LIBVIRT)
		job_retry(j, now, "virsh qemu-monitor-command %s (domain %s): no answer in %.1f s",
			  j->tap->ep.uuid, j->tap->ep.domain, ld_cfg.qmp_timeout_s);
	else
		job_retry(j, now, "%s: no answer in %.1f s (busy or hung QEMU)",
			  j->tap ? j->tap->ep.socket : "?", ld_cfg.qmp_timeout_s);
}

/* What @t's QEMU is to be told: the path's limits, or no limit once the path is unknown. */
static void target(const struct tap *t, uint32_t *size, uint32_t *segs)
{
	*size = t->status == PATH_OK ? t->size : LD_NO_LIMIT_SIZE;
	*segs = t->status == PATH_OK ? t->segs : LD_NO_LIMIT_SEGS;
}

bool job_start(struct tap *t, double now)
{
	uint32_t size, segs;
	struct job *j;
	char label[96], where[600];
	bool sync = t->want_sync;

	if (!sync && t->want_status && (!(t->ep.qom[0] && t->applied) || ld_cfg.dry_run)) {
		t->want_status = false;	/* not set yet: the next set asks */
		return false;
	}
	t->want_sync = false;
	if (!plain_text(t->ep.qom) || !plain_text(t->ep.netdev)) {
		tap_set_state(t, TAP_FAILED, "device id or netdev with characters QMP paths do not take");
		return false;
	}
	target(t, &size, &segs);
	if (ld_cfg.dry_run) {
		endpoint_describe(&t->ep, where, sizeof(where));
		/* With --json, stdout is the JSON document alone: the lines go to stderr. */
		fprintf(ld_cfg.json ? stderr : stdout,
			"would set %s: size %u segs %u (path limit from %s) via %s\n",
			tap_label(t, label, sizeof(label)), size, segs,
			t->size_from[0] ? t->size_from : "-", where);
		fflush(ld_cfg.json ? stderr : stdout);
		t->applied = true;
		t->applied_size = size;
		t->applied_segs = segs;
		tap_set_state(t, TAP_DRY_RUN, NULL);
		return true;
	}
	if (njobs == JOB_MAX || njobs >= ld_cfg.max_jobs) {
		t->want_sync = true;	/* later, when a slot frees */
		return false;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		fail_errno("calloc");
	j->tap = t;
	j->fd = -1;
	target(t, &j->size, &j->segs);
	j->step = !t->ep.qom[0] ? STEP_LIST : t->ep.prop == PROP_UNKNOWN ? STEP_PROBE : STEP_SET;
	j->ncont = sizeof(containers) / sizeof(containers[0]);
	if (!t->ep.qom[0] && !t->ep.netdev[0])
		j->step = STEP_INFO;	/* the device not known yet: ask QEMU */
	if (!sync && t->want_status && t->ep.qom[0] && t->applied) {
		/*
		 * Synced already: only ask whether the guest negotiated the
		 * feature.  (A new value wanted in the same pass, as a periodic
		 * re-read finds a changed path and asks about the guest at once,
		 * is a set: it asks after it.)
		 */
		j->status_only = true;
		j->step = STEP_STATUS;
	}
	jobs[njobs++] = j;
	t->job = j;
	if (!j->status_only)
		tap_set_state(t, TAP_IN_FLIGHT, NULL);

	if (t->ep.kind == EP_LIBVIRT) {
		send_step(j, now);
		return true;
	}
	ld_count.qmp_connects++;
	j->fd = unix_socket_connect(t->ep.socket, 1);
	if (j->fd < 0) {
		/* EAGAIN: QEMU's listen backlog is full (another client holds the monitor). */
		int err = -j->fd;

		j->fd = -1;
		job_retry(j, now, "connect %s: %s", t->ep.socket, strerror(err));
		return false;
	}
	{
		/* The socket's server must be the tap's holder: a path is only a name. */
		struct ucred cred;
		socklen_t clen = sizeof(cred);

		if (getsockopt(j->fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) || cred.pid != t->pid) {
			t->untrusted = true;
			job_refused(j, TAP_UNTRUSTED, "not acted on: %s is served by pid %d, not by "
				    "the tap's holder %d", t->ep.socket, clen ? (int)cred.pid : -1,
				    (int)t->pid);
			return false;
		}
	}
	j->phase = PH_GREETING;
	j->deadline = now + ld_cfg.qmp_timeout_s;
	return true;
}
