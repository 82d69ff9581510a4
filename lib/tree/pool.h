/* An ordered worker pool for -j: jobs run on worker threads, and are
 * handed back to the submitting thread in the order they were submitted,
 * in their place among what that thread prints itself.
 *
 * Workers may only call thread-safe code: doc/threads.md lists every
 * library call a worker makes and what makes it safe; a library's lazy
 * first-use setup (libattr's xattr.conf, libmount's table) runs before the
 * workers start or under the lock of struct run (walk_state.h). */
#ifndef SMARTCP_TREE_POOL_H
#define SMARTCP_TREE_POOL_H

#include <stdbool.h>
#include <stdio.h>

#include <smartcp/smartcp.h>

struct pool_slot;


/* An interleaving slot's stream: which slot, which of its streams. */
struct pool_cookie {
	struct pool_slot *slot;
	bool err;
};

/* One place in the output order: a job's, or the submitter's own. */
struct pool_slot {
	struct pool_slot *next;
	void *job;		/* submitted job, NULL for the submitter's slot */
	/* The submitter's slot's streams (a job's slot has none: workers
	 * print nothing) */
	FILE *out;		/* what is meant for the standard output */
	char *out_buf;
	size_t out_len;
	FILE *err;		/* ... and for the standard error, in order */
	char *err_buf;
	size_t err_len;
	/* An interleaving pool's slot (pool_new()): OUT and ERR write,
	 * unbuffered, into one buffer, SEQ, in the order the bytes came;
	 * RUNS say which stream each stretch of it is for.  OUT_BUF and
	 * ERR_BUF stay empty. */
	char *seq;
	size_t seq_len, seq_cap;
	struct sc_tree_run *runs;
	size_t n_runs, cap_runs;
	struct pool_cookie cookie[2];
	bool done;		/* guarded by the pool lock */
};

struct pool;

/* RUN(arg, job, worker) runs on worker threads; FLUSH(arg, slot) runs on
 * the submitting thread for each finished slot, in order, and must say
 * what the slot's job came to, or print what the submitter's slot
 * holds.  At most LIMIT jobs wait (submitted, not yet flushed): enough
 * to keep every worker busy while the walk reads the next directory,
 * few enough to bound memory and the descriptors
 * jobs hold.  INTERLEAVE: a slot keeps what was written to its two
 * streams in the order it was written (its SEQ and RUNS), not stdout's
 * bytes apart from stderr's.  Returns 0 or -errno. */
int pool_new(unsigned workers, unsigned limit, bool interleave,
		void (*run)(void *arg, void *job, unsigned worker),
		void (*flush)(void *arg, struct pool_slot *slot),
		void *arg, struct pool **ret);

/* Queues JOB; blocks (flushing) while the queue is full. 0 or -errno. */
int pool_submit(struct pool *p, void *job);

/* Waits for every job queued and flushes every slot (FLUSH), the
 * submitter's own too: nothing is left to print before what comes next. */
void pool_drain(struct pool *p);

/* The slot the submitting thread writes its own output into now: the
 * tail slot if it is the submitter's, else a new one.  NULL on ENOMEM. */
struct pool_slot *pool_own_slot(struct pool *p);

/* Waits for everything, flushes, stops the workers, frees. */
void pool_free(struct pool *p);

#endif
