/* The walk's failures, told to its caller (tree.h's error callback). */
#ifndef SMARTCP_WALK_FAIL_H
#define SMARTCP_WALK_FAIL_H

#include "walk/tree.h"

struct walk;

/* Entry E (its size set here) failed at STAGE with errno ERR, or 0: the
 * caller's error callback hears it.  Returns -ERR, or the -errno the
 * stage stands for. */
int walk_fail(struct walk *w, enum sc_tree_stage stage, int err,
	      const struct sc_tree_entry *e);

#endif
