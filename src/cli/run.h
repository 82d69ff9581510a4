/* The program below main(), in folders by layer, each calling its own
 * layer and those below it (tests/src-calls.sh checks it, and
 * src/layers.txt names the layers and lists the calls up that the walk
 * still makes, each with what it becomes in the library):
 *   cli/     the command line: main (smartcp.c), the options (options.c,
 *            longopts.c, help.c), --rules (rules.c), the run (run.c:
 *            copier, report, signals, -j workers, operands) and the
 *            signal handler (signals.c)
 *   policy/  cp's policy: the target, -t, -T, --parents and each operand
 *            to the walk (operands.c); what to do with an existing
 *            destination, links to earlier copies (dest.c); operands
 *            named twice, what they became (seen.c); the copy of one
 *            regular file through libsmartcp, in cp's words (file.c);
 *            which --preserve failures cp says (attrs.c)
 *   output/  the only printers: the report (report*.c), the messages
 *            (messages.c), names quoted as cp quotes them (quote.c)
 *   walk/    the traversal, which is to move into the library: entries
 *            in cp's order, directories as levels of a loop, symlinks,
 *            special files (walk.c); directories made and listed, the
 *            descriptor budget and reopening, -j's directory attributes
 *            at the end (dirs.c, levels.c, deferred.c); the entry being
 *            copied (entry.c); hard links (links.c); -j (workers.c,
 *            jobs.c, pool.c, readahead.c)
 *   base/    path names (paths.c), which every layer may use
 * sc_walk_run() (run.c) is the whole program's copy.  What goes wrong is
 * named (report.h: enum sc_fail, enum sc_usage), said through the report
 * (messages.c words it), and returned as -errno (state.h says the
 * convention; tests/src-errors.sh checks it). */
#ifndef SMARTCP_RUN_H
#define SMARTCP_RUN_H

#include "cli/options.h"
#include "output/report.h"

/* Copies OPERANDS (N of them) as cp would.  Returns the exit status:
 * EXIT_SUCCESS when every file was copied, else EXIT_FAILURE (1). */
int sc_walk_run(const struct sc_options *opts, struct sc_report *rep,
		char **operands, int n);

#endif
