/* dest: what may be done with a destination (-u, -n, removal before a
 * copy, backup names, links made in its place).  The decisions are
 * pure; the names are tried in a scratch directory. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suites.h"
#include "copier.h"
#include "policy/dest.h"
#include "tree/mklink.h"
#include "tree/paths.h"
#include "cli/options.h"

static struct stat at(long sec, long nsec)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0644;
	st.st_nlink = 1;
	st.st_mtim.tv_sec = sec;
	st.st_mtim.tv_nsec = nsec;
	return st;
}

START_TEST(update_older_skips_newer_or_same_age)
{
	struct sc_options o = { .update = SC_UPDATE_OLDER };
	struct stat src = at(100, 5);
	struct stat newer = at(100, 6), same = at(100, 5), older = at(99, 9);

	ck_assert(sc_dest_update_skips(&o, &src, &newer));
	ck_assert(sc_dest_update_skips(&o, &src, &same));
	ck_assert(!sc_dest_update_skips(&o, &src, &older));
}
END_TEST

START_TEST(update_none_and_no_clobber_skip_always)
{
	struct sc_options o = { .update = SC_UPDATE_NONE };
	struct stat src = at(200, 0), older = at(1, 0);

	ck_assert(sc_dest_update_skips(&o, &src, &older));
	o.update = SC_UPDATE_NONE_FAIL;
	ck_assert(sc_dest_update_skips(&o, &src, &older));
	o.update = SC_UPDATE_ALL;
	ck_assert(!sc_dest_update_skips(&o, &src, &older));
}
END_TEST

START_TEST(deref_never_is_P_or_H_below_the_command_line)
{
	struct sc_options o = { .deref = SC_DEREF_NEVER };

	ck_assert(sc_dest_deref_never(&o, true));
	o.deref = SC_DEREF_ARGS;
	ck_assert(!sc_dest_deref_never(&o, true));
	ck_assert(sc_dest_deref_never(&o, false));
	o.deref = SC_DEREF_ALWAYS;
	ck_assert(!sc_dest_deref_never(&o, false));
}
END_TEST

START_TEST(removed_first_when_links_or_types_ask_for_it)
{
	struct sc_options o = { .deref = SC_DEREF_ALWAYS };
	struct stat src = at(1, 0), dst = at(1, 0);

	ck_assert(!sc_dest_must_remove(&o, &src, &dst, false));
	o.remove_destination = true;
	ck_assert(sc_dest_must_remove(&o, &src, &dst, false));
	/* --atomic too: its temporary is then made as a new file */
	o.atomic = true;
	ck_assert(sc_dest_must_remove(&o, &src, &dst, false));
	o.atomic = false;
	o.remove_destination = false;
	/* --preserve=links: a file with other names is not written
	 * through */
	o.preserve_links = true;
	dst.st_nlink = 2;
	ck_assert(sc_dest_must_remove(&o, &src, &dst, false));
	o.attributes_only = true;
	ck_assert(!sc_dest_must_remove(&o, &src, &dst, false));
	/* -P: a symlink source replaces what is there */
	o = (struct sc_options){ .deref = SC_DEREF_NEVER };
	src.st_mode = S_IFLNK | 0777;
	dst.st_nlink = 1;
	ck_assert(sc_dest_must_remove(&o, &src, &dst, false));
}
END_TEST

static char scratch[256];

static void scratch_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(scratch, sizeof(scratch), "%s/check_dest.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void scratch_teardown(void)
{
	char cmd[320];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	ck_assert_int_eq(system(cmd), 0);
}

static void touch(const char *name)
{
	char path[320];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

static void check_backup(const struct sc_options *o, const char *want)
{
	char dst[320], full[400];
	char *b;

	snprintf(dst, sizeof(dst), "%s/f", scratch);
	snprintf(full, sizeof(full), "%s/%s", scratch, want);
	b = sc_dest_backup_name(o, AT_FDCWD, dst);
	ck_assert_str_eq(b, full);
	free(b);
}

/* The same through the directory's descriptor, as the walk asks below
 * the operands: the directory read is the descriptor's. */
static void check_backup_at(const struct sc_options *o, const char *want)
{
	char dst[320], full[400];
	int fd = open(scratch, O_PATH | O_DIRECTORY);
	char *b;

	ck_assert_int_ge(fd, 0);
	snprintf(dst, sizeof(dst), "%s/f", scratch);
	snprintf(full, sizeof(full), "%s/%s", scratch, want);
	b = sc_dest_backup_name(o, fd, dst);
	ck_assert_str_eq(b, full);
	free(b);
	close(fd);
}

START_TEST(simple_backup_takes_the_suffix)
{
	struct sc_options o = { .backup = SC_BACKUP_SIMPLE, .suffix = "~" };

	touch("f");
	check_backup(&o, "f~");
	o.suffix = ".bak";
	check_backup(&o, "f.bak");
}
END_TEST

START_TEST(numbered_backup_follows_the_highest)
{
	struct sc_options o = { .backup = SC_BACKUP_NUMBERED, .suffix = "~" };

	touch("f");
	check_backup(&o, "f.~1~");
	touch("f.~1~");
	touch("f.~7~");
	touch("f.~x~");		/* not a number: not counted */
	touch("g.~9~");		/* another file's */
	check_backup(&o, "f.~8~");
	check_backup_at(&o, "f.~8~");
}
END_TEST

START_TEST(existing_backup_is_numbered_only_where_numbers_are)
{
	struct sc_options o = { .backup = SC_BACKUP_EXISTING, .suffix = "~" };

	touch("f");
	check_backup(&o, "f~");
	touch("f.~2~");
	check_backup(&o, "f.~3~");
}
END_TEST

/* NAME_MAX 255 (the scratch directory's filesystem): a numbered name of
 * 255 bytes or more is NAME~, cut to 253 bytes and "~"; a simple one is
 * left as it is */
START_TEST(long_numbered_backup_names_are_shortened_as_cp_does)
{
	struct sc_options o = { .backup = SC_BACKUP_NUMBERED, .suffix = "~" };
	char name[300], dst[600], want[sizeof(dst) + 8];
	char *b;

	memset(name, 'x', 251);
	name[251] = '\0';
	snprintf(dst, sizeof(dst), "%s/%s", scratch, name);
	touch(name);
	b = sc_dest_backup_name(&o, AT_FDCWD, dst);
	snprintf(want, sizeof(want), "%s~", dst);
	ck_assert_str_eq(b, want);
	free(b);
	name[250] = '\0';	/* 250 + ".~1~": 254 bytes fit */
	snprintf(dst, sizeof(dst), "%s/%s", scratch, name);
	b = sc_dest_backup_name(&o, AT_FDCWD, dst);
	snprintf(want, sizeof(want), "%s.~1~", dst);
	ck_assert_str_eq(b, want);
	free(b);
	memset(name, 'x', 255);
	name[255] = '\0';
	snprintf(dst, sizeof(dst), "%s/%s", scratch, name);
	b = sc_dest_backup_name(&o, AT_FDCWD, dst);
	snprintf(want, sizeof(want), "%s/%.253s~", scratch, name);
	ck_assert_str_eq(b, want);
	free(b);
	o.backup = SC_BACKUP_SIMPLE;
	b = sc_dest_backup_name(&o, AT_FDCWD, dst);
	snprintf(want, sizeof(want), "%s~", dst);
	ck_assert_str_eq(b, want);
	free(b);
}
END_TEST

START_TEST(backup_that_would_move_the_source_is_seen)
{
	struct sc_options o = { .backup = SC_BACKUP_SIMPLE, .suffix = "~" };
	char src[320], dst[320];
	struct stat st;

	touch("f");
	touch("f~");
	snprintf(src, sizeof(src), "%s/f~", scratch);
	snprintf(dst, sizeof(dst), "%s/f", scratch);
	ck_assert_int_eq(stat(src, &st), 0);
	ck_assert(sc_dest_backup_is_source(&o, src, &st, AT_FDCWD, dst));
	ck_assert_int_eq(stat(dst, &st), 0);
	ck_assert(!sc_dest_backup_is_source(&o, dst, &st, AT_FDCWD, dst));
}
END_TEST

START_TEST(link_replaces_only_when_asked)
{
	char target[320], dst[320], buf[64];
	struct tree_at t = { AT_FDCWD, target, target }, d = { AT_FDCWD, dst, dst };
	struct tree_at name_t = { AT_FDCWD, "t", "t" };
	struct stat a, b;
	ssize_t n;

	touch("t");
	touch("d");
	snprintf(target, sizeof(target), "%s/t", scratch);
	snprintf(dst, sizeof(dst), "%s/d", scratch);
	ck_assert_int_eq(walk_make_link(&t, &d, LINK_HARD), -EEXIST);
	/* 1: it replaced an existing name */
	ck_assert_int_eq(walk_make_link(&t, &d, LINK_HARD | LINK_REPLACE),
			 1);
	ck_assert_int_eq(stat(target, &a), 0);
	ck_assert_int_eq(stat(dst, &b), 0);
	ck_assert(a.st_ino == b.st_ino);
	/* a symlink in place of the hard link, in one rename */
	ck_assert_int_eq(walk_make_link(&name_t, &d, LINK_REPLACE), 1);
	n = readlink(dst, buf, sizeof(buf));
	ck_assert_int_eq(n, 1);
	ck_assert(buf[0] == 't');
}
END_TEST

/* LINK_HELD links the object held, not what its name leads to by then:
 * the earlier copy of a hard-linked file, checked and held, then renamed
 * away and something else put in its place, is still the one linked;
 * and an existing name is replaced by it in one rename. */
START_TEST(held_link_is_to_what_is_held)
{
	char path[320], other[320], dst[320];
	struct tree_at d = { AT_FDCWD, dst, dst };
	struct stat held, got, st;
	int fd;

	touch("copy");
	snprintf(path, sizeof(path), "%s/copy", scratch);
	snprintf(other, sizeof(other), "%s/moved", scratch);
	snprintf(dst, sizeof(dst), "%s/y", scratch);
	fd = open(path, O_PATH | O_NOFOLLOW);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &held), 0);
	ck_assert_int_eq(rename(path, other), 0);
	touch("copy");
	ck_assert_int_eq(walk_make_link(&(struct tree_at){ fd, "", path }, &d,
					   LINK_HARD | LINK_HELD), 0);
	ck_assert_int_eq(lstat(dst, &got), 0);
	ck_assert(got.st_ino == held.st_ino && got.st_dev == held.st_dev);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(st.st_ino != held.st_ino);
	ck_assert_int_eq(unlink(dst), 0);
	touch("y");
	ck_assert_int_eq(walk_make_link(&(struct tree_at){ fd, "", path }, &d,
					   LINK_HARD | LINK_HELD | LINK_REPLACE),
			 1);
	ck_assert_int_eq(lstat(dst, &got), 0);
	ck_assert(got.st_ino == held.st_ino);
	close(fd);
}
END_TEST

/* --atomic's temporary is made with the mode asked for, as open(2) makes
 * a file (less the umask): never with set-id or sticky bits, which it
 * once got from whatever was in the register O_TMPFILE's mode is read
 * from.  By path and by the directory's descriptor, then committed. */
START_TEST(atomic_temporary_has_the_mode_asked)
{
	static const mode_t modes[] = { 0600, 0755, 0640, 0700, 0444 };
	char dst[320];
	mode_t old = umask(022);
	struct sc_copier *c;
	struct sc_copy_ctx *x;

	/* the temporaries are the library's now (lib/target.c) */
	ck_assert_int_eq(sc_copier_new(0, &c), 0);
	ck_assert_int_eq(sc_copy_ctx_new(c, &x), 0);
	snprintf(dst, sizeof(dst), "%s/f", scratch);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		for (int by_fd = 0; by_fd < 2; by_fd++) {
			int dirfd = by_fd ? open(scratch, O_PATH | O_DIRECTORY) :
					    AT_FDCWD;
			struct tree_at d = { dirfd, by_fd ? "f" : dst, dst };
			struct stat st;
			bool named;
			int fd;

			fd = sc_target_temp_open(x, d.dirfd, d.name, modes[i],
						 &named);
			ck_assert_int_ge(fd, 0);
			ck_assert_int_eq(fstat(fd, &st), 0);
			ck_assert_uint_eq(st.st_mode & 07777, modes[i] & ~022);
			ck_assert_int_eq(write(fd, "x", 1), 1);
			ck_assert_int_eq(sc_target_temp_commit(x, fd, d.dirfd,
							       d.name, named,
							       i == 0 &&
							       !by_fd), 0);
			close(fd);
			ck_assert_int_eq(stat(dst, &st), 0);
			ck_assert_uint_eq(st.st_mode & 07777, modes[i] & ~022);
			ck_assert_int_eq(st.st_size, 1);
			if (dirfd >= 0)
				close(dirfd);
		}
	}
	umask(old);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

/* --atomic through a symlink: the chain is followed from the link's
 * directory to the last target's directory and name; a link to nowhere
 * says so (st_mode 0); not a link: 0; a loop: ELOOP; a link to a
 * directory: EISDIR. */
START_TEST(resolve_follows_a_chain_of_links)
{
	char path[400], name[64];
	struct tree_at d = { AT_FDCWD, path, path };
	struct stat st, want;
	int dirfd;
	char *tname;

	snprintf(path, sizeof(path), "%s/sub", scratch);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	touch("sub/t");
	snprintf(path, sizeof(path), "%s/sub/t", scratch);
	ck_assert_int_eq(stat(path, &want), 0);
	snprintf(path, sizeof(path), "%s/hop", scratch);
	ck_assert_int_eq(symlink("sub/t", path), 0);
	snprintf(path, sizeof(path), "%s/sub/l", scratch);
	ck_assert_int_eq(symlink("../hop", path), 0);

	/* sub/l -> ../hop -> sub/t */
	ck_assert_int_eq(sc_target_resolve(d.dirfd, d.name, &dirfd, &tname, &st), 1);
	ck_assert_str_eq(tname, "t");
	ck_assert(st.st_ino == want.st_ino && S_ISREG(st.st_mode));
	snprintf(name, sizeof(name), "t");
	ck_assert_int_eq(fstatat(dirfd, name, &st, 0), 0);
	ck_assert(st.st_ino == want.st_ino);
	close(dirfd);
	free(tname);

	/* not a link */
	snprintf(path, sizeof(path), "%s/sub/t", scratch);
	ck_assert_int_eq(sc_target_resolve(d.dirfd, d.name, &dirfd, &tname, &st), 0);
	ck_assert_int_eq(dirfd, -1);

	/* dangling */
	snprintf(path, sizeof(path), "%s/dangling", scratch);
	ck_assert_int_eq(symlink("sub/none", path), 0);
	ck_assert_int_eq(sc_target_resolve(d.dirfd, d.name, &dirfd, &tname, &st), 1);
	ck_assert_str_eq(tname, "none");
	ck_assert_uint_eq(st.st_mode, 0);
	close(dirfd);
	free(tname);

	/* a loop, a directory */
	snprintf(path, sizeof(path), "%s/loop", scratch);
	ck_assert_int_eq(symlink("loop", path), 0);
	ck_assert_int_eq(sc_target_resolve(d.dirfd, d.name, &dirfd, &tname, &st), -ELOOP);
	snprintf(path, sizeof(path), "%s/todir", scratch);
	ck_assert_int_eq(symlink("sub/", path), 0);
	ck_assert_int_eq(sc_target_resolve(d.dirfd, d.name, &dirfd, &tname, &st), -EISDIR);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("..", path), 0);
	ck_assert_int_eq(sc_target_resolve(d.dirfd, d.name, &dirfd, &tname, &st), -EISDIR);
}
END_TEST

Suite *dest_suite(void)
{
	Suite *s = suite_create("dest");
	TCase *tc = tcase_create("policy");

	tcase_add_test(tc, update_older_skips_newer_or_same_age);
	tcase_add_test(tc, update_none_and_no_clobber_skip_always);
	tcase_add_test(tc, deref_never_is_P_or_H_below_the_command_line);
	tcase_add_test(tc, removed_first_when_links_or_types_ask_for_it);
	suite_add_tcase(s, tc);
	tc = tcase_create("names");
	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_add_test(tc, simple_backup_takes_the_suffix);
	tcase_add_test(tc, numbered_backup_follows_the_highest);
	tcase_add_test(tc, existing_backup_is_numbered_only_where_numbers_are);
	tcase_add_test(tc, long_numbered_backup_names_are_shortened_as_cp_does);
	tcase_add_test(tc, backup_that_would_move_the_source_is_seen);
	tcase_add_test(tc, link_replaces_only_when_asked);
	tcase_add_test(tc, held_link_is_to_what_is_held);
	tcase_add_test(tc, atomic_temporary_has_the_mode_asked);
	tcase_add_test(tc, resolve_follows_a_chain_of_links);
	suite_add_tcase(s, tc);
	return s;
}
