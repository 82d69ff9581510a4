/* Plan execution.  The rules (smartcp(1), "Fallback"): fall back only on "not here"
 * errors and only from the exact offsets reached; a 0 from a kernel road
 * is checked with one real read; EIO, ENOSPC and EDQUOT never fall back,
 * since a fallback after EIO can copy stale or zero bytes. */
#include "common.h"
#include "copy.h"
#include "sigpipe.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* SC_BUFSIZE, 256 KiB: measured best with 1 MiB on these machines; 4 MiB
 * was 3-5x slower in some runs (cache misses), 128 KiB (cp) a little
 * slower.  Short of memory (a malloc that fails: RLIMIT_AS, or a
 * cgroup's limit with overcommit off), a smaller buffer only costs more
 * system calls; 16 KiB still holds four blocks, the least a hole is
 * looked for in. */
#define MIN_BUFSIZE (16 * 1024)
/* What the read that proves an end of file reads into: no road is
 * behind it yet, and a copy that a kernel road did alone (a clone, a
 * copy_file_range) then never allocates the big buffer (issue 30: 256
 * KiB mapped, touched and unmapped by a one-file copy). */
#define EOF_PROBE 4096

void sc_engine_init(struct sc_engine *e)
{
	memset(e, 0, sizeof(*e));
	e->pipe[0] = e->pipe[1] = -1;
}

int sc_engine_buf(struct sc_engine *e)
{
	if (e->buf)
		return 0;
	for (e->bufsize = SC_BUFSIZE; e->bufsize >= MIN_BUFSIZE;
	     e->bufsize /= 2)
		if ((e->buf = malloc(e->bufsize)))
			return 0;
	e->bufsize = 0;
	return -ENOMEM;
}

void sc_engine_done(struct sc_engine *e)
{
	free(e->buf);
	e->buf = NULL;
	e->bufsize = 0;
	sc_digests_free(&e->dg);
	/* each descriptor closed once, and forgotten */
	if (e->pipe[0] >= 0)
		close(e->pipe[0]);
	if (e->pipe[1] >= 0)
		close(e->pipe[1]);
	e->pipe[0] = e->pipe[1] = -1;
}

bool sc_copy_not_here(enum sc_road road, int err, bool road_moved_bytes)
{
	switch (road) {
	case SC_ROAD_CLONE:
		/* FICLONE is all or nothing: any refusal but a real I/O or
		 * space error leaves the destination untouched. */
		return err != EIO && err != ENOSPC && err != EDQUOT &&
		       err != ENOMEM && err != EFBIG;
	case SC_ROAD_RANGE:
		return err == ENOSYS || err == EOPNOTSUPP || err == EXDEV ||
		       err == EINVAL || err == EBADF || err == EPERM ||
		       err == ETXTBSY || err == EACCES || err == ESPIPE;
	case SC_ROAD_SPLICE:
		/* ESPIPE: a regular file opened as a stream takes no
		 * offset; read_write carries on without one. */
		return !road_moved_bytes && (err == EINVAL || err == ENOSYS ||
					     err == ESPIPE);
	default:
		return false;
	}
}

struct run {
	struct sc_engine *eng;
	struct sc_xfer x;
	const struct sc_plan *plan;
	struct sc_copy_result *res;
	int road;		/* current road, -1 when none is left */
	int end_road;		/* the road whose call found the end */
	bool moved;		/* current road moved bytes in this file */
	off_t size_hint;	/* st_size, where the kernel roads stop */
	off_t grown_from;	/* a size to trust: past it, watch for a file
				 * that grows as fast as it is read; -1 not */
	off_t cap;		/* where such a file's copy ends, or -1 */
	bool asked_still;	/* eng->held_still was asked */
};

static bool canceled(const struct run *r)
{
	return r->eng->cancel &&
	       atomic_load_explicit(r->eng->cancel, memory_order_relaxed);
}

/* Bytes moved: the progress function is told, and may cancel. */
static void moved(struct run *r, uint64_t n, int road)
{
	struct sc_engine *e = r->eng;

	e->done += n;
	if (e->progress && e->progress(e->progress_arg, e->done,
				       (enum sc_road)road) && e->cancel)
		atomic_store_explicit(e->cancel, 1, memory_order_relaxed);
}

/* The buffer for read_write, allocated when that road is first taken. */
static int need_buf(struct run *r)
{
	int e = sc_engine_buf(r->eng);

	if (e < 0) {
		r->x.side = SC_SIDE_NONE;
		return e;
	}
	r->x.buf = r->eng->buf;
	r->x.bufsize = r->eng->bufsize;
	return 0;
}

/* The destination held an old file's bytes (eng->out_dirty), left until
 * a road served: one has now written [0, x.out_off), and what lies past
 * it goes.  0 or -errno (the write side's). */
static int drop_old_tail(struct run *r)
{
	if (!r->eng->out_dirty)
		return 0;
	r->eng->out_dirty = false;
	if (ftruncate(r->x.out, r->x.out_off) < 0) {
		r->x.side = SC_SIDE_WRITE;
		return -errno;
	}
	return 0;
}

/* read_write cannot fail "not here", and may leave zero blocks
 * unwritten (--sparse=always): the old bytes go before it starts.  0 or
 * -errno. */
static int empty_before_rw(struct run *r)
{
	if (!r->eng->out_dirty || r->road != SC_ROAD_RW)
		return 0;
	return drop_old_tail(r);
}

/* The road chain: one attempt per road in the order they ran, each with
 * the bytes it delivered and the error that ended it (0: none).  A road
 * that moved bytes and then failed is one attempt: its bytes, then its
 * error. */
static void note(struct run *r, int road, int err, uint64_t bytes)
{
	struct sc_copy_result *res = r->res;
	struct sc_attempt *last = res->n_attempts ?
		&res->attempt[res->n_attempts - 1] : NULL;

	if (last && (int)last->road == road && last->err == 0) {
		/* one attempt per road: it moved bytes, then maybe failed */
		last->bytes += bytes;
		last->err = err;
		return;
	}
	if (res->n_attempts == SC_MAX_ATTEMPTS) {
		/* no room: the last one keeps the bytes and the ending */
		last->bytes += bytes;
		if (err)
			last->err = err;
	} else
		res->attempt[res->n_attempts++] = (struct sc_attempt){
			(enum sc_road)road, err, bytes };
}

static void next_road(struct run *r)
{
	do
		r->road++;
	while (r->road < SC_ROAD__MAX && !r->plan->step[r->road].use);
	if (r->road >= SC_ROAD__MAX)
		r->road = -1;
	r->moved = false;
}

/* Whether the source is now longer than the size the kernel roads were
 * held to: it grew while it was copied, so that size was its length
 * then, not a lie. */
static bool grew(const struct run *r)
{
	struct stat now;

	return fstat(r->x.in, &now) == 0 && now.st_size > r->size_hint;
}

/* What check_eof() found. */
enum { NOT_EOF = 0, AT_EOF = 1 };

/* A kernel road said "nothing more" at x.in_off (SAID_ZERO), or reached
 * the size it was held to.  One read decides: 0 is the end of the file;
 * data means the road stopped early (a generated file, a size that
 * changed, a FUSE file claiming 0 bytes), so the data is written and
 * read_write carries on from there.  The read and that write are
 * read_write's calls, and the chain says so: an error in them ends a
 * read_write attempt.  The kernel road is marked SC_ERR_ZERO only when
 * its 0, or the size it stopped at, was not the end: not when the file
 * merely grew past it.  Returns AT_EOF, NOT_EOF to continue, or -errno
 * on failure. */
static int check_eof(struct run *r, size_t want, bool said_zero)
{
	struct sc_xfer *x = &r->x;
	char probe[EOF_PROBE];
	off_t start;
	ssize_t n;
	int e;

	n = sc_read_in(x, probe, MIN(want, sizeof(probe)));
	if (n < 0) {
		note(r, SC_ROAD_RW, (int)n, 0);
		return (int)n;
	}
	if (n == 0) {
		r->end_road = SC_ROAD_RW;
		return AT_EOF;
	}
	if (r->road != SC_ROAD_RW && (said_zero || !grew(r)))
		note(r, r->road, SC_ERR_ZERO, 0);
	x->in_off += n;
	start = x->out_off;
	e = sc_write_all(x, probe, (size_t)n);
	if (e < 0) {
		uint64_t part = (uint64_t)(x->out_off - start);

		if (part)
			(void)drop_old_tail(r);
		r->res->road_bytes[SC_ROAD_RW] += part;
		note(r, SC_ROAD_RW, e, part);
		return e;
	}
	e = drop_old_tail(r);
	if (e < 0) {
		note(r, SC_ROAD_RW, e, 0);
		return e;
	}
	if (x->dg)
		sc_digests_add(x->dg, x->out_off - n, probe, (size_t)n);
	r->res->road_bytes[SC_ROAD_RW] += (uint64_t)n;
	note(r, SC_ROAD_RW, 0, (uint64_t)n);
	moved(r, (uint64_t)n, SC_ROAD_RW);
	r->road = SC_ROAD_RW;
	r->moved = true;
	return NOT_EOF;
}

/* Copies [x.in_off, END) -- or to EOF when END < 0 -- with the current
 * road and its successors.  0 or -errno. */
/* Past the size the file had (data was found there; a file that ends
 * where it said costs no fstat): if it honestly grew (its size says so),
 * it is followed to the size it has now and no further, or a file
 * appended to as fast as it is read (a busy log, a FUSE file) would never
 * end.  A size that stays behind what reads find is a lie (FUSE claiming
 * 0): read to EOF. */
static void follow_growth(struct run *r)
{
	struct stat now;

	if (r->cap >= 0 || r->grown_from < 0 || r->x.in_off <= r->grown_from)
		return;
	if (fstat(r->x.in, &now) == 0 && now.st_size > r->grown_from) {
		r->cap = now.st_size;
		if (r->size_hint < r->cap)
			r->size_hint = r->cap;
	}
}

/* What a kernel road copying to the end met at x.in_off: */
enum claimed {
	CLAIMED_BELOW,	/* not yet the size the file claims: *left bounds
			 * the step to it */
	CLAIMED_END,	/* the end of the file */
	CLAIMED_MORE,	/* data past the claimed size, written by the read
			 * that looked: go on */
};

/* The kernel roads stop at the size the file claims; there one read
 * tells whether it is the end -- or, for a file whose stat can be
 * trusted (a local filesystem), the stat the copier takes anyway to see
 * whether the source changed: the same size, times and inode as before
 * its first byte mean the end is where it was (issue 30: the read cost
 * ~4% of a small file's copy).  Only after copy_file_range, which read
 * the file in the kernel: splice's pipe may have stopped short for its
 * own reasons.  An empty file is still proved by its read.  Returns an
 * enum claimed, or -errno. */
static int at_claimed_size(struct run *r, uint64_t *left)
{
	struct sc_xfer *x = &r->x;
	int e;

	if (x->in_off == r->size_hint && r->moved &&
	    r->road == SC_ROAD_RANGE &&
	    r->eng->held_still && !r->asked_still) {
		r->asked_still = true;
		if (r->eng->held_still(r->eng->held_arg)) {
			r->end_road = r->road;
			return CLAIMED_END;
		}
	}
	if (x->in_off >= r->size_hint) {
		e = check_eof(r, SC_BUFSIZE, false);
		if (e < 0)
			return e;
		return e == AT_EOF ? CLAIMED_END : CLAIMED_MORE;
	}
	*left = (uint64_t)(r->size_hint - x->in_off);
	return CLAIMED_BELOW;
}

/* One call of the road: bytes moved, 0 at its end, or -errno. */
static ssize_t road_step(struct sc_xfer *x, int road, size_t want)
{
	switch (road) {
	case SC_ROAD_RANGE:
		return sc_road_range(x, want);
	case SC_ROAD_SPLICE:
		return sc_road_splice(x, want);
	default:
		return sc_road_rw(x, want);
	}
}

/* The step failed with err: whatever it delivered first is the road's,
 * and so is the error, fatal or "not here".  Returns 0 when the next road
 * of the plan takes over from here, else err. */
static int step_failed(struct run *r, int err)
{
	struct sc_xfer *x = &r->x;

	r->res->road_bytes[r->road] += x->partial;
	note(r, r->road, err, x->partial);
	if (x->partial) {
		moved(r, x->partial, r->road);
		(void)drop_old_tail(r);	/* the step's own error comes first */
	}
	if (!sc_copy_not_here((enum sc_road)r->road, -err, r->moved))
		return err;
	r->res->learned |= 1u << r->road;
	next_road(r);
	return r->road < 0 ? err : 0;
}

static int copy_range(struct run *r, off_t end)
{
	struct sc_xfer *x = &r->x;
	bool to_eof = end < 0;

	for (;;) {
		bool kernel = r->road == SC_ROAD_RANGE ||
			      r->road == SC_ROAD_SPLICE;
		uint64_t left = to_eof ? UINT64_MAX :
			(uint64_t)(end > x->in_off ? end - x->in_off : 0);
		size_t want;
		ssize_t n;
		int e;

		if (to_eof)
			follow_growth(r);
		if (to_eof && r->cap >= 0) {
			if (x->in_off >= r->cap)
				return 0;
			left = MIN(left, (uint64_t)(r->cap - x->in_off));
		}
		if (!left)
			return 0;
		if (r->road < 0)
			return -EOPNOTSUPP;
		if (canceled(r))
			return -ECANCELED;
		if (to_eof && kernel && x->in_seekable) {
			e = at_claimed_size(r, &left);
			if (e < 0)
				return e;
			if (e == CLAIMED_END)
				return 0;
			if (e == CLAIMED_MORE)
				continue;
		}
		want = (size_t)MIN(left, (uint64_t)SC_RANGE_MAX);
		if (r->road == SC_ROAD_RW && !x->buf) {
			e = need_buf(r);
			if (e < 0)
				return e;
		}
		e = empty_before_rw(r);
		if (e < 0)
			return e;

		x->partial = 0;
		n = road_step(x, r->road, want);
		if (n > 0 && (e = drop_old_tail(r)) < 0)
			return e;
		if (n > 0) {
			r->res->road_bytes[r->road] += (uint64_t)n;
			note(r, r->road, 0, (uint64_t)n);
			r->moved = true;
			moved(r, (uint64_t)n, r->road);
			continue;
		}
		if (n == 0) {
			if (!kernel || !x->in_seekable) {
				r->end_road = r->road;
				return 0;	/* read() said EOF */
			}
			e = check_eof(r, (size_t)MIN(left,
						     (uint64_t)SC_BUFSIZE), true);
			if (e < 0)
				return e;
			if (e == AT_EOF)
				return 0;
			continue;
		}
		e = step_failed(r, (int)n);
		if (e < 0)
			return e;
	}
}

/* What try_clone() and copy_extents() leave to copy_range(): nothing, or
 * the whole file. */
enum { COPIED = 0, WHOLE_FILE_LEFT = 1 };

/* Copies the data extents of a sparse source one by one; the holes
 * between them are left unwritten and the size set by ftruncate.
 * COPIED, WHOLE_FILE_LEFT where the source has no SEEK_DATA, or
 * -errno. */
static int copy_extents(struct run *r)
{
	struct sc_xfer *x = &r->x;
	off_t off = 0, data, hole, end;
	int e;

	for (;;) {
		if (canceled(r))
			return -ECANCELED;
		data = lseek(x->in, off, SEEK_DATA);
		if (data < 0) {
			if (errno == ENXIO) {
				r->res->seek_data = true;
				break;		/* no data past OFF */
			}
			if (off == 0 && (errno == EINVAL || errno == ESPIPE))
				return WHOLE_FILE_LEFT;	/* no SEEK_DATA */
			x->side = SC_SIDE_READ;
			return -errno;
		}
		r->res->seek_data = true;
		hole = lseek(x->in, data, SEEK_HOLE);
		if (hole < 0) {
			x->side = SC_SIDE_READ;
			return -errno;
		}
		/* Over old bytes, the first extent starts at 0: the hole
		 * before it is copied as zeros, which leaves no old byte
		 * there once the road is known to serve. */
		x->in_off = x->out_off = r->eng->out_dirty ? off : data;
		e = copy_range(r, hole);
		if (e < 0)
			return e;
		if (x->in_off < hole)
			break;			/* the file shrank */
		off = hole;
	}
	/* The size now, not st_size: the file may have changed. */
	end = lseek(x->in, 0, SEEK_END);
	if (end < 0) {
		x->side = SC_SIDE_READ;
		return -errno;
	}
	if (x->in_off < end)	/* ends in a hole: ftruncate makes it */
		x->in_off = x->out_off = end;
	r->res->holes = true;
	/* A source that grew past its end goes on to the real EOF. */
	e = check_eof(r, SC_BUFSIZE, false);
	if (e < 0)
		return e;
	if (e == NOT_EOF) {
		e = copy_range(r, -1);
		if (e < 0)
			return e;
	}
	return COPIED;
}

/* The block size for --sparse=always holes in OUT: its st_blksize, as cp
 * uses, at most bufsize so that a whole block fits in one read.  0
 * when OUT is not a regular file: a block device keeps its old bytes
 * where nothing is written and refuses ftruncate (EINVAL), so cp writes
 * every byte there; and 0 if fstat fails, which only costs the holes. */
static size_t out_hole_size(int out, size_t bufsize)
{
	struct stat st;

	if (fstat(out, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (st.st_blksize < 512)
		return 4096;
	return MIN((size_t)st.st_blksize, bufsize);
}

/* The clone the plan starts with.  Returns COPIED when it copied the
 * whole file, WHOLE_FILE_LEFT when the plan's next road is to copy it
 * (the clone was "not here"), or -errno, recorded in the result, when the
 * copy failed. */
static int try_clone(struct run *r, const struct stat *st)
{
	struct sc_copy_result *res = r->res;
	int e = canceled(r) ? -ECANCELED : sc_road_clone(&r->x);

	/* cloned over old bytes: a longer old file's tail goes */
	if (e == 0 && r->eng->out_dirty) {
		r->eng->out_dirty = false;
		if (ftruncate(r->x.out, st->st_size) < 0) {
			res->err = -errno;
			res->side = SC_SIDE_WRITE;
			return res->err;
		}
	}
	if (e == 0) {
		res->bytes = res->road_bytes[SC_ROAD_CLONE] =
			(uint64_t)st->st_size;
		res->size = st->st_size;
		note(r, SC_ROAD_CLONE, 0, (uint64_t)st->st_size);
		res->holes = (uint64_t)st->st_blocks * 512 <
			     (uint64_t)st->st_size;
		/* one step that moved the whole file */
		moved(r, (uint64_t)st->st_size, SC_ROAD_CLONE);
		return COPIED;
	}
	if (e == -ECANCELED) {
		res->err = e;
		return e;
	}
	note(r, SC_ROAD_CLONE, e, 0);
	if (!sc_copy_not_here(SC_ROAD_CLONE, -e, false)) {
		res->err = e;
		res->side = SC_SIDE_WRITE;
		return e;
	}
	res->learned |= 1u << SC_ROAD_CLONE;
	next_road(r);
	if (r->road < 0) {
		res->err = e;
		res->side = SC_SIDE_WRITE;
		return e;
	}
	return WHOLE_FILE_LEFT;
}

/* The copy ended with e (0 or -errno): the destination is given its
 * length (holes at its end, a file shorter than what was there), and the
 * result its totals.  Returns e, or the error of that ftruncate. */
static int finish(struct run *r, int e, bool out_seekable)
{
	struct sc_xfer *x = &r->x;
	struct sc_copy_result *res = r->res;

	if (e == 0 && (res->n_attempts == 0 ||
		       res->attempt[res->n_attempts - 1].err))
		/* Nothing moved since the last road failed "not here" (or at
		 * all: an empty file): the road whose call found the end
		 * finished the file -- for a kernel road held to the size,
		 * the read that checked it, which is read_write's. */
		note(r, r->end_road >= 0 ? r->end_road :
			 r->road >= 0 ? r->road : SC_ROAD_RW, 0, 0);
	/* nothing written over the old bytes (an empty source, or holes
	 * only): they go, and the size is set below */
	if (e == 0 && r->eng->out_dirty) {
		r->eng->out_dirty = false;
		if (ftruncate(x->out, 0) < 0) {
			e = -errno;
			x->side = SC_SIDE_WRITE;
		} else {
			x->written_end = 0;
		}
	}
	if (e == 0 && out_seekable &&
	    (x->wrote_hole || res->holes || x->written_end != x->out_off) &&
	    ftruncate(x->out, x->out_off) < 0) {
		e = -errno;
		x->side = SC_SIDE_WRITE;
		res->extend_failed = true;
	}
	if (x->wrote_hole)
		res->holes = true;
	res->zero_scan = x->hole_size != 0;
	res->size = x->out_off;
	for (int i = 0; i < SC_ROAD__MAX; i++)
		res->bytes += res->road_bytes[i];
	res->err = e;
	res->side = e ? x->side : SC_SIDE_NONE;
	return e;
}

static int copy_data(struct sc_engine *eng, int in, int out,
		     const struct stat *st, bool out_seekable,
		     const struct sc_plan *plan, bool size_trusted,
		     struct sc_copy_result *res)
{
	struct run r = {
		.eng = eng, .plan = plan, .res = res,
		.road = -1, .end_road = -1,
		.size_hint = size_trusted ? st->st_size : 0,
		.grown_from = size_trusted && S_ISREG(st->st_mode) ?
			      st->st_size : -1,
		.cap = -1,
	};
	struct sc_xfer *x = &r.x;
	bool src_sparse = size_trusted && S_ISREG(st->st_mode) &&
		(uint64_t)st->st_blocks * 512 < (uint64_t)st->st_size;
	size_t hole_size = 0;
	int e;

	memset(res, 0, sizeof(*res));
	x->in = in;
	x->out = out;
	x->in_seekable = S_ISREG(st->st_mode) || S_ISBLK(st->st_mode);
	x->out_seekable = out_seekable;
	x->buf = eng->buf;
	x->bufsize = eng->bufsize;
	x->pipe = eng->pipe;
	x->pipesize = eng->pipesize;
	sc_digests_reset(&eng->dg);
	x->dg = eng->verify ? &eng->dg : NULL;

	next_road(&r);
	if (r.road == SC_ROAD_CLONE) {
		e = try_clone(&r, st);
		if (e != WHOLE_FILE_LEFT)
			return e;	/* COPIED (0), or -errno */
	}
	if (r.road < 0) {
		res->err = -EOPNOTSUPP;
		return res->err;
	}

	/* --sparse=always makes holes of zero blocks it reads, with the
	 * read_write road (the plan leaves it no other): its buffer, whose
	 * size bounds the block, is needed anyway. */
	if (out_seekable && eng->sparse == SC_SPARSE_ALWAYS &&
	    (e = need_buf(&r)) < 0) {
		res->err = e;
		return e;
	}
	/* Asked only when holes may be made, and after a clone, which
	 * needs none: one fstat for such files. */
	if (out_seekable && (eng->sparse == SC_SPARSE_ALWAYS ||
			     (eng->sparse == SC_SPARSE_AUTO && src_sparse)))
		hole_size = out_hole_size(out, x->buf ? x->bufsize :
					  SC_BUFSIZE);
	if (eng->sparse == SC_SPARSE_ALWAYS)
		x->hole_size = hole_size;

	e = WHOLE_FILE_LEFT;
	/* Sparse source: fewer blocks than its size (cp's test).  Never on
	 * generated files, whose sizes and blocks mean nothing, and only
	 * into a file that can hold holes (hole_size); nor where SEEK_DATA
	 * is known to report holes where data is (the plan's no_holes: a
	 * known-bad stack, OpenZFS zfs#15526). */
	if (eng->sparse != SC_SPARSE_NEVER && src_sparse && hole_size &&
	    !plan->no_holes)
		e = copy_extents(&r);
	if (e == WHOLE_FILE_LEFT) {
		x->in_off = x->out_off = 0;
		e = copy_range(&r, -1);
	}
	eng->pipesize = x->pipesize;
	return finish(&r, e, out_seekable);
}

int sc_copy_data(struct sc_engine *eng, int in, int out,
		 const struct stat *st, bool out_seekable,
		 const struct sc_plan *plan, bool size_trusted,
		 struct sc_copy_result *res)
{
	struct sc_sigpipe g = { .held = false };
	int e;

	/* a pipe or a socket whose reader went: -EPIPE, not the end of the
	 * process (issue 36) */
	if (!out_seekable)
		sc_sigpipe_hold(&g);
	e = copy_data(eng, in, out, st, out_seekable, plan, size_trusted,
		      res);
	sc_sigpipe_release(&g);
	return e;
}

void sc_copy_result_merge(struct sc_copy_result *into,
			  const struct sc_copy_result *more)
{
	if (!into || !more)
		return;
	for (int i = 0; i < more->n_attempts &&
	     into->n_attempts < SC_MAX_ATTEMPTS; i++)
		into->attempt[into->n_attempts++] = more->attempt[i];
	for (int r = 0; r < SC_ROAD__MAX; r++)
		into->road_bytes[r] += more->road_bytes[r];
	into->bytes = more->bytes;
	into->size = more->size;
	into->holes = more->holes;
	into->err = more->err;
	into->side = more->side;
}
