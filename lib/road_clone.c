/* clone: ask the filesystem to share the source's extents (FICLONE).
 * Metadata only, whole file, holes included. */
#include "common.h"
#include "road.h"

#include <sys/ioctl.h>
#include <linux/fs.h>

int sc_road_clone(struct sc_xfer *x)
{
	if (ioctl(x->out, FICLONE, x->in) < 0) {
		x->side = SC_SIDE_WRITE;
		return -errno;
	}
	return 0;
}
