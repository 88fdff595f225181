// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of what gso-limitsd reads from other programs (limitsd/
 * manager.c, limitsd/job.c): libvirtd's domain status file
 * (lib/libvirt_status.c), qemu-server's pid file (parse_pid_text(),
 * lib/parse.c) and QEMU's "info network" text (lib/qemu_info_network.c).
 * The status file follows what libvirt 11 writes (libvirt's
 * tests/qemustatusxml2xmldata, tests/tools-daemon-libvirt.sh keeps real
 * ones in its log); the "info network" texts are the project's QEMU 10.2's
 * own output.
 */
#include <stdio.h>
#include <string.h>

#include "lib/libvirt_status.h"
#include "lib/parse.h"
#include "lib/qemu_info_network.h"
#include "test/check.h"

#define UUID	"dcf47dbd-46d1-4d5b-b442-262a806a333a"
#define UUID_EL	"    <uuid>" UUID "</uuid>\n"

/*
 * A status file as libvirtd writes it, cut down: @name, @uuid (the whole
 * element, or none), @before after it, @devices inside <devices>.
 */
static size_t status(char *buf, size_t len, const char *root, const char *name,
		     const char *uuid, const char *before, const char *devices)
{
	int n = snprintf(buf, len,
		"%s\n"
		"  <taint flag='custom-monitor'/>\n"
		"  <monitor path='/var/lib/libvirt/qemu/domain-1-dom1/monitor.sock' type='unix'/>\n"
		"  <vcpus>\n    <vcpu id='0' pid='4322'/>\n  </vcpus>\n"
		"  <qemuCaps>\n    <flag name='kvm'/>\n    <flag name='netdev'/>\n  </qemuCaps>\n"
		"  <devices>\n    <device alias='net0'/>\n    <device alias='ua-evil'/>\n  </devices>\n"
		"  <libDir path='/var/lib/libvirt/qemu/domain-1-dom1'/>\n"
		"  <blockjobs active='no'/>\n"
		"  <domain type='kvm' id='1'>\n"
		"    <name>%s</name>\n"
		"%s%s"
		"    <devices>\n"
		"      <emulator>/usr/bin/qemu-system-x86_64</emulator>\n"
		"      <disk type='file' device='disk'>\n"
		"        <source file='/var/lib/libvirt/images/a.qcow2'/>\n"
		"        <target dev='vda' bus='virtio'/>\n"
		"        <alias name='virtio-disk0'/>\n"
		"      </disk>\n%s"
		"      <console type='pty' tty='/dev/pts/3'>\n"
		"        <target type='serial' port='0'/>\n"
		"        <alias name='serial0'/>\n"
		"      </console>\n"
		"    </devices>\n"
		"  </domain>\n"
		"</domstatus>\n", root, name, uuid, before, devices);

	return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

#define ROOT	"<domstatus state='running' reason='booted' pid='4321'>"
#define NET0	"      <interface type='bridge'>\n" \
		"        <mac address='52:54:00:36:bd:3b'/>\n" \
		"        <source bridge='br0'/>\n" \
		"        <actual type='bridge'>\n          <source bridge='br0'/>\n        </actual>\n" \
		"        <target dev='vnet0'/>\n" \
		"        <model type='virtio'/>\n" \
		"        <alias name='net0'/>\n" \
		"      </interface>\n"

static bool find_uuid(const char *root, const char *name, const char *uuid, const char *before,
		      const char *devices, const char *ifname, struct libvirt_status *st)
{
	static char buf[16384];
	size_t n = status(buf, sizeof(buf), root, name, uuid, before, devices);

	if (!n) {
		memset(st, 0, sizeof(*st));
		return false;
	}
	return libvirt_status_find(buf, n, ifname, st);
}

static bool find(const char *root, const char *name, const char *before, const char *devices,
		 const char *ifname, struct libvirt_status *st)
{
	return find_uuid(root, name, UUID_EL, before, devices, ifname, st);
}

/* Found, with @name (shown) and the status file's UUID (what virsh is given). */
static bool named(const char *name, const char *shown)
{
	struct libvirt_status st;

	return find(ROOT, name, "", NET0, "vnet0", &st) && !strcmp(st.name, shown) &&
	       !strcmp(st.uuid, UUID);
}

/* @uuid_el instead of libvirt's <uuid>: not a record. */
static bool refused_uuid(const char *uuid_el)
{
	struct libvirt_status st;

	return !find_uuid(ROOT, "dom1", uuid_el, "", NET0, "vnet0", &st) && !st.uuid[0] && !st.pid;
}

/* <metadata> with @depth elements nested in it. */
static bool deep_metadata(size_t depth, struct libvirt_status *st)
{
	static char meta[8192];
	size_t i, o = 0;

	o += (size_t)snprintf(meta + o, sizeof(meta) - o, "    <metadata>");
	for (i = 0; i < depth && o + 16 < sizeof(meta); i++)
		o += (size_t)snprintf(meta + o, sizeof(meta) - o, "<m>");
	for (i = 0; i < depth && o + 16 < sizeof(meta); i++)
		o += (size_t)snprintf(meta + o, sizeof(meta) - o, "</m>");
	snprintf(meta + o, sizeof(meta) - o, "</metadata>\n");
	return find(ROOT, "dom1", meta, NET0, "vnet0", st);
}

static void test_libvirt_status(void)
{
	static const char cut[] = ROOT "<domain><name>d</name><uuid>" UUID "</uuid><devices>" NET0;
	static const char whole[] = "<?xml version='1.0'?>\n<!-- x -->\n" ROOT
		"<domain><name>d</name><uuid>" UUID "</uuid><devices>" NET0
		"</devices></domain></domstatus>\n";
	struct libvirt_status st;
	char big[8192], shown[LIBVIRT_NAME_MAX];

	check(find(ROOT, "dom1", "", NET0, "vnet0", &st) && st.pid == 4321 &&
	      !strcmp(st.name, "dom1") && !strcmp(st.uuid, UUID) && !strcmp(st.alias, "net0"),
	      "libvirt: the tap's interface, its alias, the domain's name and UUID, its pid");
	check(!find(ROOT, "dom1", "", NET0, "vnet1", &st) && !st.pid && !st.name[0],
	      "libvirt: another tap is not there");
	check(!find(ROOT, "dom1", "", NET0, "vda", &st) && !find(ROOT, "dom1", "", NET0, "vnet", &st),
	      "libvirt: a disk's <target dev=> is not a tap, nor is a prefix of one");
	check(find("<domstatus pid=\"77\"\n\tstate = \"running\" >", "dom1", "",
		   "<interface type=\"ethernet\"><alias name=\"ua-x\" /><target managed=\"no\" "
		   "dev=\"tap0\"/></interface>", "tap0", &st) &&
	      st.pid == 77 && !strcmp(st.alias, "ua-x"),
	      "libvirt: double quotes, any attribute order, white space, alias first");
	check(!find(ROOT, "dom1", "", "<interface type='bridge'><target dev='vnet0'/>"
		    "</interface><interface type='bridge'><alias name='net1'/></interface>",
		    "vnet0", &st),
	      "libvirt: an interface without alias has none (not the next one's)");
	/* Fixed misreadings: the first strstr()/sscanf() reader got these wrong. */
	check(find(ROOT, "a&amp;b &lt;&#39;x&#x27;&gt;", "", NET0, "vnet0", &st) &&
	      !strcmp(st.name, "a&b <'x'>"),
	      "libvirt: a domain name's entities decoded (was \"a&amp;b ...\", then virsh's domain)");
	check(find(ROOT, "dom1", "", "<interface type='ethernet'><target dev='t&amp;1'/>"
		   "<alias name='net0'/></interface>", "t&1", &st),
	      "libvirt: a tap named t&1 (libvirt writes t&amp;1) is found");
	check(!find(ROOT, "dom1", "", "<interface type='ethernet'><target dev='vnet0'/>"
		    "<alias name='ua-a&quot;b'/></interface>", "vnet0", &st) &&
	      !find(ROOT, "dom1", "", "<interface type='ethernet'><target dev='vnet0'/>"
		    "<alias name='0net'/></interface>", "vnet0", &st),
	      "libvirt: an alias that is no QEMU id (a quote, a digit first) does not count");
	check(find(ROOT, "dom1",
		   "    <metadata>\n      <app xmlns='urn:x'><interface type='bridge'>"
		   "<target dev='vnet0'/><alias name='ua-evil'/></interface></app>\n"
		   "    </metadata>\n", NET0, "vnet0", &st) && !strcmp(st.alias, "net0"),
	      "libvirt: an <interface> in <metadata> does not count (was alias ua-evil)");
	check(!find(ROOT, "dom1", "", "<interface type='bridge'><source><target dev='vnet0'/>"
		    "</source><alias name='net0'/></interface>", "vnet0", &st),
	      "libvirt: a <target> nested deeper in the interface does not count");
	/* Refused: not libvirt's, or not all there. */
	check(!find("<domstatus state='running' pid='0'>", "dom1", "", NET0, "vnet0", &st) &&
	      !find("<domstatus pid='12x'>", "dom1", "", NET0, "vnet0", &st) &&
	      !find("<domstatus pid='2147483648'>", "dom1", "", NET0, "vnet0", &st) &&
	      !find("<domstatus state='running'>", "dom1", "", NET0, "vnet0", &st),
	      "libvirt: a pid of 0, with junk, beyond INT_MAX or missing: not a record");
	check(!find(ROOT, "", "", NET0, "vnet0", &st) && !find(ROOT, "a&bogus;", "", NET0, "vnet0", &st) &&
	      !find(ROOT, "a<b/>c", "", NET0, "vnet0", &st),
	      "libvirt: an empty name, an unknown entity, markup in <name>: not a record");
	memset(big, 'n', 300);
	big[300] = '\0';
	memset(shown, 'n', LIBVIRT_NAME_MAX - 1);
	shown[LIBVIRT_NAME_MAX - 1] = '\0';
	check(named(big, shown),
	      "libvirt: a name longer than %d bytes is cut for display, the interface still found "
	      "(was dropped)", LIBVIRT_NAME_MAX - 1);
	memset(big, 'n', LIBVIRT_NAME_MAX - 2);
	memcpy(big + LIBVIRT_NAME_MAX - 2, "\xc3\xa9x", 4);
	shown[LIBVIRT_NAME_MAX - 2] = '\0';
	check(named(big, shown), "libvirt: a long name is cut on a whole UTF-8 character");
	/* The domain by UUID (job.c gives virsh the UUID): virsh reads an ID, then a UUID, then a name. */
	check(named("7", "7"), "libvirt: a domain named 7 is known by its UUID (virsh 7 is ID 7's)");
	check(named("6695eb01-f6a4-8304-79aa-97f2502e193f", "6695eb01-f6a4-8304-79aa-97f2502e193f"),
	      "libvirt: a domain named like another domain's UUID is known by its own UUID");
	check(named("--help", "--help"), "libvirt: a domain named --help is known by its UUID");
	check(refused_uuid("") && refused_uuid("<uuid></uuid>") && refused_uuid("<uuid/>") &&
	      refused_uuid("<uuid>dcf47dbd-46d1-4d5b-b442-262a806a333</uuid>") &&
	      refused_uuid("<uuid>dcf47dbd-46d1-4d5b-b442-262a806a333a0</uuid>") &&
	      refused_uuid("<uuid> " UUID "</uuid>") &&
	      refused_uuid("<uuid>dcf47dbd46d1-4d5b-b442-262a806a333a-</uuid>") &&
	      refused_uuid("<uuid>dcf47dbd-46d1-4d5b-b442-262a806a333g</uuid>") &&
	      refused_uuid("<uuid>-cf47dbd-46d1-4d5b-b442-262a806a333a</uuid>") &&
	      refused_uuid("<uuid>7</uuid>") && refused_uuid("<uuid>dom1</uuid>") &&
	      refused_uuid("<uuid>dcf47dbd-46d1-4d5b-<b/>b442-262a806a333a</uuid>") &&
	      refused_uuid("<uuid>dcf47dbd-46d1-4d5b-b442-262a806a333&#0;</uuid>") &&
	      refused_uuid("<metadata><uuid>" UUID "</uuid></metadata>"),
	      "libvirt: no <uuid>, an empty, short, long, spaced, misdashed, non-hex one, a number, "
	      "a name, markup in it, one in <metadata>: not a record");
	check(find_uuid(ROOT, "dom1", "<uuid>DCF47DBD-46D1-4D5B-B442-262A806A333A</uuid>"
			"<uuid>7</uuid>", "", NET0, "vnet0", &st) &&
	      !strcmp(st.uuid, "DCF47DBD-46D1-4D5B-B442-262A806A333A"),
	      "libvirt: upper-case hex (virsh reads it), the first <uuid> counts");
	check(deep_metadata(300, &st) && !strcmp(st.alias, "net0"),
	      "libvirt: 300 elements nested in <metadata> are read past (was: malformed, the "
	      "interface gone)");
	check(!find(ROOT, "dom1", "<metadata><a></b></metadata>", NET0, "vnet0", &st) &&
	      !find(ROOT, "dom1", "", "<interface type='bridge'><target dev='vnet0'/>"
		    "<alias name='net0'/></iface>", "vnet0", &st) &&
	      !find(ROOT, "dom1", "", "<interface><target dev='vnet0'><alias name='net0'/>"
		    "</interface></target>", "vnet0", &st),
	      "libvirt: an end tag that does not name its element is malformed (was read as "
	      "closing it)");
	check(find(ROOT, "a<![CDATA[&<]]>b<!-- c -->", "", NET0, "vnet0", &st) &&
	      !strcmp(st.name, "a&<b"), "libvirt: CDATA and comments in <name>");
	check(!find("<domain pid='4321'>", "dom1", "", NET0, "vnet0", &st),
	      "libvirt: a root other than <domstatus> (a config file) is not a status");
	check(!libvirt_status_find(cut, strlen(cut), "vnet0", &st),
	      "libvirt: a file cut short (no </domstatus>) is not a record");
	check(libvirt_status_find(whole, strlen(whole), "vnet0", &st),
	      "libvirt: an XML declaration and a comment first");
}

static void test_pid_text(void)
{
	pid_t p = 0;

	check(parse_pid_text("4321\n", &p) && p == 4321, "pid file: QEMU's \"4321\\n\"");
	check(parse_pid_text("2147483647", &p) && p == 2147483647, "pid file: INT_MAX, no newline");
	check(!parse_pid_text("12abc", &p) && !parse_pid_text(" 12", &p) &&
	      !parse_pid_text("+12", &p) && !parse_pid_text("", &p) && !parse_pid_text("\n", &p) &&
	      !parse_pid_text("0\n", &p) && !parse_pid_text("2147483648", &p) &&
	      !parse_pid_text("12\n\n", &p) && !parse_pid_text("-1", &p) &&
	      !parse_pid_text("08", &p),
	      "pid file: junk, signs, space, empty, 0, a leading 0, beyond INT_MAX refused "
	      "(strtol() took 12abc)");
}

/* QEMU 10.2's own "info network" (the project's QEMU, -accel qtest). */
static const char info_real[] =
	"hub 0\r\n"
	" \\ hub0port1: #net177: index=0,type=tap,ifname=taph,script=no,downscript=no\r\n"
	" \\ hub0port0: e1000.0: index=0,type=nic,model=e1000,macaddr=52:54:00:12:34:56\r\n"
	"net2: index=0,type=nic,model=virtio-net-pci,macaddr=52:54:00:12:34:57\r\n"
	" \\ mq: index=0,type=tap,ifname=tapmq,script=no,downscript=/nonexistent/x,ifname=tap0\r\n"
	"net2: index=1,type=nic,\r\n"
	" \\ mq: index=1,type=tap,ifname=tapmq,script=no,downscript=no\r\n"
	"net0: index=0,type=nic,model=virtio-net-pci,macaddr=52:54:00:12:34:58\r\n"
	" \\ hostnet0: index=0,type=tap,ifname=tap0,script=no,downscript=no\r\n"
	"filters:\r\n"
	"  - f0: type=filter-buffer,interval=1000,position=tail,status=on,insert=behind,"
	"netdev=hostnet0,queue=all\r\n"
	"net1: index=0,type=nic,model=virtio-net-pci,macaddr=52:54:00:12:34:59\r\n"
	" \\ hostnet1: index=0,type=tap,fd=23\r\n";

/*
 * QEMU 10.0's (Debian's qemu-system-x86 10.0.2) for "-netdev tap,id=t1,ifname=taph
 * -netdev hubport,id=p0,hubid=1,netdev=t1 -netdev hubport,id=p1,hubid=1
 * -device virtio-net-pci,netdev=p1 -netdev hubport,id=p2,hubid=1": the NIC on
 * hub port p1 ("netdev" p1), and no offload in its x-query-virtio-status.
 */
static const char info_hubport[] =
	"hub 1\r\n"
	" \\ p2\r\n"
	" \\ p1: virtio-net-pci.0: index=0,type=nic,model=virtio-net-pci,macaddr=52:54:00:12:34:56\r\n"
	" \\ p0: t1: index=0,type=tap,ifname=taph,script=no,downscript=no\r\n"
	"nic0: index=0,type=nic,model=virtio-net-pci,macaddr=52:54:00:12:34:57\r\n"
	" \\ hn0: index=0,type=tap,ifname=tap0,script=no,downscript=no\r\n";

/* The netdev found, "hub:PORT" for a hub's port, "(none)". */
static const char *info(const char *text, const char *ifname, const int *fds, size_t nfds)
{
	static char out[64], res[80];

	switch (qemu_info_network_tap(text, ifname, fds, nfds, out, sizeof(out))) {
	case QEMU_TAP_NETDEV:
		return out;
	case QEMU_TAP_HUB:
		snprintf(res, sizeof(res), "hub:%s", out);
		return res;
	case QEMU_TAP_NONE:
		break;
	}
	return "(none)";
}

static void test_info_network(void)
{
	static const int fd23[] = { 23 }, fd2[] = { 2, 3, 230 };
	char small[4];

	check(!strcmp(info(info_real, "tap0", NULL, 0), "hostnet0"),
	      "info network: tap0 is hostnet0's (was mq: its downscript's path says ifname=tap0)");
	check(!strcmp(info(info_real, "tapmq", NULL, 0), "mq"), "info network: a multi-queue tap");
	check(!strcmp(info(info_real, "tapx", fd23, 1), "hostnet1"),
	      "info network: a tap given as fd=23");
	check(!strcmp(info(info_real, "tapx", fd2, 3), "(none)"),
	      "info network: fd=23 is not descriptor 2, 3 or 230");
	check(!strcmp(info(info_real, "taph", NULL, 0), "hub:hub0port1"),
	      "info network: a legacy -net tap is on hub port hub0port1 (was netdev #net177, "
	      "which no device is on)");
	check(!strcmp(info(info_hubport, "taph", NULL, 0), "hub:p0") &&
	      !strcmp(info(info_hubport, "tap0", NULL, 0), "hn0") &&
	      !strcmp(info(" \\ hub0port1: #net3: index=0,type=tap,fd=23\n", "x", fd23, 1),
			  "hub:hub0port1"),
	      "info network: a tap on -netdev hubport p0, one given as fd=23 on a hub; "
	      "a NIC's own tap next to a hub");
	check(!strcmp(info(info_real, "tap", NULL, 0), "(none)") &&
	      !strcmp(info(info_real, "e1000.0", NULL, 0), "(none)"),
	      "info network: a prefix of a tap, a NIC's name");
	check(!strcmp(info("  - f0: type=filter-dump,file=/x,type=tap,ifname=tap0\n", "tap0", NULL, 0),
		      "(none)") &&
	      !strcmp(info("net0: index=0,type=nic,model=x,type=tap,ifname=tap0\n", "tap0", NULL, 0),
		      "(none)"),
	      "info network: a filter's line, type=tap later on a NIC's line (were \"- f0\", net0)");
	check(!strcmp(info(" \\ n: index=0,type=tap,ifname=tap0", "tap0", NULL, 0), "n") &&
	      !strcmp(info("n: index=0,type=tap,ifname=tap0,script=x\nm: index=0,type=tap,"
			   "ifname=tap0\n", "tap0", NULL, 0), "n"),
	      "info network: no line end, the first of two");
	check(!strcmp(info(" \\ n: index=0,type=tap,ifname=a,b,script=no\n", "a", NULL, 0), "(none)") &&
	      !strcmp(info(" \\ n: index=0,type=tap,ifname=a,b,script=no\n", "a,b", NULL, 0), "n"),
	      "info network: a tap named a,b is not tap a");
	check(qemu_info_network_tap(" \\ long: index=0,type=tap,fd=3\r\n", "t", fd2, 3, small,
				    sizeof(small)) == QEMU_TAP_NONE &&
	      qemu_info_network_tap(" \\ hub0port1: n: index=0,type=tap,fd=3\r\n", "t", fd2, 3,
				    small, sizeof(small)) == QEMU_TAP_NONE,
	      "info network: a name that does not fit, a netdev's or a hub port's");
	check(!strcmp(info("", "tap0", NULL, 0), "(none)") &&
	      !strcmp(info(" \\ : index=0,type=tap,ifname=tap0\n", "tap0", NULL, 0), "(none)") &&
	      !strcmp(info(" \\ n: index=,type=tap,ifname=tap0\n", "tap0", NULL, 0), "(none)") &&
	      !strcmp(info(" \\ n: index=0,type=tap,ifname=\n", "", NULL, 0), "(none)"),
	      "info network: empty text, an empty name, index or ifname");
}

int main(void)
{
	test_libvirt_status();
	test_pid_text();
	test_info_network();
	return check_exit_status();
}
