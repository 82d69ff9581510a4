/* SIGPIPE held back around the writes into a stream (sigpipe.h).  As
 * OpenSSL and libcurl do for their sockets: a blocked signal stays
 * pending instead of acting (a write raises it on the writing thread,
 * send_sig() in fs/pipe.c and net/core/stream.c, so it is pending there),
 * and sigtimedwait() with no wait takes it before the mask is put back.
 * A handler's disposition is not looked at by the kernel while the
 * signal is blocked, so only the default action is held: a handler
 * installed by the program gets its signal, and an ignored SIGPIPE is
 * dropped by the kernel anyway. */
#include "common.h"
#include "sigpipe.h"

#include <pthread.h>
#include <time.h>

static void pipe_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGPIPE);
}

void sc_sigpipe_hold(struct sc_sigpipe *g)
{
	struct sigaction now;
	sigset_t set, pending;

	*g = (struct sc_sigpipe){ .held = false };
	if (sigaction(SIGPIPE, NULL, &now) < 0 || now.sa_handler != SIG_DFL ||
	    (now.sa_flags & SA_SIGINFO))
		return;
	pipe_set(&set);
	if (pthread_sigmask(SIG_BLOCK, &set, &g->old) != 0)
		return;
	g->held = true;
	g->was_pending = sigpending(&pending) == 0 &&
			 sigismember(&pending, SIGPIPE);
}

void sc_sigpipe_release(struct sc_sigpipe *g)
{
	static const struct timespec no_wait = { 0, 0 };
	sigset_t set, pending;

	if (!g->held)
		return;
	pipe_set(&set);
	if (!g->was_pending && sigpending(&pending) == 0 &&
	    sigismember(&pending, SIGPIPE))
		while (sigtimedwait(&set, NULL, &no_wait) < 0 &&
		       errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
	g->held = false;
}
