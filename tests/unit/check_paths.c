/* paths: names joined, split and compared as cp does. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suites.h"
#include "base/paths.h"
#include "tree/paths.h"

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

START_TEST(piece_is_all_of_a_short_path)
{
	ck_assert_uint_eq(tree_path_piece("a/b/c", 16), 5);
	ck_assert_uint_eq(tree_path_piece("", 16), 0);
}
END_TEST

START_TEST(piece_of_a_long_path_ends_before_a_slash)
{
	/* "aaa/bbb/ccc" in pieces shorter than 8: "aaa/bbb" is 7 */
	ck_assert_uint_eq(tree_path_piece("aaa/bbb/ccc", 8), 7);
	ck_assert_uint_eq(tree_path_piece("aaa/bbb/ccc", 7), 3);
	/* the root on its own when the first name does not fit */
	ck_assert_uint_eq(tree_path_piece("/aaaaaaaa/b", 4), 1);
	/* one name too long for any piece */
	ck_assert_uint_eq(tree_path_piece("aaaaaaaa/b", 4), 0);
}
END_TEST

START_TEST(parent_of_a_short_path_is_the_path)
{
	const char *name;
	int fd;

	ck_assert_int_eq(tree_path_open_parent("/tmp/x", &fd, &name), 0);
	ck_assert_int_eq(fd, AT_FDCWD);
	ck_assert_str_eq(name, "/tmp/x");
}
END_TEST

/* A path longer than PATH_MAX, made of "." steps (the kernel refuses it
 * whole): its parent opens in pieces, and it is the directory named. */
START_TEST(parent_of_a_long_path_opens_in_pieces)
{
	size_t n = 2 * PATH_MAX, len = 0;
	char *p = malloc(n + 16);
	const char *name;
	struct stat a, b;
	int fd;

	ck_assert_ptr_nonnull(p);
	len += (size_t)sprintf(p, "/tmp");
	while (len < n)
		len += (size_t)sprintf(p + len, "/.");
	sprintf(p + len, "/x");
	ck_assert_int_eq(stat(p, &a), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
	ck_assert_int_eq(tree_path_open_parent(p, &fd, &name), 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_str_eq(name, "x");
	ck_assert_int_eq(fstat(fd, &a), 0);
	ck_assert_int_eq(stat("/tmp", &b), 0);
	ck_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	close(fd);
	free(p);
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
	tcase_add_test(tc, piece_is_all_of_a_short_path);
	tcase_add_test(tc, piece_of_a_long_path_ends_before_a_slash);
	tcase_add_test(tc, parent_of_a_short_path_is_the_path);
	tcase_add_test(tc, parent_of_a_long_path_opens_in_pieces);
	suite_add_tcase(s, tc);
	return s;
}
