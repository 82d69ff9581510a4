/* libFuzzer target: smartcp's command line and the names on it.
 *
 * The input is an argv after "smartcp": pieces separated by NUL bytes if
 * the input holds any NUL (so names may contain newlines), else by
 * newlines (so seeds are readable text files).  At most 64 arguments.
 *
 * Each input is parsed by sc_options_parse twice, from two fresh copies
 * (getopt keeps static state; optind = 0 resets glibc's getopt fully, and
 * the second parse checks that it did), the resulting options are checked
 * for the invariants the rest of smartcp relies on, and every argument is
 * run through sc_quote, sc_quote_buf, sc_json_string and
 * sc_road_from_name with independent checkers (fuzz_common.h).
 *
 * Output: stdout goes to /dev/null once at startup (--help, --version).
 * stderr is the fuzzer's own channel, so it is pointed at /dev/null only
 * while sc_options_parse runs; sanitizer reports and our check failures
 * go to a saved copy of the real stderr. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "plan.h"
#include "fuzz_common.h"

const char *sc_program_name = "smartcp";

#define MAX_ARGS 64

/* from the sanitizer runtime */
void __sanitizer_set_report_fd(void *fd);

static int null_fd = -1, saved_err = -1;
static bool quiet = true;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_locales_init();
	/* the parser's messages are the C locale's, as in the unit tests */
	setlocale(LC_ALL, "C");
	if (getenv("FUZZ_VERBOSE"))
		quiet = false;
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	saved_err = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (null_fd < 0 || saved_err < 0) {
		perror("fuzz_args: /dev/null");
		exit(2);
	}
	if (quiet) {
		fflush(stdout);
		dup2(null_fd, 1);
		__sanitizer_set_report_fd((void *)(intptr_t)saved_err);
		fz_report_fd = saved_err;
	}
	return 0;
}

struct args {
	int argc;
	char *argv[MAX_ARGS + 2];
};

static void args_split(const uint8_t *data, size_t size, struct args *a)
{
	char sep = memchr(data, '\0', size) ? '\0' : '\n';
	size_t i = 0;

	a->argc = 0;
	a->argv[a->argc++] = strdup("smartcp");
	while (i < size && a->argc < MAX_ARGS + 1) {
		const uint8_t *end = memchr(data + i, sep, size - i);
		size_t n = end ? (size_t)(end - (data + i)) : size - i;
		char *s = malloc(n + 1);	/* exact: ASan sees over-reads */

		if (!s)
			abort();
		memcpy(s, data + i, n);
		s[n] = '\0';
		a->argv[a->argc++] = s;
		i += n + 1;
	}
	a->argv[a->argc] = NULL;
}

static void args_free(struct args *a)
{
	for (int i = 0; i < a->argc; i++)
		free(a->argv[i]);
}

static int parse(struct args *a, struct sc_options *o)
{
	int r;

	optind = 0;		/* glibc: full reinitialisation of getopt */
	if (quiet)
		dup2(null_fd, 2);
	r = sc_options_parse(a->argc, a->argv, o);
	fflush(stdout);
	fflush(stderr);
	if (quiet)
		dup2(saved_err, 2);
	return r;
}

/* Does P point into one of the argument strings? */
static bool in_args(const struct args *a, const char *p)
{
	for (int i = 0; i < a->argc; i++) {
		size_t n = strlen(a->argv[i]);

		if (p >= a->argv[i] && p <= a->argv[i] + n)
			return true;
	}
	return false;
}

static bool same_str(const char *x, const char *y)
{
	return (!x && !y) || (x && y && !strcmp(x, y));
}

static void check_options(const struct args *a, int r,
			  const struct sc_options *o)
{
	if (r < -2 || r > a->argc)
		FZ_FAIL("sc_options_parse returned %d for argc %d", r, a->argc);
	if (r < 0)
		return;
	if (r < 1)
		FZ_FAIL("first operand index %d points at argv[0]", r);
	if (o->deref == SC_DEREF_UNSET)
		FZ_FAIL("deref left unset");
	if (!o->roads || (o->roads & ~SC_ROADMASK_ALL))
		FZ_FAIL("roads mask 0x%x", o->roads);
	if (o->jobs > 1024)	/* 0: automatic */
		FZ_FAIL("jobs %u", o->jobs);
	if (o->hard_link && o->symbolic_link)
		FZ_FAIL("both hard and symbolic links accepted");
	if (o->json && o->verbose)
		FZ_FAIL("--json with verbose left on");
	if (!o->suffix)
		FZ_FAIL("suffix is NULL");
	if (o->reflink == SC_REFLINK_ALWAYS && o->sparse != SC_SPARSE_AUTO)
		FZ_FAIL("--reflink=always accepted with --sparse != auto");
	if (o->backup != SC_BACKUP_NONE &&
	    o->interactive == SC_OVERWRITE_NEVER)
		FZ_FAIL("--backup accepted with --no-clobber");
	if ((unsigned)o->backup > SC_BACKUP_EXISTING ||
	    (unsigned)o->reflink > SC_REFLINK_NEVER ||
	    (unsigned)o->sparse > SC_SPARSE_NEVER ||
	    (unsigned)o->update > SC_UPDATE_NONE_FAIL ||
	    (unsigned)o->interactive > SC_OVERWRITE_NEVER ||
	    (unsigned)o->deref > SC_DEREF_ARGS)
		FZ_FAIL("enum out of range");
	if (o->target_directory && !in_args(a, o->target_directory))
		FZ_FAIL("target_directory does not point into argv");
}

/* The second parse, of an unpermuted copy, must agree with the first. */
static void check_same(int r1, const struct sc_options *x,
		       int r2, const struct sc_options *y)
{
	struct sc_options xs = *x, ys = *y;

	if (r1 != r2)
		FZ_FAIL("parse is not repeatable: %d then %d", r1, r2);
	if (r1 < 0)
		return;
	if (!same_str(x->suffix, y->suffix) ||
	    !same_str(x->target_directory, y->target_directory))
		FZ_FAIL("parse is not repeatable: strings differ");
	xs.suffix = ys.suffix = NULL;
	xs.target_directory = ys.target_directory = NULL;
	/* sc_options_parse memsets the struct, so padding compares too */
	if (memcmp(&xs, &ys, sizeof(xs)) != 0)
		FZ_FAIL("parse is not repeatable: options differ");
}

static void check_road_name(const char *s)
{
	int r = sc_road_from_name(s);

	if ((r < 0 && r != -EINVAL) || r >= (int)sc_road_count())
		FZ_FAIL("sc_road_from_name returned %d", r);
	if (r >= 0 && strcmp(sc_road_name((enum sc_road)r), s) != 0)
		FZ_FAIL("sc_road_name(sc_road_from_name(x)) != x");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct args a, b;
	struct sc_options o1, o2;
	int r1, r2;
	size_t small;

	args_split(data, size, &a);
	args_split(data, size, &b);
	r1 = parse(&a, &o1);
	check_options(&a, r1, &o1);
	r2 = parse(&b, &o2);
	check_same(r1, &o1, r2, &o2);

	/* a small sc_quote_buf size, 0..39, that varies with the input */
	small = size ? (size + data[size - 1]) % 40 : 0;
	/* every argument, operands (argv[r1..]) and option arguments alike;
	 * getopt has permuted a.argv, b.argv is in input order */
	for (int i = 1; i < b.argc; i++) {
		fz_check_string(b.argv[i], small);
		check_road_name(b.argv[i]);
	}
	if (r1 >= 0) {
		fz_check_string(o1.suffix, small);
		if (o1.target_directory)
			fz_check_string(o1.target_directory, small);
	}
	args_free(&a);
	args_free(&b);
	return 0;
}
