/* options: argv -> struct sc_options, with GNU cp's letters, defaults and
 * combinations, and smartcp's own --road. */
#include <config.h>

#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "cli/options.h"
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

/* Runs a parse with stderr caught in BUF (an array), NUL-terminated. */
#define STDERR_OF(buf, expr) ({					\
	FILE *f_ = tmpfile();					\
	int err_ = dup(2), ret_;				\
	size_t n_;						\
	fflush(stderr);						\
	dup2(fileno(f_), 2);					\
	ret_ = (expr);						\
	fflush(stderr);						\
	dup2(err_, 2);						\
	close(err_);						\
	rewind(f_);						\
	n_ = fread((buf), 1, sizeof(buf) - 1, f_);		\
	(buf)[n_] = '\0';					\
	fclose(f_);						\
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

	ck_assert_int_eq(QUIET(PARSE(&o, "--help")), SC_OPTIONS_DONE);
	ck_assert_int_eq(QUIET(PARSE(&o, "--version")), SC_OPTIONS_DONE);
	ck_assert_int_eq(QUIET(PARSE(&o, "--no-such-option", "s", "d")),
			 SC_OPTIONS_BAD);
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

/* --kernel, --assume-fs and --rules: assumed facts only for --explain
 * (--kernel also for --rules); bad values are refused naming them. */
START_TEST(test_assumed_facts)
{
	struct sc_options o;
	char err[2048];

	ck_assert_int_eq(PARSE(&o, "s", "d"), 1);
	ck_assert(!o.kernel_assumed && !o.fs_assumed && !o.rules);
	ck_assert_int_eq(PARSE(&o, "--explain", "--kernel=5.10",
			       "--assume-fs=tmpfs:ext4", "s", "d"), 4);
	ck_assert(o.kernel_assumed && o.kernel.major == 5 &&
		  o.kernel.minor == 10);
	ck_assert(o.fs_assumed && !o.assume_one_fs);
	ck_assert_str_eq(o.assume_type[0], "tmpfs");
	ck_assert_str_eq(o.assume_type[1], "ext4");
	ck_assert_int_eq(PARSE(&o, "--explain", "--assume-fs", "btrfs",
			       "s", "d"), 4);
	ck_assert(o.assume_one_fs);
	ck_assert_str_eq(o.assume_type[0], "btrfs");
	ck_assert_str_eq(o.assume_type[1], "btrfs");
	ck_assert_int_eq(PARSE(&o, "--rules", "--kernel=6.1"), 3);
	ck_assert(o.rules && o.kernel_assumed);

	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--kernel=5.4", "s", "d")),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "--kernel goes only with --explain"));
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--rules", "--assume-fs=ext4")),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "--assume-fs goes only with --explain"));
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--explain", "--kernel=5.20",
					      "s", "d")), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown kernel version"));
	ck_assert_ptr_nonnull(strstr(err, "5.20"));
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--explain", "--kernel=x",
					      "s", "d")), -1);
	ck_assert_ptr_nonnull(strstr(err, "invalid kernel version"));
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--explain",
					      "--assume-fs=ext4:foofs",
					      "s", "d")), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown filesystem type"));
	ck_assert_ptr_nonnull(strstr(err, "foofs"));
	ck_assert_ptr_nonnull(strstr(err, "btrfs"));
	for (size_t i = 0; i < 4; i++) {
		static const char *const bad[] = {
			"--assume-fs=", "--assume-fs=:ext4",
			"--assume-fs=ext4:", "--assume-fs=a:b:c",
		};

		ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--explain",
						      (char *)bad[i], "s",
						      "d")), -1);
		ck_assert_msg(strstr(err, "invalid argument"), "%s: %s",
			      bad[i], err);
	}
}
END_TEST

/* An abbreviation of one of GNU cp's long options means that option,
 * although smartcp's own (--progress, --atomic, --debug, --sync,
 * --if-changed, --verify) make it ambiguous among all of them. */
START_TEST(test_gnu_abbreviations_win)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "--pr=mode", "s", "d"), 2);
	ck_assert(o.preserve_mode && !o.preserve_ownership && !o.progress);
	ck_assert_int_eq(PARSE(&o, "--at", "s", "d"), 2);
	ck_assert(o.attributes_only && !o.atomic);
	ck_assert_int_eq(PARSE(&o, "--d", "s", "d"), 2);
	ck_assert_int_eq(o.deref, SC_DEREF_ALWAYS);
	ck_assert(!o.debug);
	ck_assert_int_eq(PARSE(&o, "-R", "--de", "s", "d"), 3);
	ck_assert_int_eq(o.deref, SC_DEREF_ALWAYS);
	ck_assert_int_eq(PARSE(&o, "--sy", "s", "d"), 2);
	ck_assert(o.symbolic_link && !o.sync);
	ck_assert_int_eq(PARSE(&o, "--i", "s", "d"), 2);
	ck_assert_int_eq(o.interactive, SC_OVERWRITE_ASK);
	ck_assert(!o.if_changed);
	/* --path is cp's old name for --parents */
	ck_assert_int_eq(PARSE(&o, "--path", "s", "d"), 2);
	ck_assert(o.parents);
	ck_assert_int_eq(PARSE(&o, "--pa", "s", "d"), 2);
	ck_assert(o.parents);
	/* a required value in the next argument is not an option */
	ck_assert_int_eq(PARSE(&o, "--su", "--pr", "s", "d"), 3);
	ck_assert_str_eq(o.suffix, "--pr");
	ck_assert(!o.preserve_mode);
	ck_assert_int_eq(PARSE(&o, "-vS", "--at", "s", "d"), 3);
	ck_assert_str_eq(o.suffix, "--at");
	ck_assert(!o.attributes_only);
}
END_TEST

/* Exact names always win; abbreviations of no GNU option still reach
 * smartcp's own. */
START_TEST(test_own_long_options)
{
	struct sc_options o;

	ck_assert_int_eq(PARSE(&o, "--debug", "--sync", "--atomic",
			       "--progress", "--if-changed", "s", "d"), 6);
	ck_assert(o.debug && o.sync && o.atomic && o.progress &&
		  o.if_changed);
	ck_assert_int_eq(PARSE(&o, "--veri", "--prog", "--ato", "s", "d"), 4);
	ck_assert(o.verify && o.progress && o.atomic);
	ck_assert_int_eq(PARSE(&o, "--jo", "3", "s", "d"), 3);
	ck_assert_uint_eq(o.jobs, 3);
	ck_assert_int_eq(PARSE(&o, "--jobs=2", "s", "d"), 2);
	ck_assert_uint_eq(o.jobs, 2);
}
END_TEST

/* Ambiguous among GNU cp's options: its message, its candidates only,
 * in its order, after the messages of earlier options. */
START_TEST(test_ambiguous_abbreviations)
{
	struct sc_options o;
	char err[1024];

	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--p", "s", "d")), -1);
	ck_assert_str_eq(err, "smartcp: option '--p' is ambiguous; "
			 "possibilities: '--parents' '--preserve'\n"
			 "Try 'smartcp --help' for more information.\n");
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--ver=1", "s", "d")), -1);
	ck_assert_str_eq(err, "smartcp: option '--ver=1' is ambiguous; "
			 "possibilities: '--verbose' '--version'\n"
			 "Try 'smartcp --help' for more information.\n");
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--sparse=x", "--p", "s",
					      "d")), -1);
	ck_assert_ptr_nonnull(strstr(err, "invalid argument 'x' for "
				     "'--sparse'\n"));
	ck_assert_ptr_null(strstr(err, "--parents"));
	/* only smartcp's options: getopt_long's own message */
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--j", "s", "d")), -1);
	ck_assert_ptr_nonnull(strstr(err, "'--jobs' '--json'"));
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--\001b", "s", "d")), -1);
	ck_assert_str_eq(err, "smartcp: unrecognized option '--\001b'\n"
			 "Try 'smartcp --help' for more information.\n");
}
END_TEST

/* cp: "" abbreviates every attribute, so an empty item is ambiguous. */
START_TEST(test_preserve_empty_item)
{
	struct sc_options o;
	char err[1024];

	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--preserve=mode,", "s",
					      "d")), -1);
	ck_assert_str_eq(err, "smartcp: ambiguous argument '' for "
			 "'--preserve'\nValid arguments are:\n"
			 "  - 'mode'\n  - 'timestamps'\n  - 'ownership'\n"
			 "  - 'links'\n  - 'context'\n  - 'xattr'\n"
			 "  - 'all'\n"
			 "Try 'smartcp --help' for more information.\n");
	ck_assert_int_eq(QUIET(PARSE(&o, "--preserve=", "s", "d")), -1);
	ck_assert_int_eq(QUIET(PARSE(&o, "--no-preserve=,mode", "s", "d")),
			 -1);
	ck_assert_int_eq(QUIET(PARSE(&o, "--preserve=mode,,links", "s",
				     "d")), -1);
}
END_TEST

/* Option arguments are quoted as cp quotes them: C escapes, and the
 * locale's quotation marks. */
START_TEST(test_argument_quoting)
{
	struct sc_options o;
	char err[1024];

	ck_assert_ptr_nonnull(setlocale(LC_ALL, "C"));
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--sparse=a'b\\\n\377",
					      "s", "d")), -1);
	ck_assert_ptr_nonnull(strstr(err, "smartcp: invalid argument "
				     "'a\\'b\\\\\\n\\377' for '--sparse'\n"));
	if (!setlocale(LC_ALL, "C.UTF-8"))
		return;		/* no UTF-8 locale here */
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--reflink=a'\xc3\xa9\xe2"
					      "\x80\x99\xc3", "s", "d")), -1);
	ck_assert_ptr_nonnull(strstr(err, "smartcp: invalid argument "
				     "\u2018a'\u00e9\\\u2019\\303\u2019 for "
				     "\u2018--reflink\u2019\n"));
	ck_assert_ptr_nonnull(strstr(err, "  - \u2018always\u2019\n"));
	ck_assert_ptr_nonnull(setlocale(LC_ALL, "C"));
}
END_TEST

/* A bad $VERSION_CONTROL is named as the variable, --backup=X's as the
 * backup type. */
START_TEST(test_version_control_message)
{
	struct sc_options o;
	char err[1024];

	setenv("VERSION_CONTROL", "foo", 1);
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "-b", "s", "d")), -1);
	ck_assert_str_eq(err, "smartcp: invalid argument 'foo' for "
			 "'$VERSION_CONTROL'\nValid arguments are:\n"
			 "  - 'none', 'off'\n  - 'simple', 'never'\n"
			 "  - 'existing', 'nil'\n  - 'numbered', 't'\n"
			 "Try 'smartcp --help' for more information.\n");
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--backup=", "s", "d")),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "'$VERSION_CONTROL'"));
	ck_assert_int_eq(PARSE(&o, "--backup=t", "s", "d"), 2);
	ck_assert_int_eq(o.backup, SC_BACKUP_NUMBERED);
	unsetenv("VERSION_CONTROL");
	ck_assert_int_eq(STDERR_OF(err, PARSE(&o, "--backup=n", "s", "d")),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "smartcp: ambiguous argument 'n' "
				     "for 'backup type'\n"));
}
END_TEST

/* cp's rule for a backup suffix, from -S as from the environment: empty,
 * or a '/' with something after it, means "~". */
START_TEST(test_backup_suffix_rule)
{
	struct sc_options o;

	unsetenv("VERSION_CONTROL");
	unsetenv("SIMPLE_BACKUP_SUFFIX");
	ck_assert_int_eq(PARSE(&o, "-S", "", "s", "d"), 3);
	ck_assert_str_eq(o.suffix, "~");
	ck_assert_int_eq(PARSE(&o, "-S", "/x", "s", "d"), 3);
	ck_assert_str_eq(o.suffix, "~");
	ck_assert_int_eq(PARSE(&o, "--suffix=../x", "s", "d"), 2);
	ck_assert_str_eq(o.suffix, "~");
	ck_assert_int_eq(PARSE(&o, "-S", "/", "s", "d"), 3);
	ck_assert_str_eq(o.suffix, "~");
	ck_assert_int_eq(PARSE(&o, "-S", "x/", "s", "d"), 3);
	ck_assert_str_eq(o.suffix, "x/");
	ck_assert_int_eq(PARSE(&o, "-S", ".x", "-S", "", "s", "d"), 5);
	ck_assert_str_eq(o.suffix, "~");
	setenv("SIMPLE_BACKUP_SUFFIX", ".bak", 1);
	ck_assert_int_eq(PARSE(&o, "-b", "s", "d"), 2);
	ck_assert_str_eq(o.suffix, ".bak");
	ck_assert_int_eq(PARSE(&o, "-S", "", "s", "d"), 3);
	ck_assert_str_eq(o.suffix, "~");	/* not the environment's */
	setenv("SIMPLE_BACKUP_SUFFIX", "a/b", 1);
	ck_assert_int_eq(PARSE(&o, "-b", "s", "d"), 2);
	ck_assert_str_eq(o.suffix, "~");
	setenv("SIMPLE_BACKUP_SUFFIX", "x/", 1);
	ck_assert_int_eq(PARSE(&o, "-b", "s", "d"), 2);
	ck_assert_str_eq(o.suffix, "x/");
	unsetenv("SIMPLE_BACKUP_SUFFIX");
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
	tcase(s, "assumed_facts", test_assumed_facts);
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
	tcase(s, "gnu_abbreviations_win", test_gnu_abbreviations_win);
	tcase(s, "own_long_options", test_own_long_options);
	tcase(s, "ambiguous_abbreviations", test_ambiguous_abbreviations);
	tcase(s, "preserve_empty_item", test_preserve_empty_item);
	tcase(s, "argument_quoting", test_argument_quoting);
	tcase(s, "version_control_message", test_version_control_message);
	tcase(s, "backup_suffix_rule", test_backup_suffix_rule);
	return s;
}
