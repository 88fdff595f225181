// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "pattern.h"

static uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static void next_word(struct pattern *p)
{
	uint64_t x = xorshift64(&p->state);
	unsigned int i;

	/* Little-endian byte order by hand: the stream must not depend on the host. */
	for (i = 0; i < 8; i++)
		p->word[i] = (uint8_t)(x >> (8 * i));
	p->used = 0;
}

void pattern_init(struct pattern *p, uint64_t seed)
{
	/*
	 * xorshift64 stays at 0 forever if started there; mixing the seed
	 * with a splitmix64-style constant keeps seed 0 usable and makes
	 * neighbouring seeds give unrelated streams.
	 */
	p->state = (seed + 1) * 0x9e3779b97f4a7c15ULL;
	if (!p->state)
		p->state = 0x9e3779b97f4a7c15ULL;
	p->used = sizeof(p->word);
}

void pattern_fill(struct pattern *p, uint8_t *buf, size_t len)
{
	size_t n;

	while (len) {
		if (p->used == sizeof(p->word)) {
			/* Whole words straight into the buffer: the common case. */
			while (len >= sizeof(p->word)) {
				next_word(p);
				memcpy(buf, p->word, sizeof(p->word));
				buf += sizeof(p->word);
				len -= sizeof(p->word);
				p->used = sizeof(p->word);
			}
			if (!len)
				return;
			next_word(p);
		}
		n = sizeof(p->word) - p->used;
		if (n > len)
			n = len;
		memcpy(buf, p->word + p->used, n);
		p->used += n;
		buf += n;
		len -= n;
	}
}

uint64_t fnv1a64(uint64_t hash, const uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		hash ^= buf[i];
		hash *= 0x100000001b3ULL;
	}
	return hash;
}
