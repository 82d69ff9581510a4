/* -j: the walk's side of the worker pool (jobs.c): what a worker does
 * with a file, the state each worker has, and a file handed back. */
#ifndef SMARTCP_TREE_WORKERS_H
#define SMARTCP_TREE_WORKERS_H

#include <stdbool.h>

#include "tree/jobs.h"

/* What the pool (jobs_new()) calls, with the walk thread's struct
 * walk as its ARG. */
extern const struct jobs_ops workers_ops;

/* Out of descriptors in the library's open: the walk ARG (struct walk)
 * gives some back (walk_fd_short()).  For sc_copy_ctx_set_fd_short(),
 * on the walk thread and on workers. */
bool workers_fd_short(void *arg, int err, unsigned *tries);

#endif
