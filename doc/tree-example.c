/* An example of libsmartcp's tree copy (API 1.3): copies SRC to DST, which
 * must not exist yet, as cp -a does (modes and ACLs, owners, times,
 * extended attributes, hard links; symlinks as symlinks), on as many
 * threads as pay, and says on stdout the road each regular file took and
 * why.  It needs nothing but the installed library:
 *
 *   cc -o tree-example tree-example.c -pthread \
 *      $(pkg-config --cflags --libs smartcp)
 *   ./tree-example photos /mnt/usb/photos
 *
 * A failure is said on stderr and the copy goes on; on a terminal a
 * thread says how far it got.  SIGINT stops it: a file being written is
 * removed, so every file in DST holds all of its source's bytes.  Exit
 * status 0 when everything was copied, 1 when anything failed, 130 when
 * interrupted. */
#include <smartcp/smartcp.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *prog;
static struct sc_tree *tree;
static volatile sig_atomic_t interrupted;
static atomic_bool done;
static bool failed;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
	sc_tree_cancel(tree);	/* async-signal-safe */
}

/* Where a callback prints: buffers while files that other threads copy
 * ahead of its entry are not yet said (output() gets them back, in the
 * walk's order), else stdout or stderr. */
static FILE *stream(bool to_err)
{
	FILE *out, *err;

	sc_tree_streams(tree, &out, &err);
	return to_err ? (err ? err : stderr) : (out ? out : stdout);
}

static void output(void *arg, const char *out, size_t out_len,
		   const char *err, size_t err_len,
		   const struct sc_tree_run *runs, size_t n_runs)
{
	(void)arg, (void)runs, (void)n_runs;
	fwrite(out, 1, out_len, stdout);
	fwrite(err, 1, err_len, stderr);
}

/* A file's road: each road tried, with the error that handed over to the
 * next, and why the plan took the one that moved the data. */
static void say_road(FILE *f, const char *src,
		     const struct sc_copy_report *rep)
{
	enum sc_road road = SC_ROAD_RW;
	int err;

	fprintf(f, "%s:", src);
	for (unsigned i = 0; i < sc_copy_report_attempts(rep); i++) {
		sc_copy_report_attempt(rep, i, &road, &err, NULL);
		fprintf(f, "%s %s", i ? " ->" : "", sc_road_name(road));
		if (err < 0)
			fprintf(f, " (%s)", strerror(-err));
	}
	fprintf(f, ", %llu bytes%s (%s)\n",
		(unsigned long long)sc_copy_report_bytes(rep),
		sc_copy_report_flags(rep) & SC_REPORT_HOLES ? ", holes kept" : "",
		sc_plan_why(sc_copy_report_plan(rep), road));
}

/* An entry done.  R->ERR was said through error() (or is a directory
 * whose entries failed); a report's error is for this callback to say.
 * Failures are counted here: a file fails sc_tree_copy() only by this
 * callback's answer, and one another thread copied may be told only in
 * sc_tree_finish(). */
static int after(void *arg, const struct sc_tree_entry *e,
		 const struct sc_tree_result *r)
{
	(void)arg;
	if (r->point == SC_TREE_ENTERED)
		return 0;
	if (r->rep && r->rep_err < 0 && !interrupted)
		fprintf(stream(true), "%s: cannot copy '%s': %s\n", prog,
			e->src, strerror(-r->rep_err));
	if (r->rep_err < 0 || r->err < 0) {
		failed = true;
		return r->rep_err < 0 ? r->rep_err : r->err;
	}
	if (e->kind == SC_TREE_FILE && r->rep)
		say_road(stream(false), e->src, r->rep);
	else if (e->kind == SC_TREE_HARDLINK)
		fprintf(stream(false), "%s: a hard link\n", e->src);
	return 0;
}

/* A failure of the walk itself, at a stage that is about the copy, an
 * earlier copy (a hard link's) or the source.  ERR 0: the stage says it
 * all. */
static enum sc_tree_verdict error(void *arg, const struct sc_tree_entry *e,
				  enum sc_tree_stage stage, int err)
{
	const char *file = e->src ? e->src : e->dst;

	(void)arg;
	if (stage == SC_TREE_NO_DIR || stage == SC_TREE_MAKE ||
	    stage == SC_TREE_CHECK || stage == SC_TREE_REPLACED ||
	    stage == SC_TREE_ENTER_MODE || stage == SC_TREE_COPY_LOST)
		file = e->dst;
	else if (stage == SC_TREE_EARLIER_REPLACED)
		file = e->earlier;
	fprintf(stream(true), "%s: '%s': %s\n", prog, file,
		err ? strerror(err) :
		stage == SC_TREE_INTO_ITSELF ? "a copy into itself" :
		stage == SC_TREE_CYCLE ? "a directory met again" :
		"replaced while it was copied");
	failed = true;
	return SC_TREE_CONTINUE;
}

/* On a terminal: how far the copy got, four times a second. */
static void *progress(void *arg)
{
	uint64_t files, bytes;

	(void)arg;
	for (; !atomic_load(&done); usleep(250000)) {
		sc_tree_progress(tree, &files, &bytes);
		fprintf(stderr, "\r%llu files, %llu MiB",
			(unsigned long long)files,
			(unsigned long long)(bytes >> 20));
	}
	fputc('\n', stderr);
	return NULL;
}

int main(int argc, char **argv)
{
	const struct sc_tree_ops ops = {
		.size = sizeof(ops), .after = after, .error = error,
		.output = output,	/* NULL: print at once, out of order */
	};
	struct sc_tree_args args = { .size = sizeof(args),
				     .src_dirfd = AT_FDCWD,
				     .dst_dirfd = AT_FDCWD };
	struct sigaction sa = { .sa_handler = on_sigint,
				.sa_flags = SA_RESTART };
	struct sc_copier *c = NULL;
	bool showing = false;
	pthread_t shower;
	struct stat st;
	int e;

	prog = argv[0];
	if (argc != 3) {
		fprintf(stderr, "usage: %s SRC DST\n", prog);
		return 2;
	}
	if (lstat(argv[2], &st) == 0) {
		fprintf(stderr, "%s: '%s' exists\n", prog, argv[2]);
		return 1;
	}
	args.src_name = argv[1];
	args.dst_name = argv[2];
	if ((e = sc_copier_new(SC_COPY_KEEP_MODE | SC_COPY_KEEP_OWNER |
			       SC_COPY_KEEP_TIMES | SC_COPY_KEEP_XATTR,
			       &c)) < 0 ||
	    (e = sc_tree_new(c, SC_TREE_HARDLINKS, &tree)) < 0 ||
	    (e = sc_tree_set_threads(tree, 0)) < 0 ||
	    (e = sc_tree_set_ops(tree, &ops, NULL)) < 0) {
		fprintf(stderr, "%s: %s\n", prog, strerror(-e));
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	if (isatty(STDERR_FILENO))
		showing = !pthread_create(&shower, NULL, progress, NULL);

	e = sc_tree_copy(tree, &args);
	/* the files other threads still copy, and then the attributes of
	 * the directories that waited for them */
	if (sc_tree_finish(tree) < 0)
		failed = true;
	if (showing) {
		atomic_store(&done, true);
		pthread_join(shower, NULL);
	}
	signal(SIGINT, SIG_DFL);	/* the handler must not see it freed */
	sc_tree_free(tree);
	sc_copier_free(c);
	if (interrupted) {
		fprintf(stderr, "%s: interrupted\n", prog);
		return 130;
	}
	return e < 0 || failed;
}
