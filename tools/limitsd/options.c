// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-limitsd's command line: the options into ld_cfg (state.c holds the
 * defaults) and the few that only main needs (the `status` subcommand,
 * the control socket, the namespaces) into struct ld_options.
 */
#include <getopt.h>
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
	"  --verbose, -v      log path changes and taps going away\n";

static double parse_ms(const char *arg, const char *opt)
{
	uint64_t v;

	if (!parse_u64(arg, 0, 600000, &v))
		fail_usage(usage, "%s: milliseconds expected (0..600000), got '%s'", opt, arg);
	return v / 1000.0;
}

void options_parse(int argc, char **argv, struct ld_options *o)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "once", no_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "control", required_argument, NULL, 'c' },
		{ "proxmox-run-dir", required_argument, NULL, 'p' },
		{ "virsh", required_argument, NULL, 'V' },
		{ "libvirt-run-dir", required_argument, NULL, 'L' },
		{ "qmp-socket", required_argument, NULL, 'Q' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "settle", required_argument, NULL, 's' },
		{ "qmp-timeout", required_argument, NULL, 't' },
		{ "rescan", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static const char *qmp_globs[64];
	const char *e = getenv("GSO_LIMITSD_UNOPTIMISED");
	size_t nqmp = 0;
	int c;

	*o = (struct ld_options){ .control = LD_DEFAULT_CONTROL, .status_timeout_s = 5.0 };
	ld_cfg.unoptimised = e && !strcmp(e, "1");
	parse_version_exit(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "status")) {
		o->status_cmd = true;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	while ((c = getopt_long(argc, argv, "vjh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (o->nnetns == LD_MAX_NETNS)
				fail_usage(usage, "at most %d --netns", LD_MAX_NETNS);
			o->netns_names[o->nnetns++] = optarg;
			break;
		case 'd':
			ld_cfg.dry_run = true;
			break;
		case 'o':
			ld_cfg.once = true;
			break;
		case 'j':
			ld_cfg.json = true;
			break;
		case 'c':
			o->control = optarg;
			break;
		case 'p':
			ld_cfg.proxmox_run_dir = optarg;
			break;
		case 'V':
			ld_cfg.virsh = optarg;
			break;
		case 'T':
			o->status_timeout_s = parse_ms(optarg, "--timeout");
			break;
		case 'L':
			ld_cfg.libvirt_run_dir = optarg;
			break;
		case 'Q':
			if (nqmp == sizeof(qmp_globs) / sizeof(qmp_globs[0]))
				fail_usage(usage, "--qmp-socket: at most 64");
			qmp_globs[nqmp++] = optarg;
			ld_cfg.qmp_sockets = qmp_globs;
			ld_cfg.nqmp_sockets = nqmp;
			break;
		case 's':
			ld_cfg.settle_s = parse_ms(optarg, "--settle");
			if (ld_cfg.max_settle_s < 10 * ld_cfg.settle_s)
				ld_cfg.max_settle_s = 10 * ld_cfg.settle_s;
			break;
		case 't':
			ld_cfg.qmp_timeout_s = parse_ms(optarg, "--qmp-timeout");
			break;
		case 'r': {
			uint64_t v;

			if (!parse_u64(optarg, 0, 86400, &v))
				fail_usage(usage, "--rescan: seconds expected (0..86400), got '%s'", optarg);
			ld_cfg.rescan_s = (double)v;
			break;
		}
		case 'v':
			ld_cfg.verbose = true;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(EXIT_SUCCESS);
		default:
			fail_usage(usage, "unknown option");
		}
	}
	if (optind != argc)
		fail_usage(usage, "unexpected argument '%s'", argv[optind]);
	if (!o->status_cmd && ld_cfg.json && !ld_cfg.once)
		fail_usage(usage, "--json needs --once (a running daemon: gso-limitsd status)");
}
