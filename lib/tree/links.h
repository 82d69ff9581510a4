/* The hard-link table: files that have other names (st_nlink > 1, or
 * that were reached by following links) are remembered with their copy,
 * so that their other names become hard links to that copy, as cp -a
 * does.  Only the walk thread uses it (doc/threads.md). */
#ifndef SMARTCP_TREE_LINKS_H
#define SMARTCP_TREE_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "tree/opts.h"


struct link;

/* Zero-initialised: an empty table. */
struct links {
	struct link *slot;	/* open addressing, CAP slots */
	size_t n, cap;
};

/* Must the copy of the file ST describes be remembered?  cp's rule
 * (-a, --preserve=links, not -l): more than one link, or any file reached
 * by following links (-L; -H on the command line, CMDLINE). */
bool links_tracked(const struct tree_opts *o, const struct stat *st,
		      bool cmdline);

/* The copy made of file DEV/INO, or NULL when none was remembered.  The
 * string belongs to the table. */
const char *links_find(const struct links *t, dev_t dev, ino_t ino);

/* Remembers DST as the copy of DEV/INO.  The first copy stays the one:
 * remembering a file again changes nothing.  0, or -ENOMEM (the file is
 * then not remembered: its other names are copied each on its own). */
int links_remember(struct links *t, dev_t dev, ino_t ino,
		      const char *dst);

/* The copy of DEV/INO (remembered) is the file COPY describes (its
 * st_dev, st_ino): the first said stays. */
void links_identify(struct links *t, dev_t dev, ino_t ino,
		       const struct stat *copy);

/* Is ST the copy remembered for DEV/INO (or was none said)?  A name
 * found again by its path may lead elsewhere by now. */
bool links_is_copy(const struct links *t, dev_t dev, ino_t ino,
		      const struct stat *st);

/* Frees what the table holds and empties it. */
void links_free(struct links *t);

#endif
