/* The walk, from the outside: the order cp visits a tree in, what the
 * operands mean (a target directory, -t, -T, --parents, a name given
 * twice, a directory into itself), and a deep tree copied whole under a
 * descriptor limit far below its depth.  Each case runs sc_walk_run() as
 * main() does, in a child process of its own (the descriptor limit, the
 * signal handlers the walk installs and the standard streams it writes
 * stay there), and reads what it printed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "cli/options.h"
#include "output/report.h"
#include "system.h"
#include "cli/run.h"

/* What one run printed, and its exit status. */
struct ran {
	int status;
	char out[16384], err[4096];
};

static char top[4096];		/* this case's scratch directory */

static void scratch(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(top, sizeof(top), "%s/smartcp-check-walk.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(top));
	ck_assert_int_eq(chdir(top), 0);
}

static void scratch_end(void)
{
	char cmd[4200];

	ck_assert_int_eq(chdir("/"), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}

static void put(const char *name, const char *data)
{
	FILE *f = fopen(name, "w");

	ck_assert_msg(f != NULL, "%s: %s", name, strerror(errno));
	fputs(data, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void dir(const char *name)
{
	ck_assert_msg(mkdir(name, 0755) == 0, "%s: %s", name, strerror(errno));
}

static void slurp(const char *name, char *buf, size_t size)
{
	FILE *f = fopen(name, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* The child: the program's main() in short, the program named "cp" (cp's
 * output, as the coreutils tests see it).  NOFILE > 0 lowers the
 * descriptor limit first. */
static _Noreturn void child(char **argv, int argc, rlim_t nofile)
{
	struct sc_options o;
	struct sc_report *rep;
	int first, status;

	if (nofile) {
		struct rlimit r = { nofile, nofile };

		if (setrlimit(RLIMIT_NOFILE, &r) < 0)
			_exit(98);
	}
	if (!freopen("walk.out", "w", stdout) ||
	    !freopen("walk.err", "w", stderr))
		_exit(97);
	sc_program_name = "cp";
	first = sc_options_parse(argc, argv, &o);
	if (first < 0)
		_exit(1);
	o.as_cp = true;
	if (sc_report_new((o.verbose ? REPORT_VERBOSE : 0) |
			  (o.json ? REPORT_JSON : 0) |
			  (o.explain ? REPORT_EXPLAIN : 0), &rep) < 0)
		_exit(96);
	sc_report_plain(rep, true);
	status = sc_walk_run(&o, rep, argv + first, argc - first);
	sc_report_free(rep);
	fflush(stdout);
	fflush(stderr);
	_exit(status);
}

/* Runs "cp ARGS..." (NULL-terminated) in the scratch directory. */
static struct ran *run_limited(rlim_t nofile, const char *arg, ...)
{
	static struct ran r;
	char *argv[64] = { "cp" };
	int argc = 1, st;
	va_list ap;
	pid_t pid;

	va_start(ap, arg);
	for (; arg && argc < 63; arg = va_arg(ap, const char *))
		argv[argc++] = (char *)arg;
	va_end(ap);
	argv[argc] = NULL;
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		child(argv, argc, nofile);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st), "the walk died of signal %d",
		      WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	r.status = WEXITSTATUS(st);
	ck_assert_msg(r.status < 90, "the child could not set up (%d)",
		      r.status);
	slurp("walk.out", r.out, sizeof(r.out));
	slurp("walk.err", r.err, sizeof(r.err));
	return &r;
}

#define run(...) run_limited(0, __VA_ARGS__)

static void assert_file(const char *name, const char *data)
{
	char buf[256];

	slurp(name, buf, sizeof(buf));
	ck_assert_str_eq(buf, data);
}

static bool exists(const char *name)
{
	struct stat st;

	return lstat(name, &st) == 0;
}

/* ------------------------------------------------------------ the order */

struct named {
	ino_t ino;
	char name[256];
};

static int by_ino(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Appends to EXPECT the -v lines cp writes for directory SRC copied to
 * DST: the directory first, then its entries in inode order, each
 * directory's own entries right after it (depth first). */
static void expect_order(char *expect, size_t size, const char *src,
			 const char *dst)
{
	struct named v[32];
	size_t n = 0, len = strlen(expect);
	struct dirent *e;
	DIR *d = opendir(src);

	snprintf(expect + len, size - len, "'%s' -> '%s'\n", src, dst);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			ck_assert_uint_lt(n, 32);
			v[n].ino = e->d_ino;
			snprintf(v[n++].name, sizeof(v[0].name), "%s",
				 e->d_name);
		}
	closedir(d);
	qsort(v, n, sizeof(v[0]), by_ino);
	for (size_t i = 0; i < n; i++) {
		char s[1024], t[1024];
		struct stat st;

		snprintf(s, sizeof(s), "%s/%s", src, v[i].name);
		snprintf(t, sizeof(t), "%s/%s", dst, v[i].name);
		ck_assert_int_eq(lstat(s, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			expect_order(expect, size, s, t);
		} else {
			len = strlen(expect);
			snprintf(expect + len, size - len, "'%s' -> '%s'\n",
				 s, t);
		}
	}
}

START_TEST(order_is_cps)
{
	/* names whose order differs from their inodes' and from the
	 * order they were made in: the inode order must win */
	static const char *const names[] = { "m", "b", "z", "a", "q", "c" };
	char expect[8192] = "";
	struct ran *r;

	scratch();
	dir("s");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char p[64];

		snprintf(p, sizeof(p), "s/%s", names[i]);
		if (i % 3 == 1) {
			dir(p);
			snprintf(p, sizeof(p), "s/%s/in-%s", names[i],
				 names[i]);
			put(p, names[i]);
		} else {
			put(p, names[i]);
		}
	}
	/* remove one and make another: its inode may come back lower */
	ck_assert_int_eq(unlink("s/a"), 0);
	put("s/y", "y");
	expect_order(expect, sizeof(expect), "s", "d");
	r = run("-rv", "s", "d", NULL);
	ck_assert_int_eq(r->status, 0);
	ck_assert_str_eq(r->err, "");
	ck_assert_str_eq(r->out, expect);
	assert_file("d/b/in-b", "b");
	assert_file("d/y", "y");
	scratch_end();
}
END_TEST

START_TEST(directory_times_after_its_entries)
{
	/* -p sets a directory's times once its entries are in, or they
	 * would move its modification time again */
	struct stat s, d;
	struct ran *r;

	scratch();
	dir("s");
	dir("s/sub");
	put("s/sub/f", "f");
	ck_assert_int_eq(system("touch -d 2001-02-03 s/sub s"), 0);
	r = run("-rp", "s", "d", NULL);
	ck_assert_int_eq(r->status, 0);
	ck_assert_int_eq(stat("s/sub", &s), 0);
	ck_assert_int_eq(stat("d/sub", &d), 0);
	ck_assert_int_eq(d.st_mtime, s.st_mtime);
	ck_assert_int_eq(stat("s", &s), 0);
	ck_assert_int_eq(stat("d", &d), 0);
	ck_assert_int_eq(d.st_mtime, s.st_mtime);
	scratch_end();
}
END_TEST

/* ---------------------------------------------------------- operands */

START_TEST(into_target_directory)
{
	struct ran *r;

	scratch();
	put("a", "A");
	put("b", "B");
	dir("t");
	r = run("a", "b", "t", NULL);
	ck_assert_int_eq(r->status, 0);
	assert_file("t/a", "A");
	assert_file("t/b", "B");
	dir("u");
	r = run("-t", "u", "a", "b", NULL);
	ck_assert_int_eq(r->status, 0);
	assert_file("u/a", "A");
	assert_file("u/b", "B");
	scratch_end();
}
END_TEST

START_TEST(target_not_a_directory)
{
	struct ran *r;

	scratch();
	put("a", "A");
	put("b", "B");
	put("c", "C");
	r = run("a", "b", "c", NULL);
	ck_assert_int_eq(r->status, 1);
	ck_assert_str_eq(r->err, "cp: target 'c': Not a directory\n");
	assert_file("c", "C");
	r = run("a", "b", "missing", NULL);
	ck_assert_int_eq(r->status, 1);
	ck_assert_str_eq(r->err,
			 "cp: target 'missing': No such file or directory\n");
	ck_assert(!exists("missing"));
	scratch_end();
}
END_TEST

START_TEST(no_target_directory)
{
	struct ran *r;

	scratch();
	put("a", "A");
	dir("t");
	r = run("-T", "a", "t", NULL);
	ck_assert_int_eq(r->status, 1);
	ck_assert_str_eq(r->err,
			 "cp: cannot overwrite directory 't' with non-directory\n");
	ck_assert(!exists("t/a"));
	r = run("-T", "a", "f", NULL);
	ck_assert_int_eq(r->status, 0);
	assert_file("f", "A");
	scratch_end();
}
END_TEST

START_TEST(parents)
{
	struct ran *r;

	scratch();
	dir("x");
	dir("x/y");
	put("x/y/f", "F");
	dir("t");
	r = run("--parents", "-v", "x/y/f", "t", NULL);
	ck_assert_int_eq(r->status, 0);
	ck_assert_str_eq(r->out, "x -> t/x\nx/y -> t/x/y\n'x/y/f' -> 't/x/y/f'\n");
	assert_file("t/x/y/f", "F");
	r = run("--parents", "x/y/f", "f2", NULL);
	ck_assert_int_eq(r->status, 1);
	ck_assert_str_eq(r->err,
			 "cp: with --parents, the destination must be a directory\n"
			 "Try 'cp --help' for more information.\n");
	scratch_end();
}
END_TEST

START_TEST(named_twice)
{
	struct ran *r;

	scratch();
	put("a", "A");
	dir("t");
	r = run("a", "a", "t", NULL);
	ck_assert_int_eq(r->status, 0);
	ck_assert_str_eq(r->err,
			 "cp: warning: source file 'a' specified more than once\n");
	assert_file("t/a", "A");
	scratch_end();
}
END_TEST

START_TEST(directory_into_itself)
{
	struct ran *r;

	scratch();
	dir("d");
	put("d/f", "F");
	r = run("-r", "d", "d/sub", NULL);
	ck_assert_int_eq(r->status, 1);
	ck_assert_str_eq(r->err,
			 "cp: cannot copy a directory, 'd', into itself, 'd/sub'\n");
	ck_assert(!exists("d/sub/sub"));
	scratch_end();
}
END_TEST

/* ------------------------------------------- a limit on descriptors */

/* Makes a chain DEPTH directories deep under NAME, each holding a file
 * and an empty directory beside the next level. */
static void deep_tree(const char *name, int depth)
{
	char p[8192];
	size_t len;

	snprintf(p, sizeof(p), "%s", name);
	dir(p);
	for (int i = 0; i < depth; i++) {
		len = strlen(p);
		snprintf(p + len, sizeof(p) - len, "/f");
		put(p, p);
		snprintf(p + len, sizeof(p) - len, "/e");
		dir(p);
		snprintf(p + len, sizeof(p) - len, "/d%d", i);
		dir(p);
	}
}

/* Checks that DST is SRC DEPTH levels deep (see deep_tree()). */
static void assert_deep_copy(const char *src, const char *dst, int depth)
{
	char s[8192], d[8192], got[8192];
	size_t ls, ld;
	struct stat st;

	snprintf(s, sizeof(s), "%s", src);
	snprintf(d, sizeof(d), "%s", dst);
	for (int i = 0; i < depth; i++) {
		ls = strlen(s);
		ld = strlen(d);
		snprintf(d + ld, sizeof(d) - ld, "/f");
		snprintf(s + ls, sizeof(s) - ls, "/f");
		slurp(d, got, sizeof(got));
		ck_assert_str_eq(got, s);
		snprintf(d + ld, sizeof(d) - ld, "/e");
		ck_assert_msg(stat(d, &st) == 0 && S_ISDIR(st.st_mode),
			      "%s: not copied", d);
		snprintf(s + ls, sizeof(s) - ls, "/d%d", i);
		snprintf(d + ld, sizeof(d) - ld, "/d%d", i);
	}
	ck_assert_msg(stat(d, &st) == 0 && S_ISDIR(st.st_mode),
		      "%s: not copied", d);
}

START_TEST(deep_tree_few_descriptors)
{
	/* 120 levels, 24 descriptors (stdin, stdout, stderr and the
	 * library's own take some): the walk must give back and reopen
	 * its directories, and copy every level */
	static const char *const modes[][2] = {
		{ "-r", NULL }, { "-a", NULL }, { "-a", "-j2" },
	};
	struct ran *r;

	scratch();
	deep_tree("s", 120);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char dst[16];

		snprintf(dst, sizeof(dst), "d%zu", i);
		r = modes[i][1] ?
			run_limited(24, modes[i][0], modes[i][1], "s", dst, NULL) :
			run_limited(24, modes[i][0], "s", dst, NULL);
		ck_assert_msg(r->status == 0, "%s %s: %d: %s", modes[i][0],
			      modes[i][1] ? modes[i][1] : "", r->status, r->err);
		ck_assert_str_eq(r->err, "");
		assert_deep_copy("s", dst, 120);
	}
	scratch_end();
}
END_TEST

static void tcase(Suite *s, const char *name, const TTest *const *tests,
		  size_t n)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, 60);
	for (size_t i = 0; i < n; i++)
		tcase_add_test(tc, tests[i]);
	suite_add_tcase(s, tc);
}

Suite *walk_suite(void)
{
	const TTest *const order[] = {
		order_is_cps, directory_times_after_its_entries,
	};
	const TTest *const operands[] = {
		into_target_directory, target_not_a_directory,
		no_target_directory, parents, named_twice,
		directory_into_itself,
	};
	const TTest *const levels[] = { deep_tree_few_descriptors };
	Suite *s = suite_create("walk");

	tcase(s, "order", order, 2);
	tcase(s, "operands", operands, 6);
	tcase(s, "levels", levels, 1);
	return s;
}
