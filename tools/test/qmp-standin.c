// SPDX-License-Identifier: GPL-2.0-only
/*
 * qmp-standin: a QEMU stand-in for gso-limitsd's tests and benchmark.
 *
 *   qmp-standin QEMU-ARGS...          (started the way Proxmox, libvirt or a
 *                                      user starts QEMU, e.g. -id 100
 *                                      -chardev socket,id=qmp,path=P,server=on
 *                                      -mon chardev=qmp,mode=control
 *                                      -netdev type=tap,id=net0,ifname=tap100i0
 *                                      -device virtio-net-pci,netdev=net0,id=net0)
 *   qmp-standin --client SOCKET JSON  (one command over QMP, the reply on
 *                                      stdout: the tests' stand-in `virsh`)
 *   qmp-standin --tap-fd N TAP BRIDGE CMD...  (what libvirtd does before it
 *                                      starts QEMU: create TAP, put it into
 *                                      BRIDGE, pass it as descriptor N to CMD;
 *                                      a stand-in with fd=N on its command
 *                                      line then holds that descriptor)
 *
 * It reads its own command line with the same readers as the daemon
 * (lib/qemu_cmdline.c), holds every `-netdev tap` open (ifname=: opened or
 * created like QEMU does; fd=N: the tap named by QMP_STANDIN_TAPFD_N is
 * opened onto descriptor N, as libvirt passes it), and serves QMP on the
 * command line's server socket (or QMP_STANDIN_SOCKET, the socket a
 * libvirtd would hold): greeting, qmp_capabilities, qom-set, qom-get,
 * qom-list, human-monitor-command "info network" (QEMU's text: each NIC and
 * under it its tap, "ifname=TAP,..." or "fd=N"), one client at a time as QEMU's monitor does.  Every command it
 * is told is appended to QMP_STANDIN_LOG as one line:
 *
 *   <pid> qom-set <path> host-gso-limits size=<N> segs=<M> tap=<TAP> t=<wall time>
 *
 * Behaviour knobs (environment):
 *   QMP_STANDIN_PROP=proxy|backend|none|off   where host-gso-limits exists: on
 *        the virtio-net-pci device (default), on its virtio-backend child,
 *        nowhere (a QEMU without the series), or refused because the device
 *        does not offer the feature (patched QEMU, started without it); the
 *        errors are QEMU's
 *   QMP_STANDIN_EVENTS=1   an event before every reply (clients must skip them)
 *   QMP_STANDIN_NEGOTIATED=0  x-query-virtio-status: the guest has not accepted
 *                          VIRTIO_NET_F_GSO_LIMITS (default: it has)
 *   QMP_STANDIN_STUCK=1    accept connections and never answer (a hung QEMU)
 *   QMP_STANDIN_HUB=1      every NIC and its tap on ports of hub 0, as QEMU's
 *                          legacy -net nic -net tap puts them: "info network"
 *                          lists the tap on port hub0port<2i+1> (QEMU 10's
 *                          text), the device's netdev is its port hub0port<2i>
 *   QMP_STANDIN_BRIDGE=BR  put its taps into bridge BR and up, as Proxmox's
 *                          tap script does when QEMU creates the tap
 *   QMP_STANDIN_ARGV_LIE=FROM=TO[,FROM=TO]...  fault injection: once its devices
 *                          are set up from the true command line, rewrite its own
 *                          argv memory (what /proc/PID/cmdline shows) replacing
 *                          each FROM by TO (same length), as any process can:
 *                          a command line that names devices QMP does not have
 *   QMP_STANDIN_PROXMOX_DIR=DIR  many VMs in one process (the scale benchmark:
 *                          a machine shared with other work must not get a
 *                          thousand processes): a QMP socket DIR/VMID.qmp for
 *                          each tap named tap<VMID>i<N>, served one
 *                          connection at a time
 * It prints "qmp-standin: ready" when its taps are open and it listens.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/fail.h"
#include "lib/json.h"
#include "lib/json_value.h"
#include "lib/qemu_cmdline.h"
#include "lib/unix_socket.h"

#define MAX_NICS	1024	/* the benchmark's many-VM process */
#define MSG_MAX		65536

struct nic {
	char netdev[QEMU_OPT_MAX];
	char ifname[IF_NAMESIZE];
	char qom[QEMU_OPT_MAX + 32];	/* /machine/peripheral/ID or peripheral-anon/device[N] */
	char driver[64];
	bool has_device;
	bool by_fd;			/* -netdev fd=open_val, else ifname=open_val */
	char open_val[QEMU_OPT_MAX];
	bool limits_set;
	int64_t size, segs;
};

static struct nic nics[MAX_NICS];
static size_t nic_count;
static const char *prop_at = "proxy";
static bool events, stuck, hub;
static int log_fd = -1;
static volatile sig_atomic_t quit;

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	if (log_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%d ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 40)
		n = (int)sizeof(line) - 40;
	{
		/* Wall clock: the benchmark compares it with `date +%s.%N` and other processes. */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		n += snprintf(line + n, sizeof(line) - (size_t)n, " t=%lld.%09ld",
			      (long long)ts.tv_sec, ts.tv_nsec);
	}
	line[n++] = '\n';
	/* O_APPEND and one write: lines of many stand-ins do not interleave. */
	if (write(log_fd, line, (size_t)n) < 0)
		perror("qmp-standin: log");
}

static int tap_open(const char *ifname)
{
	struct ifreq ifr = { 0 };
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fail_errno("/dev/net/tun");
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		fail_msg("TUNSETIFF %s: %s", ifname, strerror(errno));
	return fd;
}

/* What Proxmox's tap script does after QEMU created the tap. */
static void tap_to_bridge(const char *ifname, const char *bridge)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		fail_errno("socket");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", bridge);
	ifr.ifr_ifindex = (int)if_nametoindex(ifname);
	if (!ifr.ifr_ifindex || ioctl(s, SIOCBRADDIF, &ifr) < 0)
		fail_msg("adding %s to bridge %s: %s", ifname, bridge, strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		fail_errno("SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		fail_errno("SIOCSIFFLAGS");
	close(s);
}

/* A descriptor number from the command line: 3..65535, digits only. */
static int fd_number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 3 || v > 65535)
		fail_msg("'%s': a descriptor number (3..65535) expected", s);
	return (int)v;
}

/* fd=N: the descriptor libvirt would have passed; QMP_STANDIN_TAPFD_N names its tap. */
static void tap_onto_fd(const char *fdstr, char *ifname_out)
{
	char var[64];
	const char *name;
	int want = fd_number(fdstr), fd;

	snprintf(var, sizeof(var), "QMP_STANDIN_TAPFD_%d", want);
	name = getenv(var);
	if (!name)
		fail_msg("-netdev fd=%d: set %s to the tap's name", want, var);
	snprintf(ifname_out, IF_NAMESIZE, "%s", name);
	if (fcntl(want, F_GETFD) >= 0)
		return;	/* passed open (--tap-fd): held as it is, as QEMU holds libvirt's */
	fd = tap_open(name);
	if (fd != want) {
		if (dup2(fd, want) < 0)
			fail_errno("dup2");
		close(fd);
	}
}

static void serve_pending(void);

static void setup_nics(const struct qemu_args *a, const char *bridge)
{
	const char *nd;
	size_t pos = 0, anon = 0, i;

	while ((nd = qemu_args_next(a, "netdev", &pos))) {
		struct nic *n;
		char type[32], val[QEMU_OPT_MAX];

		if (!qemu_opt_get(nd, "type", "type", type, sizeof(type)) || strcmp(type, "tap"))
			continue;
		if (nic_count == MAX_NICS)
			fail_msg("more than %d tap netdevs", MAX_NICS);
		n = &nics[nic_count++];
		if (!qemu_opt_get(nd, "type", "id", n->netdev, sizeof(n->netdev)))
			fail_msg("-netdev %s: no id", nd);
		if (qemu_opt_get(nd, "type", "ifname", val, sizeof(val))) {
			if (strlen(val) >= sizeof(n->ifname))
				fail_msg("ifname=%s: too long", val);
			memcpy(n->ifname, val, strlen(val) + 1);
		} else if (qemu_opt_get(nd, "type", "fd", val, sizeof(val))) {
			n->by_fd = true;
		} else {
			fail_msg("-netdev %s: neither ifname= nor fd=", nd);
		}
		snprintf(n->open_val, sizeof(n->open_val), "%s", val);
	}
	/* Devices in command-line order: anonymous ones numbered as QEMU does. */
	pos = 0;
	while ((nd = qemu_args_next(a, "device", &pos))) {
		char drv[64], netdev[QEMU_OPT_MAX], id[QEMU_OPT_MAX];

		if (!qemu_opt_get(nd, "driver", "driver", drv, sizeof(drv)))
			continue;
		if (!qemu_opt_get(nd, "driver", "id", id, sizeof(id)))
			id[0] = '\0';
		if (strncmp(drv, "virtio-net", 10) ||
		    !qemu_opt_get(nd, "driver", "netdev", netdev, sizeof(netdev))) {
			if (!id[0])
				anon++;
			continue;
		}
		for (i = 0; i < nic_count; i++) {
			if (strcmp(nics[i].netdev, netdev))
				continue;
			nics[i].has_device = true;
			snprintf(nics[i].driver, sizeof(nics[i].driver), "%s", drv);
			if (id[0])
				snprintf(nics[i].qom, sizeof(nics[i].qom), "/machine/peripheral/%s", id);
			else
				snprintf(nics[i].qom, sizeof(nics[i].qom),
					 "/machine/peripheral-anon/device[%zu]", anon);
		}
		if (!id[0])
			anon++;
	}
	/*
	 * The taps last, each answered for as soon as it exists, as its own
	 * QEMU would (many VMs in one process): its device is known by then.
	 */
	for (i = 0; i < nic_count; i++) {
		struct nic *n = &nics[i];

		if (n->by_fd)
			tap_onto_fd(n->open_val, n->ifname);
		else
			(void)tap_open(n->ifname);	/* held until exit, like QEMU's */
		if (bridge)
			tap_to_bridge(n->ifname, bridge);
		serve_pending();
	}
}

/* --- QMP server ----------------------------------------------------------- */

struct reply {
	char *buf;
	size_t len;
	FILE *f;
};

static void reply_start(struct reply *r)
{
	r->buf = NULL;
	r->f = open_memstream(&r->buf, &r->len);
	if (!r->f)
		fail_errno("open_memstream");
}

static void send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;	/* the client went away: its problem */
		}
		buf += n;
		len -= (size_t)n;
	}
}

static void reply_send(struct reply *r, int fd, const struct jv *id)
{
	if (id && id->type == JV_STRING) {
		fputs(",\"id\":", r->f);
		json_print_string(r->f, id->string);
	} else if (id && id->type == JV_NUMBER && id->is_integer) {
		fprintf(r->f, ",\"id\":%" PRId64, id->integer);
	}
	fputs("}\r\n", r->f);
	fclose(r->f);
	if (events) {
		static const char ev[] = "{\"timestamp\":{\"seconds\":1,\"microseconds\":0},"
			"\"event\":\"NIC_RX_FILTER_CHANGED\",\"data\":{\"path\":\"/machine/peripheral/x\"}}\r\n";

		send_all(fd, ev, sizeof(ev) - 1);
	}
	send_all(fd, r->buf, r->len);
	free(r->buf);
}

static void send_error(int fd, const struct jv *id, const char *cls, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void send_error(int fd, const struct jv *id, const char *cls, const char *fmt, ...)
{
	struct reply r;
	char desc[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	reply_start(&r);
	fprintf(r.f, "{\"error\":{\"class\":\"%s\",\"desc\":", cls);
	json_print_string(r.f, desc);
	fputc('}', r.f);
	reply_send(&r, fd, id);
}

static void send_return(int fd, const struct jv *id, const char *value)
{
	struct reply r;

	reply_start(&r);
	fprintf(r.f, "{\"return\":%s", value);
	reply_send(&r, fd, id);
}

/* The NIC at QOM @path, and whether @path is its virtio-backend child. */
static struct nic *nic_by_path(const char *path, bool *backend)
{
	size_t i, n;

	for (i = 0; i < nic_count; i++) {
		if (!nics[i].has_device)
			continue;
		n = strlen(nics[i].qom);
		if (strncmp(path, nics[i].qom, n))
			continue;
		if (!path[n]) {
			*backend = false;
			return &nics[i];
		}
		if (!strcmp(path + n, "/virtio-backend")) {
			*backend = true;
			return &nics[i];
		}
	}
	return NULL;
}

static bool prop_here(const struct nic *n, bool backend)
{
	(void)n;
	return !strcmp(prop_at, backend ? "backend" : "proxy");
}

static const char *type_name(const struct nic *n, bool backend)
{
	return backend ? "virtio-net-device" : n->driver;
}

static void cmd_qom_set(int fd, const struct jv *id, const struct jv *args)
{
	const char *path = jv_get_string(args, "path"), *prop = jv_get_string(args, "property");
	const struct jv *value = jv_get(args, "value");
	int64_t size, segs;
	bool backend;
	struct nic *n;

	if (!path || !prop || !value) {
		send_error(fd, id, "GenericError", "Parameter 'path' is missing");
		return;
	}
	n = nic_by_path(path, &backend);
	if (!n) {
		send_error(fd, id, "DeviceNotFound", "Device '%s' not found", path);
		return;
	}
	if (!strcmp(prop, "host-gso-limits") && !strcmp(prop_at, "off")) {
		log_line("qom-set %s %s refused: feature not offered", path, prop);
		send_error(fd, id, "GenericError",
			   "'host-gso-limits': the device does not offer VIRTIO_NET_F_GSO_LIMITS; "
			   "start it with host_gso_max_size or host_gso_max_segs");
		return;
	}
	if (strcmp(prop, "host-gso-limits") || !prop_here(n, backend)) {
		log_line("qom-set %s %s refused: no such property", path, prop);
		send_error(fd, id, "GenericError", "Property '%s.%s' not found",
			   type_name(n, backend), prop);
		return;
	}
	if (!jv_get_int(value, "size", &size) || !jv_get_int(value, "segs", &segs) ||
	    size < 1280 || size > UINT32_MAX || segs < 1 || segs > 65535) {
		log_line("qom-set %s %s refused: bad value", path, prop);
		send_error(fd, id, "GenericError",
			   "host-gso-limits: size must be 1280..4294967295, segs 1..65535");
		return;
	}
	n->size = size;
	n->segs = segs;
	n->limits_set = true;
	log_line("qom-set %s host-gso-limits size=%" PRId64 " segs=%" PRId64 " tap=%s",
		 path, size, segs, n->ifname);
	send_return(fd, id, "{}");
}

static void cmd_qom_get(int fd, const struct jv *id, const struct jv *args)
{
	const char *path = jv_get_string(args, "path"), *prop = jv_get_string(args, "property");
	char value[QEMU_OPT_MAX + 64];
	bool backend;
	struct nic *n;

	n = path ? nic_by_path(path, &backend) : NULL;
	if (!n || !prop) {
		send_error(fd, id, "DeviceNotFound", "Device '%s' not found", path ? path : "");
		return;
	}
	log_line("qom-get %s %s", path, prop);
	if (!strcmp(prop, "netdev") && !backend && hub) {
		snprintf(value, sizeof(value), "\"hub0port%zu\"", 2 * (size_t)(n - nics));
		send_return(fd, id, value);
	} else if (!strcmp(prop, "netdev") && !backend) {
		snprintf(value, sizeof(value), "\"%s\"", n->netdev);
		send_return(fd, id, value);
	} else if (!strcmp(prop, "host-gso-limits") && prop_here(n, backend)) {
		snprintf(value, sizeof(value), "{\"size\":%" PRId64 ",\"segs\":%" PRId64 "}",
			 n->limits_set ? n->size : 65536, n->limits_set ? n->segs : 65535);
		send_return(fd, id, value);
	} else {
		send_error(fd, id, "GenericError", "Property '%s.%s' not found",
			   type_name(n, backend), prop);
	}
}

/*
 * x-query-virtio-status on a device's virtio-backend, reduced to the
 * guest's features: QMP_STANDIN_NEGOTIATED=0 a guest that has not (yet)
 * accepted VIRTIO_NET_F_GSO_LIMITS, else one that has.
 */
static void cmd_virtio_status(int fd, const struct jv *id, const struct jv *args)
{
	const char *path = jv_get_string(args, "path"), *env = getenv("QMP_STANDIN_NEGOTIATED");
	bool backend;
	struct nic *n = path ? nic_by_path(path, &backend) : NULL;

	if (!n || !backend) {
		send_error(fd, id, "GenericError", "Path '%s' is not a VirtIODevice", path ? path : "");
		return;
	}
	log_line("x-query-virtio-status %s", path);
	send_return(fd, id, env && !strcmp(env, "0") ?
		    "{\"name\":\"virtio-net\",\"guest-features\":{\"dev-features\":[],\"transports\":[]}}" :
		    "{\"name\":\"virtio-net\",\"guest-features\":{\"dev-features\":"
		    "[\"VIRTIO_NET_F_GSO_LIMITS: Device reports its host path's GSO limits\"],"
		    "\"transports\":[]}}");
}

static void cmd_qom_list(int fd, const struct jv *id, const struct jv *args)
{
	const char *path = jv_get_string(args, "path");
	bool anon = path && !strcmp(path, "/machine/peripheral-anon");
	struct reply r;
	size_t i, shown = 0;

	log_line("qom-list %s", path ? path : "");
	if (path && !strcmp(path, "/machine/unattached")) {
		send_return(fd, id, "[]");	/* -nic's devices: none here */
		return;
	}
	if (!path || (!anon && strcmp(path, "/machine/peripheral"))) {
		send_error(fd, id, "DeviceNotFound", "Device '%s' not found", path ? path : "");
		return;
	}
	reply_start(&r);
	fputs("{\"return\":[", r.f);
	for (i = 0; i < nic_count; i++) {
		const char *qom = nics[i].qom, *slash = strrchr(qom, '/');

		if (!nics[i].has_device || (size_t)(slash - qom) != strlen(path) ||
		    strncmp(qom, path, strlen(path)))
			continue;
		fprintf(r.f, "%s{\"name\":", shown++ ? "," : "");
		json_print_string(r.f, slash + 1);
		fprintf(r.f, ",\"type\":\"child<%s>\"}", nics[i].driver);
	}
	fputs("]", r.f);
	reply_send(&r, fd, id);
}

/* In the many-VMs mode, the VM whose socket is being served (-1: every NIC). */
static long serving_vmid = -1;

static bool nic_served(const struct nic *n)
{
	unsigned int vmid, net;

	return serving_vmid < 0 || (qemu_proxmox_tap_name(n->ifname, &vmid, &net) &&
				    vmid == (unsigned long)serving_vmid);
}

/* human-monitor-command: "info network" as QEMU prints it (net/net.c, net/tap.c). */
static void cmd_hmp(int fd, const struct jv *id, const struct jv *args)
{
	const char *line = jv_get_string(args, "command-line");
	char *text = NULL, tap[QEMU_OPT_MAX + 64];
	size_t len = 0, i;
	struct reply r;
	FILE *f;

	if (!line || strcmp(line, "info network")) {
		send_return(fd, id, "\"\"");
		return;
	}
	log_line("human-monitor-command info network");
	f = open_memstream(&text, &len);
	if (!f)
		fail_errno("open_memstream");
	if (hub)
		fputs("hub 0\r\n", f);
	for (i = 0; i < nic_count; i++) {
		const struct nic *n = &nics[i];
		const char *name = strrchr(n->qom, '/');

		if (!nic_served(n))
			continue;
		if (n->by_fd)
			snprintf(tap, sizeof(tap), "fd=%s", n->open_val);
		else
			snprintf(tap, sizeof(tap), "ifname=%s,script=no,downscript=no", n->ifname);
		if (hub)
			fprintf(f, " \\ hub0port%zu: %s: index=0,type=tap,%s\r\n"
				" \\ hub0port%zu: %s.%zu: index=0,type=nic,model=%s,"
				"macaddr=52:54:00:12:34:%02zx\r\n", 2 * i + 1, n->netdev, tap, 2 * i,
				n->driver, i, n->driver, i & 0xff);
		else if (n->has_device && name && strncmp(n->qom, "/machine/peripheral-anon", 24))
			fprintf(f, "%s: index=0,type=nic,model=%s,macaddr=52:54:00:12:34:%02zx\r\n"
				" \\ %s: index=0,type=tap,%s\r\n", name + 1, n->driver, i & 0xff,
				n->netdev, tap);
		else if (n->has_device)
			fprintf(f, "%s.%zu: index=0,type=nic,model=%s,macaddr=52:54:00:12:34:%02zx\r\n"
				" \\ %s: index=0,type=tap,%s\r\n", n->driver, i, n->driver, i & 0xff,
				n->netdev, tap);
		else
			fprintf(f, "%s: index=0,type=tap,%s\r\n", n->netdev, tap);
	}
	fclose(f);
	reply_start(&r);
	fputs("{\"return\":", r.f);
	json_print_string(r.f, text);
	reply_send(&r, fd, id);
	free(text);
}

/* One message from the client; false when the connection should end. */
static bool handle_message(int fd, const char *msg, size_t len, bool *negotiated)
{
	struct jv *req = jv_parse(msg, len);
	const char *cmd = jv_get_string(req, "execute");
	const struct jv *id = jv_get(req, "id"), *args = jv_get(req, "arguments");

	if (!cmd) {
		send_error(fd, id, "GenericError", "JSON parse error, or no 'execute'");
		jv_free(req);
		return true;
	}
	if (!*negotiated) {
		if (!strcmp(cmd, "qmp_capabilities")) {
			*negotiated = true;
			send_return(fd, id, "{}");
		} else {
			send_error(fd, id, "CommandNotFound",
				   "Expecting capabilities negotiation with 'qmp_capabilities'");
		}
	} else if (!strcmp(cmd, "qom-set")) {
		cmd_qom_set(fd, id, args);
	} else if (!strcmp(cmd, "qom-get")) {
		cmd_qom_get(fd, id, args);
	} else if (!strcmp(cmd, "qom-list")) {
		cmd_qom_list(fd, id, args);
	} else if (!strcmp(cmd, "x-query-virtio-status")) {
		cmd_virtio_status(fd, id, args);
	} else if (!strcmp(cmd, "human-monitor-command")) {
		cmd_hmp(fd, id, args);
	} else if (!strcmp(cmd, "qmp_capabilities")) {
		send_error(fd, id, "CommandNotFound", "Capabilities negotiation is already complete, command ignored");
	} else {
		send_error(fd, id, "CommandNotFound", "The command %s has not been found", cmd);
	}
	jv_free(req);
	return true;
}

static void serve_client(int fd)
{
	static const char greeting[] =
		"{\"QMP\":{\"version\":{\"qemu\":{\"micro\":2,\"minor\":2,\"major\":10},"
		"\"package\":\"qmp-standin\"},\"capabilities\":[\"oob\"]}}\r\n";
	static char buf[MSG_MAX];
	bool negotiated = false;
	size_t have = 0;

	log_line("connect");
	if (stuck) {
		/* A hung QEMU: the connection stays open and silent until the client gives up. */
		while (!quit) {
			char c;
			ssize_t n = recv(fd, &c, 1, 0);

			if (n == 0 || (n < 0 && errno != EINTR))
				break;
		}
		return;
	}
	send_all(fd, greeting, sizeof(greeting) - 1);
	while (!quit) {
		ssize_t n = recv(fd, buf + have, sizeof(buf) - have, 0);
		long mlen;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		have += (size_t)n;
		while ((mlen = jv_message_len(buf, have)) > 0) {
			handle_message(fd, buf, (size_t)mlen, &negotiated);
			memmove(buf, buf + mlen, have - (size_t)mlen);
			have -= (size_t)mlen;
		}
		if (mlen < 0 || have == sizeof(buf))
			return;	/* not QMP: QEMU drops such a client too */
	}
}

static int listen_unix(const char *path)
{
	int fd = unix_socket_listen(path, 8, 0600, 0);

	if (fd < 0)
		fail_msg("listen %s: %s", path, strerror(-fd));
	return fd;
}

static struct pollfd listeners[MAX_NICS + 1];
static long listener_vmid[MAX_NICS + 1];	/* the many-VMs mode's VM, else -1 */
static size_t nlisteners;

/* Serve the connections waiting on any socket (@timeout_ms: how long to wait for one). */
static void serve_ready(int timeout_ms)
{
	size_t i;

	if (poll(listeners, nlisteners, timeout_ms) <= 0)
		return;
	for (i = 0; i < nlisteners; i++) {
		int cfd;

		if (!listeners[i].revents)
			continue;
		cfd = accept4(listeners[i].fd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0)
			continue;
		serving_vmid = listener_vmid[i];
		serve_client(cfd);
		serving_vmid = -1;
		close(cfd);
	}
}

static void serve_pending(void)
{
	if (nlisteners && !stuck)
		serve_ready(0);
}

static void add_listener(int fd, long vmid)
{
	if (nlisteners == sizeof(listeners) / sizeof(listeners[0]))
		fail_msg("too many QMP sockets");
	listener_vmid[nlisteners] = vmid;
	listeners[nlisteners++] = (struct pollfd){ .fd = fd, .events = POLLIN };
}

/*
 * QMP_STANDIN_PROXMOX_DIR: one socket per Proxmox VM whose tap this process
 * will hold, listening before the taps exist (as a QEMU's does).
 */
static void listen_per_vm(const struct qemu_args *a, const char *dir)
{
	char path[QEMU_OPT_MAX], ifname[QEMU_OPT_MAX];
	unsigned int vmid, net;
	const char *nd;
	size_t pos = 0;

	while ((nd = qemu_args_next(a, "netdev", &pos))) {
		if (!qemu_opt_get(nd, "type", "ifname", ifname, sizeof(ifname)) ||
		    !qemu_proxmox_tap_name(ifname, &vmid, &net) || net)
			continue;
		if (snprintf(path, sizeof(path), "%s/%u.qmp", dir, vmid) >= (int)sizeof(path))
			fail_msg("%s: path too long", dir);
		add_listener(listen_unix(path), (long)vmid);
		/* qemu-server's record of the VM's QEMU (-pidfile): this process. */
		snprintf(path, sizeof(path), "%s/%u.pid", dir, vmid);
		{
			FILE *f = fopen(path, "we");

			if (!f)
				fail_errno(path);
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
}

/* --- client mode (the tests' virsh) ------------------------------------------ */

static int client(const char *path, const char *json)
{
	static char buf[MSG_MAX];
	size_t have = 0;
	int fd = unix_socket_connect(path, 0), step = 0;
	char cmd[MSG_MAX];

	if (fd < 0)
		fail_msg("connect %s: %s", path, strerror(-fd));
	/* step 0: greeting; 1: qmp_capabilities' return; 2: the command's reply */
	for (;;) {
		ssize_t n = recv(fd, buf + have, sizeof(buf) - have - 1, 0);
		long mlen;

		if (n <= 0)
			fail_msg("%s: connection closed before the reply", path);
		have += (size_t)n;
		while ((mlen = jv_message_len(buf, have)) > 0) {
			struct jv *m = jv_parse(buf, (size_t)mlen);
			bool is_event = jv_get(m, "event") != NULL;

			if (!m)
				fail_msg("%s: not JSON", path);
			if (!is_event && step == 0) {
				snprintf(cmd, sizeof(cmd), "{\"execute\":\"qmp_capabilities\"}\n");
				send_all(fd, cmd, strlen(cmd));
				step = 1;
			} else if (!is_event && step == 1) {
				snprintf(cmd, sizeof(cmd), "%s\n", json);
				send_all(fd, cmd, strlen(cmd));
				step = 2;
			} else if (!is_event && step == 2) {
				/* virsh prints QEMU's reply as it is, errors included, and exits 0. */
				printf("%.*s\n", (int)mlen, buf);
				jv_free(m);
				close(fd);
				return 0;
			}
			jv_free(m);
			memmove(buf, buf + mlen, have - (size_t)mlen);
			have -= (size_t)mlen;
		}
	}
}

/* libvirtd's part: the tap, in its bridge, as descriptor @fdstr of @argv. */
static int exec_with_tap(const char *fdstr, const char *ifname, const char *bridge,
			 char **argv)
{
	int want = fd_number(fdstr), fd;

	fd = tap_open(ifname);
	tap_to_bridge(ifname, bridge);
	if (fd != want) {
		if (dup2(fd, want) < 0)
			fail_errno("dup2");
		close(fd);
	} else if (fcntl(fd, F_SETFD, 0) < 0) {
		fail_errno("fcntl");
	}
	execvp(argv[0], argv);
	fail_msg("exec %s: %s", argv[0], strerror(errno));
}

/* QMP_STANDIN_ARGV_LIE: FROM=TO pairs, each FROM replaced by TO in argv's own memory. */
static void argv_lie(int argc, char **argv, const char *spec)
{
	char *copy = strdup(spec), *save = NULL, *pair;
	const char *from[16], *to[16];
	size_t npairs = 0, k;
	int i;

	if (!copy)
		fail_errno("strdup");
	for (pair = strtok_r(copy, ",", &save); pair; pair = strtok_r(NULL, ",", &save)) {
		/* FROM and TO have one length: the '=' between them is the middle one. */
		size_t len = strlen(pair);
		char *eq = pair + len / 2;

		if (npairs == 16 || !(len % 2) || *eq != '=')
			fail_msg("QMP_STANDIN_ARGV_LIE: FROM=TO pairs of equal length expected");
		*eq = '\0';
		from[npairs] = pair;
		to[npairs++] = eq + 1;
	}
	for (i = 1; i < argc; i++) {
		char *p = argv[i];

		while (*p) {
			for (k = 0; k < npairs; k++)
				if (!strncmp(p, from[k], strlen(from[k])))
					break;
			if (k == npairs) {
				p++;
				continue;
			}
			memcpy(p, to[k], strlen(to[k]));
			p += strlen(to[k]);
		}
	}
	free(copy);
}

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

int main(int argc, char **argv)
{
	struct qemu_args a = { .argv = argv, .argc = (size_t)argc };
	char path[QEMU_OPT_MAX] = "", pidfile[QEMU_OPT_MAX];
	const char *env, *bridge = getenv("QMP_STANDIN_BRIDGE");
	struct sigaction sa = { .sa_handler = on_signal };
	struct rlimit rl;
	size_t pos = 0;

	fail_prog = "qmp-standin";
	if (bridge && !*bridge)
		bridge = NULL;
	if (argc == 4 && !strcmp(argv[1], "--client"))
		return client(argv[2], argv[3]);
	if (argc > 5 && !strcmp(argv[1], "--tap-fd"))
		return exec_with_tap(argv[2], argv[3], argv[4], argv + 5);
	if (argc < 2 || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: qmp-standin QEMU-ARGS...  |  qmp-standin --client SOCKET JSON\n");
		return argc < 2 ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	if ((env = getenv("QMP_STANDIN_PROP")))
		prop_at = env;
	env = getenv("QMP_STANDIN_EVENTS");
	events = env && !strcmp(env, "1");
	env = getenv("QMP_STANDIN_STUCK");
	stuck = env && !strcmp(env, "1");
	env = getenv("QMP_STANDIN_HUB");
	hub = env && !strcmp(env, "1");
	if ((env = getenv("QMP_STANDIN_LOG"))) {
		log_fd = open(env, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (log_fd < 0)
			fail_errno(env);
	}
	/* Many taps in one process (the benchmark): every descriptor counts. */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* Like QEMU: chardevs (the QMP socket) exist before netdevs open their taps. */
	if ((env = getenv("QMP_STANDIN_SOCKET")))
		snprintf(path, sizeof(path), "%s", env);
	else
		qemu_cmdline_qmp_socket(&a, path, sizeof(path));
	if (path[0])
		add_listener(listen_unix(path), -1);
	if ((env = getenv("QMP_STANDIN_PROXMOX_DIR")))
		listen_per_vm(&a, env);
	setup_nics(&a, bridge);
	if ((env = getenv("QMP_STANDIN_ARGV_LIE")))
		argv_lie(argc, argv, env);
	{
		const char *pf = qemu_args_next(&a, "pidfile", &pos);

		if (pf) {
			FILE *f;

			snprintf(pidfile, sizeof(pidfile), "%s", pf);
			f = fopen(pidfile, "we");
			if (!f)
				fail_errno(pidfile);
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	log_line("ready");
	printf("qmp-standin: ready\n");
	fflush(stdout);


	/* Without a socket (libvirt-style, nobody to talk to) it only holds its taps. */
	while (!quit)
		serve_ready(-1);
	if (path[0])
		unlink(path);
	return EXIT_SUCCESS;
}
