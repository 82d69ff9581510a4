/* libsmartcp's backup names (sc_backup_name) through the public header,
 * linked against the shared library as any program would be.  The names
 * expected are GNU cp 9.1's, as it made them for the same directories
 * (lib/backup.c says which rules those are). */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <smartcp/smartcp.h>

static char dir[256];
static int dfd = -1;

static void setup(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/check_backup.XXXXXX", t ? t : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
}

static void teardown(void)
{
	char cmd[300];

	close(dfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Makes NAME (in the scratch directory) an empty file. */
static void touch(const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	ck_assert_msg(fd >= 0, "%s: %s", name, strerror(errno));
	close(fd);
}

/* NAME's backup under CONTROL and SUFFIX in the scratch directory is
 * WANT, and the call says HOW. */
static void expect(const char *name, enum sc_backup control,
		   const char *suffix, const char *want, int how)
{
	char *b = (char *)"unset";
	int r = sc_backup_name(dfd, name, control, suffix, &b);

	ck_assert_int_eq(r, how);
	ck_assert_str_eq(b, want);
	free(b);
}

/* A name of N bytes of 'x', then TAIL. */
static const char *xs(size_t n, const char *tail)
{
	static char buf[2][512];
	static int i;
	char *s = buf[i++ % 2];

	memset(s, 'x', n);
	strcpy(s + n, tail);
	return s;
}

START_TEST(numbered_follows_the_highest_through_gaps)
{
	expect("f", SC_BACKUP_NUMBERED, "~", "f.~1~",
	       SC_BACKUP_NAME_NUMBERED);
	touch("f.~1~");
	touch("f.~3~");
	touch("f.~10~");
	touch("f.~9~");		/* fewer digits: lower, whatever its text */
	expect("f", SC_BACKUP_NUMBERED, "~", "f.~11~",
	       SC_BACKUP_NAME_NUMBERED);
	/* the suffix plays no part in a numbered name */
	expect("f", SC_BACKUP_NUMBERED, ".bak", "f.~11~",
	       SC_BACKUP_NAME_NUMBERED);
}
END_TEST

/* What GNU cp does not count as a number: a leading zero or sign, a
 * space, anything after the "~", another file's */
START_TEST(numbered_counts_only_cps_numbers)
{
	static const char *const not[] = {
		"f.~0~", "f.~05~", "f.~-1~", "f.~+4~", "f.~ 3~", "f.~3~x",
		"f.~x~", "f.~~", "f.~7", "g.~99~", "ff.~99~", "f~",
	};

	touch("f");
	for (size_t i = 0; i < sizeof(not) / sizeof(not[0]); i++)
		touch(not[i]);
	expect("f", SC_BACKUP_NUMBERED, "~", "f.~1~",
	       SC_BACKUP_NAME_NUMBERED);
	touch("f.~9~");
	expect("f", SC_BACKUP_NUMBERED, "~", "f.~10~",
	       SC_BACKUP_NAME_NUMBERED);
	/* counted as text: no number is too large */
	touch("f.~99999999999999999999~");
	expect("f", SC_BACKUP_NUMBERED, "~", "f.~100000000000000000000~",
	       SC_BACKUP_NAME_NUMBERED);
	touch("f.~123456789012345678901~");
	expect("f", SC_BACKUP_NUMBERED, "~", "f.~123456789012345678902~",
	       SC_BACKUP_NAME_NUMBERED);
}
END_TEST

START_TEST(existing_is_numbered_only_where_numbers_are)
{
	touch("f");
	expect("f", SC_BACKUP_EXISTING, "~", "f~", 0);
	expect("f", SC_BACKUP_EXISTING, NULL, "f~", 0);
	expect("f", SC_BACKUP_EXISTING, ".orig", "f.orig", 0);
	touch("f~");
	touch("f.~05~");	/* not a number */
	expect("f", SC_BACKUP_EXISTING, "~", "f~", 0);
	touch("f.~2~");
	expect("f", SC_BACKUP_EXISTING, "~", "f.~3~",
	       SC_BACKUP_NAME_NUMBERED);
}
END_TEST

START_TEST(simple_takes_the_suffix_and_reads_nothing)
{
	char *b = NULL;

	expect("f", SC_BACKUP_SIMPLE, "~", "f~", 0);
	expect("f", SC_BACKUP_SIMPLE, NULL, "f~", 0);
	expect("f", SC_BACKUP_SIMPLE, ".bak", "f.bak", 0);
	touch("f.~4~");
	expect("f", SC_BACKUP_SIMPLE, "~", "f~", 0);
	/* the directory is not read: one that is not there is no error */
	ck_assert_int_eq(sc_backup_name(dfd, "none/f", SC_BACKUP_SIMPLE, "~",
					&b), 0);
	ck_assert_str_eq(b, "none/f~");
	free(b);
	/* nor is a simple name shortened: cp's rename then fails */
	expect(xs(255, ""), SC_BACKUP_SIMPLE, "~", xs(255, "~"), 0);
}
END_TEST

/* NAME_MAX 255 (the scratch directory's filesystem): GNU cp 9.1's names
 * for names of 250 to 255 bytes */
START_TEST(names_at_name_max_are_shortened_as_cp_does)
{
	long max = fpathconf(dfd, _PC_NAME_MAX);
	int both = SC_BACKUP_NAME_NUMBERED | SC_BACKUP_NAME_SHORTENED;

	if (max != 255) {
		fprintf(stderr, "SKIP: NAME_MAX %ld here, not 255\n", max);
		return;
	}
	/* 250 + ".~1~": 254 bytes fit */
	expect(xs(250, ""), SC_BACKUP_NUMBERED, "~", xs(250, ".~1~"),
	       SC_BACKUP_NAME_NUMBERED);
	/* a new name of 255 bytes does not: NAME~ */
	expect(xs(251, ""), SC_BACKUP_NUMBERED, "~", xs(251, "~"), both);
	/* ... but one as long as a backup that is there does */
	touch(xs(251, ".~1~"));
	expect(xs(251, ""), SC_BACKUP_NUMBERED, "~", xs(251, ".~2~"),
	       SC_BACKUP_NAME_NUMBERED);
	expect(xs(251, ""), SC_BACKUP_EXISTING, "~", xs(251, ".~2~"),
	       SC_BACKUP_NAME_NUMBERED);
	/* a longer one (after .~9~) is checked again */
	touch(xs(250, ".~9~"));
	expect(xs(250, ""), SC_BACKUP_NUMBERED, "~", xs(250, "~"), both);
	/* cut to NAME_MAX - 2 bytes and "~" */
	expect(xs(254, ""), SC_BACKUP_NUMBERED, "~", xs(253, "~"), both);
	expect(xs(255, ""), SC_BACKUP_NUMBERED, "~", xs(253, "~"), both);
	/* existing without numbered backups: the simple name, shortened */
	expect(xs(253, ""), SC_BACKUP_EXISTING, "~", xs(253, "~"), 0);
	expect(xs(254, ""), SC_BACKUP_EXISTING, "~", xs(253, "~"),
	       SC_BACKUP_NAME_SHORTENED);
	expect(xs(252, ""), SC_BACKUP_EXISTING, ".orig", xs(252, "~"),
	       SC_BACKUP_NAME_SHORTENED);
}
END_TEST

/* Entries are names: a symlink named as a backup counts, and is not
 * followed; a directory part leads to another directory */
START_TEST(symlinks_count_as_names)
{
	char *b = NULL;

	ck_assert_int_eq(symlinkat("nowhere", dfd, "f.~6~"), 0);
	ck_assert_int_eq(symlinkat(".", dfd, "f.~2~"), 0);
	expect("f", SC_BACKUP_NUMBERED, "~", "f.~7~",
	       SC_BACKUP_NAME_NUMBERED);
	ck_assert_int_eq(mkdirat(dfd, "sub", 0755), 0);
	ck_assert_int_eq(symlinkat("sub", dfd, "link"), 0);
	touch("sub/f.~4~");
	expect("sub/f", SC_BACKUP_NUMBERED, "~", "sub/f.~5~",
	       SC_BACKUP_NAME_NUMBERED);
	/* a directory part is resolved as openat(2) resolves it */
	expect("link/f", SC_BACKUP_NUMBERED, "~", "link/f.~5~",
	       SC_BACKUP_NAME_NUMBERED);
	ck_assert_int_eq(fchdir(open(dir, O_RDONLY | O_DIRECTORY)), 0);
	ck_assert_int_eq(sc_backup_name(AT_FDCWD, "sub/f", SC_BACKUP_EXISTING,
					"~", &b), SC_BACKUP_NAME_NUMBERED);
	ck_assert_str_eq(b, "sub/f.~5~");
	free(b);
}
END_TEST

START_TEST(a_directory_that_cannot_be_read_is_an_error)
{
	char path[400];
	char *b = (char *)"unset";

	ck_assert_int_eq(sc_backup_name(dfd, "none/f", SC_BACKUP_NUMBERED,
					"~", &b), -ENOENT);
	ck_assert_ptr_null(b);
	snprintf(path, sizeof(path), "%s/none/f", dir);
	ck_assert_int_eq(sc_backup_name(AT_FDCWD, path, SC_BACKUP_EXISTING,
					"~", &b), -ENOENT);
	ck_assert_ptr_null(b);
	touch("file");
	ck_assert_int_eq(sc_backup_name(dfd, "file/f", SC_BACKUP_NUMBERED,
					"~", &b), -ENOTDIR);
	ck_assert_int_eq(sc_backup_name(-1, "f", SC_BACKUP_NUMBERED, "~",
					&b), -EBADF);
	ck_assert_ptr_null(b);
}
END_TEST

START_TEST(bad_arguments_are_einval)
{
	char *b = (char *)"unset";

	ck_assert_int_eq(sc_backup_name(dfd, NULL, SC_BACKUP_SIMPLE, "~", &b),
			 -EINVAL);
	ck_assert_ptr_null(b);
	ck_assert_int_eq(sc_backup_name(dfd, "", SC_BACKUP_NUMBERED, "~", &b),
			 -EINVAL);
	ck_assert_int_eq(sc_backup_name(dfd, "d/", SC_BACKUP_NUMBERED, "~",
					&b), -EINVAL);
	ck_assert_int_eq(sc_backup_name(dfd, "f", SC_BACKUP_NONE, "~", &b),
			 -EINVAL);
	ck_assert_int_eq(sc_backup_name(dfd, "f", (enum sc_backup)99, "~",
					&b), -EINVAL);
	ck_assert_ptr_null(b);
	ck_assert_int_eq(sc_backup_name(dfd, "f", SC_BACKUP_SIMPLE, "~",
					NULL), -EINVAL);
}
END_TEST

/* Reentrant: threads asking at once, in one directory and in their own,
 * each get their own answer */
struct asker {
	int dirfd;
	const char *name, *want;
	int bad;
};

static void *ask(void *arg)
{
	struct asker *a = arg;

	for (int i = 0; i < 200; i++) {
		char *b = NULL;
		int r = sc_backup_name(a->dirfd, a->name, SC_BACKUP_NUMBERED,
				       "~", &b);

		if (r != SC_BACKUP_NAME_NUMBERED || !b || strcmp(b, a->want))
			a->bad++;
		free(b);
	}
	return NULL;
}

START_TEST(threads_ask_at_once)
{
	static const char *const names[][2] = {
		{ "a", "a.~3~" }, { "b", "b.~1~" }, { "sub/c", "sub/c.~8~" },
		{ "a", "a.~3~" },
	};
	struct asker as[4];
	pthread_t t[4];

	touch("a.~2~");
	ck_assert_int_eq(mkdirat(dfd, "sub", 0755), 0);
	touch("sub/c.~7~");
	for (int i = 0; i < 4; i++) {
		as[i] = (struct asker){ dfd, names[i][0], names[i][1], 0 };
		ck_assert_int_eq(pthread_create(&t[i], NULL, ask, &as[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_eq(as[i].bad, 0);
	}
}
END_TEST

static Suite *backup_suite(void)
{
	Suite *s = suite_create("backup");
	TCase *tc = tcase_create("names");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, numbered_follows_the_highest_through_gaps);
	tcase_add_test(tc, numbered_counts_only_cps_numbers);
	tcase_add_test(tc, existing_is_numbered_only_where_numbers_are);
	tcase_add_test(tc, simple_takes_the_suffix_and_reads_nothing);
	tcase_add_test(tc, names_at_name_max_are_shortened_as_cp_does);
	tcase_add_test(tc, symlinks_count_as_names);
	tcase_add_test(tc, a_directory_that_cannot_be_read_is_an_error);
	tcase_add_test(tc, bad_arguments_are_einval);
	tcase_add_test(tc, threads_ask_at_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(backup_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
