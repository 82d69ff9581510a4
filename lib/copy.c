/* Plan execution.  The rules (design.md): fall back only on "not here"
 * errors and only from the exact offsets reached; a 0 from a kernel road
 * is checked with one real read; EIO, ENOSPC and EDQUOT never fall back,
 * since a fallback after EIO can copy stale or zero bytes. */
#include "common.h"
#include "copy.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* 256 KiB: measured best with 1 MiB on these machines; 4 MiB was 3-5x
 * slower in some runs (cache misses), 128 KiB (cp) a little slower. */
#define BUFSIZE (256 * 1024)
/* Short of memory (a malloc that fails: RLIMIT_AS, or a cgroup's limit
 * with overcommit off), a smaller buffer only costs more system calls;
 * 16 KiB still holds four blocks, the least a hole is looked for in. */
#define MIN_BUFSIZE (16 * 1024)

int sc_copy_ctx_init(struct sc_copy_ctx *ctx, enum sc_sparse sparse)
{
	if (!ctx)
		return -EINVAL;
	memset(ctx, 0, sizeof(*ctx));
	ctx->pipe[0] = ctx->pipe[1] = -1;
	ctx->sparse = sparse;
	for (ctx->bufsize = BUFSIZE; ctx->bufsize >= MIN_BUFSIZE;
	     ctx->bufsize /= 2)
		if ((ctx->buf = malloc(ctx->bufsize)))
			return 0;
	ctx->bufsize = 0;
	return -ENOMEM;
}

void sc_copy_ctx_done(struct sc_copy_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->buf);
	ctx->buf = NULL;
	sc_digests_free(&ctx->dg);
	if (ctx->pipe[0] >= 0) {
		close(ctx->pipe[0]);
		close(ctx->pipe[1]);
	}
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
	struct sc_copy_ctx *ctx;
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
};

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

/* A kernel road said "nothing more" at x.in_off (SAID_ZERO), or reached
 * the size it was held to.  One read decides: 0 is the end of the file;
 * data means the road stopped early (a generated file, a size that
 * changed, a FUSE file claiming 0 bytes), so the data is written and
 * read_write carries on from there.  The read and that write are
 * read_write's calls, and the chain says so: an error in them ends a
 * read_write attempt.  The kernel road is marked SC_ERR_ZERO only when
 * its 0, or the size it stopped at, was not the end: not when the file
 * merely grew past it.  Returns 1 at EOF, 0 to continue, -errno on
 * failure. */
static int check_eof(struct run *r, size_t want, bool said_zero)
{
	struct sc_xfer *x = &r->x;
	off_t start;
	ssize_t n;
	int e;

	n = sc_read_in(x, x->buf, MIN(want, x->bufsize));
	if (n < 0) {
		note(r, SC_ROAD_RW, (int)n, 0);
		return (int)n;
	}
	if (n == 0) {
		r->end_road = SC_ROAD_RW;
		return 1;
	}
	if (r->road != SC_ROAD_RW && (said_zero || !grew(r)))
		note(r, r->road, SC_ERR_ZERO, 0);
	x->in_off += n;
	start = x->out_off;
	e = sc_write_all(x, x->buf, (size_t)n);
	if (e < 0) {
		uint64_t part = (uint64_t)(x->out_off - start);

		r->res->road_bytes[SC_ROAD_RW] += part;
		note(r, SC_ROAD_RW, e, part);
		return e;
	}
	if (x->dg)
		sc_digests_add(x->dg, x->out_off - n, x->buf, (size_t)n);
	r->res->road_bytes[SC_ROAD_RW] += (uint64_t)n;
	note(r, SC_ROAD_RW, 0, (uint64_t)n);
	r->road = SC_ROAD_RW;
	r->moved = true;
	return 0;
}

/* Copies [x.in_off, END) -- or to EOF when END < 0 -- with the current
 * road and its successors.  0 or -errno. */
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

		if (to_eof && r->cap < 0 && r->grown_from >= 0 &&
		    x->in_off > r->grown_from) {
			struct stat now;

			/* Past the size the file had (data was found there;
			 * a file that ends where it said costs no fstat): if it
			 * honestly grew
			 * (its size says so), it is followed to the size it
			 * has now and no further, or a file appended to as
			 * fast as it is read (a busy log, a FUSE file) would
			 * never end.  A size that stays behind what reads
			 * find is a lie (FUSE claiming 0): read to EOF. */
			if (fstat(x->in, &now) == 0 &&
			    now.st_size > r->grown_from) {
				r->cap = now.st_size;
				if (r->size_hint < r->cap)
					r->size_hint = r->cap;
			}
		}
		if (to_eof && r->cap >= 0) {
			if (x->in_off >= r->cap)
				return 0;
			left = MIN(left, (uint64_t)(r->cap - x->in_off));
		}
		if (!left)
			return 0;
		if (r->road < 0)
			return -EOPNOTSUPP;
		if (to_eof && kernel && x->in_seekable) {
			/* The kernel roads stop at the size the file claims;
			 * there one read tells whether it is the end. */
			if (x->in_off >= r->size_hint) {
				e = check_eof(r, x->bufsize, false);
				if (e)
					return e < 0 ? e : 0;
				continue;
			}
			left = (uint64_t)(r->size_hint - x->in_off);
		}
		want = (size_t)MIN(left, (uint64_t)SC_RANGE_MAX);

		x->partial = 0;
		switch (r->road) {
		case SC_ROAD_RANGE:
			n = sc_road_range(x, want);
			break;
		case SC_ROAD_SPLICE:
			n = sc_road_splice(x, want);
			break;
		default:
			n = sc_road_rw(x, want);
			break;
		}
		if (n > 0) {
			r->res->road_bytes[r->road] += (uint64_t)n;
			note(r, r->road, 0, (uint64_t)n);
			r->moved = true;
			if (r->ctx->progress)
				r->ctx->progress(r->ctx->progress_arg,
						 (uint64_t)x->out_off,
						 (enum sc_road)r->road);
			continue;
		}
		if (n == 0) {
			if (!kernel || !x->in_seekable) {
				r->end_road = r->road;
				return 0;	/* read() said EOF */
			}
			e = check_eof(r, (size_t)MIN(left,
						     (uint64_t)x->bufsize), true);
			if (e)
				return e < 0 ? e : 0;
			continue;
		}
		/* The step failed: whatever it delivered first is the road's,
		 * and so is the error, fatal or "not here". */
		r->res->road_bytes[r->road] += x->partial;
		note(r, r->road, (int)n, x->partial);
		if (!sc_copy_not_here((enum sc_road)r->road, (int)-n, r->moved))
			return (int)n;
		r->res->learned |= 1u << r->road;
		next_road(r);
		if (r->road < 0)
			return (int)n;
	}
}

/* Copies the data extents of a sparse source one by one; the holes
 * between them are left unwritten and the size set by ftruncate. */
static int copy_extents(struct run *r)
{
	struct sc_xfer *x = &r->x;
	off_t off = 0, data, hole, end;
	int e;

	for (;;) {
		data = lseek(x->in, off, SEEK_DATA);
		if (data < 0) {
			if (errno == ENXIO) {
				r->res->seek_data = true;
				break;		/* no data past OFF */
			}
			if (off == 0 && (errno == EINVAL || errno == ESPIPE))
				return 1;	/* no SEEK_DATA here */
			x->side = SC_SIDE_READ;
			return -errno;
		}
		r->res->seek_data = true;
		hole = lseek(x->in, data, SEEK_HOLE);
		if (hole < 0) {
			x->side = SC_SIDE_READ;
			return -errno;
		}
		x->in_off = x->out_off = data;
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
	e = check_eof(r, x->bufsize, false);
	if (e < 0)
		return e;
	if (e == 0) {
		e = copy_range(r, -1);
		if (e < 0)
			return e;
	}
	return 0;
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

static int copy_data(struct sc_copy_ctx *ctx, int in, int out,
		     const struct stat *st, bool out_seekable,
		     const struct sc_plan *plan, bool size_trusted,
		     struct sc_copy_result *res)
{
	struct run r = {
		.ctx = ctx, .plan = plan, .res = res,
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
	x->buf = ctx->buf;
	x->bufsize = ctx->bufsize;
	x->pipe = ctx->pipe;
	x->pipesize = ctx->pipesize;
	sc_digests_reset(&ctx->dg);
	x->dg = ctx->verify ? &ctx->dg : NULL;

	next_road(&r);
	if (r.road == SC_ROAD_CLONE) {
		e = sc_road_clone(x);
		if (e == 0) {
			res->bytes = res->road_bytes[SC_ROAD_CLONE] =
				(uint64_t)st->st_size;
			res->size = st->st_size;
			note(&r, SC_ROAD_CLONE, 0, (uint64_t)st->st_size);
			res->holes = (uint64_t)st->st_blocks * 512 <
				     (uint64_t)st->st_size;
			return 0;
		}
		note(&r, SC_ROAD_CLONE, e, 0);
		if (!sc_copy_not_here(SC_ROAD_CLONE, -e, false)) {
			res->err = e;
			res->side = SC_SIDE_WRITE;
			return e;
		}
		res->learned |= 1u << SC_ROAD_CLONE;
		next_road(&r);
		if (r.road < 0) {
			res->err = e;
			res->side = SC_SIDE_WRITE;
			return e;
		}
	}
	if (r.road < 0) {
		res->err = -EOPNOTSUPP;
		return res->err;
	}

	/* Asked only when holes may be made, and after a clone, which
	 * needs none: one fstat for such files. */
	if (out_seekable && (ctx->sparse == SC_SPARSE_ALWAYS ||
			     (ctx->sparse == SC_SPARSE_AUTO && src_sparse)))
		hole_size = out_hole_size(out, ctx->bufsize);
	if (ctx->sparse == SC_SPARSE_ALWAYS)
		x->hole_size = hole_size;

	e = 1;
	/* Sparse source: fewer blocks than its size (cp's test).  Never on
	 * generated files, whose sizes and blocks mean nothing, and only
	 * into a file that can hold holes (hole_size). */
	if (ctx->sparse != SC_SPARSE_NEVER && src_sparse && hole_size)
		e = copy_extents(&r);
	if (e == 1) {
		x->in_off = x->out_off = 0;
		e = copy_range(&r, -1);
	}
	ctx->pipesize = x->pipesize;
	if (e == 0 && (res->n_attempts == 0 ||
		       res->attempt[res->n_attempts - 1].err))
		/* Nothing moved since the last road failed "not here" (or at
		 * all: an empty file): the road whose call found the end
		 * finished the file -- for a kernel road held to the size,
		 * the read that checked it, which is read_write's. */
		note(&r, r.end_road >= 0 ? r.end_road :
			 r.road >= 0 ? r.road : SC_ROAD_RW, 0, 0);
	if (e == 0 && out_seekable &&
	    (x->wrote_hole || res->holes || x->written_end != x->out_off) &&
	    ftruncate(out, x->out_off) < 0) {
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

int sc_copy_data(struct sc_copy_ctx *ctx, int in, int out,
		 const struct stat *st, bool out_seekable,
		 const struct sc_plan *plan, bool size_trusted,
		 struct sc_copy_result *res)
{
	if (!ctx || !ctx->buf || !st || !plan || !res)
		return -EINVAL;
	return copy_data(ctx, in, out, st, out_seekable, plan, size_trusted,
			 res);
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
