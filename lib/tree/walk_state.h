/* The traversal's state, private to the tree copy (struct walk: its levels,
 * names, deferred attributes, hard links and operands, beside its own worker
 * and entry from state.h).  Walk thread only: a -j worker never sees it (it has
 * a struct worker and an entry per job, state.h). */
#ifndef SMARTCP_TREE_WALK_STATE_H
#define SMARTCP_TREE_WALK_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "tree/jobs.h"
#include "tree/links.h"
#include "tree/paths.h"
#include "tree/pool.h"
#include "tree/state.h"
#include <smartcp/smartcp.h>

struct deferred;	/* deferred.c: directory attributes set at the end */
struct level;		/* levels.h: a directory being copied, and its copy */
struct dnode;		/* deferred.h: a directory whose attributes wait */

/* The whole names of the directories the walk is in, one after the other
 * in one buffer per side: each level keeps where its name ends, and the
 * names of its entries are written after it, over those of the last one
 * (as fts does).  The buffer moves when it grows: the walk keeps lengths,
 * never pointers into it, across anything that may grow it. */
struct walk_names {
	char *p;
	size_t len, cap;	/* in use (with its NUL), allocated */
};

/* A directory as the kernel identifies it. */
struct devino {
	dev_t dev;
	ino_t ino;
};

/* The traversal, on the walk's thread. */
struct walk {
	struct run *run;	/* shared by the walk and its workers */
	struct worker wk;	/* the walk thread's own */
	struct entry e;		/* the entry it is copying */
	struct worker *workers;	/* -j: one per worker thread */
	struct deferred *deferred;	/* -j: directory attributes, post-order */
	size_t n_deferred, cap_deferred;
	/* The source directories being copied and their copies, outermost
	 * first: a link that leads back to one of them (-L, -H) would copy
	 * forever.  Only the deepest MAX_OPEN hold descriptors (levels.c). */
	struct level *levels;
	size_t n_levels, cap_levels;
	unsigned n_open, max_open;
	size_t open_lo;		/* no level below it holds descriptors */
	/* the levels by device and inode (levels.c, levels_with()) */
	size_t *level_hash, n_buckets, n_unhashed;
	struct walk_names src_names, dst_names;	/* the levels' names */
	/* -j: the directories of the deferred attributes, and their
	 * ancestors */
	struct dnode *dnodes;
	size_t n_dnodes, cap_dnodes;
	/* The operand being copied, for "cannot copy a directory into
	 * itself", and the directories that hold its destination (its
	 * parent up to the root through ".."), which it must not be. */
	const char *top_src, *top_dst;
	/* The operand, OP_SNAME in OP_SFD, and the directory its copy goes
	 * into, held by the caller (its name there OP_DNAME), or AT_FDCWD:
	 * a path (struct sc_tree_args). */
	int op_sfd, op_dfd;
	const char *op_sname, *op_dname;
	struct devino *anc;
	size_t n_anc, cap_anc;
	struct links links;	/* the walk thread's hard-link table */
	/* sc_tree_set_exclude(): the names of entries not copied */
	char **exclude;
	size_t n_exclude;
};

/* The walk (walk.c), for the operands (operands.c) and the -j workers
 * (workers.c) */

/* Copies SRC to DST, an operand (CMDLINE) or a file a worker handed
 * back, and, a directory, all that is in it (DTYPE: its d_type, or
 * DT_UNKNOWN).  WALK_COPIED, or -errno when it, or anything in it,
 * failed (said). */
int copy_entry(struct walk *w, const char *src, const char *dst,
	       bool cmdline, unsigned char dtype);

/* The fast path for a regular file entering a directory this run made
 * (the entry of W).  WALK_COPIED, WALK_HANDED_BACK when the caller must
 * take the general path, or -errno (said). */
int copy_new_regular(struct worker *wk, struct entry *ent, const char *src,
		     const char *dst);

#endif
