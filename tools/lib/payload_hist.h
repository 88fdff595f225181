/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gso-hist's histograms: TCP payload sizes of captures, the MSS, the
 * bytes segmented in software, and their text, JSON and gnuplot forms.
 * The definitions are in gso-hist.c's header comment and docs/tools.md.
 *
 * Here rather than in gso-hist.c so that the fuzzer runs the whole
 * program on in-memory captures (fuzz/fuzz-hist.c): nothing here exits;
 * errors come back as messages.
 */
#ifndef GSO_TOOLS_PAYLOAD_HIST_H
#define GSO_TOOLS_PAYLOAD_HIST_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_MAX_FILES		8
#define HIST_AUTO_MSS_MIN	536	/* the smallest IPv4 default MSS (RFC 879) */
#define HIST_AUTO_MSS_MAX	1460	/* IPv4 MSS at MTU 1500: 1448 with timestamps, 1440/1428 for IPv6 */

/* Frames by payload size: sparse, since BIG TCP payloads reach 512 KiB and beyond. */
struct size_count {
	uint32_t size;			/* 0: free slot (frames without payload are not kept) */
	uint64_t count;
};
struct size_counts {
	struct size_count *slots;	/* open addressing, a power of two of them */
	size_t cap;
	size_t used;
};

struct hist_capture {
	const char *label;
	const char *path;
	struct size_counts count;	/* TCP frames with payload, by payload size */
	uint64_t frames;		/* TCP frames with payload */
	uint64_t payload_bytes;
	uint64_t zero_payload_frames;	/* pure ACKs and the like */
	uint64_t other_frames;		/* not TCP over IP */
	uint64_t malformed_frames;
	uint64_t mss_frame_bytes;	/* payload bytes in frames <= MSS */
	uint64_t large_frame_bytes;	/* payload bytes in frames > MSS */
	uint32_t max_payload;
};

struct hist_row {
	uint32_t size;
	uint64_t total;			/* frames of this size over all captures */
};

struct hist {
	struct hist_capture caps[HIST_MAX_FILES];
	int ncaps;
	uint32_t mss;			/* 0 before hist_finish(): guess it */
	bool mss_given;
	struct hist_row *rows;		/* all sizes, most frames first */
	size_t nrows;
	bool sw_valid;			/* exactly two captures: tap and egress */
	uint64_t sw_bytes;		/* segmented_in_software */
	double sw_share;
};

/* Count of @size in @sc (0 if none); add @n frames of @size (> 0).  0 or -ENOMEM. */
uint64_t size_counts_get(const struct size_counts *sc, uint32_t size);
int size_counts_add(struct size_counts *sc, uint32_t size, uint64_t n);

/*
 * A capture argument "[LABEL=]PATH": the length of LABEL, or 0 when there
 * is none.  The first '=' splits, unless the text before it holds a '/'
 * (then it is a directory of PATH: "dir/a=b.pcap" is a file).
 */
size_t hist_label_len(const char *arg);

/* Count the frames of @pcap into @c.  0, or -1 with a message in @err. */
int hist_read_pcap(struct hist_capture *c, pcap_t *pcap, char *err, size_t errlen);

/*
 * MSS (given, else guessed), MSS/large split, software segmentation and
 * rows.  0, or -1 with a message in @err (no MSS to be guessed, no memory).
 */
int hist_finish(struct hist *h, char *err, size_t errlen);

void hist_print_text(const struct hist *h, uint64_t top, FILE *out);
void hist_print_json(const struct hist *h, FILE *out);
/* Sizes ascending, one column per capture: `plot FILE using 1:2 with impulses`.  0 or -ENOMEM. */
int hist_write_plot(const struct hist *h, FILE *out);

void hist_free(struct hist *h);

#endif
