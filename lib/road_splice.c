/* splice: source -> pipe -> destination, without copying through user
 * space.  Pages of a regular file are referenced by the pipe, not copied,
 * until they are spliced out; the data written is what the page held
 * when it left the pipe, which is why smartcp only splices files it does
 * not write to itself and drains the pipe before each step returns. */
#include "common.h"
#include "road.h"

#include <fcntl.h>
#include <unistd.h>

static int pipe_open(struct sc_xfer *x)
{
	int p[2];
	int sz;

	if (x->pipe[0] >= 0)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	/* 1 MiB (the unprivileged pipe-max-size) measured 25-40% faster
	 * than read/write across filesystems; fall back to what we get. */
	sz = fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	if (sz < 0)
		sz = fcntl(p[1], F_GETPIPE_SZ);
	x->pipesize = sz > 0 ? (size_t)sz : 65536;
	x->pipe[0] = p[0];
	x->pipe[1] = p[1];
	return 0;
}

void sc_road_splice_reset(struct sc_xfer *x)
{
	if (x->pipe[0] >= 0) {
		close(x->pipe[0]);
		close(x->pipe[1]);
		x->pipe[0] = x->pipe[1] = -1;
	}
}

/* The destination refused bytes that are already in the pipe.  A file
 * source goes back to the first byte not written, so the next road
 * continues exactly there; a pipe source cannot go back, so the stuck
 * bytes are written with write() -- or the error stands.  Returns the
 * bytes written that way, or -errno with x->partial the bytes that did
 * get written (*not* counting what was spliced before). */
static int give_back(struct sc_xfer *x, size_t stuck, int err)
{
	/* the engine's buffer is made only for read_write: a splice may
	 * run without one */
	char local[4096];
	char *buf = x->buf ? x->buf : local;
	size_t bufsize = x->buf ? x->bufsize : sizeof(local);
	size_t moved = 0;

	x->partial = 0;
	if (x->in_seekable) {
		x->in_off -= (off_t)stuck;
		sc_road_splice_reset(x);
		return -err;
	}
	if (err != EINVAL && err != ENOSYS && err != ESPIPE) {
		sc_road_splice_reset(x);
		return -err;
	}
	while (moved < stuck) {
		ssize_t n = read(x->pipe[0], buf, MIN(bufsize, stuck - moved));
		off_t start = x->out_off;
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			sc_road_splice_reset(x);
			x->partial = moved;
			return n < 0 ? -errno : -EIO;
		}
		r = sc_write_all(x, buf, (size_t)n);
		if (r < 0) {
			sc_road_splice_reset(x);
			x->partial = moved + (size_t)(x->out_off - start);
			return r;
		}
		moved += (size_t)n;
	}
	sc_road_splice_reset(x);
	return (int)moved;
}

ssize_t sc_road_splice(struct sc_xfer *x, size_t len)
{
	ssize_t in, out;
	size_t done = 0;
	int r = pipe_open(x);

	if (r < 0) {
		x->side = SC_SIDE_READ;
		return r;
	}
	if (len > x->pipesize)
		len = x->pipesize;
	do
		in = splice(x->in, x->in_seekable ? &x->in_off : NULL,
			    x->pipe[1], NULL, len, SPLICE_F_MOVE);
	while (in < 0 && errno == EINTR);
	if (in < 0) {
		x->side = SC_SIDE_READ;
		return -errno;
	}
	while (done < (size_t)in) {
		out = splice(x->pipe[0], NULL, x->out,
			     x->out_seekable ? &x->out_off : NULL,
			     (size_t)in - done, SPLICE_F_MOVE);
		if (out < 0 && errno == EINTR)
			continue;
		if (out <= 0) {
			int err = out < 0 ? errno : EIO;

			if (x->out_seekable)
				x->written_end = x->out_off;
			x->side = SC_SIDE_WRITE;
			r = give_back(x, (size_t)in - done, err);
			if (r < 0) {
				/* what this step spliced out before the
				 * error reached the destination */
				x->partial += done;
				return r;
			}
			return (ssize_t)(done + (size_t)r);
		}
		done += (size_t)out;
	}
	if (x->out_seekable)
		x->written_end = x->out_off;
	return in;
}
