/* A write into a pipe or a socket whose reader is gone raises SIGPIPE,
 * whose default action ends the process.  The library returns -EPIPE
 * instead, and owns no signal handler: while the data goes to a stream,
 * SIGPIPE is blocked on the copying thread, and the one the copy's own
 * write raised is taken back before the mask is put back (see
 * sigpipe.c).  Only where the action is the default: a program that
 * installed a handler, or ignores SIGPIPE, has what it asked for. */
#ifndef SMARTCP_SIGPIPE_H
#define SMARTCP_SIGPIPE_H

#include <signal.h>
#include <stdbool.h>

struct sc_sigpipe {
	bool held;		/* SIGPIPE was blocked here */
	bool was_pending;	/* ... and one was pending already */
	sigset_t old;		/* the thread's mask before */
};

/* Holds SIGPIPE back on this thread when its action is the default. */
void sc_sigpipe_hold(struct sc_sigpipe *g);
/* Takes back a SIGPIPE raised since sc_sigpipe_hold() (not one that was
 * pending before it, which is the caller's) and puts the mask back. */
void sc_sigpipe_release(struct sc_sigpipe *g);

#endif
