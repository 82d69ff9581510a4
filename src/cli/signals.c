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

/* The tree copy whose progress the line says and whose copies in
 * progress are abandoned (sc_tree_abandon()): set before the handler is
 * installed, read by it on whichever thread the signal lands; once it
 * is let go (sc_signals_release()), how far it got. */
static struct sc_tree *_Atomic tree;
static atomic_ullong final_files, final_bytes;
/* The line a signal leaves, translated before any signal (gettext is
 * not safe in a handler); NULL: not said. */
static const char *interrupted_fmt, *removed_note;

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
static void say_interrupted(struct sc_tree *t, int sig, bool removed)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGINT, "SIGINT" }, { SIGTERM, "SIGTERM" },
		{ SIGHUP, "SIGHUP" }, { SIGPIPE, "SIGPIPE" },
	};
	const char *sname = "?";
	uint64_t files = 0, bytes = 0;
	unsigned long long nums[2];
	char buf[512];
	size_t len = 0;
	int strs = 0, n = 0;

	if (t) {
		sc_tree_progress(t, &files, &bytes);
	} else {
		files = atomic_load(&final_files);
		bytes = atomic_load(&final_bytes);
	}
	nums[0] = files;
	nums[1] = bytes;
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
	struct sc_tree *t = atomic_load_explicit(&tree, memory_order_acquire);
	bool removed = t && sc_tree_abandon(t);

	if (interrupted_fmt)
		say_interrupted(t, sig, removed);
	signal(sig, SIG_DFL);
	/* delivered when this handler returns (the signal is blocked in
	 * it): the interrupted code never sees errno changed */
	raise(sig);
	errno = saved;
}

/* A signal the caller ignores stays ignored: nohup (SIGHUP), a script's
 * background job (SIGINT), `trap '' PIPE` (write then fails with EPIPE,
 * reported as cp reports it). */
void sc_signals_release(void)
{
	struct sc_tree *t = atomic_exchange(&tree, NULL);
	uint64_t files = 0, bytes = 0;

	sc_tree_progress(t, &files, &bytes);
	atomic_store(&final_files, files);
	atomic_store(&final_bytes, bytes);
}

void sc_signals_catch(struct sc_tree *t, bool say)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	atomic_store_explicit(&tree, t, memory_order_release);
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
