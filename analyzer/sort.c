/*
 * sort.c: LSD radix sort of (64-bit key, 32-bit value) pairs, for ordering millions of
 * operations by (thread, launch time) or (device, start) in linear time; qsort with a
 * comparator that chases indices was the slowest step of a 10-million-kernel report. 16-bit
 * digits, 4 passes at most; a pass whose digit is the same for every key is skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void sort_unsorted(uint64_t *keys, uint32_t *vals, size_t n, uint64_t *k2);

void sk_radix_sort(uint64_t *keys, uint32_t *vals, size_t n)
{
	uint64_t *k2;
	size_t i = 1;

	while (i < n &&
	       keys[i - 1] <= keys[i]) /* already in order: the common case of one stream */
		i++;
	if (i >= n)
		return;
	k2 = sk_xmalloc((n + 1) * sizeof(uint64_t));
	sort_unsorted(keys, vals, n, k2);
}

static void sort_unsorted(uint64_t *keys, uint32_t *vals, size_t n, uint64_t *k2)
{
	uint32_t *v2 = sk_xmalloc((n + 1) * sizeof(uint32_t));
	size_t *count = sk_xmalloc(65536 * sizeof(size_t));
	uint64_t *src_k = keys, *dst_k = k2;
	uint32_t *src_v = vals, *dst_v = v2;

	for (int shift = 0; shift < 64; shift += 16) {
		size_t sum = 0;
		int single = 0;

		memset(count, 0, 65536 * sizeof(size_t));
		for (size_t i = 0; i < n; i++)
			count[(src_k[i] >> shift) & 0xFFFF]++;
		for (size_t d = 0; d < 65536; d++) {
			size_t c = count[d];

			single |= c == n;
			count[d] = sum;
			sum += c;
		}
		if (single)
			continue;
		for (size_t i = 0; i < n; i++) {
			size_t pos = count[(src_k[i] >> shift) & 0xFFFF]++;

			dst_k[pos] = src_k[i];
			dst_v[pos] = src_v[i];
		}
		{
			uint64_t *tk = src_k;
			uint32_t *tv = src_v;

			src_k = dst_k;
			src_v = dst_v;
			dst_k = tk;
			dst_v = tv;
		}
	}
	if (src_k != keys) {
		memcpy(keys, src_k, n * sizeof(uint64_t));
		memcpy(vals, src_v, n * sizeof(uint32_t));
	}
	free(k2);
	free(v2);
	free(count);
}
