// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcap-synth: write a capture with a known TCP payload-size histogram.
 *
 *   pcap-synth OUT.pcap [tcp4|tcp6|udp4]:SIZE:COUNT...
 *
 * Each argument adds COUNT frames carrying SIZE payload bytes, stored as
 * `tcpdump -s 200` stores them: headers only, with the IP length fields
 * claiming the full payload.  tests/tools-hist.sh builds the captures of
 * seed 000's two cases with it and checks gso-hist's numbers exactly.
 * A test helper: not installed into the guest (not named gso-*).
 */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fail.h"
#include "lib/frame_build.h"
#include "lib/parse.h"

#define MAX_FRAMES_PER_ARG	10000000

static const char usage[] =
	"usage: pcap-synth OUT.pcap PROTO:SIZE:COUNT...\n"
	"  PROTO: tcp4, tcp6 or udp4; SIZE: payload bytes; COUNT: frames\n";

int main(int argc, char **argv)
{
	uint8_t frame[FRAME_BUILD_MAX_HDR];
	struct pcap_pkthdr hdr = { 0 };
	pcap_dumper_t *dump;
	uint64_t size, count, n, ts = 0;
	pcap_t *pcap;
	int i;

	fail_prog = "pcap-synth";
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			parse_help_exit(usage);
	if (argc < 3)
		fail_usage(usage, "need OUT.pcap and at least one PROTO:SIZE:COUNT");
	pcap = pcap_open_dead(DLT_EN10MB, 200);
	if (!pcap)
		fail_msg("pcap_open_dead failed");
	dump = pcap_dump_open(pcap, argv[1]);
	if (!dump)
		fail_msg("%s: %s", argv[1], pcap_geterr(pcap));

	for (i = 2; i < argc; i++) {
		char spec[64], *size_str, *count_str;
		enum frame_build_proto proto;

		snprintf(spec, sizeof(spec), "%s", argv[i]);
		size_str = strchr(spec, ':');
		count_str = size_str ? strchr(size_str + 1, ':') : NULL;
		if (!count_str)
			fail_usage(usage, "'%s' is not PROTO:SIZE:COUNT", argv[i]);
		*size_str++ = '\0';
		*count_str++ = '\0';
		if (!strcmp(spec, "tcp4"))
			proto = FRAME_BUILD_TCP4;
		else if (!strcmp(spec, "tcp6"))
			proto = FRAME_BUILD_TCP6;
		else if (!strcmp(spec, "udp4"))
			proto = FRAME_BUILD_UDP4;
		else
			fail_usage(usage, "unknown PROTO '%s' in '%s'", spec, argv[i]);
		if (!parse_u64(size_str, 0, 65535, &size) ||
		    !parse_u64(count_str, 0, MAX_FRAMES_PER_ARG, &count))
			fail_usage(usage, "bad SIZE or COUNT in '%s'", argv[i]);

		for (n = 0; n < count; n++) {
			hdr.caplen = frame_build(frame, proto, size);
			if (!hdr.caplen)
				fail_usage(usage, "SIZE %" PRIu64 " does not fit in one %s packet",
					   size, spec);
			hdr.len = hdr.caplen + size;
			/* Distinct, increasing timestamps, 10 us apart. */
			hdr.ts.tv_sec = ts / 100000;
			hdr.ts.tv_usec = ts % 100000 * 10;
			ts++;
			pcap_dump((u_char *)dump, &hdr, frame);
		}
	}
	if (pcap_dump_flush(dump))
		fail_msg("%s: write failed", argv[1]);
	pcap_dump_close(dump);
	pcap_close(pcap);
	return EXIT_SUCCESS;
}
