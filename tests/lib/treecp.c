/* treecp: a small cp -r built on libsmartcp's tree copy (API 1.3) alone,
 * as a program that uses the installed library would be: the tests of
 * tests/integration/t-lib-tree-*.sh build it against make install
 * DESTDIR=... (tests/integration/lib-installed.sh) and run the scenarios
 * of smartcp -r through it.
 *
 *	treecp [-a] [-r] [-L|-H|-P] [-j N] [--copy-contents] [--road R[,R]]
 *	       [--preserve=LIST] [--cancel-after N] [--cancel-thread N]
 *	       [--cancel-delay MS] [--quit-after N] SRC DST
 *
 * As cp: SRC is copied to DST, or into it (DST/name) where DST is a
 * directory.  -a keeps mode (and ACLs), owner, times and xattrs and
 * links the other names of a file to its first copy (--preserve= names
 * some of them: mode, ownership, timestamps, xattr, links, all); -r
 * recurses; --road forces roads (clone, copy_file_range...); -j N
 * copies new files on N threads (0: as many as pay; 1, the default: the
 * caller's alone); --copy-contents reads FIFOs and devices as files.  A
 * line per entry on stdout, in the walk's order also with -j ("'S' ->
 * 'D' [road -> road]" for a file's copy, with the chain of roads its
 * report gives; "(directory)", "(symlink)", "(special)", "(hard link to
 * 'E')" for the rest), then "returned: 0" or "returned: -ENAME" (what
 * sc_tree_copy() returned) and "finished: ..." (sc_tree_finish()).  Each
 * failure is one line on stderr, "treecp: STAGE 'SRC' -> 'DST': error"
 * (STAGE: the walk's stage, "copy" for a file's copy, "metadata" and
 * "late metadata" for what a report holds of what was made).
 *
 * Cancellation (sc_tree_cancel): after N files were said (--cancel-after,
 * from the after callback), or from a thread of its own once the tree's
 * progress counts N files (--cancel-thread, then --cancel-delay MS
 * later), or from SIGINT's or SIGTERM's handler; --quit-after N answers
 * SC_TREE_QUIT from the before callback at the N+1st entry it is asked
 * about.  Exit 0 when everything was copied, 1 otherwise, 128 + the
 * signal's number when a signal cancelled the copy, 2 for a bad
 * command line. */
#define _GNU_SOURCE
#include <smartcp/smartcp.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct treecp {
	struct sc_tree *t;
	bool failed;
	unsigned long files;		/* files said */
	unsigned long asked;		/* entries BEFORE was asked about */
	unsigned long cancel_after, cancel_thread, quit_after;
	bool thread_cancels;		/* --cancel-thread */
	unsigned cancel_delay_ms;
	atomic_bool done;
};

/* For the signal handler: the tree being copied, and which signal
 * cancelled it. */
static struct sc_tree *_Atomic the_tree;
static volatile sig_atomic_t got_signal;

static const char *const stage_names[] = {
	[SC_TREE_STAT] = "stat",
	[SC_TREE_VANISHED] = "vanished",
	[SC_TREE_NOT_RECURSIVE] = "not recursive",
	[SC_TREE_NO_DIR] = "no directory",
	[SC_TREE_READLINK] = "readlink",
	[SC_TREE_MAKE] = "make",
	[SC_TREE_CHECK] = "check",
	[SC_TREE_REPLACED] = "replaced",
	[SC_TREE_SRC_REPLACED] = "source replaced",
	[SC_TREE_ENTER_MODE] = "enter mode",
	[SC_TREE_READ_DIR] = "read directory",
	[SC_TREE_COPY_LOST] = "copy lost",
	[SC_TREE_CYCLE] = "cycle",
	[SC_TREE_INTO_ITSELF] = "into itself",
	[SC_TREE_DIR_LINK] = "directory link",
	[SC_TREE_RELATIVE_LINK] = "relative link",
	[SC_TREE_EARLIER_REPLACED] = "earlier replaced",
	[SC_TREE_MEMORY] = "memory",
};

static const char *stage_name(enum sc_tree_stage stage)
{
	if ((unsigned)stage < sizeof(stage_names) / sizeof(stage_names[0]) &&
	    stage_names[stage])
		return stage_names[stage];
	return "other stage";
}

static const char *errname(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "E?";
}

/* Where a callback prints: the tree's buffers while files copied on
 * other threads ahead of it are not said yet, else stdout and stderr. */
static void streams(struct treecp *tc, FILE **out, FILE **err)
{
	sc_tree_streams(tc->t, out, err);
	if (!*out)
		*out = stdout;
	if (!*err)
		*err = stderr;
}

/* "treecp: WHAT 'SRC' -> 'DST': error" (ERR 0: no error part). */
static void say(struct treecp *tc, const char *what,
		const struct sc_tree_entry *e, int err)
{
	FILE *out, *ferr;

	streams(tc, &out, &ferr);
	fprintf(ferr, "treecp: %s '%s' -> '%s'", what, e->src ? e->src : "",
		e->dst ? e->dst : "");
	if (err)
		fprintf(ferr, ": %s", strerror(err));
	fputc('\n', ferr);
	tc->failed = true;
}

static enum sc_tree_verdict on_error(void *arg, const struct sc_tree_entry *e,
				     enum sc_tree_stage stage, int err)
{
	say(arg, stage_name(stage), e, err);
	return SC_TREE_CONTINUE;
}

static int on_before(void *arg, const struct sc_tree_entry *e,
		     struct sc_tree_decision *d)
{
	struct treecp *tc = arg;

	(void)e;
	if (tc->quit_after && tc->asked++ >= tc->quit_after)
		d->verdict = SC_TREE_QUIT;
	return 0;
}

/* The chain of roads of a file's copy: "clone: EXDEV -> read_write". */
static void say_roads(FILE *out, const struct sc_copy_report *rep)
{
	unsigned n = sc_copy_report_attempts(rep);

	if (!n)
		fputs(sc_copy_report_flags(rep) & SC_REPORT_UNCHANGED ?
		      "unchanged" : "no road", out);
	for (unsigned i = 0; i < n; i++) {
		enum sc_road road;
		int err;

		sc_copy_report_attempt(rep, i, &road, &err, NULL);
		fprintf(out, "%s%s", i ? " -> " : "", sc_road_name(road));
		if (err == SC_ERR_ZERO)
			fputs(": zero", out);
		else if (err < 0)
			fprintf(out, ": %s", errname(-err));
	}
}

/* The failures a report holds that did not fail it (an attribute not
 * kept), said; whether there was one. */
static bool say_events(struct treecp *tc, const struct sc_tree_entry *e,
		       const struct sc_copy_report *rep)
{
	unsigned n = sc_copy_report_events(rep);
	bool any = false;

	for (unsigned i = 0; i < n; i++) {
		struct sc_event ev = { .size = sizeof(ev) };
		char what[32];

		if (sc_copy_report_event(rep, i, &ev) < 0 || !ev.error ||
		    ev.fatal || !ev.err)
			continue;
		snprintf(what, sizeof(what), "event %d", (int)ev.kind);
		say(tc, what, e, -ev.err);
		any = true;
	}
	return any;
}

static const char *kind_word(enum sc_tree_kind kind)
{
	switch (kind) {
	case SC_TREE_DIR:
		return "directory";
	case SC_TREE_SYMLINK:
		return "symlink";
	case SC_TREE_SPECIAL:
		return "special";
	default:
		return "file";
	}
}

/* A file's copy said: its line, or why it failed. */
static int file_done(struct treecp *tc, const struct sc_tree_entry *e,
		     const struct sc_tree_result *r)
{
	FILE *out, *err;

	if (r->rep_err < 0) {
		say(tc, "copy", e, -r->rep_err);
		return r->rep_err;
	}
	streams(tc, &out, &err);
	fprintf(out, "'%s' -> '%s' [", e->src, e->dst);
	say_roads(out, r->rep);
	fputs("]\n", out);
	if (++tc->files == tc->cancel_after)
		sc_tree_cancel(tc->t);
	return say_events(tc, e, r->rep) ? SC_TREE_FLAWED : 0;
}

static int on_after(void *arg, const struct sc_tree_entry *e,
		    const struct sc_tree_result *r)
{
	struct treecp *tc = arg;
	FILE *out, *err;

	streams(tc, &out, &err);
	if (r->point == SC_TREE_ENTERED) {
		/* a directory says whether it was made here, not at its end */
		if (r->made)
			fprintf(out, "'%s' -> '%s' (directory)\n", e->src,
				e->dst);
		return 0;
	}
	/* the walk's failures were said through on_error() (a directory's
	 * are those of what it holds); what was made has its report */
	if (r->err < 0)
		tc->failed = true;
	if (e->kind == SC_TREE_FILE && r->rep && r->point == SC_TREE_END &&
	    !r->err)
		return file_done(tc, e, r);
	if (r->rep_err < 0) {
		say(tc, r->point == SC_TREE_LATE ? "late metadata" : "metadata",
		    e, -r->rep_err);
		return SC_TREE_FLAWED;
	}
	if (r->rep && say_events(tc, e, r->rep))
		return SC_TREE_FLAWED;
	if (r->err < 0 || !r->made || r->point != SC_TREE_END)
		return 0;
	if (e->kind == SC_TREE_HARDLINK)
		fprintf(out, "'%s' -> '%s' (hard link to '%s')\n", e->src,
			e->dst, e->earlier ? e->earlier : "?");
	else
		fprintf(out, "'%s' -> '%s' (%s)\n", e->src, e->dst,
			kind_word(e->kind));
	return 0;
}

static void on_output(void *arg, const char *out, size_t out_len,
		      const char *err, size_t err_len,
		      const struct sc_tree_run *runs, size_t n_runs)
{
	(void)arg;
	(void)runs;
	(void)n_runs;
	fwrite(out, 1, out_len, stdout);
	fwrite(err, 1, err_len, stderr);
}

static void on_signal(int sig)
{
	int saved = errno;

	got_signal = sig;
	sc_tree_cancel(atomic_load(&the_tree));
	errno = saved;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* --cancel-thread: sc_tree_cancel() from a thread of its own, once the
 * tree's progress counts enough files, and the delay after that. */
static void *canceller(void *arg)
{
	struct treecp *tc = arg;
	uint64_t files = 0;

	while (!atomic_load(&tc->done)) {
		sc_tree_progress(tc->t, &files, NULL);
		if (files >= tc->cancel_thread)
			break;
		sleep_ms(1);
	}
	for (unsigned ms = 0; ms < tc->cancel_delay_ms &&
	     !atomic_load(&tc->done); ms++)
		sleep_ms(1);
	if (!atomic_load(&tc->done)) {
		sc_tree_cancel(tc->t);
		fprintf(stderr, "treecp: cancelled from another thread after %llu files\n",
			(unsigned long long)files);
	}
	return NULL;
}

struct cmdline {
	unsigned copier_flags, tree_flags, threads, roads;
	bool recursive;
	char deref;		/* 'L', 'H', 'P' or 0 */
	const char *src, *dst;
};

static unsigned long number(const char *s)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end) {
		fprintf(stderr, "treecp: not a number: '%s'\n", s);
		exit(2);
	}
	return n;
}

/* --road clone,read_write: the roads as SC_ROAD_BIT()s. */
static unsigned road_bits(char *list)
{
	unsigned bits = 0;

	for (char *p = strtok(list, ","); p; p = strtok(NULL, ",")) {
		int r = sc_road_from_name(p);

		if (r < 0) {
			fprintf(stderr, "treecp: no road '%s'\n", p);
			exit(2);
		}
		bits |= SC_ROAD_BIT(r);
	}
	return bits;
}

/* --preserve=mode,ownership,timestamps,xattr,links,all: as cp, what is
 * asked for by name must be kept (SC_COPY_META_STRICT) */
static void preserve(char *list, struct cmdline *cl)
{
	cl->copier_flags |= SC_COPY_META_STRICT;
	for (char *p = strtok(list, ","); p; p = strtok(NULL, ",")) {
		bool all = !strcmp(p, "all");

		if (all || !strcmp(p, "mode"))
			cl->copier_flags |= SC_COPY_KEEP_MODE;
		if (all || !strcmp(p, "ownership"))
			cl->copier_flags |= SC_COPY_KEEP_OWNER;
		if (all || !strcmp(p, "timestamps"))
			cl->copier_flags |= SC_COPY_KEEP_TIMES;
		if (all || !strcmp(p, "xattr"))
			cl->copier_flags |= SC_COPY_KEEP_XATTR;
		if (all || !strcmp(p, "links"))
			cl->tree_flags |= SC_TREE_HARDLINKS;
		if (!all && strcmp(p, "mode") && strcmp(p, "ownership") &&
		    strcmp(p, "timestamps") && strcmp(p, "xattr") &&
		    strcmp(p, "links")) {
			fprintf(stderr, "treecp: cannot keep '%s'\n", p);
			exit(2);
		}
	}
}

enum { OPT_CONTENTS = 256, OPT_ROAD, OPT_PRESERVE, OPT_CANCEL_AFTER,
       OPT_CANCEL_THREAD, OPT_CANCEL_DELAY, OPT_QUIT_AFTER, OPT_VERSION };

static void operands(int argc, char **argv, struct cmdline *cl);

static void parse(int argc, char **argv, struct cmdline *cl,
		  struct treecp *tc)
{
	static const struct option longopts[] = {
		{ "copy-contents", no_argument, NULL, OPT_CONTENTS },
		{ "road", required_argument, NULL, OPT_ROAD },
		{ "preserve", required_argument, NULL, OPT_PRESERVE },
		{ "cancel-after", required_argument, NULL, OPT_CANCEL_AFTER },
		{ "cancel-thread", required_argument, NULL, OPT_CANCEL_THREAD },
		{ "cancel-delay", required_argument, NULL, OPT_CANCEL_DELAY },
		{ "quit-after", required_argument, NULL, OPT_QUIT_AFTER },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "arLHPj:", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			cl->copier_flags |= SC_COPY_KEEP_MODE |
					    SC_COPY_KEEP_OWNER |
					    SC_COPY_KEEP_TIMES |
					    SC_COPY_KEEP_XATTR;
			cl->tree_flags |= SC_TREE_HARDLINKS;
			cl->recursive = true;
			if (!cl->deref)
				cl->deref = 'P';
			break;
		case 'r':
			cl->recursive = true;
			break;
		case 'L': case 'H': case 'P':
			cl->deref = (char)c;
			break;
		case 'j':
			cl->threads = (unsigned)number(optarg);
			break;
		case OPT_CONTENTS:
			cl->tree_flags |= SC_TREE_STREAMS;
			break;
		case OPT_ROAD:
			cl->roads = road_bits(optarg);
			break;
		case OPT_PRESERVE:
			preserve(optarg, cl);
			break;
		case OPT_CANCEL_AFTER:
			tc->cancel_after = number(optarg);
			break;
		case OPT_CANCEL_THREAD:
			tc->cancel_thread = number(optarg);
			tc->thread_cancels = true;
			break;
		case OPT_CANCEL_DELAY:
			tc->cancel_delay_ms = (unsigned)number(optarg);
			break;
		case OPT_QUIT_AFTER:
			tc->quit_after = number(optarg);
			break;
		case OPT_VERSION:
			printf("treecp (libsmartcp %s, API %d)\n", sc_version(),
			       sc_api_version());
			exit(0);
		default:
			exit(2);
		}
	}
	operands(argc, argv, cl);
}

/* SRC and DST, and the walk they call for. */
static void operands(int argc, char **argv, struct cmdline *cl)
{
	if (argc - optind != 2) {
		fputs("usage: treecp [-a] [-r] [-L|-H|-P] [-j N] "
		      "[--copy-contents] [--road R[,R]] [--preserve=LIST]\n"
		      "\t[--cancel-after N] [--cancel-thread N] "
		      "[--cancel-delay MS] [--quit-after N] SRC DST\n",
		      stderr);
		exit(2);
	}
	cl->src = argv[optind];
	cl->dst = argv[optind + 1];
	if (!cl->recursive)
		cl->tree_flags |= SC_TREE_FLAT;
	/* cp: -L without -r; -P with it */
	if (cl->deref == 'L' || (!cl->deref && !cl->recursive))
		cl->tree_flags |= SC_TREE_FOLLOW;
	else if (cl->deref == 'H')
		cl->tree_flags |= SC_TREE_FOLLOW_TOP;
}

/* Where SRC goes, as cp says: DST, or DST/NAME when DST is a directory
 * (NAME: SRC's last component).  Allocated. */
static char *target(const char *src, const char *dst)
{
	struct stat st;
	size_t n = strlen(src), dn = strlen(dst);
	const char *base;
	char *t;

	if (stat(dst, &st) < 0 || !S_ISDIR(st.st_mode))
		return strdup(dst);
	while (n > 1 && src[n - 1] == '/')
		n--;
	base = src + n;
	while (base > src && base[-1] != '/')
		base--;
	t = malloc(dn + 1 + (size_t)(src + n - base) + 1);
	if (t)
		sprintf(t, "%s%s%.*s", dst, dn && dst[dn - 1] == '/' ? "" : "/",
			(int)(src + n - base), base);
	return t;
}

static struct sc_tree *make_tree(const struct cmdline *cl,
				 struct treecp *tc, struct sc_copier **ret_c)
{
	const struct sc_tree_ops ops = {
		.size = sizeof(ops), .before = on_before, .after = on_after,
		.error = on_error, .output = on_output,
	};
	struct sc_copier *c = NULL;
	struct sc_tree *t = NULL;
	int e;

	e = sc_copier_new(cl->copier_flags, &c);
	if (!e && cl->roads)
		e = sc_copier_set_roads(c, cl->roads, true);
	if (!e)
		e = sc_tree_new(c, cl->tree_flags, &t);
	if (!e)
		e = sc_tree_set_threads(t, cl->threads);
	if (!e)
		e = sc_tree_set_ops(t, &ops, tc);
	if (e < 0) {
		fprintf(stderr, "treecp: setting up: %s\n", strerror(-e));
		sc_tree_free(t);
		sc_copier_free(c);
		exit(1);
	}
	*ret_c = c;
	return t;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv)
{
	struct treecp tc = { .failed = false };
	struct cmdline cl = { .threads = 1 };
	struct sc_copier *c;
	struct sc_tree_args a = { .size = sizeof(a) };
	pthread_t thread;
	bool threaded = false;
	char *dst;
	int r, f;

	parse(argc, argv, &cl, &tc);
	tc.t = make_tree(&cl, &tc, &c);
	dst = target(cl.src, cl.dst);
	if (!dst)
		return 1;
	atomic_store(&the_tree, tc.t);
	catch_signals();
	if (tc.thread_cancels &&
	    !pthread_create(&thread, NULL, canceller, &tc))
		threaded = true;
	a.src_dirfd = a.dst_dirfd = AT_FDCWD;
	a.src_name = cl.src;
	a.dst_name = dst;
	r = sc_tree_copy(tc.t, &a);
	f = sc_tree_finish(tc.t);
	atomic_store(&tc.done, true);
	if (threaded)
		pthread_join(thread, NULL);
	fflush(stderr);
	printf("returned: %s%s\n", r < 0 ? "-" : "", r < 0 ? errname(-r) : "0");
	printf("finished: %s%s\n", f < 0 ? "-" : "", f < 0 ? errname(-f) : "0");
	if (r == -ECANCELED)
		fprintf(stderr, "treecp: cancelled: '%s' -> '%s': %s\n", cl.src,
			dst, strerror(ECANCELED));
	atomic_store(&the_tree, NULL);
	sc_tree_free(tc.t);
	sc_copier_free(c);
	free(dst);
	if (fflush(stdout))
		return 1;
	if (got_signal)
		return 128 + got_signal;
	return r < 0 || f < 0 || tc.failed ? 1 : 0;
}
