// SPDX-License-Identifier: GPL-2.0-only
/*
 * doctor-taphold: a stand-in for a VMM in gso-doctor's tests.  It attaches
 * QUEUES queues to an existing tap, as QEMU does for `-netdev tap,queues=N`,
 * and starts VCPUS idle threads named "CPU <i>/KVM", as QEMU names its
 * vCPU threads with `-name ...,debug-threads=on` (Proxmox's default).  The
 * doctor finds it the way it finds QEMU: through /proc/PID/fdinfo and
 * /proc/PID/task/TID/comm.  Runs until killed (SIGTERM).
 *
 *   doctor-taphold [--multi-queue] TAP QUEUES VCPUS
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
#include <unistd.h>

#include "lib/fail.h"
#include "lib/parse.h"

static const char usage[] = "usage: doctor-taphold [--multi-queue] TAP QUEUES VCPUS\n"
			    "  QUEUES 1..16, VCPUS 0..64\n";

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
	uint64_t queues, vcpus, i;
	const char *tap;
	int argi = 1;
	char c;

	fail_prog = "doctor-taphold";
	if (argi < argc && !strcmp(argv[argi], "--multi-queue")) {
		mq = true;
		argi++;
	}
	if (argc - argi != 3)
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
	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	/* stdin closed (or /dev/null): wait for the signal. */
	for (;;)
		pause();
}
