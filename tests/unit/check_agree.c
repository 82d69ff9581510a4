/* sc_copy_ctx_explain is the copy's own pipeline (issue 36): over one
 * matrix of arguments -- every flag of the copier, the SC_FILE_* bits,
 * forced and restricted roads; sources that are regular files, FIFOs,
 * devices, directories, /proc files, symlinks to themselves or followed;
 * destinations missing, existing, read-only, symlinks, dangling symlinks,
 * the source itself and a hard link to it -- explain and copy agree.
 * Where the copy refused before its data step (no SC_REPORT_COPIED), explain
 * refuses with the same -errno; where the copy reached its data (and
 * then succeeded, or failed in the data, which explain cannot foresee),
 * explain returns 0 with the same plan: the same roads, for the same
 * reasons.  Run as the caller, and, as root, again as nobody, for whom
 * read-only files are read-only.  The public header alone, linked against
 * libsmartcp.so. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <smartcp/smartcp.h>

static char dir[256];

static void setup(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/check_agree.XXXXXX", t ? t : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* a FIFO's writer whose reader went writes into nothing */
	signal(SIGPIPE, SIG_IGN);
}

static void teardown(void)
{
	char cmd[2 * sizeof(dir) + 64];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", dir,
		 dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* The sources: a name relative to the test directory, or a path. */
static const char *const sources[] = {
	"reg", "fifo", "null", "dir", "/proc/version", "loop", "symreg",
};
#define N_SOURCES (sizeof(sources) / sizeof(sources[0]))
/* The destinations; "=" is the source's own name. */
static const char *const dests[] = {
	"new", "old", "ro", "sym", "dangling", "=", "hardreg",
};
#define N_DESTS (sizeof(dests) / sizeof(dests[0]))

static const unsigned copy_flags[] = {
	0, SC_COPY_VERIFY, SC_COPY_SYNC, SC_COPY_ATOMIC, SC_COPY_IF_CHANGED,
	SC_COPY_NO_DATA, SC_COPY_KEEP_MODE, SC_COPY_KEEP_OWNER,
	SC_COPY_KEEP_TIMES, SC_COPY_KEEP_XATTR, SC_COPY_DEFAULT_MODE,
	SC_COPY_META_STRICT, SC_COPY_XATTR_STRICT,
	SC_COPY_VERIFY | SC_COPY_ATOMIC,
};
#define N_COPY_FLAGS (sizeof(copy_flags) / sizeof(copy_flags[0]))

static const unsigned file_flags[] = {
	0, SC_FILE_FORCE, SC_FILE_DANGLING, SC_FILE_NOFOLLOW,
	SC_FILE_SOURCE_ANY, SC_FILE_SOURCE_ANY | SC_FILE_FORCE, SC_FILE_NEW,
	SC_FILE_COMPARE_ONLY,
};
#define N_FILE_FLAGS (sizeof(file_flags) / sizeof(file_flags[0]))

/* Roads: all (the default), clone forced, read_write alone. */
enum { ROADS_ALL, ROADS_CLONE_FORCED, ROADS_RW, ROADS__N };

static void write_file(int dfd, const char *name, size_t len, int seed,
		       mode_t mode)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char buf[4096];

	if (fd < 0) {
		perror(name);
		exit(3);
	}
	for (size_t done = 0; done < len;) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);

		for (size_t i = 0; i < n; i++)
			buf[i] = (char)((done + i) * 7 + (size_t)seed);
		if (write(fd, buf, n) != (ssize_t)n)
			exit(3);
		done += n;
	}
	fchmod(fd, mode);
	close(fd);
}

/* The sources, made once in DFD. */
static void make_sources(int dfd, bool device)
{
	write_file(dfd, "reg", 20000, 1, 0644);
	if (mkfifoat(dfd, "fifo", 0666) < 0 ||
	    mkdirat(dfd, "dir", 0755) < 0 ||
	    symlinkat("loop", dfd, "loop") < 0 ||
	    symlinkat("reg", dfd, "symreg") < 0)
		exit(3);
	/* null's numbers, a node of our own */
	if (device && mknodat(dfd, "null", S_IFCHR | 0666, makedev(1, 3)) < 0)
		exit(3);
}

/* The destinations as they are before each case. */
static void reset_dests(int dfd)
{
	static const char *const gone[] = {
		"new", "old", "ro", "sym", "target", "dangling", "nowhere",
		"hardreg",
	};

	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		unlinkat(dfd, gone[i], 0);
	/* copied onto through its hard link, it is the source no more */
	unlinkat(dfd, "reg", 0);
	write_file(dfd, "reg", 20000, 1, 0644);
	write_file(dfd, "old", 3000, 2, 0644);
	write_file(dfd, "ro", 3000, 3, 0444);
	write_file(dfd, "target", 3000, 4, 0644);
	if (symlinkat("target", dfd, "sym") < 0 ||
	    symlinkat("nowhere", dfd, "dangling") < 0 ||
	    linkat(dfd, "reg", dfd, "hardreg", 0) < 0)
		exit(3);
}

/* A writer for the FIFO source, for a copy that opens it for reading. */
static void *fifo_writer(void *arg)
{
	const char *p = arg;
	int fd = open(p, O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		(void)!write(fd, "some bytes through the fifo\n", 28);
		close(fd);
	}
	return NULL;
}

struct outcome {
	int e;
	bool copied;		/* the copy reached its data step */
	bool unchanged;		/* SC_COPY_IF_CHANGED found it equal */
	unsigned roads;
	const char *why[8];
};

static struct outcome outcome_of(const struct sc_copy_report *rep, int e)
{
	const struct sc_plan *plan = sc_copy_report_plan(rep);
	struct outcome o = {
		.e = e,
		.copied = sc_copy_report_flags(rep) & SC_REPORT_COPIED,
		.unchanged = sc_copy_report_flags(rep) & SC_REPORT_UNCHANGED,
		.roads = sc_plan_roads(plan),
	};

	for (unsigned r = 0; r < sc_road_count() && r < 8; r++)
		o.why[r] = plan ? sc_plan_why(plan, (enum sc_road)r) : NULL;
	return o;
}

static bool same_plan(const struct outcome *a, const struct outcome *b)
{
	if (a->roads != b->roads)
		return false;
	for (unsigned r = 0; r < sc_road_count() && r < 8; r++)
		if (!a->why[r] != !b->why[r] ||
		    (a->why[r] && strcmp(a->why[r], b->why[r])))
			return false;
	return true;
}

struct cell {
	size_t src, dst, flags, file, roads;
};

static void say(const struct cell *k, const struct outcome *ex,
		const struct outcome *cp, const char *what)
{
	fprintf(stderr, "%s: %s -> %s, flags %#x, file flags %#x, roads %zu:"
		" explain %d (%s), copy %d (%s)%s\n", what, sources[k->src],
		dests[k->dst], copy_flags[k->flags], file_flags[k->file],
		k->roads, ex->e, strerror(-ex->e), cp->e, strerror(-cp->e),
		cp->copied ? " in its data" : "");
	for (unsigned r = 0; r < sc_road_count() && r < 8; r++)
		fprintf(stderr, "   %-16s explain %s%s, copy %s%s\n",
			sc_road_name((enum sc_road)r),
			ex->roads & (1u << r) ? "use: " : "skip: ",
			ex->why[r] ? ex->why[r] : "(none)",
			cp->roads & (1u << r) ? "use: " : "skip: ",
			cp->why[r] ? cp->why[r] : "(none)");
}

/* One case: explain, then copy, on destinations as reset_dests() makes
 * them.  True when they agree. */
static bool one_case(int dfd, const struct cell *k,
		     struct sc_copy_report *rep, bool *ran)
{
	const char *src = sources[k->src], *dst = dests[k->dst];
	struct sc_copier *c = NULL;
	struct sc_copy_ctx *x = NULL;
	struct sc_copy_args a = {
		.size = sizeof(a), .src_fd = -1, .dst_fd = -1,
		.src_dirfd = src[0] == '/' ? AT_FDCWD : dfd, .src_name = src,
		.dst_dirfd = dfd, .dst_name = strcmp(dst, "=") ? dst : src,
		.flags = file_flags[k->file],
	};
	struct outcome ex, cp;
	bool fifo = !strcmp(src, "fifo") && (a.flags & SC_FILE_SOURCE_ANY);
	pthread_t t;
	bool ok;

	*ran = false;
	/* "=" of a path outside: not this test's to overwrite */
	if (src[0] == '/' && !strcmp(dst, "="))
		return true;
	/* SC_FILE_NEW is the caller's word that the name is free, which
	 * explain takes (a file there is one the caller will move away
	 * first, as smartcp --explain --backup says) and the copy finds
	 * untrue (EEXIST): not the same question */
	if ((file_flags[k->file] & SC_FILE_NEW) && strcmp(dst, "new") &&
	    strcmp(dst, "dangling"))
		return true;
	if (faccessat(dfd, src, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && src[0] != '/')
		return true;	/* no device here */
	*ran = true;
	if (getenv("CHECK_AGREE_TRACE"))
		fprintf(stderr, "%s -> %s, flags %#x, file flags %#x, roads "
			"%zu\n", src, dst, copy_flags[k->flags],
			file_flags[k->file], k->roads);
	reset_dests(dfd);
	if (sc_copier_new(copy_flags[k->flags], &c) < 0 ||
	    sc_copy_ctx_new(c, &x) < 0)
		exit(3);
	if (k->roads == ROADS_CLONE_FORCED)
		sc_copier_set_roads(c, SC_ROAD_BIT(SC_ROAD_CLONE), true);
	else if (k->roads == ROADS_RW)
		sc_copier_set_roads(c, SC_ROAD_BIT(SC_ROAD_RW), false);
	ex = outcome_of(rep, sc_copy_ctx_explain(x, &a, rep));
	/* the matrix's directory is the working one (matrix()) */
	if (fifo && pthread_create(&t, NULL, fifo_writer, "fifo") != 0)
		exit(3);
	cp = outcome_of(rep, sc_copy_ctx_copy(x, &a, rep));
	if (fifo) {
		/* a copy that did not open it leaves the writer waiting */
		int rd = open("fifo", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

		pthread_join(t, NULL);
		if (rd >= 0)
			close(rd);
	}
	sc_copy_ctx_free(x);
	sc_copier_free(c);
	if (!cp.copied && cp.e < 0)
		ok = ex.e == cp.e;	/* refused before the data */
	else if (cp.unchanged)
		/* explain reads no data: it cannot know the destination
		 * equal, and explains the copy of one that differs */
		ok = ex.e == 0;
	else
		ok = ex.e == 0 && same_plan(&ex, &cp);
	if (!ok)
		say(k, &ex, &cp, "explain and copy disagree");
	return ok;
}

/* The whole matrix in the directory DFD, made the working directory
 * (whatever the permissions of the directories above it): the number
 * of disagreements. */
static int matrix(int dfd, bool device, int *ret_cases)
{
	struct sc_copy_report *rep = NULL;
	struct cell k;
	int bad = 0;

	if (fchdir(dfd) < 0 || sc_copy_report_new(&rep) < 0)
		exit(3);
	make_sources(dfd, device);
	*ret_cases = 0;
	for (k.src = 0; k.src < N_SOURCES; k.src++)
	for (k.dst = 0; k.dst < N_DESTS; k.dst++)
	for (k.flags = 0; k.flags < N_COPY_FLAGS; k.flags++)
	for (k.file = 0; k.file < N_FILE_FLAGS; k.file++)
	for (k.roads = 0; k.roads < ROADS__N; k.roads++) {
		bool ran;

		if (!one_case(dfd, &k, rep, &ran) && ++bad > 40) {
			fprintf(stderr, "(more left out)\n");
			goto out;
		}
		*ret_cases += ran;
	}
out:
	sc_copy_report_free(rep);
	close(dfd);
	return bad;
}

START_TEST(explain_and_copy_agree)
{
	char sub[sizeof(dir) + 8];
	int cases, bad;

	snprintf(sub, sizeof(sub), "%s/me", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	bad = matrix(open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
		     geteuid() == 0, &cases);
	fprintf(stderr, "explain and copy: %d cases, %d disagree\n", cases,
		bad);
	ck_assert_int_eq(bad, 0);
}
END_TEST

/* As nobody, for whom a 0444 file cannot be written. */
START_TEST(explain_and_copy_agree_as_nobody)
{
	char sub[sizeof(dir) + 8];
	int status, cases, dfd;
	pid_t pid;

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP explain_and_copy_agree_as_nobody: "
			"not root\n");
		return;
	}
	snprintf(sub, sizeof(sub), "%s/nobody", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(chown(sub, 65534, 65534), 0);
	dfd = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int bad;

		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(3);
		bad = matrix(dfd, false, &cases);
		fprintf(stderr, "explain and copy as nobody: %d cases, %d "
			"disagree\n", cases, bad);
		_exit(bad ? 1 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "explain and copy disagree as nobody (status %#x)",
		      status);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agree");
	TCase *tc = tcase_create("agree");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, explain_and_copy_agree);
	tcase_add_test(tc, explain_and_copy_agree_as_nobody);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
