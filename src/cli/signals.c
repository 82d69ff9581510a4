/* The signal handler: a signal that ends the run has the library remove
 * what the copies in progress leave (a partly written file, a named
 * --atomic temporary), then the program dies of it, having said how far
 * the run got. */
#include "system.h"
#include "cli/signals.h"
#include "output/report.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* The copy context of each thread that copies files, the walk's (0)
 * and each -j worker's: a signal that ends the run has the library
 * remove what the copy in progress on each made (sc_copy_ctx_abandon: a
 * file written in place while its name still leads to it, else emptied;
 * a named --atomic temporary).  Set by its thread before its first
 * copy, read by the handler on whichever thread the signal lands: an
 * atomic pointer (lock-free, so safe in a handler).  SIGKILL cannot be
 * caught: only --atomic protects against it. */
static struct sc_copy_ctx *_Atomic copying[SC_SIGNALS_THREADS];

void sc_signals_register(unsigned thread, struct sc_copy_ctx *x)
{
	if (thread < SC_SIGNALS_THREADS)
		atomic_store_explicit(&copying[thread], x,
				      memory_order_release);
}

/* How far the run got, for the line a signal leaves (sc_signals_done()). */
static atomic_ullong done_files, done_bytes;
/* That line, translated before any signal (gettext is not safe in a
 * handler); NULL: not said. */
static const char *interrupted_fmt, *removed_note;

void sc_signals_done(uint64_t bytes)
{
	atomic_fetch_add_explicit(&done_files, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&done_bytes, bytes, memory_order_relaxed);
}

/* Appends S to BUF (of SIZE, *LEN used). */
static void put_str(char *buf, size_t size, size_t *len, const char *s)
{
	while (*s && *len + 1 < size)
		buf[(*len)++] = *s++;
}

static void put_num(char *buf, size_t size, size_t *len,
		    unsigned long long v)
{
	char d[24];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < 23);
	while (n && *len + 1 < size)
		buf[(*len)++] = d[--n];
}

/* The line on stderr that says where SIG stopped the run, REMOVED:
 * whether a partly written file went.  printf() is not safe in a
 * handler: FMT's %s and %llu are filled here, in order (the program's
 * name, the signal's, the files, the bytes). */
static void say_interrupted(int sig, bool removed)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGINT, "SIGINT" }, { SIGTERM, "SIGTERM" },
		{ SIGHUP, "SIGHUP" }, { SIGPIPE, "SIGPIPE" },
	};
	const char *sname = "?";
	unsigned long long nums[2] = {
		atomic_load_explicit(&done_files, memory_order_relaxed),
		atomic_load_explicit(&done_bytes, memory_order_relaxed),
	};
	char buf[512];
	size_t len = 0;
	int strs = 0, n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].sig == sig)
			sname = names[i].name;
	for (const char *f = interrupted_fmt; *f; f++) {
		if (f[0] == '%' && f[1] == 's') {
			put_str(buf, sizeof(buf), &len,
				strs++ ? sname : sc_program_name);
			f++;
		} else if (!strncmp(f, "%llu", 4)) {
			put_num(buf, sizeof(buf), &len, n < 2 ? nums[n] : 0);
			n++;
			f += 3;
		} else if (len + 1 < sizeof(buf)) {
			buf[len++] = *f;
		}
	}
	if (removed)
		put_str(buf, sizeof(buf), &len, removed_note);
	put_str(buf, sizeof(buf), &len, "\n");
	(void)!write(STDERR_FILENO, buf, len);
}

static void on_fatal_signal(int sig)
{
	int saved = errno;
	bool removed = false;

	for (unsigned i = 0; i < SC_SIGNALS_THREADS; i++) {
		struct sc_copy_ctx *x =
			atomic_load_explicit(&copying[i],
					     memory_order_acquire);

		if (x)
			removed |= sc_copy_ctx_abandon(x);
	}
	if (interrupted_fmt)
		say_interrupted(sig, removed);
	signal(sig, SIG_DFL);
	/* delivered when this handler returns (the signal is blocked in
	 * it): the interrupted code never sees errno changed */
	raise(sig);
	errno = saved;
}

/* A signal the caller ignores stays ignored: nohup (SIGHUP), a script's
 * background job (SIGINT), `trap '' PIPE` (write then fails with EPIPE,
 * reported as cp reports it). */
void sc_signals_catch(bool say)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	if (say)
		sc_report_interrupted_words(&interrupted_fmt, &removed_note);

	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
		struct sigaction old;

		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		signal(sigs[i], on_fatal_signal);
	}
}
