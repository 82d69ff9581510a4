/* options: argv -> struct sc_options, with GNU cp's letters, defaults and
 * combinations, and smartcp's own --road. */
#include <config.h>

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "options.h"
#include "plan.h"

#define R(road) (1u << (road))

/* Parses a NULL-terminated argument list after "smartcp", with getopt
 * reset first (optind = 0 reinitialises glibc's getopt completely).
 * getopt permutes ARGV, so operands are checked through it. */
static int parse_argv(char **argv, struct sc_options *o)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	optind = 0;
	return sc_options_parse(argc, argv, o);
}

#define PARSE(o, ...) \
	parse_argv((char *[]){ "smartcp", __VA_ARGS__, NULL }, (o))

/* Runs a parse with stdout and stderr sent to /dev/null (usage errors
 * print; --help prints a page). */
#define QUIET(expr) ({						\
	int fd_null_ = open("/dev/null", O_WRONLY);		\
	int out_ = dup(1), err_ = dup(2), ret_;			\
	fflush(stdout);						\
	fflush(stderr);						\
	dup2(fd_null_, 1);					\
	dup2(fd_null_, 2);					\
	ret_ = (expr);						\
	fflush(stdout);						\
	fflush(stderr);						\
	dup2(out_, 1);						\
	dup2(err_, 2);						\
	close(out_);						\
	close(err_);						\
	close(fd_null_);					\
	ret_;							\
})

START_TEST(test_defaults)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "a", "b"), 1);
	ck_assert(!o.recursive);
	ck_assert_int_eq(o.deref, SC_DEREF_ALWAYS);
	ck_assert_int_eq(o.reflink, SC_REFLINK_AUTO);
	ck_assert_int_eq(o.sparse, SC_SPARSE_AUTO);
	ck_assert_int_eq(o.roads, SC_ROADMASK_ALL);
	ck_assert(!o.roads_forced);
	ck_assert(!o.preserve_mode && !o.preserve_ownership &&
		  !o.preserve_timestamps && !o.preserve_links &&
		  !o.preserve_xattr && !o.require_preserve);
	ck_assert_int_eq(o.interactive, SC_OVERWRITE_ASK_UNSET);
	ck_assert_int_eq(o.backup, SC_BACKUP_NONE);
	ck_assert_uint_eq(o.jobs, 0);	/* automatic */
}
END_TEST

START_TEST(test_archive)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "-a", "src", "dst"), 2);
	ck_assert(o.recursive);
	ck_assert_int_eq(o.deref, SC_DEREF_NEVER);
	ck_assert(o.preserve_mode);
	ck_assert(o.preserve_ownership);
	ck_assert(o.preserve_timestamps);
	ck_assert(o.preserve_links);
	ck_assert(o.preserve_xattr);
}
END_TEST

START_TEST(test_p_preserves_mode_ownership_timestamps)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "-p", "src", "dst"), 2);
	ck_assert(o.preserve_mode);
	ck_assert(o.preserve_ownership);
	ck_assert(o.preserve_timestamps);
	ck_assert(!o.preserve_links);
	ck_assert(!o.preserve_xattr);
	/* cp -p: a mode or owner that cannot be kept is an error */
	ck_assert(o.require_preserve);
	ck_assert(!o.require_preserve_xattr);
	ck_assert(!o.explicit_no_preserve_mode);
	ck_assert(!o.recursive);
}
END_TEST

START_TEST(test_preserve_lists_set_the_require_flags)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "--preserve=xattr", "src", "dst"), 2);
	ck_assert(o.preserve_xattr);
	ck_assert(o.require_preserve_xattr);
	ck_assert(o.require_preserve);
	ck_assert_int_eq(PARSE(&o, "-a", "--no-preserve=mode", "src", "dst"), 3);
	ck_assert(!o.preserve_mode);
	ck_assert(o.explicit_no_preserve_mode);
	ck_assert(o.reduce_diagnostics);
	ck_assert(!o.require_preserve_xattr);
	ck_assert_int_eq(PARSE(&o, "--no-preserve=mode", "--preserve=all",
			       "src", "dst"), 3);
	ck_assert(o.preserve_mode);
	ck_assert(!o.explicit_no_preserve_mode);
}
END_TEST

START_TEST(test_preserve_list)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "--preserve=mode,timestamps", "s", "d"), 2);
	ck_assert(o.preserve_mode);
	ck_assert(o.preserve_timestamps);
	ck_assert(!o.preserve_ownership);
	ck_assert(!o.preserve_links);
	ck_assert(o.require_preserve);

	/* Without a list: mode,ownership,timestamps. */
	ck_assert_int_eq(PARSE(&o, "--preserve", "s", "d"), 2);
	ck_assert(o.preserve_mode && o.preserve_ownership &&
		  o.preserve_timestamps);
	ck_assert(!o.preserve_xattr);

	ck_assert_int_eq(PARSE(&o, "--preserve=all", "s", "d"), 2);
	ck_assert(o.preserve_mode && o.preserve_ownership &&
		  o.preserve_timestamps && o.preserve_links &&
		  o.preserve_xattr);

	ck_assert_int_eq(QUIET(PARSE(&o, "--preserve=colour", "s", "d")), -1);
}
END_TEST

START_TEST(test_no_preserve)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "-a", "--no-preserve=mode", "s", "d"), 3);
	ck_assert(!o.preserve_mode);
	ck_assert(o.preserve_ownership);
	ck_assert(o.preserve_timestamps);
	ck_assert(o.preserve_links);
	ck_assert(o.preserve_xattr);

	ck_assert_int_eq(PARSE(&o, "-p", "--no-preserve=all", "s", "d"), 3);
	ck_assert(!o.preserve_mode && !o.preserve_ownership &&
		  !o.preserve_timestamps);
}
END_TEST

START_TEST(test_reflink)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "--reflink", "s", "d"), 2);
	ck_assert_int_eq(o.reflink, SC_REFLINK_ALWAYS);
	ck_assert_int_eq(PARSE(&o, "--reflink=never", "s", "d"), 2);
	ck_assert_int_eq(o.reflink, SC_REFLINK_NEVER);
	ck_assert_int_eq(PARSE(&o, "--reflink=auto", "s", "d"), 2);
	ck_assert_int_eq(o.reflink, SC_REFLINK_AUTO);
	ck_assert_int_eq(PARSE(&o, "--reflink=al", "s", "d"), 2);
	ck_assert_int_eq(o.reflink, SC_REFLINK_ALWAYS);
	ck_assert_int_eq(QUIET(PARSE(&o, "--reflink=sometimes", "s", "d")),
			 -1);
	/* As in GNU cp: --reflink=always only with --sparse=auto. */
	ck_assert_int_eq(QUIET(PARSE(&o, "--reflink=always", "--sparse=never",
				     "s", "d")), -1);
}
END_TEST

START_TEST(test_sparse)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "--sparse=always", "s", "d"), 2);
	ck_assert_int_eq(o.sparse, SC_SPARSE_ALWAYS);
	ck_assert_int_eq(PARSE(&o, "--sparse=never", "s", "d"), 2);
	ck_assert_int_eq(o.sparse, SC_SPARSE_NEVER);
	ck_assert_int_eq(QUIET(PARSE(&o, "--sparse=foo", "s", "d")), -1);
	/* "a" is ambiguous: auto, always. */
	ck_assert_int_eq(QUIET(PARSE(&o, "--sparse=a", "s", "d")), -1);
}
END_TEST

START_TEST(test_road)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "--road=splice,read_write", "s", "d"), 2);
	ck_assert_uint_eq(o.roads, R(SC_ROAD_SPLICE) | R(SC_ROAD_RW));
	ck_assert(o.roads_forced);

	ck_assert_int_eq(PARSE(&o, "--road=copy_file_range", "s", "d"), 2);
	ck_assert_uint_eq(o.roads, R(SC_ROAD_RANGE));
	ck_assert(o.roads_forced);

	ck_assert_int_eq(PARSE(&o, "--road", "clone", "s", "d"), 3);
	ck_assert_uint_eq(o.roads, R(SC_ROAD_CLONE));
}
END_TEST

START_TEST(test_road_bad_name)
{
	struct sc_options o;

	ck_assert_int_eq(QUIET(PARSE(&o, "--road=teleport", "s", "d")), -1);
	ck_assert_int_eq(QUIET(PARSE(&o, "--road=splice,rw", "s", "d")), -1);
	ck_assert_int_eq(QUIET(PARSE(&o, "--road=", "s", "d")), -1);
	ck_assert_int_eq(QUIET(PARSE(&o, "--road=,", "s", "d")), -1);
}
END_TEST

START_TEST(test_deref_defaults)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "-r", "s", "d"), 2);
	ck_assert(o.recursive);
	ck_assert_int_eq(o.deref, SC_DEREF_NEVER);
	ck_assert_int_eq(PARSE(&o, "-R", "s", "d"), 2);
	ck_assert_int_eq(o.deref, SC_DEREF_NEVER);
	ck_assert_int_eq(PARSE(&o, "s", "d"), 1);
	ck_assert_int_eq(o.deref, SC_DEREF_ALWAYS);
	ck_assert_int_eq(PARSE(&o, "-rL", "s", "d"), 2);
	ck_assert_int_eq(o.deref, SC_DEREF_ALWAYS);
	ck_assert_int_eq(PARSE(&o, "-rH", "s", "d"), 2);
	ck_assert_int_eq(o.deref, SC_DEREF_ARGS);
	ck_assert_int_eq(PARSE(&o, "-P", "s", "d"), 2);
	ck_assert_int_eq(o.deref, SC_DEREF_NEVER);
	ck_assert_int_eq(PARSE(&o, "-d", "s", "d"), 2);
	ck_assert_int_eq(o.deref, SC_DEREF_NEVER);
	ck_assert(o.preserve_links);
}
END_TEST

START_TEST(test_interactive_last_wins)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "-n", "-i", "s", "d"), 3);
	ck_assert_int_eq(o.interactive, SC_OVERWRITE_ASK);
	ck_assert_int_eq(PARSE(&o, "-i", "-n", "s", "d"), 3);
	ck_assert_int_eq(o.interactive, SC_OVERWRITE_NEVER);
}
END_TEST

START_TEST(test_backup)
{
	struct sc_options o;

	unsetenv("VERSION_CONTROL");
	unsetenv("SIMPLE_BACKUP_SUFFIX");
	ck_assert_int_eq(QUIET(PARSE(&o, "-b", "-n", "s", "d")), -1);
	ck_assert_int_eq(QUIET(PARSE(&o, "-n", "--backup=numbered", "s",
				     "d")), -1);
	ck_assert_int_eq(PARSE(&o, "-b", "s", "d"), 2);
	ck_assert_int_eq(o.backup, SC_BACKUP_EXISTING);
	ck_assert_str_eq(o.suffix, "~");
	ck_assert_int_eq(PARSE(&o, "--backup=numbered", "s", "d"), 2);
	ck_assert_int_eq(o.backup, SC_BACKUP_NUMBERED);
	ck_assert_int_eq(PARSE(&o, "-S", ".bak", "s", "d"), 3);
	ck_assert_int_eq(o.backup, SC_BACKUP_EXISTING);
	ck_assert_str_eq(o.suffix, ".bak");
	ck_assert_int_eq(QUIET(PARSE(&o, "--backup=sometimes", "s", "d")), -1);
}
END_TEST

START_TEST(test_help_and_version)
{
	struct sc_options o;

	ck_assert_int_eq(QUIET(PARSE(&o, "--help")), -2);
	ck_assert_int_eq(QUIET(PARSE(&o, "--version")), -2);
	ck_assert_int_eq(QUIET(PARSE(&o, "--no-such-option", "s", "d")), -1);
}
END_TEST

START_TEST(test_conflicts)
{
	struct sc_options o;

	ck_assert_int_eq(QUIET(PARSE(&o, "-l", "-s", "s", "d")), -1);
	ck_assert_int_eq(QUIET(PARSE(&o, "-t", "a", "-t", "b", "s")), -1);
	ck_assert_int_eq(QUIET(PARSE(&o, "-j", "0", "s", "d")), -1);
	ck_assert_int_eq(QUIET(PARSE(&o, "-j", "2x", "s", "d")), -1);
}
END_TEST

/* The return value indexes the first operand, after getopt has moved
 * options in front of operands. */
START_TEST(test_first_operand_index)
{
	struct sc_options o;
	char *argv1[] = { "smartcp", "src", "-v", "dst", NULL };
	char *argv2[] = { "smartcp", "-v", "--", "-src", "dst", NULL };
	char *argv3[] = { "smartcp", "-t", "dir", "a", "b", "--json", NULL };
	int i;

	i = parse_argv(argv1, &o);
	ck_assert_int_eq(i, 2);
	ck_assert_str_eq(argv1[i], "src");
	ck_assert_str_eq(argv1[i + 1], "dst");
	ck_assert(o.verbose);

	i = parse_argv(argv2, &o);
	ck_assert_int_eq(i, 3);
	ck_assert_str_eq(argv2[i], "-src");

	i = parse_argv(argv3, &o);
	ck_assert_int_eq(i, 4);
	ck_assert_str_eq(argv3[i], "a");
	ck_assert_str_eq(o.target_directory, "dir");
	ck_assert(o.json);
}
END_TEST

START_TEST(test_smartcp_flags)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "--explain", "--verify", "--atomic",
			       "--sync", "--if-changed", "-j", "4", "s", "d"),
			 8);
	ck_assert(o.explain && o.verify && o.atomic && o.sync &&
		  o.if_changed);
	ck_assert_uint_eq(o.jobs, 4);
	/* --json owns stdout: no -v lines mixed in. */
	ck_assert_int_eq(PARSE(&o, "-v", "--json", "s", "d"), 3);
	ck_assert(o.json);
	ck_assert(!o.verbose);
	ck_assert_int_eq(PARSE(&o, "--debug", "s", "d"), 2);
	ck_assert(o.debug && o.verbose);
}
END_TEST

static void tcase(Suite *s, const char *name, const TTest *test)
{
	TCase *tc = tcase_create(name);

	tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
}

Suite *options_suite(void)
{
	Suite *s = suite_create("options");

	tcase(s, "defaults", test_defaults);
	tcase(s, "archive", test_archive);
	tcase(s, "p", test_p_preserves_mode_ownership_timestamps);
	tcase(s, "preserve_require", test_preserve_lists_set_the_require_flags);
	tcase(s, "preserve_list", test_preserve_list);
	tcase(s, "no_preserve", test_no_preserve);
	tcase(s, "reflink", test_reflink);
	tcase(s, "sparse", test_sparse);
	tcase(s, "road", test_road);
	tcase(s, "road_bad_name", test_road_bad_name);
	tcase(s, "deref_defaults", test_deref_defaults);
	tcase(s, "interactive_last_wins", test_interactive_last_wins);
	tcase(s, "backup", test_backup);
	tcase(s, "help_and_version", test_help_and_version);
	tcase(s, "conflicts", test_conflicts);
	tcase(s, "first_operand_index", test_first_operand_index);
	tcase(s, "smartcp_flags", test_smartcp_flags);
	return s;
}
