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

#endif /* SKIP_EXPORT_TL_H */
