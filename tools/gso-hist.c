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
 * Definitions (also in docs/tools.md):
 *  - A frame is a captured IPv4/IPv6 TCP segment with a non-zero payload;
 *    its payload length comes from the IP header (captures are taken with
 *    a small snap length and GSO frames appear as one large packet).
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
 */
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fail.h"
#include "lib/frame_parse.h"
#include "lib/json.h"
#include "lib/parse.h"

#define MAX_FILES	8
#define MAX_PAYLOAD	65535	/* IP length fields are 16 bits: no larger payload */
#define AUTO_MSS_MIN	536	/* the smallest IPv4 default MSS (RFC 879) */
#define AUTO_MSS_MAX	1460	/* IPv4 MSS at MTU 1500: 1448 with timestamps, 1440/1428 for IPv6 */
#define DEFAULT_TOP	20

static const char usage[] =
	"usage: gso-hist [--mss N] [--top N] [--json] [--plot-data FILE] [LABEL=]PCAP...\n"
	"  PCAP: a capture (pcap or pcapng; Ethernet, raw IP or Linux cooked);\n"
	"        with two files the first is the tap, the second the egress port\n"
	"  LABEL: column name (default: tap and nic for two files, else the file name)\n"
	"  --mss N: MSS in bytes, 1-65535 (default: guessed in 536-1460)\n"
	"  --top N: print the N most common sizes (default 20, 0: all)\n"
	"  --plot-data FILE: write all sizes as gnuplot data to FILE\n";

struct capture {
	const char *label;
	const char *path;
	uint64_t *count;		/* [MAX_PAYLOAD + 1] frames by payload size */
	uint64_t frames;		/* TCP frames with payload */
	uint64_t payload_bytes;
	uint64_t zero_payload_frames;	/* pure ACKs and the like */
	uint64_t other_frames;		/* not TCP over IP */
	uint64_t malformed_frames;
	uint64_t mss_frame_bytes;	/* payload bytes in frames <= MSS */
	uint64_t large_frame_bytes;	/* payload bytes in frames > MSS */
	uint32_t max_payload;
};

struct hist_opts {
	uint32_t mss;			/* 0: guess */
	uint64_t top;
	bool json;
	const char *plot_path;
	struct capture caps[MAX_FILES];
	int ncaps;
};

static void parse_args(int argc, char **argv, struct hist_opts *o)
{
	uint64_t val;
	int i;

	o->top = DEFAULT_TOP;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(arg, "--mss")) {
			if (!parse_u64(next, 1, MAX_PAYLOAD, &val))
				fail_usage(usage, "--mss needs a byte count in 1-65535, got '%s'",
					   next ? next : "");
			o->mss = val;
			i++;
		} else if (!strcmp(arg, "--top")) {
			if (!parse_u64(next, 0, UINT32_MAX, &o->top))
				fail_usage(usage, "--top needs a count, got '%s'", next ? next : "");
			i++;
		} else if (!strcmp(arg, "--json") || !strcmp(arg, "-j")) {
			o->json = true;
		} else if (!strcmp(arg, "--plot-data")) {
			if (!next)
				fail_usage(usage, "--plot-data needs a FILE");
			o->plot_path = next;
			i++;
		} else if (arg[0] == '-' && arg[1] != '\0') {
			fail_usage(usage, "unknown option '%s'", arg);
		} else {
			struct capture *c;
			const char *eq = strchr(arg, '=');

			if (o->ncaps == MAX_FILES)
				fail_usage(usage, "at most %d capture files", MAX_FILES);
			c = &o->caps[o->ncaps++];
			c->path = arg;
			if (eq && eq != arg) {
				c->label = strndup(arg, eq - arg);
				if (!c->label)
					fail_errno("strndup");
				c->path = eq + 1;
			}
		}
	}
	if (!o->ncaps)
		fail_usage(usage, "missing PCAP file");
	for (i = 0; i < o->ncaps; i++) {
		struct capture *c = &o->caps[i];

		if (c->label)
			continue;
		if (o->ncaps == 2) {
			c->label = i ? "nic" : "tap";
		} else {
			const char *slash = strrchr(c->path, '/');

			c->label = slash ? slash + 1 : c->path;
		}
	}
}

static void read_capture(struct capture *c)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *hdr;
	const u_char *data;
	uint32_t payload;
	pcap_t *pcap;
	int linktype, ret;

	c->count = calloc(MAX_PAYLOAD + 1, sizeof(*c->count));
	if (!c->count)
		fail_errno("calloc");
	pcap = pcap_open_offline(c->path, errbuf);
	if (!pcap)
		fail_msg("%s: %s", c->path, errbuf);
	linktype = pcap_datalink(pcap);
	if (!frame_linktype_supported(linktype)) {
		const char *name = pcap_datalink_val_to_name(linktype);

		fail_msg("%s: link type %s (%d) not supported: capture on an Ethernet "
			 "device or with -i any", c->path, name ? name : "?", linktype);
	}

	while ((ret = pcap_next_ex(pcap, &hdr, &data)) == 1) {
		switch (frame_tcp_payload(linktype, data, hdr->caplen, &payload)) {
		case FRAME_TCP:
			if (!payload) {
				c->zero_payload_frames++;
				break;
			}
			c->count[payload]++;
			c->frames++;
			c->payload_bytes += payload;
			if (payload > c->max_payload)
				c->max_payload = payload;
			break;
		case FRAME_OTHER:
			c->other_frames++;
			break;
		case FRAME_MALFORMED:
			c->malformed_frames++;
			break;
		}
	}
	/* A truncated last record (capture still being written) is an error too. */
	if (ret == PCAP_ERROR)
		fail_msg("%s: %s", c->path, pcap_geterr(pcap));
	pcap_close(pcap);
}

/*
 * The MSS is not in a header-only capture, so infer it from the sizes.  A
 * GSO frame carries a whole number of MSS-sized segments; only the tail of
 * a write (e.g. 65536 = 45 x 1448 + 376) or a short window makes other
 * sizes.  So score each candidate m by the frames whose payload is a
 * multiple of m, and take the largest m that scores within 10% of the
 * best: the largest because m/2 divides whatever m divides; 10% so that a
 * few odd tails that happen to be multiples of m/2 do not tip it.
 * Candidates are AUTO_MSS_MIN..AUTO_MSS_MAX (IPv4's 536 minimum up to
 * MTU 1500's 1460): the short tails are all below 536 or not multiples.
 */
static uint32_t guess_mss(const struct hist_opts *o)
{
	uint64_t score[AUTO_MSS_MAX + 1] = { 0 }, best = 0;
	uint32_t m, size;
	int i;

	for (m = AUTO_MSS_MIN; m <= AUTO_MSS_MAX; m++) {
		for (size = m; size <= MAX_PAYLOAD; size += m)
			for (i = 0; i < o->ncaps; i++)
				score[m] += o->caps[i].count[size];
		if (score[m] > best)
			best = score[m];
	}
	if (!best)
		return 0;
	for (m = AUTO_MSS_MAX; m >= AUTO_MSS_MIN; m--)
		if (score[m] * 10 >= best * 9)
			return m;
	return 0;
}

static void split_by_mss(struct capture *c, uint32_t mss)
{
	uint32_t size;

	for (size = 1; size <= MAX_PAYLOAD; size++) {
		uint64_t bytes = c->count[size] * size;

		if (size <= mss)
			c->mss_frame_bytes += bytes;
		else
			c->large_frame_bytes += bytes;
	}
}

struct hist_row {
	uint32_t size;
	uint64_t total;
};

static int row_cmp(const void *a, const void *b)
{
	const struct hist_row *x = a, *y = b;

	/* Most frames first, as in seed 000's table; equal counts by size. */
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* All sizes seen in any file, sorted by total count; returns the row count. */
static size_t build_rows(const struct hist_opts *o, struct hist_row **rows_out)
{
	struct hist_row *rows = calloc(MAX_PAYLOAD + 1, sizeof(*rows));
	size_t nrows = 0;
	uint32_t size;
	int i;

	if (!rows)
		fail_errno("calloc");
	for (size = 1; size <= MAX_PAYLOAD; size++) {
		uint64_t total = 0;

		for (i = 0; i < o->ncaps; i++)
			total += o->caps[i].count[size];
		if (total)
			rows[nrows++] = (struct hist_row){ size, total };
	}
	qsort(rows, nrows, sizeof(*rows), row_cmp);
	*rows_out = rows;
	return nrows;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / whole : 0.0;
}

struct sw_segmentation {
	bool valid;		/* exactly two files: tap and egress */
	uint64_t bytes;
	double share;
};

static struct sw_segmentation sw_segmentation(const struct hist_opts *o)
{
	struct sw_segmentation s = { 0 };
	const struct capture *tap = &o->caps[0], *egress = &o->caps[1];

	if (o->ncaps != 2)
		return s;
	s.valid = true;
	if (egress->mss_frame_bytes > tap->mss_frame_bytes)
		s.bytes = egress->mss_frame_bytes - tap->mss_frame_bytes;
	s.share = share(s.bytes, egress->payload_bytes);
	return s;
}

static void print_text(const struct hist_opts *o, const struct hist_row *rows,
		       size_t nrows, const struct sw_segmentation *sw, bool mss_given)
{
	size_t r, shown = o->top && o->top < nrows ? o->top : nrows;
	int i;

	printf("payload size");
	for (i = 0; i < o->ncaps; i++)
		printf(" | %s count", o->caps[i].label);
	printf("\n");
	for (r = 0; r < shown; r++) {
		printf("%u bytes", rows[r].size);
		for (i = 0; i < o->ncaps; i++)
			printf(" | %" PRIu64, o->caps[i].count[rows[r].size]);
		printf("\n");
	}
	if (shown < nrows)
		printf("(%zu more sizes; --top 0 shows all)\n", nrows - shown);
	printf("\n");
	for (i = 0; i < o->ncaps; i++) {
		const struct capture *c = &o->caps[i];

		printf("%s: file %s frames %" PRIu64 " payload_bytes %" PRIu64
		       " max_payload %u large_frame_bytes %" PRIu64 " large_frame_share %.4f"
		       " zero_payload_frames %" PRIu64 " other_frames %" PRIu64
		       " malformed_frames %" PRIu64 "\n",
		       c->label, c->path, c->frames, c->payload_bytes, c->max_payload,
		       c->large_frame_bytes, share(c->large_frame_bytes, c->payload_bytes),
		       c->zero_payload_frames, c->other_frames, c->malformed_frames);
	}
	printf("mss %u (%s)\n", o->mss, mss_given ? "given" : "auto");
	if (sw->valid)
		printf("bytes segmented in software: %" PRIu64 " share %.4f\n",
		       sw->bytes, sw->share);
}

static void print_json(const struct hist_opts *o, const struct hist_row *rows,
		       size_t nrows, const struct sw_segmentation *sw, bool mss_given)
{
	size_t r;
	int i;

	printf("{\"mss\":%u,\"mss_source\":\"%s\",\"files\":[", o->mss,
	       mss_given ? "given" : "auto");
	for (i = 0; i < o->ncaps; i++) {
		const struct capture *c = &o->caps[i];

		printf("%s{\"label\":", i ? "," : "");
		json_print_string(stdout, c->label);
		printf(",\"path\":");
		json_print_string(stdout, c->path);
		printf(",\"frames\":%" PRIu64 ",\"payload_bytes\":%" PRIu64
		       ",\"max_payload\":%u,\"mss_frame_bytes\":%" PRIu64
		       ",\"large_frame_bytes\":%" PRIu64 ",\"large_frame_share\":%.6f"
		       ",\"zero_payload_frames\":%" PRIu64 ",\"other_frames\":%" PRIu64
		       ",\"malformed_frames\":%" PRIu64 "}",
		       c->frames, c->payload_bytes, c->max_payload, c->mss_frame_bytes,
		       c->large_frame_bytes, share(c->large_frame_bytes, c->payload_bytes),
		       c->zero_payload_frames, c->other_frames, c->malformed_frames);
	}
	printf("],\"histogram\":[");
	for (r = 0; r < nrows; r++) {
		printf("%s{\"payload_size\":%u,\"counts\":[", r ? "," : "", rows[r].size);
		for (i = 0; i < o->ncaps; i++)
			printf("%s%" PRIu64, i ? "," : "", o->caps[i].count[rows[r].size]);
		printf("]}");
	}
	printf("],\"segmented_in_software\":");
	if (sw->valid)
		printf("{\"bytes\":%" PRIu64 ",\"share\":%.6f}", sw->bytes, sw->share);
	else
		printf("null");
	printf("}\n");
}

/* Sizes ascending, one column per file: `plot FILE using 1:2 with impulses`. */
static void write_plot_data(const struct hist_opts *o)
{
	FILE *f = fopen(o->plot_path, "w");
	uint32_t size;
	int i;

	if (!f)
		fail_errno(o->plot_path);
	fprintf(f, "# gso-hist: TCP payload size histogram, mss %u\n# payload_size", o->mss);
	for (i = 0; i < o->ncaps; i++)
		fprintf(f, " %s", o->caps[i].label);
	fprintf(f, "\n");
	for (size = 1; size <= MAX_PAYLOAD; size++) {
		bool any = false;

		for (i = 0; i < o->ncaps; i++)
			any |= o->caps[i].count[size] != 0;
		if (!any)
			continue;
		fprintf(f, "%u", size);
		for (i = 0; i < o->ncaps; i++)
			fprintf(f, " %" PRIu64, o->caps[i].count[size]);
		fprintf(f, "\n");
	}
	if (fclose(f))
		fail_errno(o->plot_path);
}

int main(int argc, char **argv)
{
	struct hist_opts opts = { 0 };
	struct sw_segmentation sw;
	struct hist_row *rows;
	bool mss_given;
	size_t nrows;
	int i;

	fail_prog = "gso-hist";
	parse_args(argc, argv, &opts);
	for (i = 0; i < opts.ncaps; i++)
		read_capture(&opts.caps[i]);

	mss_given = opts.mss != 0;
	if (!mss_given) {
		opts.mss = guess_mss(&opts);
		if (!opts.mss)
			fail_msg("cannot guess the MSS: no TCP payload is a multiple of "
				 "%d-%d bytes; give --mss N", AUTO_MSS_MIN, AUTO_MSS_MAX);
	}
	for (i = 0; i < opts.ncaps; i++)
		split_by_mss(&opts.caps[i], opts.mss);
	sw = sw_segmentation(&opts);
	nrows = build_rows(&opts, &rows);

	if (opts.json)
		print_json(&opts, rows, nrows, &sw, mss_given);
	else
		print_text(&opts, rows, nrows, &sw, mss_given);
	if (opts.plot_path)
		write_plot_data(&opts);
	if (fflush(stdout))
		fail_errno("stdout");
	free(rows);
	return EXIT_SUCCESS;
}
