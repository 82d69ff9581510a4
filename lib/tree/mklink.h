/* Links made in a destination's place (mklink.c): a symlink copied, -l
 * and -s, another name of a file copied earlier. */
#ifndef SMARTCP_TREE_MKLINK_H
#define SMARTCP_TREE_MKLINK_H

#include "tree/paths.h"

/* What walk_make_link() did, when it did not fail. */
enum walk_linked {
	WALK_LINKED = 0,	/* made where nothing was */
	WALK_LINK_REPLACED,	/* ... in place of an existing DST */
};

/* How walk_make_link() makes DST: bits of its flags word. */
enum {
	LINK_HARD = 1 << 0,	/* a hard link, else a symlink */
	LINK_FOLLOW = 1 << 1,	/* hard: to what a symlink TARGET names */
	LINK_REPLACE = 1 << 2,	/* an existing DST is replaced */
	LINK_HELD = 1 << 3,	/* hard: to the object TARGET's dirfd holds
				 * (O_PATH), its name unused */
};

/* Makes DST a hard link to TARGET (LINK_HARD; with LINK_FOLLOW to what a
 * symlink TARGET names; with LINK_HELD to the object held as TARGET's
 * dirfd) or a symlink holding TARGET's name.  An existing DST is
 * replaced only with LINK_REPLACE, in one rename (under a name no one
 * can guess first), so DST never goes missing.  Returns enum
 * walk_linked, or -errno. */
int walk_make_link(const struct tree_at *target, const struct tree_at *dst,
		   unsigned flags);

#endif
