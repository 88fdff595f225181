// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "frame_parse.h"
#include "json.h"
#include "payload_hist.h"

static size_t slot_of(const struct size_counts *sc, uint32_t size)
{
	/* Fibonacci hashing; cap is a power of two. */
	return (size_t)((size * 2654435761u) & (sc->cap - 1));
}

uint64_t size_counts_get(const struct size_counts *sc, uint32_t size)
{
	size_t i;

	if (!sc->cap || !size)
		return 0;
	for (i = slot_of(sc, size); sc->slots[i].size; i = (i + 1) & (sc->cap - 1))
		if (sc->slots[i].size == size)
			return sc->slots[i].count;
	return 0;
}

static int size_counts_grow(struct size_counts *sc)
{
	struct size_counts bigger = { .cap = sc->cap ? 2 * sc->cap : 64 };
	size_t i;

	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (i = 0; i < sc->cap; i++)
		if (sc->slots[i].size)
			size_counts_add(&bigger, sc->slots[i].size, sc->slots[i].count);
	free(sc->slots);
	*sc = bigger;
	return 0;
}

int size_counts_add(struct size_counts *sc, uint32_t size, uint64_t n)
{
	size_t i;

	if (!size)
		return -EINVAL;
	/* At most half full: probes stay short. */
	if (2 * (sc->used + 1) > sc->cap && size_counts_grow(sc))
		return -ENOMEM;
	for (i = slot_of(sc, size); sc->slots[i].size; i = (i + 1) & (sc->cap - 1))
		if (sc->slots[i].size == size)
			break;
	if (!sc->slots[i].size) {
		sc->slots[i].size = size;
		sc->used++;
	}
	sc->slots[i].count += n;
	return 0;
}

size_t hist_label_len(const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || memchr(arg, '/', (size_t)(eq - arg)))
		return 0;
	return (size_t)(eq - arg);
}

int hist_read_pcap(struct hist_capture *c, pcap_t *pcap, char *err, size_t errlen)
{
	struct pcap_pkthdr *hdr;
	const u_char *data;
	uint32_t payload;
	int linktype, ret;

	linktype = pcap_datalink(pcap);
	if (!frame_linktype_supported(linktype)) {
		const char *name = pcap_datalink_val_to_name(linktype);

		snprintf(err, errlen, "link type %s (%d) not supported: capture on an "
			 "Ethernet device or with -i any", name ? name : "?", linktype);
		return -1;
	}
	while ((ret = pcap_next_ex(pcap, &hdr, &data)) == 1) {
		switch (frame_tcp_payload(linktype, data, hdr->caplen, hdr->len, &payload)) {
		case FRAME_TCP:
			if (!payload) {
				c->zero_payload_frames++;
				break;
			}
			if (size_counts_add(&c->count, payload, 1)) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
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
	if (ret == PCAP_ERROR) {
		snprintf(err, errlen, "%s", pcap_geterr(pcap));
		return -1;
	}
	return 0;
}

/*
 * The MSS is not in a header-only capture, so infer it from the sizes.  A
 * GSO frame carries a whole number of MSS-sized segments; only the tail of
 * a write (e.g. 65536 = 45 x 1448 + 376) or a short window makes other
 * sizes.  So score each candidate m by the frames whose payload is a
 * multiple of m, and take the largest m that scores within 10% of the
 * best: the largest because m/2 divides whatever m divides; 10% so that a
 * few odd tails that happen to be multiples of m/2 do not tip it.
 * Candidates are HIST_AUTO_MSS_MIN..MAX (IPv4's 536 minimum up to MTU
 * 1500's 1460): the short tails are all below 536 or not multiples.
 */
static uint32_t guess_mss(const struct hist *h)
{
	uint64_t score[HIST_AUTO_MSS_MAX + 1] = { 0 }, best = 0;
	uint32_t m;
	size_t r;

	for (m = HIST_AUTO_MSS_MIN; m <= HIST_AUTO_MSS_MAX; m++) {
		for (r = 0; r < h->nrows; r++)
			if (h->rows[r].size % m == 0)
				score[m] += h->rows[r].total;
		if (score[m] > best)
			best = score[m];
	}
	if (!best)
		return 0;
	for (m = HIST_AUTO_MSS_MAX; m >= HIST_AUTO_MSS_MIN; m--)
		if (score[m] * 10 >= best * 9)
			return m;
	return 0;
}

static void split_by_mss(struct hist_capture *c, uint32_t mss)
{
	size_t i;

	for (i = 0; i < c->count.cap; i++) {
		const struct size_count *s = &c->count.slots[i];

		if (!s->size)
			continue;
		if (s->size <= mss)
			c->mss_frame_bytes += s->count * s->size;
		else
			c->large_frame_bytes += s->count * s->size;
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct hist_row *x = a, *y = b;

	/* Most frames first, as in seed 000's table; equal counts by size. */
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->size < y->size ? -1 : x->size > y->size;
}

static int row_cmp_size(const void *a, const void *b)
{
	const struct hist_row *x = a, *y = b;

	return x->size < y->size ? -1 : x->size > y->size;
}

/* All sizes seen in any capture, sorted by total count. */
static int build_rows(struct hist *h)
{
	struct size_counts all = { 0 };
	size_t i, n = 0;
	int c;

	for (c = 0; c < h->ncaps; c++)
		for (i = 0; i < h->caps[c].count.cap; i++) {
			const struct size_count *s = &h->caps[c].count.slots[i];

			if (s->size && size_counts_add(&all, s->size, s->count)) {
				free(all.slots);
				return -ENOMEM;
			}
		}
	h->rows = calloc(all.used ? all.used : 1, sizeof(*h->rows));
	if (!h->rows) {
		free(all.slots);
		return -ENOMEM;
	}
	for (i = 0; i < all.cap; i++)
		if (all.slots[i].size)
			h->rows[n++] = (struct hist_row){ all.slots[i].size, all.slots[i].count };
	free(all.slots);
	h->nrows = n;
	qsort(h->rows, h->nrows, sizeof(*h->rows), row_cmp);
	return 0;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

int hist_finish(struct hist *h, char *err, size_t errlen)
{
	const struct hist_capture *tap = &h->caps[0], *egress = &h->caps[1];
	int i;

	if (build_rows(h)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	h->mss_given = h->mss != 0;
	if (!h->mss_given) {
		h->mss = guess_mss(h);
		if (!h->mss) {
			snprintf(err, errlen, "cannot guess the MSS: no TCP payload is a multiple of "
				 "%d-%d bytes; give --mss N", HIST_AUTO_MSS_MIN, HIST_AUTO_MSS_MAX);
			return -1;
		}
	}
	for (i = 0; i < h->ncaps; i++)
		split_by_mss(&h->caps[i], h->mss);
	h->sw_valid = h->ncaps == 2;
	if (h->sw_valid && egress->mss_frame_bytes > tap->mss_frame_bytes)
		h->sw_bytes = egress->mss_frame_bytes - tap->mss_frame_bytes;
	if (h->sw_valid)
		h->sw_share = share(h->sw_bytes, egress->payload_bytes);
	return 0;
}

void hist_print_text(const struct hist *h, uint64_t top, FILE *out)
{
	size_t r, shown = top && top < h->nrows ? (size_t)top : h->nrows;
	int i;

	fprintf(out, "payload size");
	for (i = 0; i < h->ncaps; i++)
		fprintf(out, " | %s count", h->caps[i].label);
	fprintf(out, "\n");
	for (r = 0; r < shown; r++) {
		fprintf(out, "%u bytes", h->rows[r].size);
		for (i = 0; i < h->ncaps; i++)
			fprintf(out, " | %" PRIu64, size_counts_get(&h->caps[i].count, h->rows[r].size));
		fprintf(out, "\n");
	}
	if (shown < h->nrows)
		fprintf(out, "(%zu more sizes; --top 0 shows all)\n", h->nrows - shown);
	fprintf(out, "\n");
	for (i = 0; i < h->ncaps; i++) {
		const struct hist_capture *c = &h->caps[i];

		fprintf(out, "%s: file %s frames %" PRIu64 " payload_bytes %" PRIu64
			" max_payload %u large_frame_bytes %" PRIu64 " large_frame_share %.4f"
			" zero_payload_frames %" PRIu64 " other_frames %" PRIu64
			" malformed_frames %" PRIu64 "\n",
			c->label, c->path, c->frames, c->payload_bytes, c->max_payload,
			c->large_frame_bytes, share(c->large_frame_bytes, c->payload_bytes),
			c->zero_payload_frames, c->other_frames, c->malformed_frames);
	}
	fprintf(out, "mss %u (%s)\n", h->mss, h->mss_given ? "given" : "auto");
	if (h->sw_valid)
		fprintf(out, "bytes segmented in software: %" PRIu64 " share %.4f\n",
			h->sw_bytes, h->sw_share);
}

void hist_print_json(const struct hist *h, FILE *out)
{
	size_t r;
	int i;

	fprintf(out, "{\"mss\":%u,\"mss_source\":\"%s\",\"files\":[", h->mss,
		h->mss_given ? "given" : "auto");
	for (i = 0; i < h->ncaps; i++) {
		const struct hist_capture *c = &h->caps[i];

		fprintf(out, "%s{\"label\":", i ? "," : "");
		json_print_string(out, c->label);
		fprintf(out, ",\"path\":");
		json_print_string(out, c->path);
		fprintf(out, ",\"frames\":%" PRIu64 ",\"payload_bytes\":%" PRIu64
			",\"max_payload\":%u,\"mss_frame_bytes\":%" PRIu64
			",\"large_frame_bytes\":%" PRIu64 ",\"large_frame_share\":%.6f"
			",\"zero_payload_frames\":%" PRIu64 ",\"other_frames\":%" PRIu64
			",\"malformed_frames\":%" PRIu64 "}",
			c->frames, c->payload_bytes, c->max_payload, c->mss_frame_bytes,
			c->large_frame_bytes, share(c->large_frame_bytes, c->payload_bytes),
			c->zero_payload_frames, c->other_frames, c->malformed_frames);
	}
	fprintf(out, "],\"histogram\":[");
	for (r = 0; r < h->nrows; r++) {
		fprintf(out, "%s{\"payload_size\":%u,\"counts\":[", r ? "," : "", h->rows[r].size);
		for (i = 0; i < h->ncaps; i++)
			fprintf(out, "%s%" PRIu64, i ? "," : "",
				size_counts_get(&h->caps[i].count, h->rows[r].size));
		fprintf(out, "]}");
	}
	fprintf(out, "],\"segmented_in_software\":");
	if (h->sw_valid)
		fprintf(out, "{\"bytes\":%" PRIu64 ",\"share\":%.6f}", h->sw_bytes, h->sw_share);
	else
		fprintf(out, "null");
	fprintf(out, "}\n");
}

int hist_write_plot(const struct hist *h, FILE *out)
{
	struct hist_row *by_size = malloc((h->nrows ? h->nrows : 1) * sizeof(*by_size));
	size_t r;
	int i;

	if (!by_size)
		return -ENOMEM;
	memcpy(by_size, h->rows, h->nrows * sizeof(*by_size));
	qsort(by_size, h->nrows, sizeof(*by_size), row_cmp_size);
	fprintf(out, "# gso-hist: TCP payload size histogram, mss %u\n# payload_size", h->mss);
	for (i = 0; i < h->ncaps; i++)
		fprintf(out, " %s", h->caps[i].label);
	fprintf(out, "\n");
	for (r = 0; r < h->nrows; r++) {
		fprintf(out, "%u", by_size[r].size);
		for (i = 0; i < h->ncaps; i++)
			fprintf(out, " %" PRIu64, size_counts_get(&h->caps[i].count, by_size[r].size));
		fprintf(out, "\n");
	}
	free(by_size);
	return 0;
}

void hist_free(struct hist *h)
{
	int i;

	for (i = 0; i < h->ncaps; i++) {
		free(h->caps[i].count.slots);
		memset(&h->caps[i].count, 0, sizeof(h->caps[i].count));
	}
	free(h->rows);
	h->rows = NULL;
	h->nrows = 0;
}
