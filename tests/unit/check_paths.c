/* paths: names joined, split and compared as cp does. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "paths.h"

static void check_join(const char *dir, const char *name, const char *want)
{
	char *p = sc_path_join(dir, name);

	ck_assert_str_eq(p, want);
	free(p);
}

START_TEST(join_puts_one_slash_between)
{
	check_join("d", "f", "d/f");
	check_join("d/", "f", "d/f");
	/* cp names the files of "d//" d/f */
	check_join("d//", "f", "d/f");
	check_join("/", "f", "/f");
	check_join("", "f", "f");
}
END_TEST

START_TEST(strip_slashes_keeps_the_root)
{
	char a[] = "d///", b[] = "/", c[] = "//", d[] = "a/b";

	sc_path_strip_slashes(a);
	sc_path_strip_slashes(b);
	sc_path_strip_slashes(c);
	sc_path_strip_slashes(d);
	ck_assert_str_eq(a, "d");
	ck_assert_str_eq(b, "/");
	ck_assert_str_eq(c, "/");
	ck_assert_str_eq(d, "a/b");
}
END_TEST

static void check_dir(const char *path, const char *want)
{
	char *p = sc_path_dir(path);

	ck_assert_str_eq(p, want);
	free(p);
}

START_TEST(dir_of_a_name_without_slash_is_dot)
{
	check_dir("f", ".");
	check_dir("/f", "/");
	check_dir("a/b/c", "a/b");
}
END_TEST

static void check_base(const char *path, const char *want)
{
	char *p = sc_path_base(path);

	ck_assert_str_eq(p, want);
	free(p);
}

START_TEST(base_ignores_trailing_slashes)
{
	check_base("a/b", "b");
	check_base("a/b//", "b");
	check_base("b", "b");
	check_base("/", "/");
	check_base("..", "..");
	ck_assert_str_eq(sc_path_last("a/b/c"), "c");
	ck_assert_str_eq(sc_path_last("c"), "c");
}
END_TEST

START_TEST(same_entry_needs_same_name_and_directory)
{
	ck_assert(sc_path_same_entry("/tmp/x", "/tmp/./x"));
	ck_assert(sc_path_same_entry("/tmp/x", "/tmp//x"));
	ck_assert(!sc_path_same_entry("/tmp/x", "/tmp/y"));
	ck_assert(!sc_path_same_entry("/tmp/x", "/x"));
}
END_TEST

START_TEST(inside_is_the_directory_or_below)
{
	ck_assert(sc_path_is_inside("/tmp", "/tmp/new"));
	ck_assert(sc_path_is_inside("/tmp", "/tmp"));
	ck_assert(sc_path_is_inside("/", "/tmp/new"));
	ck_assert(!sc_path_is_inside("/tmp", "/tmpx"));
	ck_assert(!sc_path_is_inside("/nonexistent-dir-xyz", "/tmp/a"));
}
END_TEST

Suite *paths_suite(void)
{
	Suite *s = suite_create("paths");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, join_puts_one_slash_between);
	tcase_add_test(tc, strip_slashes_keeps_the_root);
	tcase_add_test(tc, dir_of_a_name_without_slash_is_dot);
	tcase_add_test(tc, base_ignores_trailing_slashes);
	tcase_add_test(tc, same_entry_needs_same_name_and_directory);
	tcase_add_test(tc, inside_is_the_directory_or_below);
	suite_add_tcase(s, tc);
	return s;
}
