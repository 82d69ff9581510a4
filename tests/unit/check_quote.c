/* quote: file names in messages, quoted as GNU cp quotes them, so they
 * can be pasted back into a shell.  All in the C locale. */
#include <config.h>

#include <locale.h>
#include <string.h>

#include "suites.h"
#include "quote.h"

static void check_quote(const char *name, const char *want)
{
	char buf[256];

	ck_assert_ptr_eq(sc_quote_buf(name, buf, sizeof(buf)), buf);
	ck_assert_str_eq(buf, want);
}

static void c_locale(void)
{
	ck_assert_ptr_nonnull(setlocale(LC_ALL, "C"));
}

START_TEST(test_plain)
{
	check_quote("a", "'a'");
	check_quote("/tmp/x.txt", "'/tmp/x.txt'");
	check_quote("a b", "'a b'");
	check_quote("$HOME", "'$HOME'");
	check_quote("a\"b", "'a\"b'");
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
	check_quote("\na", "$'\\n''a'");
	check_quote("a\n", "'a'$'\\n'");
	check_quote("\x01" "a\x7f", "$'\\001''a'$'\\177'");
	check_quote("\n\n", "$'\\n\\n'");
	check_quote("a\nit's", "'a'$'\\n''it'\\''s'");
}
END_TEST

/* In the C locale bytes >= 0x80 are not characters: escaped in octal. */
START_TEST(test_high_bytes_c_locale)
{
	c_locale();
	check_quote("caf\xc3\xa9", "'caf'$'\\303\\251'");
	check_quote("\xff", "$'\\377'");
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

static void tcase(Suite *s, const char *name, const TTest *test)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, c_locale, NULL);
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
	tcase(s, "high_bytes_c_locale", test_high_bytes_c_locale);
	tcase(s, "truncated", test_truncated);
	tcase(s, "rotating_buffers", test_rotating_buffers);
	return s;
}
