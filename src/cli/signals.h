/* The signal handler of SIGINT, SIGTERM, SIGHUP and SIGPIPE: it has the
 * library clean up what the copies in progress made (a partly written
 * file, a named --atomic temporary) when a signal ends the run, and says
 * how far the run got. */
#ifndef SMARTCP_SIGNALS_H
#define SMARTCP_SIGNALS_H

#include <stdbool.h>
#include <stdint.h>

struct sc_copy_ctx;

/* Threads that may write destinations: the walk's (0) and -j workers
 * (1 ... SC_SIGNALS_THREADS - 1). */
#define SC_SIGNALS_THREADS 65

/* Thread THREAD copies files through X: a signal that ends the run
 * has the library remove what the copy in progress there made
 * (sc_copy_ctx_abandon()).  NULL: none any more.  Called by that thread
 * before its first copy, and before X is freed. */
void sc_signals_register(unsigned thread, struct sc_copy_ctx *x);

/* Installs the handler of SIGINT, SIGTERM, SIGHUP and SIGPIPE that
 * removes partial files and named temporaries, then dies of the signal.
 * A signal the caller ignores stays ignored.  SAY (where the summary
 * line would be printed: a terminal): the handler says first how far
 * the run got, "smartcp: interrupted by SIGINT after N files (B bytes)
 * were copied", and whether it removed a file being written. */
void sc_signals_catch(bool say);

/* A file was copied, BYTES of data: counted for the line a signal
 * leaves (sc_signals_catch()).  Any thread. */
void sc_signals_done(uint64_t bytes);

#endif
