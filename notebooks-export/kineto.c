/*
 * kineto.c: what only the Kineto flavour of the timeline writes, as PyTorch's profiler writes
 * it (Kineto's libkineto/src/output_json.cpp; the H100 trace tests/fixtures/torchprof/
 * torch_mlp.pt.trace.json.gz shows each field): PyTorch operators from emit_nvtx's range texts
 * with their sequence numbers and the fwdbwd flows between a forward operator and its backward
 * Node, the kernels' occupancy args, API names without CUPTI's version suffix, and the
 * metadata events (ph "M", no cat). docs/skip-export.md "kineto" lists the fields.
 */
#include <stdlib.h>
#include <string.h>

#include "tl.h"

/* ---- GPUs ------------------------------------------------------------------------------ */

int sk_kineto_init(struct tl *tl)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc =
	    sqlite3_prepare_v2(tl->db,
			       "SELECT id, smCount, computeMajor, threadsPerWarp, maxWarpsPerSm, "
			       "maxBlocksPerSm, maxRegistersPerSm, maxRegistersPerBlock, "
			       "maxShmemPerSm FROM sk_gpus GROUP BY id ORDER BY id",
			       -1, &st, NULL);

	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct tl_gpu g = {.ok = 1};
		int64_t *f[] = {&g.id,	       &g.sms,	   &g.major,	  &g.warp,   &g.max_warps,
				&g.max_blocks, &g.regs_sm, &g.regs_block, &g.smem_sm};

		for (int i = 0; i < 9; i++) {
			*f[i] = sqlite3_column_int64(st, i);
			if (sqlite3_column_type(st, i) != SQLITE_INTEGER || *f[i] < (i ? 1 : 0) ||
			    *f[i] > ((int64_t)1 << 24))
				g.ok = 0;
		}
		/* the allocation units below are those of compute capability 7.0 to 12.x */
		g.ok = g.ok && g.major >= 7 && g.major <= 12;
		SK_VEC_XPUSH(tl->gpus, tl->ngpus, cap, g);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sk_fail(SKIP_E_DB, "reading the GPUs failed: %s", sqlite3_errmsg(tl->db));
	return 0;
}

void sk_kineto_fini(struct tl *tl)
{
	free(tl->gpus);
	free(tl->fwds);
	sk_hash_fini(&tl->fwd_idx);
}

static int64_t up(int64_t v, int64_t unit)
{
	return (v + unit - 1) / unit * unit;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/*
 * Resident blocks per SM, as CUDA's occupancy calculator (cuda_occupancy.h,
 * cudaOccMaxActiveBlocksPerMultiprocessor, which Kineto calls with the kernel's registers and
 * shared memory and the default carveout) finds it: the least of the warp limit, the block
 * limit, the register limit (registers are given per warp in units of 256, in 4 SM
 * sub-partitions; at most 255 per thread) and the shared memory limit (the block's bytes
 * plus 1 KiB reserved per block from compute capability 8.0, in units of 128 bytes, 256 before,
 * against the SM's largest carveout). -1 when the block does not fit at all.
 */
static int64_t resident_blocks(const struct tl_gpu *g, int64_t threads, int64_t regs, int64_t smem)
{
	int64_t warps = (threads + g->warp - 1) / g->warp, lim, per_warp, sub = 4;
	int64_t unit = g->major >= 8 ? 128 : 256, reserved = g->major >= 8 ? 1024 : 0;

	if (warps > g->max_warps || regs < 0 || regs > 255 || smem < 0 || smem > ((int64_t)1 << 40))
		return -1;
	lim = min64(g->max_warps / warps, g->max_blocks);
	per_warp = up(regs * g->warp, 256);
	if (per_warp) {
		if (per_warp * up(warps, sub) > g->regs_block)
			return -1;
		lim = min64(lim, g->regs_sm / sub / per_warp * sub / warps);
	}
	return min64(lim, g->smem_sm / up(smem + reserved, unit));
}

void sk_kineto_kernel_args(struct tl *tl, int64_t dev, int64_t blocks, int64_t threads,
			   int64_t regs, int64_t smem)
{
	const struct tl_gpu *g = NULL;
	double per_sm, active;
	int64_t res;
	char buf[160];

	for (size_t i = 0; i < tl->ngpus; i++)
		if (tl->gpus[i].id == dev && tl->gpus[i].ok)
			g = &tl->gpus[i];
	/* more than 2^31 - 1 threads per block: a malformed row */
	if (!g || blocks <= 0 || threads <= 0 || threads >= ((int64_t)1 << 31))
		return;
	/* Kineto: blocks / SMs and blocks x warps per block / SMs, printed with 6 decimals */
	per_sm = (double)blocks / (double)g->sms;
	snprintf(buf, sizeof(buf), ",\"blocks per SM\":%.6f,\"warps per SM\":%.6f", per_sm,
		 per_sm * (double)((threads + g->warp - 1) / g->warp));
	sk_ew_str(&tl->w, buf);
	res = resident_blocks(g, threads, regs, smem);
	if (res < 0)
		return;
	/* the blocks that can be resident, or fewer when the grid is small, times their threads,
	 * over the SM's threads; rounded to a whole percent */
	active = (double)res < per_sm ? (double)res : per_sm;
	snprintf(buf, sizeof(buf), ",\"est. achieved occupancy %%\":%d",
		 (int)(0.5 + 100.0 * active * (double)threads / (double)(g->max_warps * g->warp)));
	sk_ew_str(&tl->w, buf);
}

/* ---- PyTorch operators ----------------------------------------------------------------- */

static int digits_at(const char *p)
{
	return *p >= '0' && *p <= '9';
}

/* @s[0..n) ends in "Backward" and digits (an autograd Node's name, "AddmmBackward0"). */
static int ends_backward(const char *s, size_t n)
{
	static const char bw[] = "Backward";

	while (n && digits_at(s + n - 1))
		n--;
	return n >= sizeof(bw) - 1 && !memcmp(s + n - (sizeof(bw) - 1), bw, sizeof(bw) - 1);
}

void sk_kineto_parse(const char *text, struct tl_op *op)
{
	static const char eval[] = "autograd::engine::evaluate_function: ";
	const char *p;

	*op = (struct tl_op){.name_len = strlen(text), .seq = -1};
	for (p = strchr(text, ','); p; p = strchr(p + 1, ',')) {
		if (!strncmp(p, ", seq = ", 8) && digits_at(p + 8)) {
			op->seq = 0;
			for (const char *d = p + 8; digits_at(d) && op->seq < INT64_MAX / 10 - 9;
			     d++)
				op->seq = op->seq * 10 + (*d - '0');
			break;
		}
		if (!strncmp(p, ", op_id = ", 10) && digits_at(p + 10))
			break;
	}
	if (p)
		op->name_len = (size_t)(p - text);
	op->backward = !strncmp(text, eval, sizeof(eval) - 1);
	op->node = !op->backward && ends_backward(text, op->name_len);
	op->backward = op->backward || op->node;
	op->is_op =
	    p || op->backward || !strncmp(text, "aten::", 6) || !strncmp(text, "autograd::", 10);
}

static uint64_t fwd_key(int64_t pid, int64_t seq)
{
	return ((uint64_t)pid << 40 | ((uint64_t)seq & (((uint64_t)1 << 40) - 1))) + 1;
}

void sk_kineto_run(struct tl *tl)
{
	tl->nfwds = 0;
	sk_hash_fini(&tl->fwd_idx);
}

void sk_kineto_op_args(struct tl *tl, const struct tl_op *op, int64_t pid)
{
	uint64_t *i;

	if (op->seq < 0)
		return;
	sk_ew_str(&tl->w, ",\"Sequence number\":");
	sk_ew_i64(&tl->w, op->seq);
	if (op->backward && (i = sk_hash_get(&tl->fwd_idx, fwd_key(pid, op->seq)))) {
		sk_ew_str(&tl->w, ",\"Fwd thread id\":");
		sk_ew_i64(&tl->w, tl->fwds[*i].tid);
	}
}

void sk_kineto_op_flow(struct tl *tl, const struct tl_op *op, int64_t pid, int64_t tid,
		       int64_t start)
{
	const struct tl_fwd *f;
	uint64_t *i;

	if (op->seq < 0)
		return;
	if (!op->backward) {
		/* the latest forward operator with the number (the innermost, when they nest) */
		SK_VEC_XPUSH(tl->fwds, tl->nfwds, tl->fwdcap, (struct tl_fwd){pid, tid, start});
		sk_hash_xreserve(&tl->fwd_idx, 1);
		sk_hash_put(&tl->fwd_idx, fwd_key(pid, op->seq), tl->nfwds - 1);
		return;
	}
	if (!op->node || !(i = sk_hash_get(&tl->fwd_idx, fwd_key(pid, op->seq))))
		return;
	f = &tl->fwds[*i];
	tl->fwdbwd++;
	sk_tl_head(tl, "s", "fwdbwd", "fwdbwd", f->pid, f->tid, f->start);
	sk_ew_str(&tl->w, ",\"id\":");
	sk_ew_i64(&tl->w, tl->fwdbwd);
	sk_ew_chr(&tl->w, '}');
	sk_tl_head(tl, "f", "fwdbwd", "fwdbwd", pid, tid, start);
	sk_ew_str(&tl->w, ",\"id\":");
	sk_ew_i64(&tl->w, tl->fwdbwd);
	sk_ew_str(&tl->w, ",\"bp\":\"e\"}");
}

/* ---- names ------------------------------------------------------------------------------- */

size_t sk_kineto_api_len(const char *name)
{
	size_t n = strlen(name), d = n;

	while (d && digits_at(name + d - 1))
		d--;
	/* CUPTI's names end in _v and the CUDA version that introduced the call (_v7000,
	 * _v3020); a short number (cudaGetDeviceProperties_v2) is part of the name */
	if (n - d >= 4 && d >= 3 && name[d - 1] == 'v' && name[d - 2] == '_')
		return d - 2;
	return n;
}

static void meta(struct tl *tl, const char *what, int64_t pid, int64_t tid, const char *key,
		 const char *text, int64_t num)
{
	struct ew *w = &tl->w;

	sk_ew_str(w, tl->nevents++ ? ",\n{\"name\":\"" : "\n{\"name\":\"");
	sk_ew_str(w, what);
	sk_ew_str(w, "\",\"ph\":\"M\",\"ts\":0.000,\"pid\":");
	sk_ew_i64(w, pid);
	sk_ew_str(w, ",\"tid\":");
	sk_ew_i64(w, tid);
	sk_ew_str(w, ",\"args\":{\"");
	sk_ew_str(w, key);
	sk_ew_str(w, "\":");
	if (text)
		sk_ew_json(w, text);
	else
		sk_ew_i64(w, num);
	sk_ew_str(w, "}}");
}

void sk_kineto_meta(struct tl *tl, const struct tl_track *k, const char *pname, const char *tname,
		    int first)
{
	char label[48];

	if (first) {
		if (k->device >= 0)
			snprintf(label, sizeof(label), "GPU %lld", (long long)k->pid);
		meta(tl, "process_name", k->pid, 0, "name", pname, 0);
		meta(tl, "process_labels", k->pid, 0, "labels", k->device >= 0 ? label : "CPU", 0);
		/* Kineto sorts the GPUs after the processes: 5000000 + device */
		meta(tl, "process_sort_index", k->pid, 0, "sort_index", NULL,
		     k->device >= 0 ? 5000000 + k->pid : k->pid);
	}
	meta(tl, "thread_name", k->pid, k->tid, "name", tname, 0);
	meta(tl, "thread_sort_index", k->pid, k->tid, "sort_index", NULL, k->tid);
}
