/* The walk's failures and each entry's report, told to its caller
 * (<smartcp/smartcp.h>'s error and after callbacks). */
#ifndef SMARTCP_TREE_FAIL_H
#define SMARTCP_TREE_FAIL_H

#include <smartcp/smartcp.h>

struct run;

/* Entry E (its size set here) failed at STAGE with errno ERR, or 0: the
 * caller's error callback (RUN's) hears it.  Returns -ERR, or the -errno
 * the stage stands for.  The walk thread only. */
int walk_fail(struct run *run, enum sc_tree_stage stage, int err,
	      const struct sc_tree_entry *e);

/* Tells RUN's caller's after callback about TE: RES.  What it answers:
 * 0, -errno or SC_TREE_FLAWED (0 without one).  The walk thread only. */
int walk_after(struct run *run, const struct sc_tree_entry *te,
	       const struct sc_tree_result *res);

#endif
