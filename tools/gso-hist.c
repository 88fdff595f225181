// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-hist: TCP payload-size histograms of captures, side by side.
 *
 *   gso-hist [--mss N] [--top N] [--json] [--plot-data FILE] [LABEL=]PCAP...
 *
 * Seed 000's evidence was two histograms: the TCP payload sizes captured
 * on the tap (what the guest handed to the host) and on the egress port
 * (what left towards the NIC).  Identical histograms mean the host path
 * forwarded the guest's GSO frames intact; an egress dominated by
 * MSS-sized frames where the tap had 65160-byte ones means the host
 * segmented them in software.  This tool prints that table and the
 * numbers a test asserts on.
 *
 * Definitions (also in docs/tools.md; the code is lib/payload_hist.c):
 *  - A frame is a captured IPv4/IPv6 TCP segment with a non-zero payload;
 *    its payload length comes from the IP header (captures are taken with
 *    a small snap length and GSO frames appear as one large packet; a BIG
 *    TCP frame, whose IP length field is 0, by its Jumbo option or its
 *    length on the wire).
 *  - MSS: --mss, or else guessed (guess_mss()): the largest m in
 *    536..1460 such that nearly as many frames as for any other m carry a
 *    multiple of m bytes.
 *  - An MSS frame has payload <= MSS; a large frame has payload > MSS
 *    (a GSO frame that was not segmented).
 *  - With exactly two files, the first is the tap, the second the egress
 *    port, and
 *        segmented_in_software = max(0, mss_frame_bytes(egress) - mss_frame_bytes(tap))
 *    i.e. the payload bytes that left in MSS-sized frames although they
 *    did not enter in them, with its share of the egress payload bytes.
 *    It counts bytes, not frames, so it does not depend on how the
 *    segmentation cut them, and it needs no matching of packets between
 *    the captures.  A capture that misses packets on one side skews it;
 *    compare the payload_bytes of the two files to see that.
 *  - A capture with no TCP frame carrying payload is an error (exit 1),
 *    not a histogram of nothing: an empty egress capture would otherwise
 *    read as "0 bytes segmented in software".
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fail.h"
#include "lib/parse.h"
#include "lib/payload_hist.h"

#define MAX_MSS		65535
#define DEFAULT_TOP	20

static const char usage[] =
	"usage: gso-hist [--mss N] [--top N] [--json] [--plot-data FILE] [LABEL=]PCAP...\n"
	"  PCAP: a capture (pcap or pcapng; Ethernet, raw IP or Linux cooked);\n"
	"        with two files the first is the tap, the second the egress port\n"
	"  LABEL: column name (default: tap and nic for two files, else the file name);\n"
	"        split at the first '=' unless a '/' comes before it\n"
	"  --mss N: MSS in bytes, 1-65535 (default: guessed in 536-1460)\n"
	"  --top N: print the N most common sizes (default 20, 0: all)\n"
	"  --plot-data FILE: write all sizes as gnuplot data to FILE\n";

struct hist_opts {
	uint64_t top;
	bool json;
	const char *plot_path;
	struct hist hist;
};

static void parse_args(int argc, char **argv, struct hist_opts *o)
{
	struct hist *h = &o->hist;
	uint64_t val;
	int i;

	o->top = DEFAULT_TOP;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(arg, "--mss")) {
			if (!parse_u64(next, 1, MAX_MSS, &val))
				fail_usage(usage, "--mss needs a byte count in 1-65535, got '%s'",
					   next ? next : "");
			h->mss = (uint32_t)val;
			i++;
		} else if (!strcmp(arg, "--top")) {
			if (!parse_u64(next, 0, UINT32_MAX, &o->top))
				fail_usage(usage, "--top needs a count, got '%s'", next ? next : "");
			i++;
		} else if (!strcmp(arg, "--json") || !strcmp(arg, "-j")) {
			o->json = true;
		} else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			parse_help_exit(usage);
		} else if (!strcmp(arg, "--plot-data")) {
			if (!next)
				fail_usage(usage, "--plot-data needs a FILE");
			o->plot_path = next;
			i++;
		} else if (arg[0] == '-' && arg[1] != '\0') {
			fail_usage(usage, "unknown option '%s'", arg);
		} else {
			struct hist_capture *c;
			size_t label_len = hist_label_len(arg);

			if (h->ncaps == HIST_MAX_FILES)
				fail_usage(usage, "at most %d capture files", HIST_MAX_FILES);
			c = &h->caps[h->ncaps++];
			c->path = arg;
			if (label_len) {
				/* LABEL and PATH in place: argv's strings are ours to change. */
				argv[i][label_len] = '\0';
				c->label = argv[i];
				c->path = argv[i] + label_len + 1;
			}
		}
	}
	if (!h->ncaps)
		fail_usage(usage, "missing PCAP file");
	for (i = 0; i < h->ncaps; i++) {
		struct hist_capture *c = &h->caps[i];

		if (c->label)
			continue;
		if (h->ncaps == 2) {
			c->label = i ? "nic" : "tap";
		} else {
			const char *slash = strrchr(c->path, '/');

			c->label = slash ? slash + 1 : c->path;
		}
	}
}

static void read_capture(struct hist_capture *c)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *pcap;

	pcap = pcap_open_offline(c->path, errbuf);
	if (!pcap)
		fail_msg("%s: %s", c->path, errbuf);
	if (hist_read_pcap(c, pcap, errbuf, sizeof(errbuf)))
		fail_msg("%s: %s", c->path, errbuf);
	pcap_close(pcap);
}

static void write_plot_data(const struct hist_opts *o)
{
	FILE *f = fopen(o->plot_path, "w");

	if (!f)
		fail_errno(o->plot_path);
	if (hist_write_plot(&o->hist, f))
		fail_msg("%s: out of memory", o->plot_path);
	if (fclose(f))
		fail_errno(o->plot_path);
}

int main(int argc, char **argv)
{
	struct hist_opts opts = { 0 };
	char err[256];
	int i;

	fail_prog = "gso-hist";
	parse_version_exit(argc, argv);
	parse_args(argc, argv, &opts);
	for (i = 0; i < opts.hist.ncaps; i++)
		read_capture(&opts.hist.caps[i]);
	/*
	 * A capture without a single TCP frame carrying payload (tcpdump not
	 * started in time, the wrong port or filter, a stream that never
	 * crossed) would read as "0 bytes segmented in software": an error.
	 */
	for (i = 0; i < opts.hist.ncaps; i++)
		if (!opts.hist.caps[i].frames)
			fail_msg("%s: no TCP frame with a payload in the capture: it shows neither segmentation nor its absence",
				 opts.hist.caps[i].path);
	if (hist_finish(&opts.hist, err, sizeof(err)))
		fail_msg("%s", err);

	if (opts.json)
		hist_print_json(&opts.hist, stdout);
	else
		hist_print_text(&opts.hist, opts.top, stdout);
	if (opts.plot_path)
		write_plot_data(&opts);
	if (fflush(stdout))
		fail_errno("stdout");
	hist_free(&opts.hist);
	return EXIT_SUCCESS;
}
