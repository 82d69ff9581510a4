/* Operands -> files: target resolution, recursion, links, directories,
 * special files, overwrite rules.  Prints GNU-form messages for the files
 * it fails on and keeps going. */
#ifndef SMARTCP_WALK_H
#define SMARTCP_WALK_H

#include "options.h"
#include "report.h"

/* Copies OPERANDS (N of them) as cp would.  Returns 0 when every file was
 * copied, 1 otherwise (the exit status). */
int sc_walk_run(const struct sc_options *opts, struct sc_report *rep,
		char **operands, int n);

#endif
