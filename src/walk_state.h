/* The walk's state, private to src/: the run's (struct run), the
 * traversal's and its entry's (struct walk; a -j worker has a copy of its
 * own), and one entry's as the copy decides it (struct decision).  The walk
 * owns it; the files below it are handed the struct walk of the entry
 * being copied. */
#ifndef SMARTCP_WALK_STATE_H
#define SMARTCP_WALK_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "attrs.h"
#include "jobs.h"
#include "links.h"
#include "options.h"
#include "paths.h"
#include "pool.h"
#include "report.h"

struct deferred;	/* deferred.c: directory attributes set at the end */
struct seen;		/* operands.c: operands and what they became */
struct level;		/* levels.h: a directory being copied, and its copy */
struct dnode;		/* deferred.h: a directory whose attributes wait */

/* The whole names of the directories the walk is in, one after the other
 * in one buffer per side: each level keeps where its name ends, and the
 * names of its entries are written after it, over those of the last one
 * (as fts does).  The buffer moves when it grows: the walk keeps lengths,
 * never pointers into it, across anything that may grow it. */
struct sc_names {
	char *p;
	size_t len, cap;	/* in use (with its NUL), allocated */
};

/* A directory as the kernel identifies it. */
struct sc_devino {
	dev_t dev;
	ino_t ino;
};

/* The run: set up before any worker starts, shared by the walk and its
 * -j workers, which only read it (but FAILURES, the walk's). */
struct run {
	const struct sc_options *o;
	struct sc_report *rep;
	/* The one copier: its facts cache and the roads it learned to fail
	 * for each pair of filesystems are shared by the walk and its
	 * workers, under the copier's own lock. */
	struct sc_copier *copier;
	/* Failures: a message marks the entry being copied as failed
	 * (struct sc_msgs); each failed entry counts once, whatever number
	 * of messages it printed.  Walk thread only: workers count into
	 * their jobs. */
	int failures;
	/* --explain --assume-fs: the source's and destination's facts */
	bool fs_assumed;
	struct sc_fs_facts *assumed[2];	/* NULL: unknown */
	mode_t umask;
	bool privileged;	/* root: may chown, and must say when it fails */
	struct sc_jobs *jobs;	/* -j: the workers */
	dev_t root_dev;		/* -x: the device of the current operand */
};

/* One thread's means of copying: the walk's own, or a -j worker's. */
struct worker {
	struct run *run;
	/* its means of copying through the run's copier, and what its
	 * copies report */
	struct sc_copy_ctx *cx;
	struct sc_copy_report *crep;
	struct sc_msgs msgs;	/* its messages about its entry */
	struct sc_pool_slot *slot;	/* -j: a worker's job slot, or NULL */
	unsigned thread;	/* 0: the walk's, 1 + N: worker N (signals.h) */
	bool in_worker;		/* a -j worker, not the walk's thread */
	/* the walk's hard-link table; NULL in a -j worker, which hands a
	 * file with other names back to the walk */
	struct sc_links *links;
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
	char *backup;		/* backup made for it, or NULL */
	bool reported;		/* it has its record */
	bool announced;		/* ... and its cp-style -v line is out */
	const char *current;	/* the file being copied, for progress */
	off_t current_size;
	int ahead_fd;		/* -j: the file, opened ahead, or -1 */
	const struct stat *ahead_st;	/* its fstat (struct sc_job_file) */
};

/* The traversal, on the walk's thread. */
struct walk {
	struct run *run;	/* shared by the walk and its workers */
	struct worker wk;	/* the walk thread's own */
	struct entry e;		/* the entry it is copying */
	struct walk *workers;	/* -j: one walk per worker thread */
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
	struct sc_names src_names, dst_names;	/* the levels' names */
	/* -j: the directories of the deferred attributes, and their
	 * ancestors */
	struct dnode *dnodes;
	size_t n_dnodes, cap_dnodes;
	/* The operand being copied, for "cannot copy a directory into
	 * itself", and the directories that hold its destination (its
	 * parent up to the root through ".."), which it must not be. */
	const char *top_src, *top_dst;
	struct sc_devino *anc;
	size_t n_anc, cap_anc;
	struct sc_links links;	/* the walk thread's hard-link table */
	/* several operands into a directory: what they were and became */
	bool multi;
	struct seen *src_seen, *dst_seen;
	size_t n_src_seen, n_dst_seen;
};

/* One entry the walk copies, as its phases see it. */
struct decision {
	const char *src, *dst;
	bool cmdline;		/* an operand, not found in a directory */
	bool follow;		/* symlinks to the source are followed */
	struct stat sst, dst_st;
	bool dst_exists;	/* DST_ST holds the destination's stat */
	bool loop;		/* ... of a symlink loop that -f removes */
};

/* The walk (walk.c), for the operands (operands.c) and the -j workers
 * (workers.c) */

/* Copies SRC to DST, an operand (CMDLINE) or a file a worker handed
 * back, and, a directory, all that is in it (DTYPE: its d_type, or
 * DT_UNKNOWN).  0 or -1. */
int copy_entry(struct walk *w, const char *src, const char *dst,
	       bool cmdline, unsigned char dtype);

/* The fast path for a regular file entering a directory this run made
 * (the entry of W).  Returns 1 when the caller must take the general
 * path. */
int copy_new_regular(struct walk *w, const char *src, const char *dst);

/* The source entry being copied, SRC, and its destination DST, as the
 * kernel is to be asked about them (see struct walk). */
static inline struct sc_at sc_walk_src(const struct walk *w, const char *src)
{
	return (struct sc_at){ w->e.at_fd, w->e.at_name, src };
}

static inline struct sc_at sc_walk_dst(const struct walk *w, const char *dst)
{
	return (struct sc_at){ w->e.dst_fd, w->e.dst_name, dst };
}

#endif
