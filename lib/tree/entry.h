/* The entry being copied (entry.c): its record and what has been said of
 * it, its attributes, the facts of its filesystems.  What the walk and
 * everything under it use, and which calls none of them. */
#ifndef SMARTCP_TREE_ENTRY_H
#define SMARTCP_TREE_ENTRY_H

#include <stdio.h>
#include <sys/stat.h>

#include "tree/paths.h"
#include "tree/state.h"

struct walk_made;

/* The source entry being copied, SRC, and its destination DST, as the
 * kernel is to be asked about them (struct entry). */
static inline struct tree_at entry_src(const struct entry *ent,
					const char *src)
{
	return (struct tree_at){ ent->at_fd, ent->at_name, src };
}

static inline struct tree_at entry_dst(const struct entry *ent,
					const char *dst)
{
	return (struct tree_at){ ent->dst_fd, ent->dst_name, dst };
}

/* The facts of the filesystem that FD (fstat'ed as ST) is on, from the
 * run's cache; NULL when they cannot be learned.  Any thread. */
const struct sc_fs_facts *entry_facts(struct worker *wk, int fd,
					 const struct stat *st);

/* The facts of PATH's filesystem; for a path that may not exist yet
 * (--explain), its nearest existing ancestor's.  NULL when none. */
const struct sc_fs_facts *entry_facts_for_path(struct worker *wk,
						  const char *path);

/* The metadata of S's copy D through the copier (struct walk_made M, and
 * MADE: SC_MADE_* bits beyond M's), for ST, the source: its report (the
 * copier's events, WK's) and what it came to in RES, for AFTER, which
 * says them.  0, or -errno when a failure counts; -ESTALE: the source
 * or the copy was replaced (said here, through the error callback:
 * RES has no report). */
int walk_meta(struct worker *wk, int in, int out, const struct tree_at *s,
	      const struct tree_at *d, const struct stat *st,
	      const struct walk_made *m, unsigned made, struct walk_out *res);

/* The same for the entry ENT, SRC -> DST, into ENT->out. */
int walk_attrs(struct worker *wk, struct entry *ent, int in, int out,
	       const char *src, const char *dst, const struct stat *st,
	       struct walk_made *m);

/* The library's arguments for the copy of ENT's data: the source as the
 * walk saw it (SST; PRE_IN >= 0: opened already, PRE_IST its fstat),
 * followed when it is a symlink (FOLLOW), the destination there (DST_ST,
 * NULL: none). */
struct sc_copy_args walk_file_args(const struct worker *wk,
				   const struct entry *ent,
				   const struct stat *sst,
				   const struct stat *dst_st, bool follow,
				   int pre_in, const struct stat *pre_ist);

/* Copies ENT's data (SRC names it, for progress), or with --explain
 * plans it, through the library as walk_file_args() says; PRE_IN is
 * closed.  The report goes into ENT->out, for AFTER.  WALK_COPIED: what
 * the copy came to is AFTER's to say and count. */
int walk_copy_file(struct worker *wk, struct entry *ent, const char *src,
		   const struct stat *sst, const struct stat *dst_st,
		   bool follow, int pre_in, const struct stat *pre_ist);

/* Opens ENT's source with FLAGS: a descriptor, or -errno.  Out of
 * descriptors (EMFILE, ENFILE), it tries again as long as WK's fd_short
 * gives some back. */
int entry_open_source(struct worker *wk, const struct entry *ent,
			 int flags);

#endif
