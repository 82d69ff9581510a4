/* The signal handler of SIGINT, SIGTERM, SIGHUP and SIGPIPE: it has the
 * library clean up what the copies in progress made (a partly written
 * file, a named --atomic temporary) when a signal ends the run, and says
 * how far the run got. */
#ifndef SMARTCP_SIGNALS_H
#define SMARTCP_SIGNALS_H

#include <stdbool.h>

struct tree_live;

/* Installs the handler of SIGINT, SIGTERM, SIGHUP and SIGPIPE that
 * abandons tree T's copies in progress (removes partial files and named
 * temporaries: walk/progress.h), then dies of the signal.  T must last
 * to the process's end.  A signal the caller ignores stays ignored.  SAY
 * (where the summary line would be printed: a terminal): the handler
 * says first how far the run got, "smartcp: interrupted by SIGINT after
 * N files (B bytes) were copied", and whether it removed a file being
 * written. */
void sc_signals_catch(struct tree_live *t, bool say);

#endif
