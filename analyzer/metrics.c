/*
 * metrics.c: the metrics of one region (docs/skip-report.md has the definitions and the
 * reasons for each choice).
 *
 * Launch side, over the region's kernels that have a launch call: t_api = l.end - l.start,
 * t_queue = k.start - l.end, t_launch = k.start - l.start (SKIP's t_l); TKLQT = sum t_launch.
 * A CUDA graph launch counts once, with its first kernel; its other kernels are graph nodes.
 * GPU side, per device over the window [region start, end of the region's last operation]:
 * busy = union of kernel, memcpy and memset intervals (any operation on the device, the region's
 * or not), idle = IL - busy, and each idle gap [a, b) before operation k is split into host wait
 * = clamp(min(b, submit(k)) - a, 0, b - a) and device latency = the rest; host wait in a gap
 * during which a host synchronization returned is counted as sync stall instead. The device
 * latency of a launch that arrived after the GPU went idle is also counted as launch latency;
 * the verdict's host-side share = (host wait + sync stall + launch latency) / IL.
 */
#define SK_LOG_DOMAIN "analyzer"
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* qsort_r comparison of record indices; @ops: the run's records. */
static int cmp_dev_start(const void *a, const void *b, void *ops)
{
	const struct sk_rec *x = (const struct sk_rec *)ops + *(const uint32_t *)a;
	const struct sk_rec *y = (const struct sk_rec *)ops + *(const uint32_t *)b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

void sk_dev_order_build(const struct sk_loaded_run *run, struct sk_dev_order *ord)
{
	size_t n = run->nops, cap = 0;

	memset(ord, 0, sizeof(*ord));
	ord->idx = sk_xmalloc((n + 1) * sizeof(uint32_t));
	ord->pmax = sk_xmalloc((n + 1) * sizeof(int64_t));
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (size_t i = 0; i < n; i++) {
		ord->idx[i] = (uint32_t)i;
		lo = run->ops[i].start < lo ? run->ops[i].start : lo;
		hi = run->ops[i].start > hi ? run->ops[i].start : hi;
	}
	if (n && (uint64_t)(hi - lo) < (1ull << 48)) { /* radix on (device << 48 | offset) */
		uint64_t *keys = sk_xmalloc(n * sizeof(uint64_t));

		for (size_t i = 0; i < n; i++)
			keys[i] = ((uint64_t)run->ops[i].device << 48) |
				  (uint64_t)(run->ops[i].start - lo);
		sk_radix_sort(keys, ord->idx, n);
		free(keys);
	} else {
		qsort_r(ord->idx, n, sizeof(uint32_t), cmp_dev_start, run->ops);
	}
	for (size_t i = 0; i < n; i++) {
		const struct sk_rec *op = &run->ops[ord->idx[i]];

		if (!ord->nseg || ord->seg[ord->nseg - 1].device != op->device) {
			SK_VEC_XPUSH(ord->seg, ord->nseg, cap,
				     (struct sk_segment){op->device, i, i});
			ord->pmax[i] = op->end;
		} else {
			ord->pmax[i] = op->end > ord->pmax[i - 1] ? op->end : ord->pmax[i - 1];
		}
		ord->seg[ord->nseg - 1].e = i + 1;
	}
}

void sk_dev_order_free(struct sk_dev_order *ord)
{
	free(ord->idx);
	free(ord->pmax);
	free(ord->seg);
	memset(ord, 0, sizeof(*ord));
}

/* Did a host synchronization return within [a, b]? (syncs sorted by end) */
static int sync_returned(const struct sk_loaded_run *run, int64_t a, int64_t b)
{
	size_t lo = 0, hi = run->nsyncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (run->syncs[mid].end < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < run->nsyncs && run->syncs[lo].end <= b;
}

struct idle {
	int64_t busy, host_wait, sync_stall, device_latency, launch_latency;
};

/*
 * The gap [a, b) before operation @next (NULL: the device had no more work in the window).
 * Host wait = clamp(min(b, submit) - a, 0, b - a); the rest is device latency, and when the
 * launch reached the GPU only after it had gone idle (submit > a), that rest is the exposed
 * latency of a late launch: a host that had launched earlier would have hidden it.
 */
static void gap(const struct sk_loaded_run *run, const struct sk_rec *next, int64_t a, int64_t b,
		struct idle *d)
{
	int64_t hw = 0, rest;

	if (next && next->submit != SK_NONE) {
		hw = (next->submit < b ? next->submit : b) - a;
		hw = hw < 0 ? 0 : hw > b - a ? b - a : hw;
	} else if (!next) {
		hw = b - a; /* trailing idle of a device given no more work in the window */
	}
	if (hw && sync_returned(run, a, b))
		d->sync_stall += hw;
	else
		d->host_wait += hw;
	rest = (b - a) - hw;
	d->device_latency += rest;
	if (next && next->submit != SK_NONE && next->submit > a)
		d->launch_latency += rest;
}

/* Busy time and idle attribution of one device over [ws, we]. */
static void sweep_device(const struct sk_loaded_run *run, const struct sk_dev_order *ord,
			 const struct sk_segment *sg, int64_t ws, int64_t we, struct idle *d)
{
	size_t lo = sg->b, hi = sg->e;
	int64_t a = ws;

	memset(d, 0, sizeof(*d));
	while (lo < hi) { /* first operation starting at or after ws */
		size_t mid = lo + (hi - lo) / 2;

		if (run->ops[ord->idx[mid]].start < ws)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > sg->b && ord->pmax[lo - 1] > ws) { /* already running when the window opened */
		a = ord->pmax[lo - 1] < we ? ord->pmax[lo - 1] : we;
		d->busy += a - ws;
	}
	for (size_t i = lo; i < sg->e && a < we; i++) {
		const struct sk_rec *op = &run->ops[ord->idx[i]];
		int64_t s, e;

		if (op->start >= we)
			break;
		if (op->end <= a)
			continue;
		if (op->start > a)
			gap(run, op, a, op->start, d);
		s = op->start > a ? op->start : a;
		e = op->end < we ? op->end : we;
		d->busy += e - s;
		a = e;
	}
	if (a < we)
		gap(run, NULL, a, we, d);
}

/* The launch side and the counts, over the region's operations. Also notes which devices the
 * region used (bit d of *devices; devices >= 63 share bit 63). */
static void launch_side(const struct sk_loaded_run *run, const uint32_t *members, size_t n,
			struct skip_metrics *m, uint64_t *devices)
{
	int64_t *tapi = sk_xmalloc((n + 1) * sizeof(int64_t));
	size_t nt = 0;

	m->end_ns = INT64_MIN;
	*devices = 0;
	for (size_t k = 0; k < n; k++) {
		const struct sk_rec *op = &run->ops[members[k]];

		*devices |= 1ull << (op->device < 63 ? op->device : 63);
		if (op->end > m->end_ns)
			m->end_ns = op->end;
		if (op->kind != SKIP_OP_KERNEL) {
			m->memcpys += op->kind == SKIP_OP_MEMCPY;
			m->memsets += op->kind == SKIP_OP_MEMSET;
			continue;
		}
		m->kernels++;
		m->kernel_ns = skip_add_sat(m->kernel_ns, op->end - op->start);
		if (!(op->flags & SK_F_API)) {
			m->no_api++;
		} else if ((op->flags & SK_F_GRAPH) && !(op->flags & SK_F_GRAPH_FIRST)) {
			m->graph_nodes++;
		} else {
			int64_t t_api = op->api_end - op->launch, t_queue = op->start - op->api_end;

			m->launched++;
			m->t_api_ns = skip_add_sat(m->t_api_ns, t_api);
			m->t_queue_ns = skip_add_sat(m->t_queue_ns, t_queue);
			m->tklqt_ns = skip_add_sat(m->tklqt_ns, op->start - op->launch);
			m->queue_pos_ns = skip_add_sat(m->queue_pos_ns, t_queue > 0 ? t_queue : 0);
			m->neg_queue += t_queue < 0;
			m->neg_launch += op->start - op->launch < 0;
			tapi[nt++] = t_api;
		}
	}
	/* The lower median: the threshold is one of the launches' own t_api, an integer in ns. */
	m->median_t_api_ns = skip_median_low_i64(tapi, nt);
	for (size_t k = 0; nt && k < n; k++) {
		const struct sk_rec *op = &run->ops[members[k]];

		if (op->kind == SKIP_OP_KERNEL && op->end - op->start < m->median_t_api_ns) {
			m->short_kernels++;
			m->short_kernel_ns = skip_add_sat(m->short_kernel_ns, op->end - op->start);
		}
	}
	free(tapi);
}

void sk_region_metrics(const struct sk_loaded_run *run, const struct sk_dev_order *ord,
		       const uint32_t *members, size_t nmembers, int64_t window_start,
		       double threshold, struct skip_metrics *m)
{
	struct idle best = {-1, 0, 0, 0, 0};
	uint64_t devices;

	memset(m, 0, sizeof(*m));
	launch_side(run, members, nmembers, m, &devices);
	if (nmembers == 0) {
		memset(m, 0, sizeof(*m));
		m->verdict = SKIP_VERDICT_EMPTY;
		return;
	}
	m->start_ns = window_start;
	m->il_ns = m->end_ns - m->start_ns;
	for (size_t s = 0; s < ord->nseg; s++) {
		struct idle d;
		uint16_t dev = ord->seg[s].device;

		if (!(devices & (1ull << (dev < 63 ? dev : 63))))
			continue;
		m->ndevices++;
		sweep_device(run, ord, &ord->seg[s], m->start_ns, m->end_ns, &d);
		if (d.busy > best.busy)
			best = d;
	}
	m->busy_ns = best.busy;
	m->idle_ns = m->il_ns - m->busy_ns;
	m->host_wait_ns = best.host_wait;
	m->sync_stall_ns = best.sync_stall;
	m->device_latency_ns = best.device_latency;
	m->launch_latency_ns = best.launch_latency;
	m->il_minus_kernel_ns = skip_add_sat(m->il_ns, -m->kernel_ns); /* kernel_ns >= 0 */
	m->akd_ns = m->kernels ? (double)m->kernel_ns / (double)m->kernels : 0;
	m->host_share = m->il_ns > 0 ? ((double)m->host_wait_ns + (double)m->sync_stall_ns +
					(double)m->launch_latency_ns) /
					   (double)m->il_ns
				     : 0;
	m->launches_per_s = m->il_ns > 0 ? (double)m->kernels * 1e9 / (double)m->il_ns : 0;
	m->verdict = m->host_share >= threshold ? SKIP_VERDICT_CPU_BOUND : SKIP_VERDICT_GPU_BOUND;
}
