/* The walk's failures, told to its caller (tree.h's error callback). */
#ifndef SMARTCP_WALK_FAIL_H
#define SMARTCP_WALK_FAIL_H

#include "walk/tree.h"

struct run;

/* Entry E (its size set here) failed at STAGE with errno ERR, or 0: the
 * caller's error callback (RUN's) hears it.  Returns -ERR, or the -errno
 * the stage stands for.  The walk thread only. */
int walk_fail(const struct run *run, enum sc_tree_stage stage, int err,
	      const struct sc_tree_entry *e);

#endif
