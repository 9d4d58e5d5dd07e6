/*
 * tl.h: shared by timeline.c (the events) and tlmeta.c (the header and the track metadata)
 * only: the state of one timeline export.
 */
#ifndef SKIP_EXPORT_TL_H
#define SKIP_EXPORT_TL_H

#include "internal.h"

/* A track seen while writing, named in the metadata at the end. */
struct tl_track {
	int64_t pid, tid; /* as written in the events */
	int64_t run_id;	  /* the run it was first seen in */
	int64_t gtid;	  /* CPU thread: its globalTid; -1 for GPU and synthetic tracks */
	int64_t device;	  /* GPU stream track: device; -1 otherwise */
	int64_t stream;	  /* GPU stream track: stream */
	int64_t gpid;	  /* the recording process's globalPid (-1 for a kineto GPU pid) */
};

/* Kineto: a GPU's properties for the kernels' occupancy args (kineto.c); ok = 0 when a
 * property is missing or the architecture is not one kineto.c knows. */
struct tl_gpu {
	int64_t id, sms, major, warp, max_warps, max_blocks, regs_sm, regs_block, smem_sm;
	int ok;
};

/* Kineto: a forward operator with a PyTorch sequence number, the start of a fwdbwd flow. */
struct tl_fwd {
	int64_t pid, tid, start;
};

struct tl {
	struct ew w;
	struct skip_trace *t;
	sqlite3 *db;
	const struct skip_export_sel *sel;
	enum skip_timeline_format fmt;
	int64_t base_ns;  /* subtracted from every timestamp (kineto), else 0 */
	int64_t open_end; /* end of an NVTX range never closed, in the current run */
	int64_t run_id;	  /* the run being written */
	int nevents;	  /* events written so far (the first has no comma) */
	struct skip_export_counts c;
	struct tl_track *tracks; /* SK_VEC of tracks */
	size_t ntracks, cap;
	struct sk_hash track_idx; /* (pid << 32 | tid) + 1 -> index in tracks */
	int err;		  /* first read error */
	/* Kineto only (kineto.c) */
	struct tl_gpu *gpus; /* the GPUs of the trace, by id */
	size_t ngpus;
	struct tl_fwd *fwds; /* forward operators of the current run */
	size_t nfwds, fwdcap;
	struct sk_hash fwd_idx; /* (pid << 40 | seq) + 1 -> the latest forward op in fwds */
	int64_t fwdbwd;		/* fwdbwd flows written */
	int64_t steps;		/* 'ProfilerStep' ranges written in the current run */
};

/* What kineto.c reads from an NVTX range text: PyTorch's emit_nvtx writes NAME, then
 * ", seq = N", ", op_id = M", ", sizes = [...]" (torch/csrc/profiler/util.cpp, getNvtxStr). */
struct tl_op {
	int is_op;	 /* a PyTorch operator (cpu_op), else a user annotation */
	size_t name_len; /* NAME's length: the text up to the suffix */
	int64_t seq;	 /* N, -1 when none */
	int backward;	 /* an autograd backward range (NAME ends in "BackwardK" or starts with
			    "autograd::engine::evaluate_function: ") */
	int node;	 /* the backward Node's own range (NAME ends in "BackwardK") */
};

/* The synthetic track of synchronizations whose call was not recorded. */
#define TL_SYNC_TID ((int64_t)0x3FFFFFFF)

/* Start an event: the separator, then {"ph":PH,"cat":CAT,"name":NAME,"pid":..,"tid":..,"ts":..
 * (no closing brace). */
void sk_tl_head(struct tl *tl, const char *ph, const char *cat, const char *name, int64_t pid,
		int64_t tid, int64_t ts_ns);
/* The track of CPU thread @gtid, of GPU @device's @stream (in process @gpid), and the
 * synthetic synchronization track of @gpid: pid and tid as written. */
void sk_tl_cpu(const struct tl *tl, int64_t gtid, int64_t *pid, int64_t *tid);
void sk_tl_gpu(const struct tl *tl, int64_t gpid, int64_t device, int64_t stream, int64_t *pid,
	       int64_t *tid);
/* Register a track (once per pid/tid). */
void sk_tl_track(struct tl *tl, int64_t pid, int64_t tid, int64_t gtid, int64_t gpid,
		 int64_t device, int64_t stream);

/* The document's start, up to and including "traceEvents":[ */
int sk_tl_preamble(struct tl *tl, const char *trace_path);
/* The metadata events naming the processes and tracks seen, then the closing ]} */
int sk_tl_finish(struct tl *tl);
/* Write the row of @st as a JSON object of its columns (NULL columns left out; a column named
 * "NAME:json" holds JSON text, written as it is under NAME). */
void sk_tl_row_object(struct tl *tl, sqlite3_stmt *st);

/* ---- kineto.c ---- */
/* Read the GPUs' properties (tl->gpus); 0 or SKIP_E_DB. */
int sk_kineto_init(struct tl *tl);
void sk_kineto_fini(struct tl *tl);
/* Forget the forward operators of the previous run. */
void sk_kineto_run(struct tl *tl);
void sk_kineto_parse(const char *text, struct tl_op *op);
/* The args of operator range @op in process @pid after its "External id": "Sequence number",
 * and for a backward range whose forward operator was seen, "Fwd thread id" (its thread). */
void sk_kineto_op_args(struct tl *tl, const struct tl_op *op, int64_t pid);
/* Then, the ranges being read in start order: a forward operator with a sequence number is
 * remembered (the latest one per number and process); a backward Node's range gets the fwdbwd
 * flow from it (ids 1, 2, ...). */
void sk_kineto_op_flow(struct tl *tl, const struct tl_op *op, int64_t pid, int64_t tid,
		       int64_t start);
/* The kernel args Kineto computes: "blocks per SM", "warps per SM" and "est. achieved
 * occupancy %" for @blocks blocks of @threads threads using @regs registers per thread and
 * @smem bytes of shared memory on device @dev; nothing when the GPU's properties are unknown. */
void sk_kineto_kernel_args(struct tl *tl, int64_t dev, int64_t blocks, int64_t threads,
			   int64_t regs, int64_t smem);
/* Length of @name without CUPTI's "_vNNNN" version suffix (Kineto's API names have none). */
size_t sk_kineto_api_len(const char *name);
/* Kineto's metadata events for track @k (process_name, process_labels, process_sort_index once
 * per pid when @first, thread_name, thread_sort_index): ph "M" without a cat. */
void sk_kineto_meta(struct tl *tl, const struct tl_track *k, const char *pname, const char *tname,
		    int first);

#endif /* SKIP_EXPORT_TL_H */
