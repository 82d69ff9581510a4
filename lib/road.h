/* One contract for the four roads.  A road moves bytes from x->in to
 * x->out at the offsets in X and advances them by exactly what it moved.
 * It returns the bytes moved (> 0), 0 when it moved nothing (read_write:
 * end of file; the kernel roads: "nothing more", which proves nothing
 * about EOF), or -errno with x->side telling which end failed and
 * x->partial the bytes that step delivered to the destination before
 * the error (a short write, then ENOSPC, EFBIG or EAGAIN).  Roads never
 * print; the copy engine decides what an error means. */
#ifndef SMARTCP_ROAD_H
#define SMARTCP_ROAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <smartcp/smartcp.h>

#include "verify.h"

struct sc_xfer {
	int in, out;
	off_t in_off, out_off;
	bool in_seekable, out_seekable;
	enum sc_side side;	/* set with every -errno */
	/* With every -errno: bytes the failing step delivered before it
	 * failed (the engine sets it to 0 before each step). */
	size_t partial;
	/* Shared per run: */
	char *buf;
	size_t bufsize;
	int *pipe;		/* int[2], -1 until first splice */
	size_t pipesize;
	size_t hole_size;	/* --sparse=always: zero blocks of this size
				 * become holes; 0: write every byte */
	off_t written_end;	/* end of the last byte really written */
	bool wrote_hole;	/* a hole was left for zero bytes */
	struct sc_digests *dg;	/* --verify: digests of what read() gave */
};

/* FICLONE the whole file.  0 or -errno. */
int sc_road_clone(struct sc_xfer *x);
ssize_t sc_road_range(struct sc_xfer *x, size_t len);
ssize_t sc_road_splice(struct sc_xfer *x, size_t len);
ssize_t sc_road_rw(struct sc_xfer *x, size_t len);

/* Reads up to LEN bytes at x->in_off (or the stream position) into BUF,
 * retrying EINTR, without moving x->in_off.  A regular file opened as a
 * stream (FUSE FOPEN_NONSEEKABLE, some /proc and debugfs files) refuses
 * pread with ESPIPE; before its first byte the stream position is where
 * the copy starts, so read() takes over there (in_seekable becomes
 * false).  The count, 0 at the end, or -errno (side = read). */
ssize_t sc_read_in(struct sc_xfer *x, void *buf, size_t len);

/* Writes all LEN bytes of BUF at x->out_off (or the stream position),
 * retrying short writes and EINTR; with hole_size, skips zero blocks, and
 * a shorter run of zeros that ends BUF, leaving the file's end to the
 * copy engine's ftruncate.  Advances x->out_off.  A destination that
 * refuses pwrite with ESPIPE before its first byte is written with
 * write() (out_seekable becomes false), as for sc_read_in.  0 or -errno
 * (side = write). */
int sc_write_all(struct sc_xfer *x, const char *buf, size_t len);

/* Closes the run's pipe (after a failed splice left bytes in it). */
void sc_road_splice_reset(struct sc_xfer *x);

#define SC_RANGE_MAX ((size_t)0x7ffff000)	/* MAX_RW_COUNT */

#endif
