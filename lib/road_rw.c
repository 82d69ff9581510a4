/* read_write: the floor every other road falls back to.  Reads until
 * read() returns 0 -- never trusting st_size -- retries EINTR and short
 * writes, and with --sparse=always leaves holes for all-zero blocks. */
#include "common.h"
#include "road.h"

#include <string.h>
#include <unistd.h>

static bool all_zero(const char *p, size_t n)
{
	/* memcmp against itself shifted by one: zero iff p[0] == 0 and
	 * every byte equals the next. */
	return n == 0 || (p[0] == 0 && !memcmp(p, p + 1, n - 1));
}

static int write_some(struct sc_xfer *x, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = x->out_seekable ?
			pwrite(x->out, buf, len, x->out_off) :
			write(x->out, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ESPIPE && x->out_seekable &&
			    x->out_off == 0) {
				x->out_seekable = false;
				continue;
			}
			x->side = SC_SIDE_WRITE;
			return -errno;
		}
		if (n == 0) {	/* a write that moves nothing: full */
			x->side = SC_SIDE_WRITE;
			return -ENOSPC;
		}
		buf += n;
		len -= (size_t)n;
		x->out_off += n;
		x->written_end = x->out_off;
	}
	return 0;
}

/* Whether the block of BUF (LEN bytes) at I, which lands at file offset
 * OFF, may become a hole: all zero and aligned to the destination's
 * block.  The last block of BUF may be short, as a read is short only at
 * the end of the file (or of what a pipe held); cp leaves a hole there
 * too, and the copy engine's ftruncate gives the file its size. */
static bool hole_at(size_t hs, const char *buf, size_t i, size_t len,
		    off_t off)
{
	size_t n = MIN(len - i, hs);

	if (off % (off_t)hs != 0 || (n < hs && i + n != len))
		return false;
	return all_zero(buf + i, n);
}

int sc_write_all(struct sc_xfer *x, const char *buf, size_t len)
{
	size_t hs = x->hole_size, i = 0;
	off_t base = x->out_off;	/* where buf[0] goes */

	if (!hs || !x->out_seekable)
		return write_some(x, buf, len);

	while (i < len) {
		size_t j = i;
		int r;

		if (hole_at(hs, buf, i, len, base + (off_t)i)) {
			do
				j += MIN(len - j, hs);
			while (j < len && hole_at(hs, buf, j, len,
						  base + (off_t)j));
			x->out_off += (off_t)(j - i);
			x->wrote_hole = true;
			i = j;
			continue;
		}
		/* Data up to the next block boundary, then on to the next
		 * zero block: a short read in between shifts the blocks. */
		do
			j += MIN(len - j,
				 hs - (size_t)((base + (off_t)j) % (off_t)hs));
		while (j < len && !hole_at(hs, buf, j, len, base + (off_t)j));
		r = write_some(x, buf + i, j - i);
		if (r < 0)
			return r;
		i = j;
	}
	return 0;
}

ssize_t sc_read_in(struct sc_xfer *x, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = x->in_seekable ? pread(x->in, buf, len, x->in_off) :
					     read(x->in, buf, len);

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno == ESPIPE && x->in_seekable && x->in_off == 0) {
			x->in_seekable = false;
			continue;
		}
		x->side = SC_SIDE_READ;
		return -errno;
	}
}

ssize_t sc_road_rw(struct sc_xfer *x, size_t len)
{
	off_t out_start = x->out_off;
	ssize_t n;
	int r;

	if (len > x->bufsize)
		len = x->bufsize;
	n = sc_read_in(x, x->buf, len);
	if (n <= 0)
		return n;
	r = sc_write_all(x, x->buf, (size_t)n);
	if (r == 0 && x->dg)
		sc_digests_add(x->dg, out_start, x->buf, (size_t)n);
	/* Count only what reached the destination: after a failed write
	 * the source offset matches the destination's, and what did reach
	 * it is the failing step's share (a short write before EFBIG). */
	x->in_off += x->out_off - out_start;
	if (r < 0)
		x->partial = (size_t)(x->out_off - out_start);
	return r < 0 ? r : n;
}
