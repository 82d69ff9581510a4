/* The tree copy's state in three lifetimes: the run (struct run: one
 * struct sc_tree, across its copies), one thread's means of copying
 * (struct worker: the walk's own, or a worker's) and the entry being
 * copied (struct entry).  The traversal's own state is struct walk
 * (walk_state.h). */
#ifndef SMARTCP_TREE_STATE_H
#define SMARTCP_TREE_STATE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/types.h>

#include <smartcp/smartcp.h>

#include "tree/links.h"
#include "tree/opts.h"
#include "tree/pool.h"

struct jobs;
struct tree_live;

/* The convention of lib/: a function that can fail returns -errno (the
 * caller told by then, through its error callback: fail.h), else 0 or
 * one of its named outcomes below; a descriptor or a count where it
 * returns one. */

/* What became of an entry that did not fail. */
enum walk_copied {
	WALK_COPIED = 0,		/* copied, or nothing was to be done */
	WALK_ENTERED,		/* a directory, now a level of the walk: the
				 * level's end does the rest */
	WALK_HANDED_BACK,		/* not taken by the fast path: the general
				 * one copies it and says why not */
	WALK_SKIPPED,		/* left as it was, as the caller's before
				 * decided (walk.c, between its steps) */
};

/* What the caller's before decided (walk.c, ask_before()), when it did
 * not fail. */
enum walk_settled {
	WALK_SETTLED_DONE = 0,	/* nothing more to do: left alone, skipped */
	WALK_SETTLED_COPY,	/* go on and copy */
};

/* The run: set up before any worker starts, shared by the walk and its
 * -j workers, which only read it (but FAILURES, the walk's). */
struct run {
	const struct tree_opts *o;
	/* The one copier: its facts cache and the roads it learned to fail
	 * for each pair of filesystems are shared by the walk and its
	 * workers, under the copier's own lock. */
	struct sc_copier *copier;
	struct jobs *jobs;	/* threads: the workers */
	dev_t root_dev;		/* SC_TREE_ONE_FS: the operand's device */
	/* the caller's callbacks and their argument */
	struct sc_tree_ops ops;
	void *ops_arg;
	struct entry *cur;	/* the entry the walk thread is on */
	/* the depth of the entry the walk thread is on (struct
	 * sc_tree_entry), 0: none; walk thread only */
	unsigned depth;
	/* The first failure (-errno) since the copy (or finish) began: an
	 * entry the walk failed, or one its caller's after found failed;
	 * what sc_tree_copy() and sc_tree_finish() return.  Walk thread
	 * only. */
	int status;
	/* sc_tree_cancel(), or a callback's SC_TREE_QUIT: nothing more is
	 * begun */
	volatile sig_atomic_t cancelled;
	/* the counters and the copies in progress a signal handler reads */
	struct tree_live *live;
};

/* One thread's means of copying: the walk's own, or a -j worker's. */
struct worker {
	struct run *run;
	/* its means of copying through the run's copier, and what its
	 * copies report */
	struct sc_copy_ctx *cx;
	struct sc_copy_report *crep;
	unsigned thread;	/* 0: the walk's, 1 + N: worker N (progress.h) */
	/* Out of descriptors (ERR: EMFILE, ENFILE) in an open: give some
	 * back (the walk: the levels it keeps open; a -j worker: wait for
	 * the others) and say whether to try again (TRIES: how often). */
	bool (*fd_short)(void *arg, int err, unsigned *tries);
	void *fd_short_arg;
	/* the walk's hard-link table; NULL in a -j worker, which hands a
	 * file with other names back to the walk */
	struct links *links;
};

/* One entry the walk copies, as the decisions about it see it. */
struct decision {
	const char *src, *dst;
	bool cmdline;		/* an operand, not found in a directory */
	bool follow;		/* symlinks to the source are followed */
	struct stat sst, dst_st;
	bool dst_exists;	/* DST_ST holds the destination's stat */
	bool loop;		/* ... of a symlink loop that -f removes */
};

/* How a destination came to be, for the metadata step.  cp leaves some
 * permission bits out when it creates a file or directory, so that nobody
 * can open it before it is ready (with -p, before the owner changes), and
 * adds them back at the end.  (struct sc_meta_args's SC_MADE_*.) */
struct walk_made {
	/* SC_MADE_CREATED: this run made the destination; MODE_KNOWN: MODE
	 * holds its mode after creation; RESTORE: MODE | OMITTED must be set
	 * at the end; OLD: an existing destination, OLD_MODE its mode */
	unsigned flags;
	mode_t mode;		/* mode after creation (directories, specials) */
	mode_t omitted;		/* bits left out at creation */
	mode_t extra;		/* S_IWUSR added at creation to set xattrs */
	mode_t old_mode;
};

/* What AFTER (<smartcp/smartcp.h>) is told at an entry's end (walk.c,
 * entry_done()): what it is (KIND), whether it was made (MADE) and a
 * link replaced what was there (REPLACED), its report (REP: a file's copy
 * or what was made's metadata, REP_ERR what that returned, SECONDS a
 * copy's time) and the destination that was there before (OLD, HAS_OLD);
 * a file with other names (REMEMBER, its source SST) is remembered for
 * them when AFTER finds nothing failed. */
struct walk_out {
	int kind;		/* enum sc_tree_kind */
	bool made, replaced, has_old, remember;
	const char *earlier;	/* a link's: what it is another name of */
	const struct sc_copy_report *rep;
	int rep_err;
	double seconds;
	struct stat old, sst;
};

/* The entry being copied, and what has been said of it. */
struct entry {
	/* The source, as its directory's descriptor and its name there:
	 * opened through these, a directory renamed or swapped for a
	 * symlink while the walk is inside it cannot lead the copy out of
	 * the source tree, and no name the kernel is handed grows with the
	 * depth (PATH_MAX).  An operand: AT_FDCWD and its path.  DST_FD and
	 * DST_NAME: its destination, the same way. */
	int at_fd;
	const char *at_name;
	int dst_fd;
	const char *dst_name;
	bool in_level;		/* ... the deepest level's (levels.h) */
	/* Facts of the directory the walk just created and is filling, or
	 * NULL: its new entries need no lstat and no fstat. */
	const struct sc_fs_facts *parent_facts;
	struct walk_out out;	/* what AFTER is told at its end */
	const char *current;	/* the file being copied, for progress */
	off_t current_size;
	int ahead_fd;		/* -j: the file, opened ahead, or -1 */
	const struct stat *ahead_st;	/* its fstat (struct job_file) */
};

#endif
