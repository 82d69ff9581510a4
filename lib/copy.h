/* The copy engine: runs a plan on one pair of open descriptors, falls
 * back from road to road on "not here" errors from the exact offsets
 * reached, keeps holes, and checks the end of file with a real read.
 * Private to the library: a program reaches it through the copier
 * (sc_copy_ctx_copy), whose report says what it did. */
#ifndef SMARTCP_COPY_H
#define SMARTCP_COPY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <smartcp/smartcp.h>

#include "plan.h"
#include "road.h"
#include "verify.h"

/* One road's attempt: it moved BYTES, then ended with ERR. */
struct sc_attempt {
	enum sc_road road;
	int err;		/* 0, -errno, or SC_ERR_ZERO */
	uint64_t bytes;
};
/* The engine's own bound on the chain it keeps (the report's accessors
 * give no size to programs): a longer chain keeps its last attempt's
 * bytes and ending. */
#define SC_MAX_ATTEMPTS 8

/* What a copy did. */
struct sc_copy_result {
	struct sc_attempt attempt[SC_MAX_ATTEMPTS];	/* the road chain */
	int n_attempts;
	uint64_t bytes;			/* bytes of data moved */
	off_t size;			/* final destination size */
	uint64_t road_bytes[SC_ROAD__MAX];
	bool holes;			/* destination has holes we kept */
	bool seek_data;			/* data found with SEEK_DATA/SEEK_HOLE */
	bool zero_scan;			/* zero blocks written as holes */
	bool extend_failed;		/* the last ftruncate (holes at the
					 * end, the size) failed */
	unsigned learned;		/* roads that failed "not here" */
	int err;			/* 0 or -errno */
	enum sc_side side;		/* the failing end */
};

/* What the engine keeps from file to file on one thread: a buffer
 * (allocated on first need: a clone or a copy_file_range takes none), a
 * pipe for splice, the digests for verification, progress and
 * cancellation. */
struct sc_engine {
	char *buf;
	size_t bufsize;
	int pipe[2];
	size_t pipesize;
	enum sc_sparse sparse;
	/* Keep digests of what read_write read, for sc_verify(): a file
	 * that reads differently each time (/proc) is then checked against
	 * what was read, not against a second read. */
	bool verify;
	struct sc_digests dg;
	sc_progress_fn progress;
	void *progress_arg;
	uint64_t done;		/* bytes the call moved so far (progress) */
	atomic_int *cancel;	/* set: stop at the next step (-ECANCELED) */
	/* A kernel road reached the size a source whose stat can be trusted
	 * had before its first byte: HELD_STILL (when set) says whether the
	 * file is still as it was, in which case that size is its end and
	 * no read is made to prove it. */
	bool (*held_still)(void *arg);
	void *held_arg;
	/* OUT still holds an old file's bytes, left there by the caller so
	 * that a road that cannot be taken leaves the file as it was: the
	 * engine drops them once a road serves (the first step that writes,
	 * or a clone, then cut to size; read_write empties OUT before it
	 * starts).  Still set when sc_copy_data returns: OUT untouched. */
	bool out_dirty;
};

/* BUFSIZE: 256 KiB, or as little as 16 KiB when memory is short. */
#define SC_BUFSIZE (256 * 1024)
void sc_engine_init(struct sc_engine *e);
/* The buffer, allocated now if it is not yet.  0 or -ENOMEM. */
int sc_engine_buf(struct sc_engine *e);
/* Closes the pipe (once) and frees the buffer and digests. */
void sc_engine_done(struct sc_engine *e);

/* Copies the data of IN (whose fstat is ST) to OUT, open for writing
 * (OUT_SEEKABLE: it takes offsets: a regular file or a block device), by
 * PLAN, from offset 0 of both.  SIZE_TRUSTED says whether st_size is
 * even a hint (not on generated filesystems); either way the end is
 * confirmed by a read (or by HELD_STILL).  Falls back from road to road
 * only on "not here" errors and from the exact offset reached; EIO,
 * ENOSPC and EDQUOT never fall back.  Returns 0 or -errno; RES says what
 * happened whatever the outcome, with res->side naming the failing end.
 * The destination is then as long as what was copied. */
int sc_copy_data(struct sc_engine *e, int in, int out,
		 const struct stat *st, bool out_seekable,
		 const struct sc_plan *plan, bool size_trusted,
		 struct sc_copy_result *res);

/* True for the errors (ERR > 0) after which ROAD may hand over to the
 * next road. */
bool sc_copy_not_here(enum sc_road road, int err, bool road_moved_bytes);

/* Adds what a second copy of the same file (a repair) did to INTO: its
 * attempts after INTO's, its bytes per road added; the totals, size,
 * holes and error become MORE's. */
void sc_copy_result_merge(struct sc_copy_result *into,
			  const struct sc_copy_result *more);

#endif
