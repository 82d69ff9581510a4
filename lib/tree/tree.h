/* The tree copy of <smartcp/smartcp.h> (API 1.3): what a struct sc_tree
 * holds across its copies (tree.c). */
#ifndef SMARTCP_TREE_TREE_H
#define SMARTCP_TREE_TREE_H

#include "tree/jobs.h"
#include "tree/opts.h"
#include "tree/progress.h"
#include "tree/walk_state.h"

struct sc_tree {
	struct tree_opts opts;	/* the flags, and what the copier keeps */
	struct run run;		/* shared by the walk and its workers */
	struct walk walk;	/* the walk's state, kept across copies */
	struct tree_live live;	/* what a signal handler reads */
	struct jobs_ops jobs_ops;
	/* the caller's progress callback (sc_tree_set_progress()) */
	int (*progress)(void *arg, const char *file, uint64_t done,
			off_t size, enum sc_road road);
	void *progress_arg;
	bool started;		/* the jobs are made (the first copy) */
	bool copying;		/* in sc_tree_copy() */
};

#endif
