/* copy_file_range: the kernel copies (or the server does, for NFS, CIFS,
 * Ceph and FUSE).  One call per step, at most MAX_RW_COUNT bytes. */
#include "common.h"
#include "road.h"

#include <unistd.h>

ssize_t sc_road_range(struct sc_xfer *x, size_t len)
{
	ssize_t n;

	if (len > SC_RANGE_MAX)
		len = SC_RANGE_MAX;
	do
		n = copy_file_range(x->in, &x->in_off, x->out, &x->out_off,
				    len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = errno;

		/* The call cannot say which side failed.  ENOSPC, EDQUOT and
		 * EFBIG are the destination's; for the rest, one read of the
		 * source tells whether it is the reading side. */
		x->side = SC_SIDE_WRITE;
		if (err != ENOSPC && err != EDQUOT && err != EFBIG) {
			char probe;

			if (pread(x->in, &probe, 1, x->in_off) < 0)
				x->side = SC_SIDE_READ;
		}
		return -err;
	}
	if (n > 0)
		x->written_end = x->out_off;
	return n;
}
