/*
 * syncs.c: the host synchronizations of a recorded timeline (its syncs, by start), as the
 * chain finder (fusion.c, which cuts chains at them) and the models (model.c, workload.c,
 * which replay them) both ask about them. Uses nothing else of the advisor, so both can.
 */
#include "internal.h"

size_t sk_sync_from(const struct skip_timeline *tl, int64_t t)
{
	size_t lo = 0, hi = tl->nsyncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->syncs[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int sk_sync_between(const struct skip_timeline *tl, const struct skip_op *a,
		    const struct skip_op *b)
{
	size_t lo;

	if (a->launch == INT64_MIN || b->launch == INT64_MIN)
		return 0;
	lo = sk_sync_from(tl, a->launch);
	for (; lo < tl->nsyncs && tl->syncs[lo].start <= b->launch; lo++)
		if (tl->syncs[lo].pid == a->pid && tl->syncs[lo].end <= b->launch)
			return 1;
	return 0;
}
