/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmarks' one-process copy ceiling: a loop of 16-byte SSE2 loads
 * and stores, 64 bytes a round, with no `rep movsb` (which TCG runs at a
 * few hundredths of a GB/s).  Bytes past the last whole 64 go by memcpy.
 */
#ifndef MEMREG_BENCH_COPY_SSE2_H
#define MEMREG_BENCH_COPY_SSE2_H

#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void copy_sse2(uint8_t *d, const uint8_t *s, size_t len)
{
	size_t i;

	for (i = 0; i + 64 <= len; i += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));

		_mm_storeu_si128((__m128i *)(d + i), a);
		_mm_storeu_si128((__m128i *)(d + i + 16), b);
		_mm_storeu_si128((__m128i *)(d + i + 32), c);
		_mm_storeu_si128((__m128i *)(d + i + 48), e);
	}
	if (i < len)
		memcpy(d + i, s + i, len - i);
}

#endif /* MEMREG_BENCH_COPY_SSE2_H */
