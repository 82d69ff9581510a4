/* -j: the walk's side of the worker pool (jobs.c): what a worker does
 * with a file, the state each worker has, and a file handed back. */
#ifndef SMARTCP_WORKERS_H
#define SMARTCP_WORKERS_H

#include <stdbool.h>

#include "tree/jobs.h"

/* What the pool (sc_jobs_new()) calls, with the walk thread's struct
 * walk as its ARG. */
extern const struct sc_jobs_ops sc_workers_ops;

/* Out of descriptors in the library's open: the walk ARG (struct walk)
 * gives some back (sc_walk_fd_short()).  For sc_copy_ctx_set_fd_short(),
 * on the walk thread and on workers. */
bool sc_workers_fd_short(void *arg, int err, unsigned *tries);

#endif
