// SPDX-License-Identifier: GPL-2.0-only
/*
 * gso-hist end to end on an in-memory capture (pcap or pcapng, read by
 * libpcap from an fmemopen() stream): counting, the MSS guess (or a
 * given MSS, by the input's first byte), the split, the rows and all
 * three outputs.  The capture is read twice, as a tap and an egress
 * port, so the software segmentation share is computed too.
 */
#include <pcap/pcap.h>

#include "fuzz/fuzz_input.h"
#include "lib/payload_hist.h"

static FILE *devnull;

static int read_one(struct hist_capture *c, const uint8_t *data, size_t size)
{
	char err[PCAP_ERRBUF_SIZE];
	FILE *f = fmemopen((void *)data, size, "rb");
	pcap_t *pcap;
	int ret;

	if (!f)
		return -1;
	pcap = pcap_fopen_offline(f, err);	/* takes f: pcap_close() closes it */
	if (!pcap) {
		fclose(f);
		return -1;
	}
	ret = hist_read_pcap(c, pcap, err, sizeof(err));
	pcap_close(pcap);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hist h = { .ncaps = 2 };
	char err[256];
	int i;

	if (size < 2)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	/* Byte 0: 0 guesses the MSS, else it is given (1..255 scaled to 536..). */
	h.mss = data[0] ? 535u + data[0] * 4u : 0;
	h.caps[0] = (struct hist_capture){ .label = "tap", .path = "fuzz" };
	h.caps[1] = (struct hist_capture){ .label = "nic", .path = "fuzz" };
	for (i = 0; i < h.ncaps; i++)
		if (read_one(&h.caps[i], data + 1, size - 1))
			goto out;
	if (hist_finish(&h, err, sizeof(err)))
		goto out;
	fuzz_assert(h.mss > 0);
	fuzz_assert(h.caps[0].mss_frame_bytes + h.caps[0].large_frame_bytes ==
		    h.caps[0].payload_bytes);
	fuzz_assert(h.sw_valid && h.sw_bytes == 0);	/* the same capture twice */
	hist_print_text(&h, data[0] % 4, devnull);
	hist_print_json(&h, devnull);
	fuzz_assert(!hist_write_plot(&h, devnull));
out:
	hist_free(&h);
	return 0;
}
