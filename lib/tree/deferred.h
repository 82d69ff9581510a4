/* -j: the attributes of the directories' copies wait for the end of the
 * run, when none of their files is in flight any more.  Each such
 * directory and its ancestors are kept as nodes (struct dnode), by name
 * and identity; at the end the way down to each is found again, level by
 * level (levels.h), every step checked. */
#ifndef SMARTCP_TREE_DEFERRED_H
#define SMARTCP_TREE_DEFERRED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "tree/walk_state.h"

/* -j: a directory whose attributes wait for the end of the run, or one
 * of its ancestors.  Only its name is kept, and where it is (PARENT, an
 * index + 1; 0: the first of an operand or of a file a worker handed
 * back, whose NAMEs are whole paths): at the end the walk goes down to it
 * again, each step checked as when it came back up (struct level). */
struct dnode {
	size_t parent, depth;
	dev_t dev, ddev;
	ino_t ino, dino;
	char *sname, *dname;	/* one string, but for a first level */
	bool follow, dup;
	bool lost;		/* could not be reached again: said */
};

/* -j: the struct dnode of level K (+ 1), made with those of its
 * ancestors that have none yet; 0 when out of memory. */
size_t level_node(struct walk *w, size_t k);

/* -j: the attributes of the copy of the directory of NODE (+ 1), whose
 * source was ST and copy was made as M, wait for the end of the run
 * (its files may still be in flight).  False when out of memory. */
bool defer_attrs(struct walk *w, size_t node, const struct stat *st,
		 const struct walk_made *m);

/* -j: directory attributes that waited for the workers, post-order.
 * Their directories are found again as the walk found them, level by
 * level from their operand, each checked; never by their whole path, on
 * which any directory could lead elsewhere by now. */
void set_deferred_attrs(struct walk *w);

/* Frees the nodes of the deferred attributes. */
void free_dnodes(struct walk *w);

#endif
