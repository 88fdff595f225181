// SPDX-License-Identifier: GPL-2.0-only
/*
 * From a tap's holder to the QMP endpoint of its QEMU and the virtio-net
 * device bound to the tap, read from QEMU's command line as each
 * management layer writes it:
 *
 *   libvirt   -name guest=DOMAIN,...  The monitor socket is libvirtd's (a
 *             second client would wait behind it forever): commands go
 *             through `virsh qemu-monitor-command DOMAIN`.  Taps are passed
 *             as -netdev tap,fd=N: the netdev is the one whose fd is one of
 *             the holder's descriptors for this tap.
 *   Proxmox   -id VMID (or the tap name tap<VMID>i<N> with the socket
 *             present): /var/run/qemu-server/VMID.qmp, which qemu-server
 *             itself only holds for the length of a command.
 *   plain     -qmp unix:PATH,server=on or -chardev socket,id=X,path=PATH,
 *             server=on + -mon chardev=X,mode=control.
 *
 * The device: the -device virtio-net-* whose netdev= is that -netdev; its
 * id gives /machine/peripheral/ID, without one it is found at run time
 * (qom-list /machine/peripheral-anon, qom-get netdev).
 */
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
	const char *dev = ep->qom[0] ? ep->qom : ep->device_id;

	if (ep->kind == EP_LIBVIRT)
		snprintf(buf, len, "virsh domain %s, device %s", ep->domain,
			 dev[0] ? dev : "(anonymous)");
	else
		snprintf(buf, len, "%s, device %s", ep->socket, dev[0] ? dev : "(anonymous)");
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

bool endpoint_resolve(struct tap *t, const struct tap_holder *h, const struct tap_holders *all)
{
	struct endpoint *ep = &t->ep;
	struct qemu_args a;
	char driver[64], path[QEMU_OPT_MAX];
	unsigned int vmid, net;
	int ret;

	memset(ep, 0, sizeof(*ep));
	t->vmm_note[0] = '\0';
	ret = qemu_args_read(h->pid, &a);
	if (ret) {
		snprintf(t->vmm_note, sizeof(t->vmm_note), "pid %d: cannot read its command line",
			 (int)h->pid);
		return false;
	}
	if (!qemu_cmdline_tap_netdev(&a, t->ifname, h->fds, h->nfds, taps_of(all, h->pid) == 1,
				     ep->netdev, sizeof(ep->netdev))) {
		snprintf(t->vmm_note, sizeof(t->vmm_note),
			 "pid %d holds the tap but has no -netdev tap for it (not QEMU?)", (int)h->pid);
		goto fail;
	}
	if (!qemu_cmdline_netdev_device(&a, ep->netdev, driver, sizeof(driver), ep->device_id,
					sizeof(ep->device_id))) {
		snprintf(t->vmm_note, sizeof(t->vmm_note),
			 "pid %d: no virtio-net -device with netdev=%s", (int)h->pid, ep->netdev);
		goto fail;
	}
	if (ep->device_id[0])
		snprintf(ep->qom, sizeof(ep->qom), "/machine/peripheral/%s", ep->device_id);

	if (qemu_cmdline_libvirt_domain(&a, ep->domain, sizeof(ep->domain))) {
		ep->kind = EP_LIBVIRT;
	} else if (qemu_cmdline_proxmox_vmid(&a, &vmid) ||
		   (qemu_proxmox_tap_name(t->ifname, &vmid, &net) &&
		    snprintf(path, sizeof(path), "%s/%u.qmp", ld_cfg.proxmox_run_dir, vmid) > 0 &&
		    !access(path, F_OK))) {
		snprintf(path, sizeof(path), "%s/%u.qmp", ld_cfg.proxmox_run_dir, vmid);
		if (!set_socket(ep, path))
			goto too_long;
		ep->kind = EP_PROXMOX;
	} else if (qemu_cmdline_qmp_socket(&a, path, sizeof(path))) {
		if (!set_socket(ep, path))
			goto too_long;
		ep->kind = EP_QMP_SOCKET;
	} else {
		snprintf(t->vmm_note, sizeof(t->vmm_note),
			 "pid %d: no QMP server socket on its command line "
			 "(add -qmp unix:PATH,server=on,wait=off)", (int)h->pid);
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
}
