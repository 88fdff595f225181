// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-limitsd's command line: the options into ld_cfg (state.c holds the
 * defaults) and the few that only main needs (the `status` subcommand,
 * the control socket, the namespaces) into struct ld_options.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parse.h"
#include "limitsd.h"

static const char usage[] =
	"usage: gso-limitsd [--netns NAME]... [--dry-run] [--control PATH|none]\n"
	"                   [--proxmox-run-dir DIR] [--libvirt-run-dir DIR] [--virsh PATH]\n"
	"                   [--qmp-socket GLOB]... [--settle MS]\n"
	"                   [--qmp-timeout MS] [--rescan S] [--verbose]\n"
	"       gso-limitsd --once [--json] [--dry-run] [--netns NAME]...\n"
	"       gso-limitsd status [--control PATH] [--timeout MS]\n"
	"  --netns NAME       watch network namespace NAME (/run/netns/NAME); repeatable;\n"
	"                     default: the daemon's own namespace\n"
	"  --dry-run          print what would be set, set nothing\n"
	"  --once             one pass, then exit (status 0: every tap with a VM synced)\n"
	"  --json             with --once: print the state as JSON\n"
	"  --control PATH     status socket (default " LD_DEFAULT_CONTROL ")\n"
	"  --timeout MS       status: give up after MS (default 5000): never blocks a hook\n"
	"  --proxmox-run-dir  where Proxmox's VMID.qmp sockets are (default /var/run/qemu-server)\n"
	"  --libvirt-run-dir  libvirtd's domain status files (default /run/libvirt/qemu)\n"
	"  --virsh PATH       virsh for libvirt guests (default virsh)\n"
	"  --qmp-socket GLOB  a QEMU outside Proxmox and libvirt is managed only if its\n"
	"                     -qmp socket matches GLOB (fnmatch); repeatable; default none\n"
	"  --settle MS        quiet time after link events before acting (default 100)\n"
	"  --qmp-timeout MS   per QMP step (default 5000)\n"
	"  --rescan S         re-read every namespace every S seconds: Linux before the\n"
	"                     project's notification patch sends no event when a\n"
	"                     gso_max_*/tso_max_* changes (default 10; 0: never)\n"
	"  --verbose, -v      log path changes and taps going away\n"
	"Options are spelled in full (no abbreviation) and given at most once\n"
	"(--netns and --qmp-socket: each value once); a usage error exits 2.\n";

/*
 * A usage error: what was wrong, the usage, and exit status 2, as the man
 * page says.  Not fail_usage()'s 1: `--once` exits 1 when a tap was not
 * set, and a hook or a script must tell that from a bad command line.
 */
#define LD_EXIT_USAGE	2

static _Noreturn void __attribute__((noreturn, format(printf, 1, 2)))
bad_usage(const char *fmt, ...)
{
	char msg[FAIL_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fail_usage_status(LD_EXIT_USAGE, usage, msg);
}

static double parse_ms(const char *arg, const char *opt, uint64_t min)
{
	uint64_t v;

	if (!parse_u64(arg, min, 600000, &v))
		bad_usage("%s: milliseconds expected (%llu..600000), got '%s'", opt,
			  (unsigned long long)min, arg);
	return v / 1000.0;
}

/* A path or a name: not empty (an empty --control would be "", not the default). */
static const char *nonempty(const char *arg, const char *opt)
{
	if (!*arg)
		bad_usage("%s: empty value", opt);
	return arg;
}

/* @v already among the @n values of a repeatable option: given twice. */
static void once_each(const char *const *vals, size_t n, const char *v, const char *opt)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(vals[i], v))
			bad_usage("%s %s given twice", opt, v);
}

enum {
	OPT_NETNS = 'n', OPT_DRY_RUN = 'd', OPT_ONCE = 'o', OPT_JSON = 'j', OPT_CONTROL = 'c',
	OPT_PROXMOX = 'p', OPT_VIRSH = 'V', OPT_LIBVIRT = 'L', OPT_QMP_SOCKET = 'Q',
	OPT_TIMEOUT = 'T', OPT_SETTLE = 's', OPT_QMP_TIMEOUT = 't', OPT_RESCAN = 'r',
	OPT_VERBOSE = 'v', OPT_HELP = 'h', OPT_VERSION = 'W',
};

static const struct option opts[] = {
	{ "netns", required_argument, NULL, OPT_NETNS },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "proxmox-run-dir", required_argument, NULL, OPT_PROXMOX },
	{ "virsh", required_argument, NULL, OPT_VIRSH },
	{ "libvirt-run-dir", required_argument, NULL, OPT_LIBVIRT },
	{ "qmp-socket", required_argument, NULL, OPT_QMP_SOCKET },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "settle", required_argument, NULL, OPT_SETTLE },
	{ "qmp-timeout", required_argument, NULL, OPT_QMP_TIMEOUT },
	{ "rescan", required_argument, NULL, OPT_RESCAN },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ 0 }
};

/* "--NAME" of option @c, for messages. */
static const char *opt_name(int c)
{
	static char buf[32];
	size_t i;

	for (i = 0; opts[i].name; i++)
		if (opts[i].val == c) {
			snprintf(buf, sizeof(buf), "--%s", opts[i].name);
			return buf;
		}
	return "?";
}

/*
 * What getopt_long() just refused in element @el: a long option as
 * written, a short one as "-x" (also inside a group such as "-vx").
 */
static const char *refused(const char *el)
{
	static char one[3] = "-";

	if (el[0] == '-' && el[1] == '-')
		return el;
	one[1] = (char)optopt;
	return one;
}

/*
 * getopt_long() takes any unambiguous prefix of a long option ("--cont"
 * for --control).  Written into a unit file or a hook, such a prefix
 * stops working, or names another option, the day a new option shares
 * it: only the full name is taken, alone or as --NAME=VALUE.  @el: the
 * element getopt_long() just read and did not refuse as unknown.
 */
static void spelled_in_full(const char *el)
{
	size_t i, n;

	if (el[0] != '-' || el[1] != '-')
		return;		/* a short option, or a group of them */
	el += 2;
	n = strcspn(el, "=");
	for (i = 0; opts[i].name; i++)
		if (strlen(opts[i].name) == n && !strncmp(el, opts[i].name, n))
			return;
	for (i = 0; opts[i].name; i++)
		if (!strncmp(el, opts[i].name, n))
			break;
	bad_usage("abbreviated option '--%.*s': spell it in full (--%s)", (int)n, el,
		  opts[i].name ? opts[i].name : "?");
}

/*
 * getopt_long() refuses a prefix of several long options ("--qmp") as it
 * refuses an unknown one: @el, the refused element, said to be ambiguous
 * with the options it could be, if it is one.
 */
static void ambiguous(const char *el)
{
	char list[256] = "";
	size_t i, n, used = 0, count = 0;

	if (el[0] != '-' || el[1] != '-')
		return;
	el += 2;
	n = strcspn(el, "=");
	if (!n)
		return;
	for (i = 0; opts[i].name; i++) {
		if (strncmp(el, opts[i].name, n))
			continue;
		if (strlen(opts[i].name) == n)
			return;		/* the option itself, refused for its value */
		if (used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s--%s",
						 count ? ", " : "", opts[i].name);
		count++;
	}
	if (count > 1)
		bad_usage("ambiguous option '--%.*s' (%s)", (int)n, el, list);
}

void options_parse(int argc, char **argv, struct ld_options *o)
{
	static const char *qmp_globs[64];
	const char *e = getenv("GSO_LIMITSD_UNOPTIMISED");
	bool seen[128] = { false };
	size_t nqmp = 0;
	int c, at;

	*o = (struct ld_options){ .control = LD_DEFAULT_CONTROL, .status_timeout_s = 5.0 };
	ld_cfg.unoptimised = e && !strcmp(e, "1");
	if (argc > 2 && !strcmp(argv[1], "--version"))
		bad_usage("--version takes no other argument");
	parse_version_exit(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "status")) {
		o->status_cmd = true;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	/*
	 * '+': no reordering, so argv[at] is the element being read and the
	 * first non-option ends the options (none is taken); ':': getopt_long()
	 * reports a missing value, the messages are ours.
	 */
	opterr = 0;
	for (;;) {
		at = optind;
		c = getopt_long(argc, argv, "+:vjh", opts, NULL);
		if (c == -1)
			break;
		if (c != '?')
			spelled_in_full(argv[at]);
		if (c == ':')
			bad_usage("%s needs a value", refused(argv[at]));
		if (c == '?') {
			ambiguous(argv[at]);
			bad_usage("unrecognised option '%s' (unknown, or given a value it does "
				  "not take)", refused(argv[at]));
		}
		if (c == OPT_VERSION)
			bad_usage("--version takes no other argument");
		/* --netns and --qmp-socket are repeatable (each value once); no other option. */
		if (c != OPT_NETNS && c != OPT_QMP_SOCKET && c != OPT_HELP) {
			if (seen[c])
				bad_usage("%s given twice", opt_name(c));
			seen[c] = true;
		}
		switch (c) {
		case OPT_NETNS:
			nonempty(optarg, "--netns");
			if (strchr(optarg, '/') || !strcmp(optarg, ".") || !strcmp(optarg, ".."))
				bad_usage("--netns: a name in /run/netns expected, got '%s'", optarg);
			once_each(o->netns_names, o->nnetns, optarg, "--netns");
			if (o->nnetns == LD_MAX_NETNS)
				bad_usage("at most %d --netns", LD_MAX_NETNS);
			o->netns_names[o->nnetns++] = optarg;
			seen[c] = true;
			break;
		case OPT_DRY_RUN:
			ld_cfg.dry_run = true;
			break;
		case OPT_ONCE:
			ld_cfg.once = true;
			break;
		case OPT_JSON:
			ld_cfg.json = true;
			break;
		case OPT_CONTROL:
			o->control = nonempty(optarg, "--control");
			break;
		case OPT_PROXMOX:
			ld_cfg.proxmox_run_dir = nonempty(optarg, "--proxmox-run-dir");
			break;
		case OPT_VIRSH:
			ld_cfg.virsh = nonempty(optarg, "--virsh");
			break;
		case OPT_TIMEOUT:
			o->status_timeout_s = parse_ms(optarg, "--timeout", 1);
			break;
		case OPT_LIBVIRT:
			ld_cfg.libvirt_run_dir = nonempty(optarg, "--libvirt-run-dir");
			break;
		case OPT_QMP_SOCKET:
			nonempty(optarg, "--qmp-socket");
			once_each(qmp_globs, nqmp, optarg, "--qmp-socket");
			if (nqmp == sizeof(qmp_globs) / sizeof(qmp_globs[0]))
				bad_usage("--qmp-socket: at most 64");
			qmp_globs[nqmp++] = optarg;
			ld_cfg.qmp_sockets = qmp_globs;
			ld_cfg.nqmp_sockets = nqmp;
			seen[c] = true;
			break;
		case OPT_SETTLE:
			ld_cfg.settle_s = parse_ms(optarg, "--settle", 0);
			if (ld_cfg.max_settle_s < 10 * ld_cfg.settle_s)
				ld_cfg.max_settle_s = 10 * ld_cfg.settle_s;
			break;
		case OPT_QMP_TIMEOUT:
			ld_cfg.qmp_timeout_s = parse_ms(optarg, "--qmp-timeout", 1);
			break;
		case OPT_RESCAN: {
			uint64_t v;

			if (!parse_u64(optarg, 0, 86400, &v))
				bad_usage("--rescan: seconds expected (0..86400), got '%s'", optarg);
			ld_cfg.rescan_s = (double)v;
			break;
		}
		case OPT_VERBOSE:
			ld_cfg.verbose = true;
			break;
		case OPT_HELP:
			fputs(usage, stdout);
			exit(EXIT_SUCCESS);
		default:
			bad_usage("unrecognised option '%s'", refused(argv[at]));
		}
	}
	if (optind != argc)
		bad_usage(o->status_cmd || strcmp(argv[optind], "status") ?
			  "unexpected argument '%s'" :
			  "unexpected argument '%s': the status command comes first",
			  argv[optind]);
	if (o->status_cmd) {
		/* status asks a running daemon: the daemon's options mean nothing to it. */
		for (c = 0; c < (int)(sizeof(seen) / sizeof(seen[0])); c++)
			if (seen[c] && c != OPT_CONTROL && c != OPT_TIMEOUT)
				bad_usage("status takes only --control and --timeout, not %s",
					  opt_name(c));
		if (!strcmp(o->control, "none"))
			bad_usage("status --control none: no socket to ask");
		return;
	}
	if (seen[OPT_TIMEOUT])
		bad_usage("--timeout is status's (gso-limitsd status --timeout MS); "
			  "the daemon's is --qmp-timeout");
	if (ld_cfg.json && !ld_cfg.once)
		bad_usage("--json needs --once (a running daemon: gso-limitsd status)");
	if (ld_cfg.once && seen[OPT_CONTROL])
		bad_usage("--once opens no control socket: --control is the running daemon's");
	if (ld_cfg.once && seen[OPT_RESCAN])
		bad_usage("--once makes one pass: --rescan is the running daemon's");
}
