// SPDX-License-Identifier: GPL-2.0-only
/*
 * From a tap's holder to the QMP endpoint of its QEMU and the virtio-net
 * device bound to the tap, read from QEMU's command line as each
 * management layer writes it:
 *
 *   libvirt   -name guest=DOMAIN,...  The monitor socket is libvirtd's (a
 *             second client would wait behind it forever): commands go
 *             through `virsh qemu-monitor-command UUID` (the domain's
 *             UUID from its status file, manager.c).  Taps are passed as
 *             -netdev tap,fd=N: the netdev is the one whose fd is one of
 *             the holder's descriptors for this tap.
 *   Proxmox   -id VMID (or the tap name tap<VMID>i<N> with the socket
 *             present): /var/run/qemu-server/VMID.qmp, which qemu-server
 *             itself only holds for the length of a command.
 *   plain     -qmp unix:PATH,server=on or -chardev socket,id=X,path=PATH,
 *             server=on + -mon chardev=X,mode=control.
 *
 * The device is QEMU's word, not the command line's (job.c): "info network"
 * names the netdev holding the tap (ifname=TAP, or fd=N with N one of the
 * holder's descriptors of it), qom-list and qom-get netdev the virtio-net
 * device on it.  The command line (the -netdev naming the tap, the
 * -device on it) is only a hint: its netdev is used when QEMU's text does
 * not name the tap, its device id is the first device asked about.  The
 * device is believed only when QEMU confirms it (a process can write any
 * command line, or have hot-plugged another device since); the netdev taken
 * from the command line is not confirmed to hold the tap (QEMU only says
 * the device sits on it), and the daemon logs a warning when it uses one.  libvirt's
 * status file, the manager's own record, names the device directly.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "limitsd.h"

const char *endpoint_kind_name(enum ep_kind k)
{
	switch (k) {
	case EP_PROXMOX:
		return "proxmox";
	case EP_LIBVIRT:
		return "libvirt";
	case EP_QMP_SOCKET:
		return "qmp";
	case EP_NONE:
		break;
	}
	return "none";
}

void endpoint_describe(const struct endpoint *ep, char *buf, size_t len)
{
	char dev[QEMU_OPT_MAX + 96];

	if (ep->qom[0])
		snprintf(dev, sizeof(dev), "%s", ep->qom);
	else if (ep->hint_device_id[0])
		/* Before QEMU was asked (--dry-run): what its command line says. */
		snprintf(dev, sizeof(dev), "/machine/peripheral/%s (its command line; QEMU not "
			 "asked yet)", ep->hint_device_id);
	else
		snprintf(dev, sizeof(dev), "(not known until QEMU is asked)");
	if (ep->kind == EP_LIBVIRT)
		snprintf(buf, len, "virsh domain %s (uuid %s), device %s", ep->domain, ep->uuid, dev);
	else
		snprintf(buf, len, "%s, device %s", ep->socket, dev);
}

/* How many distinct taps process @pid holds (a tap-per-netdev fallback needs exactly one). */
static size_t taps_of(const struct tap_holders *all, pid_t pid)
{
	size_t i, n = 0;

	for (i = 0; i < all->count; i++)
		if (all->h[i].pid == pid)
			n++;
	return n;
}

static bool set_socket(struct endpoint *ep, const char *path)
{
	if (strlen(path) >= sizeof(ep->socket))
		return false;
	memcpy(ep->socket, path, strlen(path) + 1);
	return true;
}

/* Whether @path is one of the QMP sockets the daemon's configuration lists (--qmp-socket). */
static bool socket_listed(const char *path)
{
	size_t i;

	for (i = 0; i < ld_cfg.nqmp_sockets; i++)
		if (!fnmatch(ld_cfg.qmp_sockets[i], path, FNM_PATHNAME))
			return true;
	return false;
}

/* qemu-server's device for tap<VMID>i<N>: -netdev id=net<N>, -device id=net<N> (a hint). */
static void proxmox_device(struct endpoint *ep, unsigned int net)
{
	snprintf(ep->hint_netdev, sizeof(ep->hint_netdev), "net%u", net);
	snprintf(ep->hint_device_id, sizeof(ep->hint_device_id), "net%u", net);
}

bool endpoint_resolve(struct tap *t, const struct tap_holder *h, const struct tap_holders *all)
{
	struct endpoint *ep = &t->ep;
	struct qemu_args a;
	char driver[64], path[QEMU_OPT_MAX], claim[QEMU_OPT_MAX];
	unsigned int vmid, net;
	int ret;

	memset(ep, 0, sizeof(*ep));
	t->vmm_note[0] = '\0';
	t->untrusted = false;
	t->nfds = h->nfds < TAP_HOLDER_MAX_FDS ? h->nfds : TAP_HOLDER_MAX_FDS;
	memcpy(t->fds, h->fds, t->nfds * sizeof(t->fds[0]));

	/* 1. The management layer's records, which name the tap and its QEMU's pid. */
	ret = manager_libvirt(ld_cfg.libvirt_run_dir, t->ifname, h->pid, ep, t->vmm_note,
			      sizeof(t->vmm_note));
	if (ret > 0)
		return true;
	if (ret < 0)
		goto untrusted;
	if (qemu_proxmox_tap_name(t->ifname, &vmid, &net)) {
		ret = manager_proxmox_pid(ld_cfg.proxmox_run_dir, vmid, h->pid, t->vmm_note,
					  sizeof(t->vmm_note));
		if (ret < 0)
			goto untrusted;
		if (ret > 0) {
			snprintf(path, sizeof(path), "%s/%u.qmp", ld_cfg.proxmox_run_dir, vmid);
			if (!set_socket(ep, path)) {
				snprintf(t->vmm_note, sizeof(t->vmm_note), "QMP socket path too long");
				return false;
			}
			ep->kind = EP_PROXMOX;
			/*
			 * The holder is the VM's QEMU (its pid file says so); QEMU
			 * itself names the device (job.c).  Hints: its own -netdev/
			 * -device, or for a NIC hot-plugged with `qm set --netN`
			 * (not there) qemu-server's names, net<N>.
			 */
			if (!qemu_args_read(h->pid, &a)) {
				bool found = qemu_cmdline_tap_netdev(&a, t->ifname, h->fds, h->nfds,
								     taps_of(all, h->pid) == 1,
								     ep->hint_netdev,
								     sizeof(ep->hint_netdev)) &&
					     qemu_cmdline_netdev_device(&a, ep->hint_netdev, driver,
									sizeof(driver),
									ep->hint_device_id,
									sizeof(ep->hint_device_id)) &&
					     ep->hint_device_id[0];

				qemu_args_free(&a);
				if (found)
					return true;
			}
			proxmox_device(ep, net);
			return true;
		}
	}

	/* 2. The holder's command line: a hint, believed only where a record backs it. */
	ret = qemu_args_read(h->pid, &a);
	if (ret) {
		snprintf(t->vmm_note, sizeof(t->vmm_note), "pid %d: cannot read its command line",
			 (int)h->pid);
		return false;
	}
	if (qemu_cmdline_libvirt_domain(&a, claim, sizeof(claim))) {
		snprintf(t->vmm_note, sizeof(t->vmm_note),
			 "pid %d says it is libvirt domain %s (-name guest=), but no domain in %s "
			 "has this tap and that pid", (int)h->pid, claim, ld_cfg.libvirt_run_dir);
		qemu_args_free(&a);
		goto untrusted;
	}
	/*
	 * The command line is a hint (QEMU names the device, job.c): a tap of
	 * -nic, or of a netdev hot-plugged later, is not there at all.
	 */
	if (qemu_cmdline_tap_netdev(&a, t->ifname, h->fds, h->nfds, taps_of(all, h->pid) == 1,
				    ep->hint_netdev, sizeof(ep->hint_netdev)) &&
	    !qemu_cmdline_netdev_device(&a, ep->hint_netdev, driver, sizeof(driver),
					ep->hint_device_id, sizeof(ep->hint_device_id)))
		ep->hint_device_id[0] = '\0';

	if (qemu_cmdline_proxmox_vmid(&a, &vmid)) {
		/* -id VMID with a tap not named by qemu-server: its pid file must agree. */
		ret = manager_proxmox_pid(ld_cfg.proxmox_run_dir, vmid, h->pid, t->vmm_note,
					  sizeof(t->vmm_note));
		if (ret <= 0) {
			qemu_args_free(&a);
			goto untrusted;
		}
		snprintf(path, sizeof(path), "%s/%u.qmp", ld_cfg.proxmox_run_dir, vmid);
		if (!set_socket(ep, path))
			goto too_long;
		ep->kind = EP_PROXMOX;
	} else if (qemu_cmdline_qmp_socket(&a, path, sizeof(path))) {
		if (!socket_listed(path)) {
			snprintf(t->vmm_note, sizeof(t->vmm_note),
				 "pid %d: its QMP socket %s is not one the daemon is configured to use "
				 "(--qmp-socket)", (int)h->pid, path);
			qemu_args_free(&a);
			goto untrusted;
		}
		if (!set_socket(ep, path))
			goto too_long;
		ep->kind = EP_QMP_SOCKET;
	} else {
		snprintf(t->vmm_note, sizeof(t->vmm_note),
			 "pid %d: no QMP server socket on its command line "
			 "(add -qmp unix:PATH,server=on,wait=off and list PATH with --qmp-socket)",
			 (int)h->pid);
		goto fail;
	}
	qemu_args_free(&a);
	return true;
too_long:
	snprintf(t->vmm_note, sizeof(t->vmm_note), "pid %d: QMP socket path too long", (int)h->pid);
fail:
	ep->kind = EP_NONE;
	qemu_args_free(&a);
	return false;
untrusted:
	memset(ep, 0, sizeof(*ep));
	t->untrusted = true;
	return false;
}
