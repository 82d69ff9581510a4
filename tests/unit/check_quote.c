/* quote: file names in messages, quoted as GNU cp quotes them, so they
 * can be pasted back into a shell.  In the C locale unless a test says
 * otherwise; the expected strings are what /bin/cp (coreutils 9.1) prints
 * for the same names. */
#include <config.h>

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "output/quote.h"

static void check_quote(const char *name, const char *want)
{
	char buf[256];

	ck_assert_ptr_eq(sc_quote_buf(name, buf, sizeof(buf)), buf);
	ck_assert_str_eq(buf, want);
	ck_assert_str_eq(sc_quote(name), want);
}

static void c_locale(void)
{
	ck_assert_ptr_nonnull(setlocale(LC_ALL, "C"));
}

/* false (and the test checks nothing more) where C.UTF-8 is missing */
static bool utf8_locale(void)
{
	return setlocale(LC_ALL, "C.UTF-8") || setlocale(LC_ALL, "C.utf8");
}

/* a name of LEN bytes: "dir/" repeated, ending in "f" */
static char *long_name(size_t len)
{
	char *s = malloc(len + 1);

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < len; i++)
		s[i] = "dir/"[i % 4];
	s[len - 1] = 'f';
	s[len] = '\0';
	return s;
}

START_TEST(test_plain)
{
	check_quote("a", "'a'");
	check_quote("/tmp/x.txt", "'/tmp/x.txt'");
	check_quote("a b", "'a b'");
	check_quote("$HOME", "'$HOME'");
	check_quote("a\"b", "'a\"b'");
	check_quote("a\\b", "'a\\b'");
}
END_TEST

START_TEST(test_empty)
{
	check_quote("", "''");
}
END_TEST

START_TEST(test_single_quote)
{
	check_quote("it's", "\"it's\"");
	check_quote("'", "\"'\"");
	/* Double quotes would expand $: back to single quotes. */
	check_quote("it's $5", "'it'\\''s $5'");
}
END_TEST

START_TEST(test_control_bytes)
{
	check_quote("a\nb", "'a'$'\\n''b'");
	check_quote("a\tb", "'a'$'\\t''b'");
	/* GNU opens with '' even when the name starts with an escape */
	check_quote("\na", "''$'\\n''a'");
	check_quote("a\n", "'a'$'\\n'");
	check_quote("\x01" "a\x7f", "''$'\\001''a'$'\\177'");
	check_quote("\n\n", "''$'\\n\\n'");
	check_quote("a\nit's", "'a'$'\\n''it'\\''s'");
	check_quote("\a\b\f\r\v", "''$'\\a\\b\\f\\r\\v'");
}
END_TEST

/* A name with a single quote is "double-quoted" only when every other
 * character is one gnulib deems safe there. */
START_TEST(test_double_quote_choice)
{
	check_quote("a@'", "\"a@'\"");
	check_quote("#a'", "\"#a'\"");		/* '#' and '~' first only */
	check_quote("a#'", "'a#'\\'''");
	check_quote("~/'x", "\"~/'x\"");
	check_quote("a~'", "'a~'\\'''");
	check_quote("a b,%+-.:]_'", "\"a b,%+-.:]_'\"");
	check_quote("a\\'", "'a\\'\\'''");
	check_quote("a*'", "'a*'\\'''");
	check_quote("{'", "'{'\\'''");
	check_quote("a?'", "'a?'\\'''");
	check_quote("a=b'", "'a=b'\\'''");
}
END_TEST

/* A single quote next to an unprintable byte. */
START_TEST(test_single_quote_and_escape)
{
	check_quote("a'b\001c", "'a'\\''b'$'\\001''c'");
	check_quote("'\n", "''\\'''$'\\n'");
	check_quote("\n'", "''$'\\n'\\'''");
	check_quote("a\n'b", "'a'$'\\n'\\''b'");
	check_quote("a'\n'b", "'a'\\'''$'\\n'\\''b'");
	check_quote("''\n", "''\\'''\\'''$'\\n'");
	check_quote("\xff'", "''$'\\377'\\'''");
	/* gnulib's second pass starts in the $'...' state its first one
	 * ended in: a stray '' after the opening quote */
	check_quote("a'\n", "'''a'\\'''$'\\n'");
	check_quote("a'b\001", "'''a'\\''b'$'\\001'");
	/* GNU prints '\001'\'''$'\n' here, which does not read back as
	 * the name; smartcp quotes the first byte as anywhere else */
	check_quote("\001'\n", "''$'\\001'\\'''$'\\n'");
}
END_TEST

/* In the C locale bytes >= 0x80 are not characters: escaped in octal. */
START_TEST(test_high_bytes_c_locale)
{
	check_quote("caf\xc3\xa9", "'caf'$'\\303\\251'");
	check_quote("\xff", "''$'\\377'");
	check_quote("'\xc3\xa9", "''\\'''$'\\303\\251'");
}
END_TEST

/* In UTF-8, printable characters stay as they are; invalid and
 * incomplete sequences and C1 controls are escaped byte by byte. */
START_TEST(test_utf8)
{
	if (!utf8_locale())
		return;
	check_quote("caf\xc3\xa9", "'caf\xc3\xa9'");
	check_quote("'\xc3\xa9", "\"'\xc3\xa9\"");
	check_quote("nx\xff", "'nx'$'\\377'");
	check_quote("\xe2\x82", "''$'\\342\\202'");
	check_quote("a\xc3(", "'a'$'\\303''('");
	check_quote("a\xc2\x85", "'a'$'\\302\\205'");
	check_quote("a'\xe2\x82", "'''a'\\'''$'\\342\\202'");
}
END_TEST

/* Callers pass errno and sc_quote(name) to one call; whichever is
 * evaluated first, errno must still be the caller's. */
START_TEST(test_errno_kept)
{
	static const char *const names[] = {
		"nx\377", "d\303/nx", "\xe2\x82", "a'\n", "\x80\x80", "",
		"a=b", "plain",
	};
	char buf[64], small[12];
	char *big = long_name(9000);

	big[100] = '\377';	/* a long path with a bad byte */
	for (int loc = 0; loc < 2; loc++) {
		if (loc == 1 && !utf8_locale())
			break;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			errno = ENOENT;
			sc_quote(names[i]);
			ck_assert_int_eq(errno, ENOENT);
			errno = EACCES;
			sc_quote_plain(names[i]);
			ck_assert_int_eq(errno, EACCES);
			errno = ENOSPC;
			sc_quote_buf(names[i], buf, sizeof(buf));
			ck_assert_int_eq(errno, ENOSPC);
			errno = EIO;
			sc_quote_buf(names[i], small, sizeof(small));
			ck_assert_int_eq(errno, EIO);
		}
		errno = ENOTDIR;
		sc_quote(big);
		ck_assert_int_eq(errno, ENOTDIR);
		errno = 0;
		sc_quote_plain(big);
		ck_assert_int_eq(errno, 0);
	}
	free(big);
}
END_TEST

START_TEST(test_truncated)
{
	char buf[16];
	const char *name = "a-very-long-file-name-indeed";

	sc_quote_buf(name, buf, sizeof(buf));
	ck_assert_uint_lt(strlen(buf), sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "..."));
	ck_assert_int_eq(strncmp(buf, "'a-very", 7), 0);
}
END_TEST

/* Four quotes may appear in one message. */
START_TEST(test_rotating_buffers)
{
	const char *a = sc_quote("one"), *b = sc_quote("two");
	const char *c = sc_quote("three"), *d = sc_quote("fo ur");

	ck_assert_str_eq(a, "'one'");
	ck_assert_str_eq(b, "'two'");
	ck_assert_str_eq(c, "'three'");
	ck_assert_str_eq(d, "'fo ur'");
}
END_TEST

/* GNU prints a name of any length whole; so does sc_quote, four of them
 * alive at once, long or short. */
START_TEST(test_long_names)
{
	static const size_t lens[4] = { 4150, 4160, 5000, 70000 };
	char *n[4], *want[4], *esc;
	const char *q[4], *e, *head = "''$'\\001''ir/'$'\\001''ir/'";

	for (int i = 0; i < 4; i++) {
		n[i] = long_name(lens[i]);
		want[i] = malloc(lens[i] + 3);
		ck_assert_ptr_nonnull(want[i]);
		sprintf(want[i], "'%s'", n[i]);
	}
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 4; i++)
			q[i] = sc_quote(n[(i + round) % 4]);
		for (int i = 0; i < 4; i++)
			ck_assert_str_eq(q[i], want[(i + round) % 4]);
		/* short names after long ones, in the same slots */
		ck_assert_str_eq(sc_quote("a b"), "'a b'");
		ck_assert_str_eq(sc_quote("c"), "'c'");
		ck_assert_str_eq(sc_quote("d\n"), "'d'$'\\n'");
		ck_assert_str_eq(sc_quote_plain(n[3]), n[3]);
	}

	/* escapes make the quote much longer than the name */
	esc = long_name(3000);
	for (int i = 0; i < 3000; i += 4)
		esc[i] = '\001';
	e = sc_quote(esc);
	ck_assert_uint_gt(strlen(e), 3000 / 4 * 12);
	ck_assert_int_eq(strncmp(e, head, strlen(head)), 0);
	ck_assert_str_eq(e + strlen(e) - 4, "irf'");
	ck_assert_ptr_null(strstr(e, "..."));
	free(esc);
	for (int i = 0; i < 4; i++) {
		free(n[i]);
		free(want[i]);
	}
}
END_TEST

/* -j workers quote names at the same time: each thread has buffers of its
 * own, freed when it ends. */
static void *quote_worker(void *arg)
{
	const char *name = arg;
	char *want = malloc(strlen(name) + 3);

	if (!want)
		return "malloc";
	sprintf(want, "'%s'", name);
	for (int i = 0; i < 200; i++) {
		const char *a = sc_quote(name), *b = sc_quote("x y");

		if (strcmp(a, want) != 0 || strcmp(b, "'x y'") != 0) {
			free(want);
			return "wrong quote";
		}
	}
	free(want);
	return NULL;
}

START_TEST(test_threads)
{
	pthread_t t[4];
	char *names[4];
	void *r;

	for (int i = 0; i < 4; i++) {
		names[i] = long_name(4000 + 1000 * (size_t)i);
		names[i][0] = (char)('a' + i);
		ck_assert_int_eq(pthread_create(&t[i], NULL, quote_worker,
						names[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(t[i], &r), 0);
		ck_assert_ptr_null(r);
		free(names[i]);
	}
}
END_TEST

/* quotef(): names without shell specials stay bare. */
START_TEST(test_plain_names)
{
	const char *n = "dir/a-b_c.d:1,2%3+@";

	ck_assert_ptr_eq(sc_quote_plain(n), n);
	ck_assert_str_eq(sc_quote_plain("a=b"), "'a=b'");
	ck_assert_str_eq(sc_quote_plain("a b"), "'a b'");
	ck_assert_str_eq(sc_quote_plain(""), "''");
	ck_assert_str_eq(sc_quote_plain("it's"), "\"it's\"");
}
END_TEST

static void tcase(Suite *s, const char *name, const TTest *test)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, c_locale, c_locale);
	tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
}

Suite *quote_suite(void)
{
	Suite *s = suite_create("quote");

	tcase(s, "plain", test_plain);
	tcase(s, "empty", test_empty);
	tcase(s, "single_quote", test_single_quote);
	tcase(s, "control_bytes", test_control_bytes);
	tcase(s, "double_quote_choice", test_double_quote_choice);
	tcase(s, "single_quote_and_escape", test_single_quote_and_escape);
	tcase(s, "high_bytes_c_locale", test_high_bytes_c_locale);
	tcase(s, "utf8", test_utf8);
	tcase(s, "errno_kept", test_errno_kept);
	tcase(s, "truncated", test_truncated);
	tcase(s, "rotating_buffers", test_rotating_buffers);
	tcase(s, "long_names", test_long_names);
	tcase(s, "threads", test_threads);
	tcase(s, "plain_names", test_plain_names);
	return s;
}
