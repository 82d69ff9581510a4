/* Operands -> files: recursion, directories, symlinks and special files,
 * in cp's order.  The target and what the operands are to each other are
 * operands.c's; the copy of one regular file is file.c's and the proof
 * that it came out right proof.c's; what to do with a destination is
 * dest.c's, attributes attrs.c's, hard links links.c's, -j jobs.c's and
 * workers.c's; the GNU-form messages for the files it fails on are said
 * through report.c, and it keeps going. */
#ifndef SMARTCP_WALK_H
#define SMARTCP_WALK_H

#include "options.h"
#include "report.h"

/* Copies OPERANDS (N of them) as cp would.  Returns 0 when every file was
 * copied, 1 otherwise (the exit status). */
int sc_walk_run(const struct sc_options *opts, struct sc_report *rep,
		char **operands, int n);

#endif
