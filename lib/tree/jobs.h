/* -j: runs of new regular files copied on worker threads, read ahead.
 * Workers print nothing: each file's report is kept in its job, and the
 * walk thread says it in the walk's order (the ops' after).  The thread
 * pool itself is pool.c; what a worker does with one file is the walk's
 * (the callbacks below).  Workers may only call thread-safe code: see
 * doc/threads.md. */
#ifndef SMARTCP_TREE_JOBS_H
#define SMARTCP_TREE_JOBS_H

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "tree/opts.h"

#include "tree/pool.h"

/* How a new regular file of a directory the walk made is opened: by the
 * walk, and ahead of its copy by a worker.  O_NONBLOCK is only for the
 * open (a FIFO put in the file's place must not hang us); regular files
 * ignore it. */
#define NEW_SRC_FLAGS \
	(O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK)

/* One file of a job, as a worker or the walk gets it. */
struct job_file {
	const char *src, *dst;
	int dirfd;			/* the source directory, or -1 */
	int dst_dirfd;			/* DST's directory, or -1 */
	const struct sc_fs_facts *parent_facts;	/* of DST's directory */
	int ahead_fd;	/* SRC opened ahead (NEW_SRC_FLAGS), or -1;
			 * the callee owns it */
	const struct stat *ahead_st;	/* AHEAD_FD's fstat, taken
					 * before its data was asked for */
};

/* What a worker did with a file. */
enum job_copied {
	JOB_COPIED = 0,	/* copied, or failed: its result says */
	JOB_BACK,		/* the walk must copy this file and the rest
				 * of the job (COPY_BACK), in their place in
				 * the order */
};

/* What a worker's copy of a file came to, kept in its job until the walk
 * thread says it (what doc/tree-api.md's tree copy hands its after
 * callback). */
struct job_result {
	int err;		/* the library's answer: 0 or -errno */
	const struct sc_copy_report *rep;	/* what it did and met */
	double seconds;		/* how long the copy took */
};

struct jobs_ops {
	/* On the walk thread, when the pool starts: make the state of
	 * WORKERS workers, or of as many as there is memory for.  How many
	 * it made: 0 to N. */
	unsigned (*start)(void *arg, unsigned workers);
	/* On worker WORKER: copy F into REP, saying nothing, and set RES's
	 * ERR and SECONDS.  enum job_copied. */
	int (*copy)(void *arg, unsigned worker, const struct job_file *f,
		    struct sc_copy_report *rep, struct job_result *res);
	/* On the walk thread, in the walk's order: say what the copy of F
	 * came to (R).  0, or -errno when F failed (said). */
	int (*after)(void *arg, const struct job_file *f,
		     const struct job_result *r);
	/* On the walk thread, in the walk's order: what was printed on the
	 * walk thread's streams (jobs_own_slot()) while jobs before it
	 * were not yet said, to be printed now: OUT_LEN bytes for stdout
	 * and ERR_LEN for stderr; or, N_RUNS > 0 (INTERLEAVE), OUT holds
	 * both, cut into RUNS in the order they were printed. */
	void (*output)(void *arg, const char *out, size_t out_len,
		       const char *err, size_t err_len,
		       const struct sc_tree_run *runs, size_t n_runs);
	/* Must stdout and stderr keep one order between them (OUTPUT)? */
	bool interleave;
	/* On the walk thread: a file a worker handed back. */
	void (*copy_back)(void *arg, const struct job_file *f);
	/* On the walk thread, once the workers are stopped: free what
	 * START made (also after a START that failed). */
	void (*stop)(void *arg, unsigned workers);
};

/* A run of consecutive new regular files of one directory, for one
 * worker. */
struct job;

struct jobs;

/* The -j state of a run of O, with OPS called with ARG.  No thread
 * starts yet.  0 or -ENOMEM. */
int jobs_new(const struct tree_opts *o, const struct jobs_ops *ops,
		void *arg, struct jobs **ret);

/* Are workers copying (started now if they may be)?  DST: the facts of
 * the first directory they fill, which decides how many there are; NAME
 * in DIRFD: the file that would be handed to them, whose data, cached or
 * not, decides whether a lone worker is worth starting.  False when
 * copying stays on this thread (for this file, or for good). */
bool jobs_ready(struct jobs *j, const struct sc_fs_facts *dst,
		   int dirfd, const char *name);

/* Are workers running? */
bool jobs_running(const struct jobs *j);

/* The slot the walk thread's output goes to now (its place in the
 * order), or NULL: straight to stdout and stderr. */
struct pool_slot *jobs_own_slot(struct jobs *j);

/* Adds new regular file SRC -> DST (both now owned by the job) to
 * *BATCH, a job for directory DIRFD (or -1: by path), on the filesystem
 * of SRC_FACTS (or NULL), whose copies go into directory DST_DIRFD (or
 * -1), with facts FACTS; a full batch is submitted and *BATCH cleared.
 * The job keeps descriptors of its own of both directories.  0; or
 * -errno when a new job cannot be had (-EMFILE: no descriptors for it,
 * -ENOMEM): SRC and DST are still the caller's, to copy itself. */
int jobs_add(struct jobs *j, struct job **batch, int dirfd,
		const struct sc_fs_facts *src_facts, int dst_dirfd,
		const struct sc_fs_facts *facts, char *src, char *dst);

/* Hands *BATCH (if any) to the workers and clears it.  Without memory
 * to queue it, waits for the jobs before it and copies its files on this
 * thread (COPY_BACK), in their place in the order.  0. */
void jobs_submit(struct jobs *j, struct job **batch);

/* How many directory levels the walk may keep open, two descriptors
 * each: its share of RLIMIT_NOFILE (at least 2, at most 16). */
unsigned jobs_levels(const struct jobs *j);

/* An open failed with EMFILE or ENFILE all the same: from now on no
 * read-ahead, and one worker fewer copying at once (one at least).  Any
 * thread. */
void jobs_fd_short(struct jobs *j);

/* Waits for every job, says what they came to, stops the workers. */
void jobs_finish(struct jobs *j);

void jobs_free(struct jobs *j);

#endif
