/* Directories: each one the walk meets is made (or found), refused when
 * it would copy into itself, listed, and becomes a level of the walk
 * (levels.h), whose steps copy its entries and whose end gives its copy
 * its attributes (or, -j, leaves them for the end of the run:
 * deferred.h). */
#ifndef SMARTCP_DIRS_H
#define SMARTCP_DIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "walk_state.h"

/* copy_path(): a directory whose level was pushed, to be copied by the
 * walk's loop (copy_entry()). */
#define ENTERED 2

/* Copies directory SRC (SST) to DST (DST_ST: the existing one, or NULL):
 * made, then a level of the walk, which copies its entries and, at its
 * end, gives it its attributes.  ENTERED, or -1. */
int copy_dir(struct walk *w, const char *src, const char *dst,
	     const struct stat *sst, const struct stat *dst_st,
	     bool cmdline, bool follow);

/* Copies the next entry of level K, the deepest, or enters it (a new
 * level).  False when K has no more to copy. */
bool level_step(struct walk *w, size_t k);

/* Leaves level K, the deepest, its entries done: what is to be said of
 * it, its copy's attributes, and the end of the entry it is
 * (copy_path(), copy_entry()).  0 or -1, as that entry's copy. */
int level_finish(struct walk *w, size_t k);

#endif
