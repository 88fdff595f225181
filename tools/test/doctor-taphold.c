// SPDX-License-Identifier: GPL-2.0-only
/*
 * doctor-taphold: a stand-in for a VMM in gso-doctor's tests.  It attaches
 * QUEUES queues to an existing tap, as QEMU does for `-netdev tap,queues=N`,
 * and starts VCPUS idle threads named "CPU <i>/KVM", as QEMU names its
 * vCPU threads with `-name ...,debug-threads=on` (Proxmox's default).  The
 * doctor finds it the way it finds QEMU: through /proc/PID/fdinfo and
 * /proc/PID/task/TID/comm.  Runs until killed (SIGTERM).
 *
 *   doctor-taphold [--multi-queue] [--drip-ms MS] TAP QUEUES VCPUS [-- ARGS...]
 *
 * --drip-ms MS writes one frame of an unclaimed EtherType (0x88b5, IEEE
 * local experimental) into the tap every MS ms: the kernel receives it on
 * the tap, finds no protocol handler and counts it in the tap's
 * rx_dropped, which gives the doctor's guest-rx-dropped check a rising
 * counter.  ARGS after "--" are ignored: they only make the command line
 * look like a VMM's (e.g. "-smp 4" or "host_gso_max_size=64000").
 *
 * Prints "doctor-taphold: ready" on stdout once everything is in place.
 * Test helper only: not named gso-*, so the initramfs leaves it out.
 */
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "lib/fail.h"
#include "lib/parse.h"

static const char usage[] =
	"usage: doctor-taphold [--multi-queue] [--drip-ms MS] TAP QUEUES VCPUS [-- ARGS...]\n"
	"  QUEUES 1..16, VCPUS 0..64, MS 1..10000\n";

static void *vcpu_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	bool mq = false;
	uint64_t queues, vcpus, drip_ms = 0, i;
	const char *tap;
	int argi = 1, nargs, fd0 = -1;

	fail_prog = "doctor-taphold";
	for (; argi < argc; argi++) {
		if (!strcmp(argv[argi], "--help") || !strcmp(argv[argi], "-h"))
			parse_help_exit(usage);
		else if (!strcmp(argv[argi], "--multi-queue"))
			mq = true;
		else if (!strcmp(argv[argi], "--drip-ms") && argi + 1 < argc &&
			 parse_u64(argv[argi + 1], 1, 10000, &drip_ms))
			argi++;
		else
			break;
	}
	for (nargs = 0; argi + nargs < argc && strcmp(argv[argi + nargs], "--"); nargs++)
		;
	if (nargs != 3)
		fail_usage(usage, "expected TAP QUEUES VCPUS");
	tap = argv[argi];
	if (!parse_u64(argv[argi + 1], 1, 16, &queues) || !parse_u64(argv[argi + 2], 0, 64, &vcpus))
		fail_usage(usage, "bad QUEUES or VCPUS");
	if (queues > 1)
		mq = true;

	for (i = 0; i < queues; i++) {
		struct ifreq ifr = { 0 };
		int fd = open("/dev/net/tun", O_RDWR);

		if (fd < 0)
			fail_errno("open /dev/net/tun");
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", tap);
		ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | (mq ? IFF_MULTI_QUEUE : 0);
		if (ioctl(fd, TUNSETIFF, &ifr) < 0)
			fail_errno("TUNSETIFF");
		if (fd0 < 0)
			fd0 = fd;
	}
	for (i = 0; i < vcpus; i++) {
		pthread_t t;
		char name[16];

		if (pthread_create(&t, NULL, vcpu_thread, NULL))
			fail_msg("pthread_create failed");
		snprintf(name, sizeof(name), "CPU %u/KVM", (unsigned int)i);
		pthread_setname_np(t, name);
	}
	printf("doctor-taphold: ready\n");
	fflush(stdout);
	if (!drip_ms)
		for (;;)
			pause();
	for (;;) {
		/* virtio-net header (10 bytes, no GSO), broadcast, EtherType 0x88b5. */
		unsigned char frame[10 + 60] = { 0 };
		struct timespec ts = { .tv_sec = (time_t)(drip_ms / 1000),
				       .tv_nsec = (long)(drip_ms % 1000) * 1000000L };

		memset(frame + 10, 0xff, 6);
		frame[10 + 6] = 0x02;
		frame[10 + 11] = 0x01;
		frame[10 + 12] = 0x88;
		frame[10 + 13] = 0xb5;
		if (write(fd0, frame, sizeof(frame)) < 0)
			fail_errno("write to tap");
		nanosleep(&ts, NULL);
	}
}
