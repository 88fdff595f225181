// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-limitsd: keep every virtio-net device's GSO limits equal to the
 * limits of its tap's host path, for every QEMU on the host.
 *
 *   gso-limitsd [OPTIONS]             run (foreground; systemd unit in tools/systemd/)
 *   gso-limitsd --once [--json] ...   one pass: compute, set, print, exit
 *   gso-limitsd status [--control P]  a running daemon's state, as JSON
 *
 * One rtnetlink listener per watched network namespace replaces one in
 * every QEMU: QEMU only takes the values over QMP (qom-set
 * host_gso_max, docs/qemu.md).  Read-only towards the network: it
 * dumps links and never changes one.  Design, options, Proxmox and libvirt
 * set-up: docs/daemon.md; the modules: limitsd/limitsd.h.
 */
#include "limitsd/limitsd.h"

int main(int argc, char **argv)
{
	struct ld_options o;

	fail_prog = "gso-limitsd";
	options_parse(argc, argv, &o);
	if (o.status_cmd)
		return control_client(o.control, o.status_timeout_s);
	return loop_run(&o);
}
