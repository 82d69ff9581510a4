/* The signal handler of SIGINT, SIGTERM, SIGHUP and SIGPIPE: it has the
 * library clean up what the copies in progress made (a partly written
 * file, a named --atomic temporary) when a signal ends the run, and says
 * how far the run got. */
#ifndef SMARTCP_SIGNALS_H
#define SMARTCP_SIGNALS_H

#include <stdbool.h>

struct sc_tree;

/* Installs the handler of SIGINT, SIGTERM, SIGHUP and SIGPIPE that
 * abandons tree T's copies in progress (removes partial files and named
 * temporaries: sc_tree_abandon()), then dies of the signal.  T must last
 * until sc_signals_release().  A signal the caller ignores stays ignored.  SAY
 * (where the summary line would be printed: a terminal): the handler
 * says first how far the run got, "smartcp: interrupted by SIGINT after
 * N files (B bytes) were copied", and whether it removed a file being
 * written. */
void sc_signals_catch(struct sc_tree *t, bool say);

/* The tree copy is about to be freed: the handler says how far it got
 * without it from now on. */
void sc_signals_release(void);

#endif
