/* links: the hard-link table, and which files it remembers. */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "suites.h"
#include "tree/links.h"

static struct stat regular(nlink_t nlink)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0644;
	st.st_nlink = nlink;
	return st;
}

START_TEST(empty_table_finds_nothing)
{
	struct links t = { 0 };

	ck_assert_ptr_null(links_find(&t, 1, 2));
	links_free(&t);
}
END_TEST

START_TEST(remembered_copy_is_found)
{
	struct links t = { 0 };

	ck_assert_int_eq(links_remember(&t, 2049, 12, "dst/a"), 0);
	ck_assert_str_eq(links_find(&t, 2049, 12), "dst/a");
	/* same inode on another device is another file */
	ck_assert_ptr_null(links_find(&t, 2050, 12));
	ck_assert_ptr_null(links_find(&t, 2049, 13));
	links_free(&t);
	ck_assert_ptr_null(links_find(&t, 2049, 12));
}
END_TEST

START_TEST(first_copy_stays_the_one)
{
	struct links t = { 0 };

	ck_assert_int_eq(links_remember(&t, 1, 7, "first"), 0);
	ck_assert_int_eq(links_remember(&t, 1, 7, "second"), 0);
	ck_assert_str_eq(links_find(&t, 1, 7), "first");
	ck_assert_uint_eq(t.n, 1);
	links_free(&t);
}
END_TEST

START_TEST(many_files_survive_growing)
{
	struct links t = { 0 };
	char name[32];

	for (unsigned i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		ck_assert_int_eq(links_remember(&t, i % 3, i, name), 0);
	}
	ck_assert_uint_eq(t.n, 5000);
	ck_assert_uint_ge(t.cap, 2 * t.n);	/* kept half empty */
	for (unsigned i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		ck_assert_str_eq(links_find(&t, i % 3, i), name);
	}
	links_free(&t);
}
END_TEST

START_TEST(only_files_with_other_names_are_tracked)
{
	struct tree_opts o = { .preserve_links = true };
	struct stat one = regular(1), two = regular(2), dir = regular(3);

	dir.st_mode = S_IFDIR | 0755;
	ck_assert(!links_tracked(&o, &one, true));
	ck_assert(links_tracked(&o, &two, false));
	ck_assert(!links_tracked(&o, &dir, false));
	o.preserve_links = false;
	ck_assert(!links_tracked(&o, &two, false));
	/* -l makes links itself: nothing to remember */
	o.preserve_links = true;
	o.hard_link = true;
	ck_assert(!links_tracked(&o, &two, false));
}
END_TEST

START_TEST(followed_links_are_tracked)
{
	struct tree_opts o = { .preserve_links = true, .deref_always = true };
	struct stat one = regular(1);

	ck_assert(links_tracked(&o, &one, false));
	o.deref_always = false;
	o.deref_args = true;	/* -H: the command line only */
	ck_assert(links_tracked(&o, &one, true));
	ck_assert(!links_tracked(&o, &one, false));
}
END_TEST

Suite *links_suite(void)
{
	Suite *s = suite_create("links");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, empty_table_finds_nothing);
	tcase_add_test(tc, remembered_copy_is_found);
	tcase_add_test(tc, first_copy_stays_the_one);
	tcase_add_test(tc, many_files_survive_growing);
	suite_add_tcase(s, tc);
	tc = tcase_create("tracked");
	tcase_add_test(tc, only_files_with_other_names_are_tracked);
	tcase_add_test(tc, followed_links_are_tracked);
	suite_add_tcase(s, tc);
	return s;
}
