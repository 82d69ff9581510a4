/* The copy engine: runs a plan on one pair of open descriptors, falls
 * back from road to road on "not here" errors from the exact offsets
 * reached, keeps holes, and checks the end of file with a real read. */
#ifndef SMARTCP_COPY_H
#define SMARTCP_COPY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "options.h"
#include "plan.h"
#include "road.h"

/* An attempt: a road that moved bytes, or failed, or returned 0 early. */
struct sc_attempt {
	enum sc_road road;
	int err;		/* 0 ok, -errno, or SC_ERR_ZERO */
	uint64_t bytes;
};
#define SC_ERR_ZERO 1		/* returned 0 though a read found data */
#define SC_MAX_ATTEMPTS 8

struct sc_copy_result {
	struct sc_attempt attempt[SC_MAX_ATTEMPTS];
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
	enum sc_side side;
};

/* Per-run resources shared by every file. */
struct sc_copy_ctx {
	char *buf;
	size_t bufsize;
	int pipe[2];
	size_t pipesize;
	enum sc_sparse sparse;
	bool verify;			/* keep digests of read_write's bytes */
	/* Called after every step that moved bytes, with the bytes this
	 * file has moved so far and the road moving them. */
	void (*progress)(void *arg, uint64_t done, enum sc_road road);
	void *progress_arg;
	struct sc_digests dg;
};

int sc_copy_ctx_init(struct sc_copy_ctx *ctx, enum sc_sparse sparse);
void sc_copy_ctx_done(struct sc_copy_ctx *ctx);

/* Copies the data of IN (whose fstat is ST) to OUT, which is empty, by
 * PLAN, with SIZE_TRUSTED telling whether st_size is even a hint (not on
 * generated filesystems).  Either way the end is confirmed by a read.  Returns 0 or -errno; RES says what happened
 * whatever the outcome, with res->side naming the failing end. */
int sc_copy_data(struct sc_copy_ctx *ctx, int in, int out,
		 const struct stat *st, bool out_seekable,
		 const struct sc_plan *plan, bool size_trusted,
		 struct sc_copy_result *res);

/* True for the errors after which ROAD may hand over to the next road. */
bool sc_copy_not_here(enum sc_road road, int err, bool road_moved_bytes);

#endif
