/* What a signal handler may read of a tree copy in progress, and do to
 * it: how far the copy got, and the copies of files in progress, which
 * it can have the library abandon.  The walk keeps both; the handler
 * (cli/signals.c) calls down for them.  These become the tree copy's
 * progress and abandon calls in libsmartcp (doc/tree-api.md,
 * "Cancellation").  Everything here is lock-free atomics: safe in a
 * signal handler, from any thread. */
#ifndef SMARTCP_TREE_PROGRESS_H
#define SMARTCP_TREE_PROGRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct sc_copy_ctx;

/* Threads that may write destinations: the walk's (0) and -j workers
 * (1 ... TREE_THREADS - 1). */
#define TREE_THREADS 65

/* A tree copy's live state.  Zero-initialised: nothing counted, no copy
 * in progress.  It must outlive the handler's use of it: the program
 * keeps its one in static storage (cli/run.c). */
struct tree_live {
	atomic_ullong files, bytes;
	struct sc_copy_ctx *_Atomic copying[TREE_THREADS];
};

/* Thread THREAD copies files through X: abandoning the tree has the
 * library remove what the copy in progress there made.  NULL: none any
 * more.  Called by that thread before its first copy, and before X is
 * freed. */
void tree_copying(struct tree_live *t, unsigned thread,
		  struct sc_copy_ctx *x);

/* A file was copied, BYTES of data (as the summary counts files).  Any
 * thread. */
void tree_count_file(struct tree_live *t, uint64_t bytes);

/* How far T got: the files copied and their bytes.  Async-signal-safe. */
void tree_progress(struct tree_live *t, uint64_t *ret_files,
		   uint64_t *ret_bytes);

/* Cancels the copy in progress on each thread (sc_copy_ctx_cancel()).
 * Async-signal-safe. */
void tree_cancel(struct tree_live *t);

/* For a handler about to end the process: has the library remove what
 * each copy in progress made (sc_copy_ctx_abandon(): a file written in
 * place while its name still leads to it, else emptied; a named --atomic
 * temporary).  Whether a partly written file went.  Async-signal-safe.
 * SIGKILL cannot be caught: only --atomic protects against it. */
bool tree_abandon(struct tree_live *t);

#endif
