/* The convenience layer of libsmartcp: a copier runs the whole rule set
 * for one file at a time -- facts about both filesystems, the plan, the
 * copy with its fallback, a check that the source held still, and the
 * verification -- the way the smartcp program does for each file, at the
 * level of open descriptors (sc_copier_copy_fd) and of paths
 * (sc_copier_copy_path, which replaces the destination atomically). */
#include "common.h"

#include <blkid.h>
#include <libmount.h>

const char *sc_version(void)
{
	return PACKAGE_VERSION;
}

int sc_init(void)
{
	/* libmount and libblkid read their LIBMOUNT_DEBUG / LIBBLKID_DEBUG
	 * masks on first use, into globals, without a lock; done here, once,
	 * before threads exist, later calls find them set. */
	mnt_init_debug(0);
	blkid_init_debug(0);
	return 0;
}
