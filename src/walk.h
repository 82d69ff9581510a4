/* The program below main(), in layers that call only downwards
 * (tests/src-calls.sh checks it):
 *   run.c       the run: copier, report, signals, -j workers, operands
 *   operands.c  the target, -t, -T, --parents; each operand to the walk
 *   workers.c   what a -j worker does with a file
 *   walk.c      the traversal: entries in cp's order, directories as
 *               levels of a loop, symlinks, special files, hard links
 *   dest.c      what to do with an existing destination; links to
 *               earlier copies
 *   file.c      the copy of one regular file, through libsmartcp
 *   dirs.c, levels.c, deferred.c, seen.c
 *               directories made and listed; the descriptor budget and
 *               reopening; -j's directory attributes at the end; what
 *               operands became
 *   entry.c     the entry being copied: its record, messages,
 *               attributes, facts
 *   attrs.c, report*.c, messages.c, links.c, jobs.c, pool.c, paths.c,
 *   quote.c     below them all.
 * sc_walk_run() (run.c) is the whole program's copy.  What goes wrong is
 * named (report.h: enum sc_fail, enum sc_usage), said through the report
 * (messages.c words it), and returned as -errno (state.h says the
 * convention; tests/src-errors.sh checks it). */
#ifndef SMARTCP_WALK_H
#define SMARTCP_WALK_H

#include "options.h"
#include "report.h"

/* Copies OPERANDS (N of them) as cp would.  Returns the exit status:
 * EXIT_SUCCESS when every file was copied, else EXIT_FAILURE (1). */
int sc_walk_run(const struct sc_options *opts, struct sc_report *rep,
		char **operands, int n);

#endif
