/* change: what tells that a source changed while it was copied.  Pure
 * comparisons of two stats; each test names the case it stands for. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "suites.h"
#include "change.h"
#include "output/report.h"

static struct stat file(off_t size, long mtime_ns, long ctime_ns)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0644;
	st.st_dev = 2049;
	st.st_ino = 12;
	st.st_size = size;
	st.st_mtim.tv_sec = 1700000000;
	st.st_mtim.tv_nsec = mtime_ns;
	st.st_ctim.tv_sec = 1700000000;
	st.st_ctim.tv_nsec = ctime_ns;
	return st;
}

START_TEST(same_file_same_stat_is_no_change)
{
	struct stat a = file(100, 5, 5), b = a;

	ck_assert_int_eq(sc_change_compare(&a, &b, false), SC_CHANGE_NONE);
	ck_assert_int_eq(sc_change_identity(&a, &b, 0, false), SC_CHANGE_NONE);
}
END_TEST

START_TEST(appended_log_grew)
{
	struct stat a = file(100, 5, 5), b = file(164, 9, 9);

	ck_assert_int_eq(sc_change_compare(&a, &b, false), SC_CHANGE_GREW);
}
END_TEST

START_TEST(truncated_file_shrank)
{
	struct stat a = file(100, 5, 5), b = file(10, 9, 9);

	ck_assert_int_eq(sc_change_compare(&a, &b, false), SC_CHANGE_SHRANK);
}
END_TEST

START_TEST(overwritten_in_place_one_nanosecond_later)
{
	struct stat a = file(100, 5, 5), b = file(100, 6, 6);

	ck_assert_int_eq(sc_change_compare(&a, &b, false),
			 SC_CHANGE_REWRITTEN);
}
END_TEST

START_TEST(mtime_put_back_leaves_ctime)
{
	/* touch -d, rsync -t: the data was written, the mtime restored */
	struct stat a = file(100, 5, 5), b = file(100, 5, 7);

	ck_assert_int_eq(sc_change_compare(&a, &b, false), SC_CHANGE_STATUS);
}
END_TEST

START_TEST(generated_sizes_and_times_mean_nothing)
{
	/* sysfs says 4096, procfs 0, and times of the cached inode */
	struct stat a = file(0, 5, 5), b = file(4096, 9, 9);

	ck_assert_int_eq(sc_change_compare(&a, &b, true), SC_CHANGE_NONE);
}
END_TEST

START_TEST(renamed_over_is_replaced)
{
	struct stat a = file(100, 5, 5), b = a;

	b.st_ino = 13;
	ck_assert_int_eq(sc_change_identity(&a, &b, 0, false),
			 SC_CHANGE_REPLACED);
	ck_assert_int_eq(sc_change_identity(&a, &b, 0, true),
			 SC_CHANGE_REPLACED);
	b.st_ino = a.st_ino;
	b.st_dev = 2050;
	ck_assert_int_eq(sc_change_identity(&a, &b, 0, false),
			 SC_CHANGE_REPLACED);
}
END_TEST

START_TEST(gone_name_is_removed_but_not_on_proc)
{
	struct stat a = file(100, 5, 5);

	ck_assert_int_eq(sc_change_identity(&a, NULL, -ENOENT, false),
			 SC_CHANGE_REMOVED);
	ck_assert_int_eq(sc_change_identity(&a, NULL, -ENOTDIR, false),
			 SC_CHANGE_REMOVED);
	/* /proc/PID of a process that exited: what was read is true */
	ck_assert_int_eq(sc_change_identity(&a, NULL, -ENOENT, true),
			 SC_CHANGE_NONE);
	/* a name we may no longer look at tells nothing */
	ck_assert_int_eq(sc_change_identity(&a, NULL, -EACCES, false),
			 SC_CHANGE_NONE);
}
END_TEST

START_TEST(names_are_an_interface)
{
	ck_assert_str_eq(sc_change_name(SC_CHANGE_GREW), "grew");
	ck_assert_str_eq(sc_change_name(SC_CHANGE_SHRANK), "shrank");
	ck_assert_str_eq(sc_change_name(SC_CHANGE_REWRITTEN), "rewritten");
	ck_assert_str_eq(sc_change_name(SC_CHANGE_STATUS), "status");
	ck_assert_str_eq(sc_change_name(SC_CHANGE_REMOVED), "removed");
	ck_assert_str_eq(sc_change_name(SC_CHANGE_REPLACED), "replaced");
	ck_assert_str_eq(sc_change_name(SC_CHANGE_NONE), "none");
}
END_TEST

START_TEST(words_name_both_sizes)
{
	struct sc_rec_change ch = { SC_CHANGE_GREW, 54132736, 54788096,
				    false };
	char buf[128];

	ck_assert_str_eq(sc_report_change_text(buf, sizeof(buf), &ch, false),
			 "grew from 54132736 to 54788096 bytes");
	ch.how = SC_CHANGE_SHRANK;
	ch.size_after = 1048576;
	ck_assert_str_eq(sc_report_change_text(buf, sizeof(buf), &ch, false),
			 "shrank from 54132736 to 1048576 bytes");
	ch.how = SC_CHANGE_REPLACED;
	ck_assert_str_eq(sc_report_change_text(buf, sizeof(buf), &ch, false),
			 "replaced by another file");
}
END_TEST

Suite *change_suite(void)
{
	Suite *s = suite_create("change");
	TCase *tc = tcase_create("compare");

	tcase_add_test(tc, same_file_same_stat_is_no_change);
	tcase_add_test(tc, appended_log_grew);
	tcase_add_test(tc, truncated_file_shrank);
	tcase_add_test(tc, overwritten_in_place_one_nanosecond_later);
	tcase_add_test(tc, mtime_put_back_leaves_ctime);
	tcase_add_test(tc, generated_sizes_and_times_mean_nothing);
	tcase_add_test(tc, renamed_over_is_replaced);
	tcase_add_test(tc, gone_name_is_removed_but_not_on_proc);
	tcase_add_test(tc, names_are_an_interface);
	tcase_add_test(tc, words_name_both_sizes);
	suite_add_tcase(s, tc);
	return s;
}
