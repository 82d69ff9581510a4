/* xattr_rules: /etc/xattr.conf read as libattr reads it.  The expected
 * results are what libattr 2.5's attr_copy_check_permissions() answers
 * for the same file (t-xattr-rules.sh compares the real thing with cp);
 * each corner of the format has a case. */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "xattr_rules.h"

/* Rules loaded from a temporary file holding TEXT (LEN bytes). */
static struct sc_xattr_rules *load_n(const char *text, size_t len)
{
	char path[] = "/tmp/check_xattr_rules.XXXXXX";
	struct sc_xattr_rules *r = NULL;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	ck_assert_int_eq(sc_xattr_rules_load(path, &r), 0);
	unlink(path);
	ck_assert_ptr_nonnull(r);
	return r;
}

static struct sc_xattr_rules *load(const char *text)
{
	return load_n(text, strlen(text));
}

static const char debian[] =
	"# /etc/xattr.conf\n"
	"#\n"
	"system.nfs4_acl\t\t\tpermissions\n"
	"system.posix_acl_access\t\tpermissions\n"
	"system.posix_acl_default\tpermissions\n"
	"trusted.SGI_ACL_FILE\t\tskip\t\t# xfs specific\n"
	"trusted.SGI_DMI_*\t\tskip\t\t# xfs specific\n"
	"security.evm\t\t\tskip\t\t# may only be written by kernel\n"
	"afs.*\t\t\t\tskip\t\t# AFS metadata and ACLs\n";

START_TEST(test_debian_file)
{
	struct sc_xattr_rules *r = load(debian);

	ck_assert_int_eq(sc_xattr_rules_error(r), 0);
	ck_assert_int_eq(sc_xattr_rules_action(r, "system.posix_acl_access"),
			 SC_XATTR_PERMISSIONS);
	ck_assert_int_eq(sc_xattr_rules_action(r, "trusted.SGI_ACL_FILE"),
			 SC_XATTR_SKIP);
	ck_assert_int_eq(sc_xattr_rules_action(r, "trusted.SGI_DMI_x"),
			 SC_XATTR_SKIP);
	ck_assert_int_eq(sc_xattr_rules_action(r, "security.evm"),
			 SC_XATTR_SKIP);
	ck_assert_int_eq(sc_xattr_rules_action(r, "afs.a.b"), SC_XATTR_SKIP);
	/* no rule: copied; patterns match whole names */
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.test"), SC_XATTR_COPY);
	ck_assert_int_eq(sc_xattr_rules_action(r, "security.evmx"),
			 SC_XATTR_COPY);
	ck_assert_int_eq(sc_xattr_rules_action(r, "trusted.SGI_ACL_FILEx"),
			 SC_XATTR_COPY);
	sc_xattr_rules_free(r);
}
END_TEST

START_TEST(test_last_line_wins)
{
	/* libattr prepends each rule to its list and takes the first match */
	struct sc_xattr_rules *r = load("user.* skip\n"
					"user.keep* permissions\n");

	ck_assert_int_eq(sc_xattr_rules_action(r, "user.keepme"),
			 SC_XATTR_PERMISSIONS);
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.other"),
			 SC_XATTR_SKIP);
	sc_xattr_rules_free(r);
	r = load("user.keep* permissions\nuser.* skip\n");
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.keepme"),
			 SC_XATTR_SKIP);
	sc_xattr_rules_free(r);
}
END_TEST

START_TEST(test_missing_file)
{
	struct sc_xattr_rules *r = NULL;

	ck_assert_int_eq(sc_xattr_rules_load("/nonexistent/xattr.conf", &r),
			 0);
	ck_assert_int_eq(sc_xattr_rules_error(r), 0);
	ck_assert_int_eq(sc_xattr_rules_action(r, "system.posix_acl_access"),
			 SC_XATTR_COPY);
	ck_assert_str_eq(sc_xattr_rules_path(r), "/nonexistent/xattr.conf");
	sc_xattr_rules_free(r);
	/* no rules at all */
	ck_assert_int_eq(sc_xattr_rules_action(NULL, "a.b"), SC_XATTR_COPY);
	ck_assert_int_eq(sc_xattr_rules_error(NULL), 0);
}
END_TEST

START_TEST(test_unreadable_file)
{
	struct sc_xattr_rules *r = NULL;

	/* a directory opens, and reading it fails */
	ck_assert_int_eq(sc_xattr_rules_load("/", &r), 0);
	ck_assert_int_eq(sc_xattr_rules_error(r), EISDIR);
	ck_assert_int_eq(sc_xattr_rules_action(r, "trusted.SGI_ACL_FILE"),
			 SC_XATTR_COPY);
	sc_xattr_rules_free(r);
}
END_TEST

/* Lines libattr refuses: every rule of the file is dropped. */
static void check_refused(const char *text)
{
	struct sc_xattr_rules *r = load(text);

	ck_assert_msg(sc_xattr_rules_error(r) == EINVAL, "accepted: %s", text);
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.a"), SC_XATTR_COPY);
	sc_xattr_rules_free(r);
}

START_TEST(test_refused)
{
	check_refused("user.a skip\nuser.b\n");		/* no action */
	check_refused("user.a skip\nuser.b copy\n");	/* unknown action */
	check_refused("user.a skip\nuser.b skipped\n");
	check_refused("user.a skip extra\n");		/* trailing word */
	check_refused("user.a# skip\n");		/* '#' in a pattern */
	check_refused("user.a skip");			/* no final newline */
	check_refused("user.a skip\nuser.b skip  ");
}
END_TEST

START_TEST(test_accepted_corners)
{
	struct sc_xattr_rules *r;

	/* comments after a rule, blank lines, blanks before a comment */
	r = load("\n\n  # c\nuser.a\tskip# c\n\t\nuser.b  permissions   # c\n");
	ck_assert_int_eq(sc_xattr_rules_error(r), 0);
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.a"), SC_XATTR_SKIP);
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.b"),
			 SC_XATTR_PERMISSIONS);
	sc_xattr_rules_free(r);
	/* a lone pattern at the very end is ignored */
	r = load("user.a skip\nuser.b");
	ck_assert_int_eq(sc_xattr_rules_error(r), 0);
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.a"), SC_XATTR_SKIP);
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.b"), SC_XATTR_COPY);
	sc_xattr_rules_free(r);
	/* a comment without a final newline, and an empty file */
	r = load("user.a skip\n# end");
	ck_assert_int_eq(sc_xattr_rules_error(r), 0);
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.a"), SC_XATTR_SKIP);
	sc_xattr_rules_free(r);
	r = load("");
	ck_assert_int_eq(sc_xattr_rules_error(r), 0);
	sc_xattr_rules_free(r);
	/* the text ends at a NUL byte */
	r = load_n("user.a skip\n\0garbage\n", 21);
	ck_assert_int_eq(sc_xattr_rules_error(r), 0);
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.a"), SC_XATTR_SKIP);
	sc_xattr_rules_free(r);
}
END_TEST

START_TEST(test_large_file)
{
	/* more than one read's worth of rules */
	size_t n = 3000, len = 0;
	char *text = malloc(n * 40);
	struct sc_xattr_rules *r;

	ck_assert_ptr_nonnull(text);
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "user.r%zu skip\n", i);
	r = load_n(text, len);
	ck_assert_int_eq(sc_xattr_rules_error(r), 0);
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.r0"), SC_XATTR_SKIP);
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.r2999"),
			 SC_XATTR_SKIP);
	ck_assert_int_eq(sc_xattr_rules_action(r, "user.r3000"),
			 SC_XATTR_COPY);
	sc_xattr_rules_free(r);
	free(text);
}
END_TEST

/* Loaded once, read by many threads at once: every answer right. */
static void *reader(void *arg)
{
	const struct sc_xattr_rules *r = arg;
	long wrong = 0;

	for (int i = 0; i < 20000; i++) {
		wrong += sc_xattr_rules_action(r, "trusted.SGI_ACL_FILE") !=
			 SC_XATTR_SKIP;
		wrong += sc_xattr_rules_action(r, "user.x") != SC_XATTR_COPY;
	}
	return (void *)wrong;
}

START_TEST(test_threads)
{
	struct sc_xattr_rules *r = load(debian);
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, reader, r), 0);
	for (int i = 0; i < 4; i++) {
		void *wrong;

		ck_assert_int_eq(pthread_join(t[i], &wrong), 0);
		ck_assert_ptr_null(wrong);
	}
	sc_xattr_rules_free(r);
}
END_TEST

Suite *xattr_rules_suite(void)
{
	Suite *s = suite_create("xattr_rules");
	TCase *tc = tcase_create("libattr format");

	tcase_add_test(tc, test_debian_file);
	tcase_add_test(tc, test_last_line_wins);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_unreadable_file);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_accepted_corners);
	tcase_add_test(tc, test_large_file);
	tcase_add_test(tc, test_threads);
	suite_add_tcase(s, tc);
	return s;
}
