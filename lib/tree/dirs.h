/* Directories: each one the walk meets is made (or found), refused when
 * it would copy into itself, listed, and becomes a level of the walk
 * (levels.h); the walk's loop (walk.c) copies its entries, and at its
 * end gives its copy its attributes through set_dir_attrs() (or, -j,
 * leaves them for the end of the run: deferred.h). */
#ifndef SMARTCP_TREE_DIRS_H
#define SMARTCP_TREE_DIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "tree/walk_state.h"

/* An entry of a directory being copied (a level's ents). */
struct dent {
	ino_t ino;
	unsigned char type;	/* d_type: DT_UNKNOWN on some filesystems */
	char *name;
};

/* Copies directory SRC (SST) to DST (DST_ST: the existing one, or NULL):
 * made, then a level of the walk, which copies its entries and, at its
 * end, gives it its attributes.  WALK_ENTERED (the level pushed, for the
 * walk's loop, copy_entry()), or -errno. */
int copy_dir(struct walk *w, const char *src, const char *dst,
	     const struct stat *sst, const struct stat *dst_st,
	     bool cmdline, bool follow);

/* Points W at entry NAME of level K (D: its whole destination path, for
 * a level whose copy goes by path, --explain). */
void at_entry(struct walk *w, size_t k, const char *name, const char *d);

/* Does a directory copy need attributes at its end (M: how it was made)?
 * Modes and times of a directory go on after its contents: writing the
 * entries would change the times, and a read-only mode would have
 * stopped us writing them. */
bool dir_attrs_wanted(const struct walk *w, const struct walk_made *m);

/* The attributes of directory L's copy, SRC -> DST, the walk being back
 * in L's parent (struct walk names L as its entry there): set through
 * the copy's descriptor DFD (or one opened again, checked), never by a
 * name that may lead elsewhere now; its report into OUT, for AFTER.
 * 0, or -errno (said, or AFTER's to say). */
int set_dir_attrs(struct walk *w, const struct level *l, int dfd,
		  const char *src, const char *dst, struct walk_out *out);

/* Is the copy of level L (just left: struct walk names it as an entry of
 * its parent) still where the walk made or found it?  Someone who may
 * write its parent may have moved it away and put something else in its
 * place: its entries went into it all the same, through its descriptor,
 * but the tree is not what it seems. */
bool copy_still_there(const struct walk *w, const struct level *l);

/* Is ST the directory DEV, INO? */
bool same_dir(dev_t dev, ino_t ino, const struct stat *st);

#endif
