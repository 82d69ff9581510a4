/* libsmartcp keeps its word (issue 36): what <smartcp/smartcp.h> and
 * libsmartcp(3) promise, tried as a new user of API 1 would, each case a
 * reproducer of a defect that user found -- in round 2 (issue 36 itself)
 * and round 3 (the caller's descriptors checked before anything, a
 * cancel from another thread through sc_copier_ctx, sc_made_check's
 * MODE, copy_path onto a FIFO or a device, a socket descriptor as the
 * source, metadata onto itself, fd_short for every open).  Built from the public header
 * alone and linked against the shared library: make check builds it
 * against the build tree, tests/integration/t-lib-installed-word.sh
 * against an installed library (pkg-config smartcp). */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <smartcp/smartcp.h>

#define MIN_(a, b) ((a) < (b) ? (a) : (b))

static char dir[256];
static int dfd = -1;

static void setup(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/check_word.XXXXXX", t ? t : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
}

static void teardown(void)
{
	char cmd[2 * sizeof(dir) + 64];

	close(dfd);
	dfd = -1;
	/* a tmpfs a failed test left */
	snprintf(cmd, sizeof(cmd), "%s/small", dir);
	umount2(cmd, MNT_DETACH);
	/* the tests make files of any kind and mode in it: rm knows them */
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", dir,
		 dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* NAME in the test directory, as a path (four at a time). */
static const char *path(const char *name)
{
	static char p[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

/* Writes LEN bytes of a pattern seeded by SEED to NAME (mode 0644). */
static void make_file(const char *name, size_t len, int seed)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char buf[4096];

	ck_assert_int_ge(fd, 0);
	for (size_t done = 0; done < len;) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);

		for (size_t i = 0; i < n; i++)
			buf[i] = (char)((done + i) * 131 + (size_t)seed);
		ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
		done += n;
	}
	close(fd);
}

/* Does NAME hold exactly LEN bytes of make_file()'s pattern SEED? */
static bool holds(const char *name, size_t len, int seed)
{
	int fd = openat(dfd, name, O_RDONLY);
	size_t at = 0;
	char buf[4096];
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++, at++)
			if (at >= len || buf[i] != (char)(at * 131 +
							  (size_t)seed)) {
				close(fd);
				return false;
			}
	}
	close(fd);
	return n == 0 && at == len;
}

static struct stat stat_of(const char *name)
{
	struct stat st;

	ck_assert_int_eq(fstatat(dfd, name, &st, 0), 0);
	return st;
}

/* A copier with FLAGS, and a context of its own. */
static struct sc_copier *copier(unsigned flags, struct sc_copy_ctx **x)
{
	struct sc_copier *c = NULL;

	ck_assert_int_eq(sc_copier_new(flags, &c), 0);
	if (x)
		ck_assert_int_eq(sc_copy_ctx_new(c, x), 0);
	return c;
}

/* The args of a copy of NAME to DNAME in the test directory. */
static struct sc_copy_args args_of(const char *name, const char *dname,
				   unsigned flags)
{
	return (struct sc_copy_args){
		.size = sizeof(struct sc_copy_args),
		.src_dirfd = dfd, .src_name = name, .src_fd = -1,
		.dst_dirfd = dfd, .dst_name = dname, .dst_fd = -1,
		.flags = flags,
	};
}

/* The first event of REP of KIND, into EV; false when there is none. */
static bool
find_event(const struct sc_copy_report *rep,
		       enum sc_event_kind kind, struct sc_event *ev)
{
	for (unsigned i = 0; i < sc_copy_report_events(rep); i++) {
		*ev = (struct sc_event){ .size = sizeof(*ev) };
		ck_assert_int_eq(sc_copy_report_event(rep, i, ev), 0);
		if (ev->kind == kind)
			return true;
	}
	return false;
}

/* Every option bit of sc_copier_new, alone, then some together. */
static const unsigned copy_flags[] = {
	0, SC_COPY_VERIFY, SC_COPY_SYNC, SC_COPY_ATOMIC, SC_COPY_IF_CHANGED,
	SC_COPY_NO_DATA, SC_COPY_KEEP_MODE, SC_COPY_KEEP_OWNER,
	SC_COPY_KEEP_TIMES, SC_COPY_KEEP_XATTR, SC_COPY_DEFAULT_MODE,
	SC_COPY_META_STRICT, SC_COPY_XATTR_STRICT, SC_COPY_LIVE_SOURCE,
	SC_COPY_VERIFY | SC_COPY_ATOMIC, SC_COPY_VERIFY | SC_COPY_SYNC,
	SC_COPY_VERIFY | SC_COPY_LIVE_SOURCE,
	SC_COPY_ATOMIC | SC_COPY_KEEP_MODE | SC_COPY_KEEP_OWNER |
	SC_COPY_KEEP_TIMES | SC_COPY_KEEP_XATTR,
	(SC_COPY_LIVE_SOURCE << 1) - 1,
};
#define N_COPY_FLAGS (sizeof(copy_flags) / sizeof(copy_flags[0]))

/* ---- 1. a file copied onto itself ------------------------------------ */

/* sc_copy_ctx_copy of a file onto itself -- by the same name, a hard
 * link or a symlink to it, the destination looked at by the library or
 * by the caller (dst_st), with every flag -- is refused with -EINVAL, as
 * sc_copier_copy_path and _copy_fd refuse it, and the file is left as it
 * was: its bytes and its inode.  sc_copy_ctx_explain says the same. */
START_TEST(self_copy_is_refused_under_every_flag)
{
	static const char *const dsts[] = { "a", "hard", "sym", "symsym" };
	static const unsigned file_flags[] = {
		0, SC_FILE_FORCE, SC_FILE_DANGLING, SC_FILE_NOFOLLOW,
		SC_FILE_SOURCE_ANY,
	};
	struct sc_copy_report *rep = NULL;
	struct stat before;

	make_file("a", 70000, 1);
	ck_assert_int_eq(linkat(dfd, "a", dfd, "hard", 0), 0);
	ck_assert_int_eq(symlinkat("a", dfd, "sym"), 0);
	ck_assert_int_eq(symlinkat("sym", dfd, "symsym"), 0);
	before = stat_of("a");
	ck_assert_int_eq(sc_copy_report_new(&rep), 0);
	for (size_t i = 0; i < N_COPY_FLAGS; i++) {
		struct sc_copy_ctx *x = NULL;
		struct sc_copier *c = copier(copy_flags[i], &x);

		for (size_t d = 0; d < 4; d++)
		for (size_t k = 0; k < 5; k++)
		for (int given = 0; given < 2; given++) {
			struct sc_copy_args a = args_of("a", dsts[d],
							file_flags[k]);
			struct stat dst_st = stat_of(dsts[d]), now;
			int e;

			if (given)
				a.dst_st = &dst_st;
			e = sc_copy_ctx_copy(x, &a, rep);
			ck_assert_msg(e == -EINVAL,
				      "copy a -> %s, flags %#x, file flags "
				      "%#x, dst_st %d: %d (%s), not -EINVAL",
				      dsts[d], copy_flags[i], file_flags[k],
				      given, e, strerror(-e));
			ck_assert_int_eq(sc_copy_report_error(rep), -EINVAL);
			ck_assert_msg(holds("a", 70000, 1),
				      "a -> %s, flags %#x: the file changed",
				      dsts[d], copy_flags[i]);
			now = stat_of("a");
			ck_assert(now.st_ino == before.st_ino);
			ck_assert(now.st_mtim.tv_sec == before.st_mtim.tv_sec &&
				  now.st_mtim.tv_nsec ==
				  before.st_mtim.tv_nsec);
			e = sc_copy_ctx_explain(x, &a, rep);
			ck_assert_msg(e == -EINVAL,
				      "explain a -> %s, flags %#x, file flags "
				      "%#x: %d, not -EINVAL", dsts[d],
				      copy_flags[i], file_flags[k], e);
		}
		sc_copy_ctx_free(x);
		sc_copier_free(c);
	}
	sc_copy_report_free(rep);
}
END_TEST

/* The same file through descriptors: the caller's source descriptor
 * and a destination by name or by descriptor. */
START_TEST(self_copy_by_descriptor_is_refused)
{
	for (size_t i = 0; i < N_COPY_FLAGS; i++) {
		struct sc_copy_ctx *x = NULL;
		struct sc_copier *c = copier(copy_flags[i], &x);
		int in, out;
		struct sc_copy_args a;

		make_file("a", 5000, 2);
		in = openat(dfd, "a", O_RDONLY);
		out = openat(dfd, "a", O_RDWR);
		a = args_of(NULL, "a", 0);
		a.src_fd = in;
		ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), -EINVAL);
		ck_assert(holds("a", 5000, 2));
		a.dst_name = NULL;
		a.dst_fd = out;
		ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), -EINVAL);
		ck_assert(holds("a", 5000, 2));
		ck_assert_int_eq(sc_copier_copy_fd(c, in, out, NULL), -EINVAL);
		ck_assert_int_eq(sc_copier_copy_path(c, path("a"), path("a"),
						     NULL), -EINVAL);
		ck_assert(holds("a", 5000, 2));
		close(in);
		close(out);
		sc_copy_ctx_free(x);
		sc_copier_free(c);
	}
}
END_TEST

/* ---- 3. a FIFO source without SC_FILE_SOURCE_ANY --------------------- */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A writer waiting in open(2) for the FIFO's first reader. */
struct writer {
	const char *path;
	atomic_int opened;
	int fd;
};

static void *open_writer(void *arg)
{
	struct writer *w = arg;

	w->fd = open(w->path, O_WRONLY | O_CLOEXEC);
	atomic_store(&w->opened, 1);
	return NULL;
}

/* Without SC_FILE_SOURCE_ANY only regular files are copied: a FIFO is
 * refused with -EINVAL at once -- it is never opened for reading, so the
 * call does not wait for a writer, and a writer waiting for a reader is
 * not woken -- and the destination is neither made nor touched.  Explain
 * says the same. */
START_TEST(fifo_source_is_einval_at_once)
{
	struct sc_copy_ctx *x = NULL;
	struct sc_copier *c = copier(0, &x);
	struct sc_copy_args a = args_of("fifo", "out", 0);
	struct writer w = { .path = path("fifo"), .fd = -1 };
	pthread_t t;
	double t0;
	int e, rd;

	ck_assert_int_eq(mkfifoat(dfd, "fifo", 0644), 0);
	make_file("old", 3000, 3);
	/* no writer: an open for reading would wait for one (this test
	 * case's timeout ends it) */
	t0 = now_s();
	e = sc_copy_ctx_copy(x, &a, NULL);
	ck_assert_int_eq(e, -EINVAL);
	ck_assert_msg(now_s() - t0 < 1.0, "refused after %.2f s",
		      now_s() - t0);
	ck_assert_int_eq(faccessat(dfd, "out", F_OK, 0), -1);
	/* a writer waiting for a reader */
	ck_assert_int_eq(pthread_create(&t, NULL, open_writer, &w), 0);
	usleep(100000);		/* the writer is in open(2) now */
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), -EINVAL);
	ck_assert_int_eq(faccessat(dfd, "out", F_OK, 0), -1);
	a.dst_name = "old";
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), -EINVAL);
	ck_assert(holds("old", 3000, 3));
	ck_assert_int_eq(sc_copy_ctx_explain(x, &a, NULL), -EINVAL);
	ck_assert_int_eq(sc_copier_copy_path(c, path("fifo"), path("out"),
					     NULL), -EINVAL);
	usleep(100000);
	ck_assert_msg(!atomic_load(&w.opened),
		      "the FIFO was opened for reading: its writer woke");
	/* let the writer go */
	rd = open(path("fifo"), O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(rd, 0);
	pthread_join(t, NULL);
	close(rd);
	close(w.fd);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

/* A device is no regular file either: -EINVAL without SC_FILE_SOURCE_ANY
 * (a character device of our own, null's numbers; root only). */
START_TEST(device_source_is_einval)
{
	struct sc_copy_ctx *x = NULL;
	struct sc_copier *c;
	struct sc_copy_args a = args_of("null", "out", 0);

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP device_source_is_einval: not root\n");
		return;
	}
	ck_assert_int_eq(mknodat(dfd, "null", S_IFCHR | 0666, makedev(1, 3)),
			 0);
	c = copier(0, &x);
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), -EINVAL);
	ck_assert_int_eq(faccessat(dfd, "out", F_OK, 0), -1);
	ck_assert_int_eq(sc_copy_ctx_explain(x, &a, NULL), -EINVAL);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

/* ---- 4. a forced road that cannot be taken ----------------------------- */

/* Can the test directory's filesystem share extents (FICLONE)? */
static bool dir_can_clone(void)
{
	int a, b;
	bool can;

	make_file("probe-a", 4096, 9);
	a = openat(dfd, "probe-a", O_RDONLY);
	b = openat(dfd, "probe-b", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(a, 0);
	ck_assert_int_ge(b, 0);
	can = ioctl(b, FICLONE, a) == 0;
	close(a);
	close(b);
	unlinkat(dfd, "probe-a", 0);
	unlinkat(dfd, "probe-b", 0);
	return can;
}

/* A file of 5000 bytes of ours on a tmpfs that is not the test
 * directory's filesystem (/dev/shm), its path in BUF; false if none. */
static bool other_fs_file(char *buf, size_t size)
{
	struct stat d, o;
	int fd;

	snprintf(buf, size, "/dev/shm/check_word.XXXXXX");
	if (fstat(dfd, &d) < 0 || stat("/dev/shm", &o) < 0 ||
	    d.st_dev == o.st_dev)
		return false;
	fd = mkstemp(buf);
	if (fd < 0)
		return false;
	for (int i = 0; i < 5; i++)
		if (write(fd, "0123456789", 10) != 10)
			ck_abort_msg("cannot write %s", buf);
	close(fd);
	return true;
}

/* One copy that no road can take, by each way in: OLD keeps its bytes. */
static void no_road_taken(struct sc_copier *c, const char *src_path,
			  const char *what)
{
	struct sc_copy_ctx *x = NULL;
	struct sc_copy_args a = args_of(NULL, "old", 0);
	int in, out, e;

	ck_assert_int_eq(sc_copy_ctx_new(c, &x), 0);
	a.src_dirfd = AT_FDCWD;
	a.src_name = src_path;
	make_file("old", 9000, 4);
	e = sc_copy_ctx_copy(x, &a, NULL);
	ck_assert_msg(e == -EOPNOTSUPP, "%s: copy %d", what, e);
	ck_assert_msg(holds("old", 9000, 4), "%s: copy touched old", what);
	/* the caller's descriptor */
	in = open(src_path, O_RDONLY);
	out = openat(dfd, "old", O_RDWR);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(out, 0);
	e = sc_copier_copy_fd(c, in, out, NULL);
	ck_assert_msg(e == -EOPNOTSUPP, "%s: copy_fd %d", what, e);
	ck_assert_msg(holds("old", 9000, 4), "%s: copy_fd touched old", what);
	a = args_of(NULL, NULL, 0);
	a.src_fd = in;
	a.dst_fd = out;
	e = sc_copy_ctx_copy(x, &a, NULL);
	ck_assert_msg(e == -EOPNOTSUPP, "%s: dst_fd %d", what, e);
	ck_assert_msg(holds("old", 9000, 4), "%s: dst_fd touched old", what);
	close(in);
	close(out);
	sc_copy_ctx_free(x);
}

/* Roads forced (or SC_REFLINK_ALWAYS) that cannot be taken here fail
 * with -EOPNOTSUPP and leave an existing destination as it was -- by
 * name, by sc_copier_copy_fd and by a destination descriptor -- and a
 * forced road that can be taken still replaces all of a longer old
 * file. */
START_TEST(forced_road_that_fails_leaves_dst_intact)
{
	char other[64];
	struct sc_copier *c;
	struct sc_copy_ctx *x = NULL;
	struct sc_copy_args a;

	make_file("src", 5000, 5);
	if (dir_can_clone()) {
		fprintf(stderr, "SKIP clone cases: %s clones\n", dir);
	} else {
		c = copier(0, NULL);
		ck_assert_int_eq(sc_copier_set_roads(c,
				 SC_ROAD_BIT(SC_ROAD_CLONE), true), 0);
		no_road_taken(c, path("src"), "clone forced");
		sc_copier_free(c);
		c = copier(0, NULL);
		ck_assert_int_eq(sc_copier_set_reflink(c, SC_REFLINK_ALWAYS),
				 0);
		no_road_taken(c, path("src"), "reflink always");
		sc_copier_free(c);
	}
	/* copy_file_range between two filesystems of which neither is a
	 * network one: EXDEV since Linux 5.19 (a file of ours on tmpfs) */
	if (other_fs_file(other, sizeof(other)) &&
	    sc_kernel_at_least(sc_kernel_running(), 5, 19)) {
		c = copier(0, NULL);
		ck_assert_int_eq(sc_copier_set_roads(c,
				 SC_ROAD_BIT(SC_ROAD_CLONE) |
				 SC_ROAD_BIT(SC_ROAD_RANGE), true), 0);
		no_road_taken(c, other, "clone, copy_file_range");
		sc_copier_free(c);
		unlink(other);
	} else {
		fprintf(stderr, "SKIP copy_file_range case: no /dev/shm on "
			"another filesystem, or Linux before 5.19\n");
	}
	/* a road that serves: the old file's longer tail goes */
	c = copier(0, &x);
	ck_assert_int_eq(sc_copier_set_roads(c, SC_ROAD_BIT(SC_ROAD_RANGE),
					     true), 0);
	make_file("old", 9000, 4);
	a = args_of("src", "old", 0);
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), 0);
	ck_assert(holds("old", 5000, 5));
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

/* ---- 5. sc_copier_copy_path over a file its caller may not write ------- */

/* Runs FN in a child process as nobody, in the directory NAME (made for
 * nobody in the test directory, its descriptor FN's argument): FN's
 * return is the child's exit status, 0 for success.  False when not
 * root (the case is skipped). */
static bool as_nobody(const char *name, int (*fn)(int dfd))
{
	int status, sub;
	pid_t pid;

	if (geteuid() != 0)
		return false;
	ck_assert_int_eq(mkdirat(dfd, name, 0755), 0);
	ck_assert_int_eq(fchownat(dfd, name, 65534, 65534, 0), 0);
	sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(sub, 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* the working directory: reached whatever the permissions
		 * of the directories above it */
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) || fchdir(sub) < 0)
			_exit(99);
		_exit(fn(sub));
	}
	close(sub);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "as nobody: case %d failed (status %#x)",
		      WIFEXITED(status) ? WEXITSTATUS(status) : -1, status);
	return true;
}

/* A file of N bytes of pattern SEED as NAME in D, mode MODE. */
static int put(int d, const char *name, size_t n, int seed, mode_t mode)
{
	int fd = openat(d, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char buf[256];

	if (fd < 0)
		return -1;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 131 + (size_t)seed);
	for (size_t done = 0; done < n; done += sizeof(buf))
		if (write(fd, buf, n - done < sizeof(buf) ? n - done :
			  sizeof(buf)) < 0)
			return -1;
	fchmod(fd, mode);
	return close(fd);
}

/* Does NAME in D hold N bytes of put()'s pattern SEED? */
static bool has(int d, const char *name, size_t n, int seed)
{
	int fd = openat(d, name, O_RDONLY);
	char buf[8192];
	ssize_t got = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (buf[i] != (char)((i % 256) * 131 + (size_t)seed))
			return false;
	return true;
}

/* As nobody, in D (the working directory): copy_path over a 0444 file
 * of nobody's. */
static int copy_path_over_read_only(int d)
{
	struct sc_copy_ctx *x = NULL;
	struct sc_copier *c = NULL;
	struct sc_copy_args a = {
		.size = sizeof(a), .src_dirfd = d, .src_name = "src",
		.src_fd = -1, .dst_dirfd = d, .dst_name = "ro", .dst_fd = -1,
	};
	struct stat before, after;

	if (put(d, "src", 5000, 1, 0644) || put(d, "ro", 3000, 2, 0444) ||
	    put(d, "rw", 3000, 3, 0644) || symlinkat("ro", d, "lnk") ||
	    fstatat(d, "ro", &before, 0) || sc_copier_new(0, &c) < 0)
		return 2;
	/* a file the caller may write is replaced, as before */
	if (sc_copier_copy_path(c, "src", "rw", NULL) != 0 ||
	    !has(d, "rw", 5000, 1))
		return 3;
	if (sc_copier_copy_path(c, "src", "ro", NULL) != -EACCES)
		return 4;
	if (sc_copier_copy_path(c, "src", "lnk", NULL) != -EACCES)
		return 5;
	if (!has(d, "ro", 3000, 2) || fstatat(d, "ro", &after, 0) ||
	    after.st_ino != before.st_ino)
		return 6;
	sc_copier_free(c);
	/* as SC_COPY_ATOMIC refuses it */
	if (sc_copier_new(SC_COPY_ATOMIC, &c) < 0 ||
	    sc_copy_ctx_new(c, &x) < 0 ||
	    sc_copy_ctx_copy(x, &a, NULL) != -EACCES || !has(d, "ro", 3000, 2))
		return 7;
	sc_copy_ctx_free(x);
	sc_copier_free(c);
	return 0;
}

/* sc_copier_copy_path, atomic as SC_COPY_ATOMIC is, refuses as it does
 * to replace a file the caller may not write (-EACCES), also through a
 * symlink, and leaves it as it was. */
START_TEST(copy_path_refuses_a_file_it_may_not_write)
{
	if (!as_nobody("nobody", copy_path_over_read_only))
		fprintf(stderr, "SKIP copy_path_refuses_a_file_it_may_not_"
			"write: not root\n");
}
END_TEST

/* ---- 6. sc_copier_set_xattr_conf --------------------------------------- */

/* An access ACL as the kernel stores it (system.posix_acl_access):
 * version 2, then (tag, perm, id) entries: owner rw, user nobody r,
 * group r, mask r, other r. */
static const unsigned char acl_xattr[] = {
	2, 0, 0, 0,
	0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,	/* ACL_USER_OBJ rw- */
	0x02, 0, 4, 0, 0xfe, 0xff, 0, 0,	/* ACL_USER 65534 r-- */
	0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,	/* ACL_GROUP_OBJ r-- */
	0x10, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,	/* ACL_MASK r-- */
	0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,	/* ACL_OTHER r-- */
};

/* A source with a user attribute and an access ACL; false when the
 * test directory's filesystem takes neither. */
static bool make_attr_source(const char *name)
{
	make_file(name, 100, 6);
	return setxattr(path(name), "user.word", "36", 2, 0) == 0 &&
	       setxattr(path(name), "system.posix_acl_access", acl_xattr,
			sizeof(acl_xattr), 0) == 0;
}

/* sc_copier_set_xattr_conf(c, NULL): no xattr.conf, and then every
 * attribute is copied but ACLs, which SC_COPY_KEEP_MODE keeps.  A conf
 * path that does not exist is reported (SC_EV_META_XATTR_CONF, -ENOENT,
 * ATTR the path), as one that cannot be read is. */
START_TEST(xattr_conf_null_copies_all_but_acls)
{
	static const char *const missing = "/nonexistent/xattr.conf";
	struct sc_copy_report *rep = NULL;
	struct sc_copy_ctx *x = NULL;
	struct sc_copier *c;
	struct sc_copy_args a = args_of("src", "dst", 0);
	struct sc_event ev;
	char v[64];

	if (!make_attr_source("src")) {
		fprintf(stderr, "SKIP xattr_conf_null_copies_all_but_acls: no "
			"user xattrs or ACLs in %s\n", dir);
		return;
	}
	c = copier(SC_COPY_KEEP_XATTR, &x);
	ck_assert_int_eq(sc_copier_set_xattr_conf(c, NULL), 0);
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), 0);
	ck_assert_int_eq(getxattr(path("dst"), "user.word", v, sizeof(v)), 2);
	ck_assert_msg(getxattr(path("dst"), "system.posix_acl_access", v,
			       sizeof(v)) < 0 && errno == ENODATA,
		      "the ACL was copied without SC_COPY_KEEP_MODE");
	sc_copy_ctx_free(x);
	sc_copier_free(c);
	/* with SC_COPY_KEEP_MODE the ACL comes */
	c = copier(SC_COPY_KEEP_XATTR | SC_COPY_KEEP_MODE, &x);
	ck_assert_int_eq(sc_copier_set_xattr_conf(c, NULL), 0);
	a.dst_name = "dst2";
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), 0);
	ck_assert_int_gt(getxattr(path("dst2"), "system.posix_acl_access", v,
				  sizeof(v)), 0);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
	/* a conf that does not exist */
	c = copier(SC_COPY_KEEP_XATTR, &x);
	ck_assert_int_eq(sc_copy_report_new(&rep), 0);
	ck_assert_int_eq(sc_copier_set_xattr_conf(c, missing), 0);
	a.dst_name = "dst3";
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), 0);
	ck_assert_msg(find_event(rep, SC_EV_META_XATTR_CONF, &ev),
		      "no SC_EV_META_XATTR_CONF for %s", missing);
	ck_assert_int_eq(ev.err, -ENOENT);
	ck_assert_str_eq(ev.attr, missing);
	ck_assert(!ev.fatal);
	sc_copy_report_free(rep);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

/* ---- 7. a destination descriptor after a failure ---------------------- */

static int cancel_at_once(void *arg, uint64_t done, enum sc_road road)
{
	(void)arg;
	(void)road;
	return done > 0;	/* cancel after the first step */
}

static off_t fd_size(int fd)
{
	struct stat st;

	ck_assert_int_eq(fstat(fd, &st), 0);
	return st.st_size;
}

/* A destination given as DST_FD is emptied when the copy fails after it
 * wrote -- cancelled, or out of space -- as a file overwritten in place
 * is: never left holding a prefix of the source that looks like a file.
 * sc_copier_copy_fd is the same pipeline. */
START_TEST(dst_fd_is_emptied_after_cancel_and_enospc)
{
	struct sc_copy_ctx *x = NULL;
	struct sc_copier *c = copier(0, &x);
	struct sc_copy_args a = args_of(NULL, NULL, 0);
	int in, out;

	make_file("src", 4 << 20, 7);
	make_file("old", 9000, 8);
	in = openat(dfd, "src", O_RDONLY);
	out = openat(dfd, "old", O_RDWR);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(out, 0);
	/* read_write: many steps, one progress call each */
	ck_assert_int_eq(sc_copier_set_roads(c, SC_ROAD_BIT(SC_ROAD_RW),
					     false), 0);
	sc_copy_ctx_set_progress(x, cancel_at_once, NULL);
	a.src_fd = in;
	a.dst_fd = out;
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), -ECANCELED);
	ck_assert_msg(fd_size(out) == 0, "cancelled: %lld bytes left",
		      (long long)fd_size(out));
	sc_copy_ctx_reset_cancel(x);
	sc_copy_ctx_set_progress(sc_copier_ctx(c), cancel_at_once, NULL);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, NULL), -ECANCELED);
	ck_assert_int_eq(fd_size(out), 0);
	sc_copy_ctx_reset_cancel(sc_copier_ctx(c));
	sc_copy_ctx_set_progress(sc_copier_ctx(c), NULL, NULL);
	close(out);
	sc_copy_ctx_free(x);
	sc_copier_free(c);

	/* out of space: a tmpfs of 256 KiB of our own (root) */
	if (geteuid() != 0 || mkdirat(dfd, "small", 0755) < 0 ||
	    mount("tmpfs", path("small"), "tmpfs", 0, "size=256k") < 0) {
		fprintf(stderr, "SKIP ENOSPC case: cannot mount a tmpfs\n");
		close(in);
		return;
	}
	c = copier(0, &x);
	out = openat(dfd, "small/out", O_RDWR | O_CREAT, 0644);
	ck_assert_int_ge(out, 0);
	ck_assert_int_eq(write(out, "old bytes", 9), 9);
	a.dst_fd = out;
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), -ENOSPC);
	ck_assert_msg(fd_size(out) == 0, "ENOSPC: %lld bytes left",
		      (long long)fd_size(out));
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, NULL), -ENOSPC);
	ck_assert_int_eq(fd_size(out), 0);
	close(out);
	close(in);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
	ck_assert_int_eq(umount2(path("small"), MNT_DETACH), 0);
}
END_TEST

/* ---- 8. SIGPIPE -------------------------------------------------------- */

static volatile sig_atomic_t pipe_signals;

static void on_sigpipe(int sig)
{
	(void)sig;
	pipe_signals++;
}

/* Copies SRC into a pipe (or a socket) whose reader is gone, by ROAD;
 * the call's return. */
static int copy_into_broken(struct sc_copier *c, int in, bool sock)
{
	int p[2], e;

	if (sock)
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
	else
		ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	e = sc_copier_copy_fd(c, in, p[1], NULL);
	close(p[1]);
	return e;
}

static bool sigpipe_pending(void)
{
	sigset_t set;

	ck_assert_int_eq(sigpending(&set), 0);
	return sigismember(&set, SIGPIPE);
}

static bool sigpipe_blocked(void)
{
	sigset_t set;

	ck_assert_int_eq(pthread_sigmask(SIG_BLOCK, NULL, &set), 0);
	return sigismember(&set, SIGPIPE);
}

/* A copy into a pipe or a socket whose reader is gone returns -EPIPE --
 * by read_write and by splice -- and does not end the process, whose
 * SIGPIPE is left at its default action: the library keeps the signal
 * its own write raised from it, and leaves the signal mask, a SIGPIPE
 * the caller had pending, a handler the caller installed (which is
 * called, as the caller asked) and an ignored SIGPIPE as they were. */
START_TEST(broken_pipe_is_epipe_not_death)
{
	static const unsigned roads[] = {
		SC_ROAD_BIT(SC_ROAD_RW), SC_ROAD_BIT(SC_ROAD_SPLICE),
	};
	struct sigaction sa = { .sa_handler = on_sigpipe }, now;
	sigset_t pipe_set;
	int in;

	signal(SIGPIPE, SIG_DFL);
	make_file("src", 1 << 20, 10);
	in = openat(dfd, "src", O_RDONLY);
	ck_assert_int_ge(in, 0);
	for (size_t r = 0; r < 2; r++)
	for (int sock = 0; sock < 2; sock++) {
		struct sc_copier *c;

		if (sock && r == 1)
			continue;	/* splice into a socket: EINVAL? */
		c = copier(0, NULL);
		ck_assert_int_eq(sc_copier_set_roads(c, roads[r], true), 0);
		/* the default action: the process would end */
		ck_assert_int_eq(copy_into_broken(c, in, sock), -EPIPE);
		ck_assert(!sigpipe_pending());
		ck_assert(!sigpipe_blocked());
		ck_assert_int_eq(sigaction(SIGPIPE, NULL, &now), 0);
		ck_assert(now.sa_handler == SIG_DFL);
		sc_copier_free(c);
	}
	/* a SIGPIPE the caller blocked and has pending stays its own */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
	raise(SIGPIPE);
	{
		struct sc_copier *c = copier(0, NULL);

		ck_assert_int_eq(copy_into_broken(c, in, false), -EPIPE);
		sc_copier_free(c);
	}
	ck_assert(sigpipe_pending());
	ck_assert(sigpipe_blocked());
	ck_assert_int_eq(sigwaitinfo(&pipe_set, NULL), SIGPIPE);
	pthread_sigmask(SIG_UNBLOCK, &pipe_set, NULL);
	/* the caller's handler is the caller's */
	ck_assert_int_eq(sigaction(SIGPIPE, &sa, NULL), 0);
	{
		struct sc_copier *c = copier(0, NULL);

		ck_assert_int_eq(copy_into_broken(c, in, false), -EPIPE);
		ck_assert_int_eq(pipe_signals, 1);
		signal(SIGPIPE, SIG_IGN);
		ck_assert_int_eq(copy_into_broken(c, in, false), -EPIPE);
		ck_assert_int_eq(pipe_signals, 1);
		sc_copier_free(c);
	}
	signal(SIGPIPE, SIG_DFL);
	close(in);
}
END_TEST

/* ---- 9. the plan's reasons -------------------------------------------- */

/* The reason splice is used names what holds: "across filesystems" only
 * when the two files are on two (issue 36: splice within one
 * filesystem, where copy_file_range was not allowed, was said to be
 * "across filesystems"). */
START_TEST(splice_reason_says_where_it_copies)
{
	struct sc_fs_facts *a = NULL, *b = NULL;
	struct sc_plan_input in = {
		.size = sizeof(in), .src_mode = S_IFREG, .dst_mode = S_IFREG,
		.src_size = 100000, .kernel = { 6, 1 },
		.roads = SC_ROAD_BIT(SC_ROAD_SPLICE) | SC_ROAD_BIT(SC_ROAD_RW),
	};
	struct sc_plan *plan = NULL;
	const char *why;

	ck_assert_int_eq(sc_fs_facts_assume("ext4", 1, 1, &a), 0);
	ck_assert_int_eq(sc_fs_facts_assume("ext4", 2, 2, &b), 0);
	in.src_fs = in.dst_fs = a;
	ck_assert_int_eq(sc_plan_new(&in, &plan), 0);
	ck_assert(sc_plan_use(plan, SC_ROAD_SPLICE));
	why = sc_plan_why(plan, SC_ROAD_SPLICE);
	ck_assert_msg(!strstr(why, "across"), "one filesystem: \"%s\"", why);
	sc_plan_free(plan);
	in.dst_fs = b;
	ck_assert_int_eq(sc_plan_new(&in, &plan), 0);
	ck_assert(sc_plan_use(plan, SC_ROAD_SPLICE));
	why = sc_plan_why(plan, SC_ROAD_SPLICE);
	ck_assert_msg(strstr(why, "across filesystems"), "two: \"%s\"", why);
	sc_plan_free(plan);
	/* learned to fail on one filesystem: splice, and not "across" */
	in.dst_fs = a;
	in.roads = 0;
	in.learned = SC_ROAD_BIT(SC_ROAD_RANGE);
	ck_assert_int_eq(sc_plan_new(&in, &plan), 0);
	if (sc_plan_use(plan, SC_ROAD_SPLICE))
		ck_assert(!strstr(sc_plan_why(plan, SC_ROAD_SPLICE), "across"));
	sc_plan_free(plan);
	sc_fs_facts_free(a);
	sc_fs_facts_free(b);
}
END_TEST

/* ---- 10. return codes -------------------------------------------------- */

/* sc_kernel_parse takes numbers of at most three digits, as it says:
 * "6.0001" is malformed; a minor of the newest series may have three
 * ("7.100"). */
START_TEST(kernel_parse_counts_digits)
{
	struct sc_kernel k = { 0, 0 };

	ck_assert_int_eq(sc_kernel_parse("6.0001", &k), -EINVAL);
	ck_assert_int_eq(sc_kernel_parse("0006.1", &k), -EINVAL);
	ck_assert_int_eq(sc_kernel_parse("6.1.0001", &k), -EINVAL);
	ck_assert_int_eq(sc_kernel_parse("7.100", &k), 0);
	ck_assert_int_eq(k.major, 7);
	ck_assert_int_eq(k.minor, 100);
	ck_assert_int_eq(sc_kernel_parse("7.999.999-x", &k), 0);
	ck_assert_int_eq(sc_kernel_parse("6.001", &k), 0);
	ck_assert_int_eq(k.minor, 1);
	ck_assert_int_eq(sc_kernel_parse("6.20", &k), -ERANGE);
	ck_assert_int_eq(sc_kernel_parse("8.0", &k), -ERANGE);
}
END_TEST

/* sc_fsinfo_origins_text of a NULL cache is -EINVAL, as its header
 * says, not an empty text. */
START_TEST(origins_text_of_no_cache_is_einval)
{
	struct sc_fsinfo *fsi = NULL;
	char buf[256];

	ck_assert_int_eq(sc_fsinfo_origins_text(NULL, NULL, buf, sizeof(buf)),
			 -EINVAL);
	ck_assert_int_eq(sc_fsinfo_new(NULL, &fsi), 0);
	ck_assert_int_eq(sc_fsinfo_origins_text(fsi, NULL, buf, sizeof(buf)),
			 0);
	ck_assert_int_eq(sc_fsinfo_origins_text(fsi, NULL, NULL, 1), -EINVAL);
	sc_fsinfo_free(fsi);
}
END_TEST

/* The fatal event of a call carries the call's error: a dangling
 * symlink's -ENOENT (in place, atomic, explained) and a replaced
 * source's -ESTALE. */
START_TEST(fatal_events_carry_the_error)
{
	struct sc_copy_report *rep = NULL;
	unsigned flags[] = { 0, SC_COPY_ATOMIC };
	struct sc_event ev;
	struct stat other;

	ck_assert_int_eq(sc_copy_report_new(&rep), 0);
	make_file("src", 100, 11);
	make_file("other", 100, 12);
	ck_assert_int_eq(symlinkat("nowhere", dfd, "dangling"), 0);
	for (int i = 0; i < 2; i++) {
		struct sc_copy_ctx *x = NULL;
		struct sc_copier *c = copier(flags[i], &x);
		struct sc_copy_args a = args_of("src", "dangling", 0);

		ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -ENOENT);
		ck_assert(find_event(rep, SC_EV_DANGLING, &ev));
		ck_assert_int_eq(ev.err, -ENOENT);
		ck_assert_int_eq(sc_copy_ctx_explain(x, &a, rep), -ENOENT);
		ck_assert(find_event(rep, SC_EV_DANGLING, &ev));
		ck_assert_int_eq(ev.err, -ENOENT);
		/* a source that is not the file the caller expects */
		other = stat_of("other");
		a = args_of("src", "dst", 0);
		a.src_expect = &other;
		ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -ESTALE);
		ck_assert(find_event(rep, SC_EV_REPLACED, &ev));
		ck_assert_int_eq(ev.err, -ESTALE);
		ck_assert(ev.fatal);
		sc_copy_ctx_free(x);
		sc_copier_free(c);
	}
	sc_copy_report_free(rep);
}
END_TEST

/* sc_copier_verify_fd of a copy longer than its source: 0, and *RET_BAD
 * where the source ends; shorter: where the copy ends. */
START_TEST(verify_fd_says_where_a_longer_copy_differs)
{
	struct sc_copier *c = copier(0, NULL);
	off_t bad = -1;
	int in, out;

	make_file("src", 5000, 13);
	make_file("long", 5100, 13);
	make_file("short", 4000, 13);
	in = openat(dfd, "src", O_RDONLY);
	out = openat(dfd, "long", O_RDWR);
	ck_assert_int_eq(sc_copier_verify_fd(c, in, out, &bad), 0);
	ck_assert_int_eq(bad, 5000);
	close(out);
	bad = -1;
	out = openat(dfd, "short", O_RDWR);
	ck_assert_int_eq(sc_copier_verify_fd(c, in, out, &bad), 0);
	ck_assert_int_eq(bad, 4000);
	close(out);
	close(in);
	sc_copier_free(c);
}
END_TEST

/* ---- 2. sc_copier_verify_fd of generated files ------------------------ */

/* Reads all of PATH (a generated file: its size is not its length) into
 * BUF; its length. */
static size_t slurp(const char *p, char *buf, size_t size)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	while ((n = read(fd, buf + len, size - len)) > 0)
		len += (size_t)n;
	ck_assert_int_eq(n, 0);
	close(fd);
	return len;
}

/* One generated file GEN against copies of BYTES (LEN): its exact copy
 * is equal, an empty, a longer and a shorter one are not, and *RET_BAD
 * says where they part. */
static void verify_generated(struct sc_copier *c, const char *gen,
			     const char *bytes, size_t len)
{
	static const struct {
		const char *name;
		long delta;	/* bytes more (or fewer) than LEN */
		int want;
	} copies[] = {
		{ "same", 0, 1 }, { "empty", -1000000, 0 }, { "longer", 7, 0 },
		{ "shorter", -1, 0 },
	};
	int in = open(gen, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(in, 0);
	for (size_t i = 0; i < 4; i++) {
		long n = (long)len + copies[i].delta;
		off_t bad = -1;
		int out, v;

		if (n < 0)
			n = 0;
		out = openat(dfd, copies[i].name, O_RDWR | O_CREAT | O_TRUNC,
			     0644);
		ck_assert_int_ge(out, 0);
		ck_assert_int_eq(write(out, bytes, (size_t)MIN_(n, (long)len)),
				 MIN_(n, (long)len));
		if (n > (long)len)
			ck_assert_int_eq(write(out, "tail...", (size_t)(n -
					 (long)len)), n - (long)len);
		v = sc_copier_verify_fd(c, in, out, &bad);
		ck_assert_msg(v == copies[i].want, "%s against a %s copy: %d",
			      gen, copies[i].name, v);
		if (v == 0)
			ck_assert_msg(bad == MIN_(n, (long)len),
				      "%s, %s copy: differs at %lld, not %ld",
				      gen, copies[i].name, (long long)bad,
				      MIN_(n, (long)len));
		close(out);
	}
	close(in);
}

/* st_size is not the length of a file on /proc (0) or /sys (4096):
 * sc_copier_verify_fd reads such a file to its end, as the copy does,
 * and finds its exact copy equal, an empty file different. */
START_TEST(verify_fd_reads_generated_files_to_their_end)
{
	static const char *const gens[] = {
		"/proc/version", "/sys/devices/system/cpu/possible",
	};
	struct sc_copier *c = copier(0, NULL);
	char buf[65536];

	for (size_t i = 0; i < 2; i++) {
		size_t len;

		if (access(gens[i], R_OK) < 0) {
			fprintf(stderr, "SKIP %s: not here\n", gens[i]);
			continue;
		}
		len = slurp(gens[i], buf, sizeof(buf));
		ck_assert_uint_gt(len, 0);
		verify_generated(c, gens[i], buf, len);
	}
	sc_copier_free(c);
}
END_TEST

/* ---- round 3: the caller's descriptors -------------------------------- */

/* sc_copy_args says DST_FD is "open for writing (O_RDWR with
 * SC_COPY_VERIFY)" and SRC_FD "open for reading", as sc_copier_copy_fd
 * says of its two: a descriptor that is not -- O_PATH, the wrong access
 * mode, a regular file opened O_APPEND (pwrite(2) appends there, and
 * copy_file_range refuses it) -- is refused with -EBADF before anything
 * is touched, as copy_fd refuses it, and explain says the same (round 3:
 * copy tried a road and said -EOPNOTSUPP or -EINVAL for an O_PATH or
 * O_RDONLY destination, copied into an O_APPEND one, wrote 100000 bytes
 * into an O_WRONLY one before SC_COPY_VERIFY failed with -EBADF, emptied
 * the destination for a source that was a pipe's write end; explain said
 * 0 for all of them). */
START_TEST(given_descriptors_are_checked_before_anything)
{
	static const struct {
		int mode;
		unsigned flags;
	} bad_out[] = {
		{ O_PATH, 0 }, { O_RDONLY, 0 }, { O_WRONLY | O_APPEND, 0 },
		{ O_RDWR | O_APPEND, 0 }, { O_WRONLY, SC_COPY_VERIFY },
		{ O_PATH, SC_COPY_VERIFY }, { O_WRONLY | O_APPEND, SC_COPY_ATOMIC },
	};
	int pp[2];

	make_file("src", 100000, 1);
	for (size_t i = 0; i < sizeof(bad_out) / sizeof(bad_out[0]); i++) {
		struct sc_copy_ctx *x = NULL;
		struct sc_copier *c = copier(bad_out[i].flags, &x);
		struct sc_copy_report *rep = NULL;
		struct sc_copy_args a = args_of("src", NULL, 0);
		int out;

		ck_assert_int_eq(sc_copy_report_new(&rep), 0);
		make_file("dst", 500, 2);
		out = openat(dfd, "dst", bad_out[i].mode | O_CLOEXEC);
		ck_assert_int_ge(out, 0);
		a.dst_fd = out;
		ck_assert_msg(sc_copy_ctx_copy(x, &a, rep) == -EBADF,
			      "case %zu: copy %d", i, sc_copy_report_error(rep));
		ck_assert_msg(holds("dst", 500, 2), "case %zu: touched", i);
		ck_assert_int_eq(sc_copy_report_attempts(rep), 0);
		ck_assert_msg(sc_copy_ctx_explain(x, &a, rep) == -EBADF,
			      "case %zu: explain %d", i,
			      sc_copy_report_error(rep));
		if (bad_out[i].mode != O_PATH)
			ck_assert_int_eq(sc_copier_copy_fd(c, openat(dfd, "src",
				O_RDONLY | O_CLOEXEC), out, NULL), -EBADF);
		ck_assert(holds("dst", 500, 2));
		close(out);
		sc_copy_report_free(rep);
		sc_copy_ctx_free(x);
		sc_copier_free(c);
	}

	/* a source not open for reading: O_PATH, O_WRONLY, a pipe's write
	 * end (with SC_FILE_SOURCE_ANY, which reads pipes) */
	ck_assert_int_eq(pipe2(pp, O_CLOEXEC), 0);
	for (int i = 0; i < 3; i++) {
		struct sc_copy_ctx *x = NULL;
		struct sc_copier *c = copier(0, &x);
		struct sc_copy_args a = args_of(NULL, "dst", SC_FILE_SOURCE_ANY);
		int in = i == 2 ? pp[1] : openat(dfd, "src", (i ? O_WRONLY : O_PATH) |
							O_CLOEXEC);

		make_file("dst", 500, 2);
		a.src_fd = in;
		ck_assert_msg(sc_copy_ctx_copy(x, &a, NULL) == -EBADF,
			      "source %d", i);
		ck_assert_msg(holds("dst", 500, 2), "source %d: touched", i);
		ck_assert_int_eq(sc_copy_ctx_explain(x, &a, NULL), -EBADF);
		a.dst_name = "new";
		ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), -EBADF);
		ck_assert_int_lt(faccessat(dfd, "new", F_OK, 0), 0);
		if (i < 2)
			close(in);
		sc_copy_ctx_free(x);
		sc_copier_free(c);
	}
	close(pp[0]);
	close(pp[1]);
}
END_TEST

/* sc_copier_copy_fd documents -ECANCELED from "sc_copy_ctx_cancel on
 * sc_copier_ctx(C)", and sc_copy_ctx_cancel may be called from any
 * thread: another thread's sc_copier_ctx(C) during the copy returns at
 * once and its cancel stops that copy (round 3: sc_copier_ctx waited for
 * the copy's lock, so the copy ran to its end and returned 0, and the
 * sticky cancel failed the next copy instead). */
struct slow {
	atomic_int started;
	atomic_int steps;
};

static int slow_progress(void *arg, uint64_t done, enum sc_road road)
{
	struct slow *s = arg;

	(void)done;
	(void)road;
	atomic_store(&s->started, 1);
	atomic_fetch_add(&s->steps, 1);
	usleep(20000);
	return 0;
}

struct canceller {
	struct sc_copier *c;
	struct slow *s;
	double waited;
};

static double now_s(void);

static void *cancel_copier(void *arg)
{
	struct canceller *k = arg;
	double t0;

	while (!atomic_load(&k->s->started))
		usleep(1000);
	t0 = now_s();
	sc_copy_ctx_cancel(sc_copier_ctx(k->c));
	k->waited = now_s() - t0;
	return NULL;
}

START_TEST(copier_ctx_cancels_a_running_copy_fd)
{
	struct sc_copier *c = copier(0, NULL);
	struct slow s = { 0 };
	struct canceller k = { .c = c, .s = &s };
	pthread_t t;
	int in, out, e;

	make_file("src", 16 << 20, 4);
	make_file("dst", 500, 2);
	ck_assert_int_eq(sc_copier_set_roads(c, SC_ROAD_BIT(SC_ROAD_RW),
					     true), 0);
	sc_copy_ctx_set_progress(sc_copier_ctx(c), slow_progress, &s);
	in = openat(dfd, "src", O_RDONLY | O_CLOEXEC);
	out = openat(dfd, "dst", O_RDWR | O_CLOEXEC);
	ck_assert_int_eq(pthread_create(&t, NULL, cancel_copier, &k), 0);
	e = sc_copier_copy_fd(c, in, out, NULL);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_msg(e == -ECANCELED, "copy_fd %d after %d steps", e,
		      atomic_load(&s.steps));
	ck_assert_msg(k.waited < 0.5, "sc_copier_ctx waited %.2fs",
		      k.waited);
	ck_assert_int_eq(stat_of("dst").st_size, 0);
	/* sticky, as documented, until reset */
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, NULL), -ECANCELED);
	sc_copy_ctx_reset_cancel(sc_copier_ctx(c));
	sc_copy_ctx_set_progress(sc_copier_ctx(c), NULL, NULL);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, NULL), 0);
	ck_assert(holds("dst", 16 << 20, 4));
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

/* sc_made_check's MODE is "the type and the permission bits it asked
 * for" of mkdirat(2), mknodat(2), mkfifoat(3) or symlinkat(2); a MODE
 * that is no such thing -- no type, a type that is none (S_IFMT itself),
 * bits above the permission bits -- is a bad argument, -EINVAL, not an
 * object that is not the one made (round 3: -ESTALE, or 0). */
START_TEST(made_check_refuses_a_mode_that_is_none)
{
	static const mode_t bad[] = {
		0644, S_IFMT | 0644, S_IFREG | 0644 | 010000000,
		S_IFREG | S_IFDIR | 0644 | 0100000000,
	};
	int fd;

	make_file("m", 10, 1);
	ck_assert_int_eq(fchmodat(dfd, "m", 0644, 0), 0);
	fd = openat(dfd, "m", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sc_made_check(fd, S_IFREG | 0644, NULL), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(sc_made_check(fd, bad[i], NULL) == -EINVAL,
			      "mode %o: %d", (unsigned)bad[i],
			      sc_made_check(fd, bad[i], NULL));
	ck_assert_int_eq(sc_made_check(-1, S_IFREG | 0644, NULL), -EINVAL);
	close(fd);
}
END_TEST

/* sc_copier_copy_path copies "atomically ... renamed over DST when
 * complete; on any failure DST is as it was": a DST that is no regular
 * file -- a FIFO, a device, a socket, or a symlink to one -- cannot be
 * replaced so, and is refused with -EINVAL, as such a SRC is, and left
 * as it is (round 3: a FIFO with no reader blocked the call in open(2)
 * for ever; a device node was written into, not replaced, and 0
 * returned). */
START_TEST(copy_path_refuses_a_destination_that_is_no_file)
{
	static const char *const dsts[] = { "fifo", "lfifo", "null", "lnull" };
	struct sc_copier *c = copier(0, NULL);
	bool have_dev;

	make_file("src", 5000, 3);
	ck_assert_int_eq(mkfifoat(dfd, "fifo", 0644), 0);
	ck_assert_int_eq(symlinkat("fifo", dfd, "lfifo"), 0);
	/* a node of our own, never the machine's /dev/null */
	have_dev = mknodat(dfd, "null", S_IFCHR | 0644, makedev(1, 3)) == 0;
	ck_assert_int_eq(symlinkat("null", dfd, "lnull"), 0);
	for (size_t i = 0; i < sizeof(dsts) / sizeof(dsts[0]); i++) {
		double t0 = now_s();
		struct stat st;

		if (!have_dev && i >= 2) {
			fprintf(stderr, "SKIP %s: cannot mknod\n", dsts[i]);
			continue;
		}
		ck_assert_msg(sc_copier_copy_path(c, path("src"),
						  path(dsts[i]), NULL) ==
			      -EINVAL, "%s", dsts[i]);
		ck_assert_double_lt(now_s() - t0, 1.0);
		ck_assert_int_eq(fstatat(dfd, dsts[i], &st, 0), 0);
		ck_assert(i < 2 ? S_ISFIFO(st.st_mode) : S_ISCHR(st.st_mode));
	}
	sc_copier_free(c);
}
END_TEST

/* sc_copier_copy_fd copies "all of IN (open for reading)", and a stream
 * is read as a stream: a socket's descriptor as well as a pipe's (only a
 * socket by name cannot be opened, -ENXIO, as open(2) says).  Round 3:
 * copy_fd and sc_copy_ctx_copy with SC_FILE_SOURCE_ANY refused a
 * connected socket with -ENXIO, and sc_copier_explain_fd and
 * sc_copy_ctx_explain said 0. */
START_TEST(socket_descriptor_source_is_read_as_a_stream)
{
	static const char msg[] = "bytes through a socket\n";
	struct sc_copy_ctx *x = NULL;
	struct sc_copier *c = copier(0, &x);
	struct sc_copy_report *rep = NULL;
	int sv[2], out;

	ck_assert_int_eq(sc_copy_report_new(&rep), 0);
	for (int i = 0; i < 2; i++) {
		struct sc_copy_args a = args_of(NULL, "dst",
						SC_FILE_SOURCE_ANY);

		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					    0, sv), 0);
		ck_assert_int_eq(write(sv[1], msg, sizeof(msg) - 1),
				 (ssize_t)sizeof(msg) - 1);
		ck_assert_int_eq(shutdown(sv[1], SHUT_WR), 0);
		make_file("dst", 500, 2);
		if (i == 0) {
			out = openat(dfd, "dst", O_RDWR | O_CLOEXEC);
			ck_assert_int_eq(sc_copier_explain_fd(c, sv[0], out,
							      rep), 0);
			ck_assert_msg(sc_copier_copy_fd(c, sv[0], out, rep) == 0,
				      "copy_fd %d", sc_copy_report_error(rep));
			close(out);
		} else {
			a.src_fd = sv[0];
			ck_assert_int_eq(sc_copy_ctx_explain(x, &a, rep), 0);
			ck_assert_msg(sc_copy_ctx_copy(x, &a, rep) == 0,
				      "copy %d", sc_copy_report_error(rep));
		}
		ck_assert_int_eq(stat_of("dst").st_size, sizeof(msg) - 1);
		close(sv[0]);
		close(sv[1]);
	}
	sc_copy_report_free(rep);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

/* sc_copy_ctx_meta of a file onto itself -- its name or a descriptor
 * as both ends, with any SC_MADE_* bits -- is refused with -EINVAL and
 * nothing is set, as sc_copy_ctx_copy refuses a file copied onto itself
 * (round 3: with SC_MADE_OLD, the "old mode" was narrowed before the
 * chown, then the source -- the same, narrowed file -- was the model:
 * a 0640 file came out 0600, its ACL's mask emptied, and 0 returned). */
START_TEST(meta_onto_itself_is_refused)
{
	static const unsigned made[] = {
		0, SC_MADE_OLD,
		SC_MADE_CREATED | SC_MADE_MODE_KNOWN | SC_MADE_RESTORE,
		SC_MADE_PARENT,
	};
	struct sc_copy_ctx *x = NULL;
	struct sc_copier *c = copier(SC_COPY_KEEP_MODE | SC_COPY_KEEP_OWNER |
				     SC_COPY_KEEP_TIMES | SC_COPY_KEEP_XATTR,
				     &x);

	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		for (int byfd = 0; byfd < 2; byfd++) {
			struct sc_meta_args m;
			struct stat st, now;
			int fd;

			make_file("m", 10, 1);
			ck_assert_int_eq(fchmodat(dfd, "m", 0640, 0), 0);
			st = stat_of("m");
			fd = openat(dfd, "m", O_RDONLY | O_CLOEXEC);
			ck_assert_int_ge(fd, 0);
			m = (struct sc_meta_args){
				.size = sizeof(m),
				.src_fd = byfd ? fd : -1, .src_dirfd = dfd,
				.src_name = "m",
				.dst_fd = byfd ? fd : -1, .dst_dirfd = dfd,
				.dst_name = "m",
				.src_st = &st, .made = made[i],
				.made_mode = 0600, .omitted = 077,
				.old_mode = st.st_mode,
			};
			ck_assert_msg(sc_copy_ctx_meta(x, &m, NULL) == -EINVAL,
				      "made %#x byfd %d", made[i], byfd);
			now = stat_of("m");
			ck_assert_uint_eq(now.st_mode, st.st_mode);
			ck_assert_int_eq(now.st_ctim.tv_nsec, st.st_ctim.tv_nsec);
			ck_assert_int_eq(now.st_ctim.tv_sec, st.st_ctim.tv_sec);
			close(fd);
		}
	}
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

/* sc_copy_ctx_set_fd_short's FN "is called when opening a file fails
 * with EMFILE or ENFILE": the temporary of SC_COPY_ATOMIC, and the source
 * and directory sc_copier_copy_path opens, are such files (round 3: their
 * opens failed with -EMFILE without asking FN, which had descriptors to
 * give back). */
struct spares {
	int fd[16];
	int n, calls;
};

static bool give_back(void *arg, int err, unsigned *tries)
{
	struct spares *s = arg;

	ck_assert(err == EMFILE || err == ENFILE);
	(*tries)++;
	s->calls++;
	if (s->n == 0)
		return false;
	close(s->fd[--s->n]);
	return true;
}

START_TEST(fd_short_is_asked_for_the_atomic_temporary)
{
	struct sc_copy_ctx *x = NULL;
	struct sc_copier *c = copier(SC_COPY_ATOMIC, &x);
	struct sc_copy_args a = args_of("src", "dst", 0);
	struct spares s = { .n = 0 };
	struct rlimit rl = { 64, 64 }, old;
	int fd, e, filler[64], n = 0;

	make_file("src", 100000, 6);
	make_file("dst", 500, 2);
	/* warm: what the first copy loads or makes once is there */
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, NULL), 0);
	make_file("dst", 500, 2);
	sc_copy_ctx_set_fd_short(x, give_back, &s);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	rl.rlim_max = old.rlim_max;	/* the soft limit alone: it goes back */
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {	/* valgrind keeps some */
		fprintf(stderr, "SKIP fd_short: cannot lower RLIMIT_NOFILE\n");
		sc_copy_ctx_free(x);
		sc_copier_free(c);
		return;
	}
	while (n < 64 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0) {
		if (s.n < 8)
			s.fd[s.n++] = fd;
		else
			filler[n++] = fd;
	}
	e = sc_copy_ctx_copy(x, &a, NULL);
	while (n > 0)	/* the filler, for the checks */
		close(filler[--n]);
	ck_assert_msg(e == 0, "copy %d after %d calls", e, s.calls);
	ck_assert_int_ge(s.calls, 2);	/* the source, the temporary */
	ck_assert(holds("dst", 100000, 6));

	/* sc_copier_copy_path, through the copier's own context: its
	 * source, the destination's directory, the temporary */
	make_file("dst", 500, 2);
	s = (struct spares){ .n = 0 };
	sc_copy_ctx_set_fd_short(sc_copier_ctx(c), give_back, &s);
	while (n < 64 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0) {
		if (s.n < 8)
			s.fd[s.n++] = fd;
		else
			filler[n++] = fd;
	}
	e = sc_copier_copy_path(c, path("src"), path("dst"), NULL);
	while (n > 0)
		close(filler[--n]);
	ck_assert_msg(e == 0, "copy_path %d after %d calls", e, s.calls);
	ck_assert_int_ge(s.calls, 3);
	ck_assert(holds("dst", 100000, 6));
	while (s.n > 0)
		close(s.fd[--s.n]);
	/* as it was (CK_FORK=no runs the next test in this process) */
	rl.rlim_cur = old.rlim_cur;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

/* SC_COPY_IF_CHANGED with a destination descriptor: "a destination that
 * holds the source's bytes only gets its metadata" -- and the caller's
 * descriptor gets bytes only, so nothing: the call returns 0 with
 * SC_REPORT_UNCHANGED and writes nothing, with or without DST_ST; one
 * that differs is copied; SC_FILE_COMPARE_ONLY compares.  The comparison
 * reads the descriptor: one not open for reading is -EBADF at once.
 * Round 3: without DST_ST every byte was written again; with it the
 * metadata was set by a name there is none of, and the copy of an equal
 * file failed with -ESTALE (SC_EV_REPLACED). */
START_TEST(if_changed_into_a_descriptor)
{
	struct sc_copy_ctx *x = NULL;
	struct sc_copier *c = copier(SC_COPY_IF_CHANGED | SC_COPY_KEEP_MODE |
				     SC_COPY_KEEP_TIMES, &x);
	struct sc_copy_report *rep = NULL;

	ck_assert_int_eq(sc_copy_report_new(&rep), 0);
	make_file("src", 100000, 8);
	for (int withst = 0; withst < 2; withst++) {
		for (int compare_only = 0; compare_only < 2; compare_only++) {
			struct sc_copy_args a = args_of("src", NULL,
				compare_only ? SC_FILE_COMPARE_ONLY : 0);
			struct stat st, before;
			int out;

			make_file("dst", 100000, 8);
			out = openat(dfd, "dst", O_RDWR | O_CLOEXEC);
			ck_assert_int_ge(out, 0);
			ck_assert_int_eq(fstat(out, &st), 0);
			a.dst_fd = out;
			a.dst_st = withst ? &st : NULL;
			before = stat_of("dst");
			usleep(10000);
			ck_assert_msg(sc_copy_ctx_copy(x, &a, rep) == 0,
				      "withst %d compare_only %d: %d", withst,
				      compare_only, sc_copy_report_error(rep));
			ck_assert(sc_copy_report_flags(rep) &
				  SC_REPORT_UNCHANGED);
			ck_assert_int_eq(sc_copy_report_attempts(rep), 0);
			ck_assert_int_eq(stat_of("dst").st_mtim.tv_nsec,
					 before.st_mtim.tv_nsec);
			/* a destination that differs is copied (or, compare
			 * only, left) */
			make_file("dst", 100000, 9);
			ck_assert_int_eq(fstat(out, &st), 0);
			ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), 0);
			ck_assert(!(sc_copy_report_flags(rep) &
				    SC_REPORT_UNCHANGED));
			ck_assert(holds("dst", 100000, compare_only ? 9 : 8));
			close(out);
			/* not readable: the comparison cannot be made */
			out = openat(dfd, "dst", O_WRONLY | O_CLOEXEC);
			a.dst_fd = out;
			ck_assert_int_eq(fstat(out, &st), 0);
			ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -EBADF);
			ck_assert_int_eq(sc_copy_ctx_explain(x, &a, rep),
					 -EBADF);
			ck_assert(holds("dst", 100000, compare_only ? 9 : 8));
			close(out);
		}
	}
	sc_copy_report_free(rep);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

static Suite *word_suite(void)
{
	Suite *s = suite_create("word");
	TCase *tc = tcase_create("word");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, self_copy_is_refused_under_every_flag);
	tcase_add_test(tc, self_copy_by_descriptor_is_refused);
	tcase_add_test(tc, device_source_is_einval);
	tcase_add_test(tc, forced_road_that_fails_leaves_dst_intact);
	tcase_add_test(tc, copy_path_refuses_a_file_it_may_not_write);
	tcase_add_test(tc, xattr_conf_null_copies_all_but_acls);
	tcase_add_test(tc, dst_fd_is_emptied_after_cancel_and_enospc);
	tcase_add_test(tc, broken_pipe_is_epipe_not_death);
	tcase_add_test(tc, splice_reason_says_where_it_copies);
	tcase_add_test(tc, kernel_parse_counts_digits);
	tcase_add_test(tc, origins_text_of_no_cache_is_einval);
	tcase_add_test(tc, fatal_events_carry_the_error);
	tcase_add_test(tc, verify_fd_says_where_a_longer_copy_differs);
	tcase_add_test(tc, verify_fd_reads_generated_files_to_their_end);
	tcase_add_test(tc, given_descriptors_are_checked_before_anything);
	tcase_add_test(tc, copier_ctx_cancels_a_running_copy_fd);
	tcase_add_test(tc, made_check_refuses_a_mode_that_is_none);
	tcase_add_test(tc, socket_descriptor_source_is_read_as_a_stream);
	tcase_add_test(tc, meta_onto_itself_is_refused);
	tcase_add_test(tc, fd_short_is_asked_for_the_atomic_temporary);
	tcase_add_test(tc, if_changed_into_a_descriptor);
	suite_add_tcase(s, tc);

	/* a call that waits in open(2) on a FIFO fails by this timeout */
	tc = tcase_create("fifo");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 5);
	tcase_add_test(tc, fifo_source_is_einval_at_once);
	tcase_add_test(tc, copy_path_refuses_a_destination_that_is_no_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(word_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
