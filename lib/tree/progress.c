/* A tree copy's counters and its copies in progress, for a signal
 * handler (progress.h). */
#include "common.h"
#include "tree/progress.h"

void tree_copying(struct tree_live *t, unsigned thread,
		  struct sc_copy_ctx *x)
{
	/* release: the handler, on whichever thread the signal lands, sees
	 * the context set up before it sees the pointer */
	if (thread < TREE_THREADS)
		atomic_store_explicit(&t->copying[thread], x,
				      memory_order_release);
}

void tree_count_file(struct tree_live *t, uint64_t bytes)
{
	atomic_fetch_add_explicit(&t->files, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->bytes, bytes, memory_order_relaxed);
}

void tree_progress(struct tree_live *t, uint64_t *ret_files,
		   uint64_t *ret_bytes)
{
	*ret_files = atomic_load_explicit(&t->files, memory_order_relaxed);
	*ret_bytes = atomic_load_explicit(&t->bytes, memory_order_relaxed);
}

bool tree_abandon(struct tree_live *t)
{
	bool removed = false;

	for (unsigned i = 0; i < TREE_THREADS; i++) {
		struct sc_copy_ctx *x =
			atomic_load_explicit(&t->copying[i],
					     memory_order_acquire);

		if (x)
			removed |= sc_copy_ctx_abandon(x);
	}
	return removed;
}

/* The handler calls these: a lock-free atomic is what makes them safe
 * there (a lock would deadlock against the thread it interrupted). */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2,
	       "the signal handler's atomics must be lock-free");

void tree_cancel(struct tree_live *t)
{
	for (unsigned i = 0; i < TREE_THREADS; i++) {
		struct sc_copy_ctx *x = atomic_load_explicit(
			&t->copying[i], memory_order_acquire);

		if (x)
			sc_copy_ctx_cancel(x);
	}
}
