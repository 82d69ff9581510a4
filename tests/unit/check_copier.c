/* libsmartcp's copier through its public header only, linked against the
 * shared library as any program would be: bad input gets a clear error
 * code (never a crash, never a partial destination), good input a copy
 * whose bytes are checked.  A program of its own (not a suite of
 * check_smartcp), since it links libsmartcp.so, not the engine's
 * objects. */
#include <config.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <smartcp/smartcp.h>

static char dir[256];
/* Each test's report (the API v1 report is opaque: made and freed). */
static struct sc_copy_report *R;

static void setup(void)
{
	ck_assert_int_eq(sc_copy_report_new(&R), 0);
	const char *t = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/check_copier.XXXXXX", t ? t : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Removes everything in directory FD (closed here), at any depth. */
static void remove_in(int fd)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue;
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
			     O_NOFOLLOW);
		if (sub >= 0) {
			fchmod(sub, 0700);
			remove_in(sub);
		}
		unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

static void teardown(void)
{
	sc_copy_report_free(R);
	R = NULL;
	remove_in(open(dir, O_RDONLY | O_DIRECTORY));
	rmdir(dir);
}

static const char *path(const char *name)
{
	static char p[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

/* Writes SIZE bytes of a pattern (seeded by SEED) to NAME. */
static void make_file(const char *name, size_t size, int seed)
{
	int fd = open(path(name), O_WRONLY | O_CREAT | O_TRUNC, 0640);
	char buf[4096];

	ck_assert_int_ge(fd, 0);
	for (size_t done = 0; done < size;) {
		size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);

		for (size_t i = 0; i < n; i++)
			buf[i] = (char)((done + i) * 31 + (size_t)seed);
		ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
		done += n;
	}
	close(fd);
}

static bool same_bytes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	int ca, cb;

	ck_assert_ptr_nonnull(fa);
	ck_assert_ptr_nonnull(fb);
	do {
		ca = getc(fa);
		cb = getc(fb);
	} while (ca == cb && ca != EOF);
	fclose(fa);
	fclose(fb);
	return ca == cb;
}

/* Is A's content the start of B's? */
static bool prefix_of(const char *a, const char *b)
{
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	int ca, cb = 0;

	ck_assert_ptr_nonnull(fa);
	ck_assert_ptr_nonnull(fb);
	while ((ca = getc(fa)) != EOF && (cb = getc(fb)) == ca)
		;
	fclose(fa);
	fclose(fb);
	return ca == EOF;
}

static off_t size_of(const char *p)
{
	struct stat st;

	ck_assert_int_eq(stat(p, &st), 0);
	return st.st_size;
}

/* Names in the test directory, to see that no temporary file is left. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static struct sc_copier *copier(bool verify)
{
	struct sc_copier *c = NULL;

	ck_assert_int_eq(sc_copier_new(verify ? SC_COPY_VERIFY : 0, &c), 0);
	ck_assert_ptr_nonnull(c);
	return c;
}

/* One attempt of a report's road chain. */
struct att {
	enum sc_road road;
	int err;
	uint64_t bytes;
};

static struct att attempt(const struct sc_copy_report *rep, unsigned i)
{
	struct att a;

	ck_assert_int_eq(sc_copy_report_attempt(rep, i, &a.road, &a.err,
						&a.bytes), 0);
	return a;
}

static enum sc_side data_side(const struct sc_copy_report *rep)
{
	enum sc_side side = SC_SIDE_NONE;

	sc_copy_report_data_error(rep, &side);
	return side;
}

START_TEST(null_objects_are_einval)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report *rep = R;
	int in, out;

	make_file("a", 10, 1);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_WRONLY | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_new(0, NULL), -EINVAL);
	ck_assert_int_eq(sc_copier_copy_fd(NULL, in, out, rep), -EINVAL);
	ck_assert_int_eq(sc_copier_copy_path(NULL, path("a"), path("c"), NULL),
			 -EINVAL);
	ck_assert_int_eq(sc_copier_copy_path(c, NULL, path("c"), NULL), -EINVAL);
	ck_assert_int_eq(sc_copier_copy_path(c, path("a"), NULL, NULL), -EINVAL);
	ck_assert_int_eq(sc_copier_copy_path(c, "", path("c"), NULL), -EINVAL);
	ck_assert_int_eq(sc_copier_explain_fd(NULL, in, out, rep), -EINVAL);
	ck_assert_int_eq(sc_copier_explain_fd(c, in, out, NULL), -EINVAL);
	ck_assert_int_eq(sc_copier_verify_fd(NULL, in, out, NULL), -EINVAL);
	ck_assert_int_eq(sc_fsinfo_new(NULL, NULL), -EINVAL);
	ck_assert_ptr_null(sc_fsinfo_lookup(NULL, in, NULL));
	sc_copier_free(NULL);
	sc_fsinfo_free(NULL);
	ck_assert_int_eq(size_of(path("b")), 0);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

START_TEST(bad_options_are_einval)
{
	struct sc_copier *c = (struct sc_copier *)1;

	ck_assert_int_eq(sc_copier_new(1u << 30, &c), -EINVAL);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(sc_copier_new(0, &c), 0);
	ck_assert_int_eq(sc_copier_set_roads(c, 0x10, false), -EINVAL);
	ck_assert_int_eq(sc_copier_set_reflink(c, (enum sc_reflink)3), -EINVAL);
	ck_assert_int_eq(sc_copier_set_sparse(c, (enum sc_sparse)-1), -EINVAL);
	ck_assert_int_eq(sc_copier_set_roads(c, 0, true), -EINVAL);
	ck_assert_int_eq(sc_copier_set_roads(NULL, SC_ROAD_BIT(SC_ROAD_RW),
					     true), -EINVAL);
	ck_assert_int_eq(sc_copier_set_roads(c, SC_ROAD_BIT(SC_ROAD_RW), true),
			 0);
	sc_copier_free(c);
}
END_TEST

START_TEST(closed_and_invalid_descriptors_are_ebadf)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report *rep = R;
	int in, out, closed;

	make_file("a", 100, 2);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_WRONLY | O_CREAT, 0600);
	closed = open(path("a"), O_RDONLY);
	close(closed);
	ck_assert_int_eq(sc_copier_copy_fd(c, -1, out, rep), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, -1, rep), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, closed, out, rep), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, closed, rep), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, 1 << 20, out, NULL), -EBADF);
	ck_assert_int_eq(sc_copier_explain_fd(c, closed, out, rep), -EBADF);
	ck_assert_int_eq(sc_copier_verify_fd(c, in, closed, NULL), -EBADF);
	ck_assert_int_eq(sc_copy_report_attempts(rep), 0);
	ck_assert_int_eq(size_of(path("b")), 0);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

START_TEST(o_path_and_wrong_access_modes_are_ebadf)
{
	struct sc_copier *c = copier(false);
	int in, out, pin, pout, wronly_src, rdonly_dst, app;

	make_file("a", 100, 3);
	make_file("b", 50, 4);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_WRONLY);
	pin = open(path("a"), O_PATH);
	pout = open(path("b"), O_PATH);
	wronly_src = open(path("a"), O_WRONLY);
	rdonly_dst = open(path("b"), O_RDONLY);
	app = open(path("b"), O_WRONLY | O_APPEND);
	ck_assert_int_eq(sc_copier_copy_fd(c, pin, out, NULL), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, pout, NULL), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, wronly_src, out, NULL), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, rdonly_dst, NULL), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, app, NULL), -EBADF);
	/* nothing was written: the destination keeps its bytes */
	ck_assert_int_eq(size_of(path("b")), 50);
	/* explain needs no access at all */
	struct sc_copy_report *rep = R;
	ck_assert_int_eq(sc_copier_explain_fd(c, pin, pout, rep), 0);
	ck_assert_int_ge(sc_plan_n_use(sc_copy_report_plan(rep)), 1);
	ck_assert_ptr_nonnull(sc_copy_report_src_fs(rep));
	close(in);
	close(out);
	close(pin);
	close(pout);
	close(wronly_src);
	close(rdonly_dst);
	close(app);
	sc_copier_free(c);
}
END_TEST

START_TEST(directories_are_eisdir)
{
	struct sc_copier *c = copier(false);
	int d = open(dir, O_RDONLY | O_DIRECTORY);
	int out, in;

	make_file("a", 10, 5);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_WRONLY | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_copy_fd(c, d, out, NULL), -EISDIR);
	/* a directory cannot be open for writing: -EBADF comes first */
	ck_assert_int_eq(sc_copier_copy_fd(c, in, d, NULL), -EBADF);
	ck_assert_int_eq(sc_copier_copy_path(c, dir, path("x"), NULL), -EISDIR);
	ck_assert_int_eq(sc_copier_copy_path(c, path("a"), dir, NULL), -EISDIR);
	close(d);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

START_TEST(same_file_is_einval_and_left_alone)
{
	struct sc_copier *c = copier(false);
	int rw, in, out;

	make_file("a", 5000, 6);
	make_file("ref", 5000, 6);
	rw = open(path("a"), O_RDWR);
	in = open(path("a"), O_RDONLY);
	out = open(path("a"), O_WRONLY);
	ck_assert_int_eq(sc_copier_copy_fd(c, rw, rw, NULL), -EINVAL);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, NULL), -EINVAL);
	ck_assert_int_eq(link(path("a"), path("hard")), 0);
	ck_assert_int_eq(sc_copier_copy_path(c, path("a"), path("hard"), NULL),
			 -EINVAL);
	ck_assert_int_eq(sc_copier_copy_path(c, path("a"), path("a"), NULL),
			 -EINVAL);
	ck_assert(same_bytes(path("a"), path("ref")));
	close(rw);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

START_TEST(copy_fd_copies_and_reports_the_chain)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report *rep = R;
	int in, out;

	make_file("a", 300000, 7);
	make_file("b", 900000, 8);	/* longer: must be cut */
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_WRONLY);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, rep), 0);
	ck_assert(same_bytes(path("a"), path("b")));
	ck_assert_int_ge(sc_copy_report_attempts(rep), 1);
	ck_assert_int_eq(sc_copy_report_bytes(rep), 300000);
	ck_assert_int_eq(sc_copy_report_size(rep), 300000);
	ck_assert_int_ge(sc_plan_n_use(sc_copy_report_plan(rep)), 1);
	ck_assert_int_eq(sc_copy_report_change(rep, NULL, NULL, NULL), SC_CHANGE_NONE);
	ck_assert_int_eq(sc_copy_report_verify(rep, NULL), SC_VERIFIED_NONE);
	ck_assert_str_ne(sc_road_name(attempt(rep, sc_copy_report_attempts(rep) - 1).road), "?");
	/* a second copy with the same copier */
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, NULL), 0);
	ck_assert(same_bytes(path("a"), path("b")));
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

START_TEST(copy_fd_verifies)
{
	struct sc_copier *c = copier(true);
	struct sc_copy_report *rep = R;
	int in, out, wr;

	make_file("a", 70000, 9);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	wr = open(path("b"), O_WRONLY);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, rep), 0);
	ck_assert_int_eq(sc_copy_report_verify(rep, NULL), SC_VERIFIED_OK);
	ck_assert(same_bytes(path("a"), path("b")));
	/* verify reads the destination back: it must be readable */
	ck_assert_int_eq(sc_copier_copy_fd(c, in, wr, NULL), -EBADF);
	ck_assert_int_eq(sc_copier_verify_fd(c, in, out, NULL), 1);
	close(in);
	close(out);
	close(wr);
	sc_copier_free(c);
}
END_TEST

START_TEST(verify_fd_finds_the_first_difference)
{
	struct sc_copier *c = copier(false);
	int a, b, fd;
	off_t bad = -1;

	make_file("a", 10000, 10);
	make_file("b", 10000, 10);
	fd = open(path("b"), O_WRONLY);
	ck_assert_int_eq(pwrite(fd, "!", 1, 4321), 1);
	close(fd);
	a = open(path("a"), O_RDONLY);
	b = open(path("b"), O_RDONLY);
	ck_assert_int_eq(sc_copier_verify_fd(c, a, b, &bad), 0);
	ck_assert_int_eq(bad, 4321);
	close(a);
	close(b);
	sc_copier_free(c);
}
END_TEST

START_TEST(stream_destination)
{
	struct sc_copier *c = copier(false), *v = copier(true);
	int in, p[2];
	char buf[200];

	make_file("a", 100, 11);
	in = open(path("a"), O_RDONLY);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, p[1], NULL), 0);
	ck_assert_int_eq(read(p[0], buf, sizeof(buf)), 100);
	/* nothing in a pipe can be read back: refused before writing */
	ck_assert_int_eq(sc_copier_copy_fd(v, in, p[1], NULL), -EOPNOTSUPP);
	close(in);
	close(p[0]);
	close(p[1]);
	sc_copier_free(c);
	sc_copier_free(v);
}
END_TEST

START_TEST(generated_source_is_read_to_its_end)
{
	struct sc_copier *c = copier(true);
	struct sc_copy_report *rep = R;
	int in, out;

	in = open("/proc/self/mountinfo", O_RDONLY);
	if (in < 0)
		return;
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, rep), 0);
	ck_assert_int_gt(sc_copy_report_bytes(rep), 0);
	ck_assert_int_eq(size_of(path("b")), (off_t)sc_copy_report_bytes(rep));
	ck_assert(sc_plan_size_untrusted(sc_copy_report_src_fs(rep)));
	ck_assert_int_eq(sc_copy_report_verify(rep, NULL), SC_VERIFIED_OK);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

START_TEST(copy_path_replaces_atomically)
{
	struct sc_copier *c = copier(true);
	struct sc_copy_report *rep = R;
	mode_t um = umask(022);	/* the test's own: the library never sets it */
	struct stat st;

	make_file("a", 123457, 12);
	ck_assert_int_eq(chmod(path("a"), 04775), 0);
	make_file("b", 10, 13);
	ck_assert_int_eq(sc_copier_copy_path(c, path("a"), path("b"), rep), 0);
	ck_assert(same_bytes(path("a"), path("b")));
	ck_assert_int_eq(sc_copy_report_verify(rep, NULL), SC_VERIFIED_OK);
	ck_assert_int_eq(stat(path("b"), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0755);
	ck_assert_int_eq(sc_copier_copy_path(c, path("a"), path("new"), NULL), 0);
	ck_assert(same_bytes(path("a"), path("new")));
	ck_assert_int_eq(entries(), 3);
	umask(um);
	sc_copier_free(c);
}
END_TEST

START_TEST(copy_path_failure_leaves_dst_alone)
{
	struct sc_copier *c = copier(false);
	int n;

	make_file("b", 77, 14);
	make_file("ref", 77, 14);
	ck_assert_int_eq(mkfifo(path("fifo"), 0600), 0);
	n = entries();
	ck_assert_int_eq(sc_copier_copy_path(c, path("missing"), path("b"), NULL),
			 -ENOENT);
	ck_assert_int_eq(sc_copier_copy_path(c, path("fifo"), path("b"), NULL),
			 -EINVAL);
	ck_assert_int_eq(sc_copier_copy_path(c, path("ref"), path("nodir/x"),
					     NULL), -ENOENT);
	/* /proc/self/mem is a regular file whose first read fails (EIO: no
	 * mapping at address 0): the copy fails after the temporary file
	 * was made, which must go. */
	if (access("/proc/self/mem", R_OK) == 0)
		ck_assert_int_lt(sc_copier_copy_path(c, "/proc/self/mem",
						     path("b"), NULL), 0);
	ck_assert(same_bytes(path("b"), path("ref")));
	ck_assert_int_eq(entries(), n);
	sc_copier_free(c);
}
END_TEST

/* ---- The road chain: every road tried, its bytes, and its ending ---- */

/* The last attempt of REP's chain. */
static struct att last_attempt(const struct sc_copy_report *rep)
{
	ck_assert_uint_ge(sc_copy_report_attempts(rep), 1);
	return attempt(rep, sc_copy_report_attempts(rep) - 1);
}

/* The bytes of all attempts: what the copy delivered, step by step. */
static uint64_t chain_bytes(const struct sc_copy_report *rep)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < sc_copy_report_attempts(rep); i++)
		sum += attempt(rep, i).bytes;
	return sum;
}

/* Kernel roads only where they are the rules' choice: no clone, so that
 * an empty file on btrfs or xfs is not cloned. */
static struct sc_copier *copier_roads(unsigned roads, bool forced)
{
	struct sc_copier *c = NULL;

	ck_assert_int_eq(sc_copier_new(0, &c), 0);
	if (roads)
		ck_assert_int_eq(sc_copier_set_roads(c, roads, forced), 0);
	return c;
}
#define NO_CLONE (SC_ROAD_BIT(SC_ROAD_RANGE) | SC_ROAD_BIT(SC_ROAD_SPLICE) | \
		  SC_ROAD_BIT(SC_ROAD_RW))

/* ENOSPC on the first step (/dev/full takes nothing): the chain names the
 * road with the error, not an empty chain. */
START_TEST(chain_names_enospc_on_the_first_step)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report *rep = R;
	int in, out;

	out = open("/dev/full", O_WRONLY);
	if (out < 0)
		return;
	make_file("a", 100000, 20);
	in = open(path("a"), O_RDONLY);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, rep), -ENOSPC);
	/* splice may be refused first (EINVAL: "not here") */
	for (unsigned i = 0; i < sc_copy_report_attempts(rep); i++)
		ck_assert_int_ne(attempt(rep, i).err, 0);
	ck_assert_int_eq(last_attempt(rep).err, -ENOSPC);
	ck_assert_int_eq(last_attempt(rep).bytes, 0);
	ck_assert_int_eq(sc_copy_report_bytes(rep), 0);
	ck_assert_int_eq(data_side(rep), SC_SIDE_WRITE);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

/* EIO on the first read: /proc/self/mem has no mapping at address 0. */
START_TEST(chain_names_eio_on_the_first_step)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report *rep = R;
	int in, out;

	in = open("/proc/self/mem", O_RDONLY);
	if (in < 0)
		return;
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, rep), -EIO);
	ck_assert_int_eq(sc_copy_report_attempts(rep), 1);
	ck_assert_int_eq(last_attempt(rep).road, SC_ROAD_RW);
	ck_assert_int_eq(last_attempt(rep).err, -EIO);
	ck_assert_int_eq(data_side(rep), SC_SIDE_READ);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

/* A pipe that nobody reads, its write end O_NONBLOCK: it takes what it
 * holds, then EAGAIN.  Those bytes are the road's, on every road. */
START_TEST(chain_counts_the_bytes_before_eagain)
{
	static const unsigned roads[] = {
		0, SC_ROAD_BIT(SC_ROAD_SPLICE), SC_ROAD_BIT(SC_ROAD_RW),
	};
	static char buf[1 << 16];

	make_file("a", 3 * 1024 * 1024 + 13, 21);
	for (size_t i = 0; i < sizeof(roads) / sizeof(roads[0]); i++) {
		struct sc_copier *c = copier_roads(roads[i], roads[i] != 0);
		struct sc_copy_report *rep = R;
		uint64_t held = 0;
		ssize_t n;
		int in, p[2];

		in = open(path("a"), O_RDONLY);
		ck_assert_int_eq(pipe(p), 0);
		ck_assert_int_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
		ck_assert_int_eq(sc_copier_copy_fd(c, in, p[1], rep), -EAGAIN);
		ck_assert_int_eq(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
		while ((n = read(p[0], buf, sizeof(buf))) > 0)
			held += (uint64_t)n;
		ck_assert_uint_gt(held, 0);
		ck_assert_int_eq(last_attempt(rep).err, -EAGAIN);
		ck_assert_uint_eq(chain_bytes(rep), held);
		ck_assert_uint_eq(sc_copy_report_bytes(rep), held);
		close(in);
		close(p[0]);
		close(p[1]);
		sc_copier_free(c);
	}
}
END_TEST

/* A pipe whose reader is gone: EPIPE on the first step (SIGPIPE
 * ignored, as the caller must). */
START_TEST(chain_names_epipe_on_the_first_step)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report *rep = R;
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	int in, p[2];

	make_file("a", 100000, 22);
	in = open(path("a"), O_RDONLY);
	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, p[1], rep), -EPIPE);
	ck_assert_int_eq(sc_copy_report_attempts(rep), 1);
	ck_assert_int_eq(last_attempt(rep).err, -EPIPE);
	ck_assert_int_eq(last_attempt(rep).bytes, 0);
	signal(SIGPIPE, old);
	close(in);
	close(p[1]);
	sc_copier_free(c);
}
END_TEST

/* RLIMIT_FSIZE cuts a step short, then EFBIG: the bytes of that step
 * count, so the chain, the total and the size the data step left agree,
 * on every road that writes a file.  The destination itself is then
 * emptied, as a file overwritten in place is after a failure (issue 36:
 * it kept that prefix of the source). */
START_TEST(chain_counts_the_bytes_before_efbig)
{
	static const int roads[] = { SC_ROAD_RANGE, SC_ROAD_SPLICE, SC_ROAD_RW };
	const rlim_t limit = 1000000;
	void (*old)(int) = signal(SIGXFSZ, SIG_IGN);
	struct rlimit was, lim;

	make_file("a", 3 * 1024 * 1024 + 13, 23);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
	for (size_t i = 0; i < sizeof(roads) / sizeof(roads[0]); i++) {
		struct sc_copier *c = copier_roads(SC_ROAD_BIT(roads[i]), true);
		struct sc_copy_report *rep = R;
		int in, out, e;

		in = open(path("a"), O_RDONLY);
		out = open(path("b"), O_RDWR | O_CREAT | O_TRUNC, 0600);
		lim = was;
		lim.rlim_cur = limit;
		ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
		e = sc_copier_copy_fd(c, in, out, rep);
		ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &was), 0);
		ck_assert_int_eq(e, -EFBIG);
		ck_assert_int_eq(sc_copy_report_attempts(rep), 1);
		ck_assert_int_eq(last_attempt(rep).road, roads[i]);
		ck_assert_int_eq(last_attempt(rep).err, -EFBIG);
		ck_assert_uint_eq(last_attempt(rep).bytes, limit);
		ck_assert_uint_eq(sc_copy_report_bytes(rep), limit);
		ck_assert_int_eq(sc_copy_report_size(rep), (off_t)limit);
		ck_assert_int_eq(size_of(path("b")), 0);
		close(in);
		close(out);
		sc_copier_free(c);
	}
	signal(SIGXFSZ, old);
}
END_TEST

/* An empty file: one read finds the end.  No kernel road was called, so
 * none is named: the chain is read_write, 0 bytes. */
START_TEST(chain_of_an_empty_file_is_the_read)
{
	struct sc_copier *c = copier_roads(NO_CLONE, false);
	struct sc_copy_report *rep = R;
	int in, out;

	make_file("a", 0, 0);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, rep), 0);
	ck_assert_int_eq(sc_copy_report_attempts(rep), 1);
	ck_assert_int_eq(attempt(rep, 0).road, SC_ROAD_RW);
	ck_assert_int_eq(attempt(rep, 0).err, 0);
	ck_assert_int_eq(attempt(rep, 0).bytes, 0);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

/* A file that grows while it is copied: copy_file_range copies the size
 * it had and is stopped there without ever returning 0, so it is not
 * marked SC_ERR_ZERO; read_write copies what was added. */
static int grow(void *arg, uint64_t done, enum sc_road road)
{
	int *grown = arg;
	int fd;

	(void)done;
	if (*grown || road != SC_ROAD_RANGE)
		return 0;
	fd = open(path("a"), O_WRONLY | O_APPEND);
	ck_assert_int_eq(write(fd, "0123456789", 10), 10);
	close(fd);
	*grown = 1;
	return 0;
}

START_TEST(chain_of_a_growing_file_has_no_zero)
{
	int grown = 0;
	struct sc_copier *c = copier_roads(SC_ROAD_BIT(SC_ROAD_RANGE) |
					   SC_ROAD_BIT(SC_ROAD_RW), false);
	struct sc_copy_report *rep = R;
	int in, out;

	make_file("a", 100000, 24);
	sc_copy_ctx_set_progress(sc_copier_ctx(c), grow, &grown);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, rep), 0);
	if (attempt(rep, 0).road != SC_ROAD_RANGE)
		goto out;	/* no copy_file_range here: nothing to see */
	ck_assert_int_eq(grown, 1);
	ck_assert_int_eq(sc_copy_report_attempts(rep), 2);
	ck_assert_int_eq(attempt(rep, 0).err, 0);
	ck_assert_uint_eq(attempt(rep, 0).bytes, 100000);
	ck_assert_int_eq(attempt(rep, 1).road, SC_ROAD_RW);
	ck_assert_int_eq(attempt(rep, 1).err, 0);
	ck_assert_uint_eq(attempt(rep, 1).bytes, 10);
	ck_assert_int_eq(sc_copy_report_change(rep, NULL, NULL, NULL), SC_CHANGE_GREW);
	ck_assert(same_bytes(path("a"), path("b")));
out:
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

/* Issue 37 item 6: a source appended to while it is copied and
 * verified.  With SC_COPY_LIVE_SOURCE the copy is read_write's alone (the
 * plan says why) and proven by what was read, the length included: 0,
 * SC_VERIFIED_OK, a prefix of the file.  Without it the source, read
 * again, has changed again: -EBADMSG. */
static int append(void *arg, uint64_t done, enum sc_road road)
{
	int *n = arg;
	int fd;

	(void)done;
	(void)road;
	if (++*n > 64)
		return 0;
	fd = open(path("a"), O_WRONLY | O_APPEND);
	ck_assert_int_eq(write(fd, "0123456789", 10), 10);
	close(fd);
	return 0;
}

START_TEST(live_source_is_verified_by_what_was_read)
{
	static const char live_why[] =
		"verification of a source that may change";

	for (int live = 1; live >= 0; live--) {
		struct sc_copier *c = NULL;
		struct sc_copy_report *rep = R;
		const struct sc_plan *plan;
		bool said = false;
		int n = 0, in, out, e;

		make_file("a", 2 * 1024 * 1024 + 7, 40);
		ck_assert_int_eq(sc_copier_new(SC_COPY_VERIFY |
					       (live ? SC_COPY_LIVE_SOURCE : 0),
					       &c), 0);
		sc_copy_ctx_set_progress(sc_copier_ctx(c), append, &n);
		in = open(path("a"), O_RDONLY);
		out = open(path("b"), O_RDWR | O_CREAT | O_TRUNC, 0600);
		e = sc_copier_copy_fd(c, in, out, rep);
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(sc_copy_report_change(rep, NULL, NULL, NULL),
				 SC_CHANGE_GREW);
		if (!live) {
			ck_assert_int_eq(e, -EBADMSG);
		} else {
			ck_assert_int_eq(e, 0);
			plan = sc_copy_report_plan(rep);
			ck_assert_uint_eq(sc_plan_n_use(plan), 1);
			ck_assert(sc_plan_use(plan, SC_ROAD_RW));
			for (unsigned r = 0; r < sc_road_count(); r++)
				said |= !strcmp(sc_plan_why(plan,
							    (enum sc_road)r),
						live_why);
			ck_assert(said);
			ck_assert_int_eq(sc_copy_report_verify(rep, NULL),
					 SC_VERIFIED_OK);
			ck_assert_int_eq(size_of(path("b")),
					 sc_copy_report_size(rep));
			ck_assert_int_gt(size_of(path("b")),
					 2 * 1024 * 1024 + 7);
			ck_assert(prefix_of(path("b"), path("a")));
		}
		close(in);
		close(out);
		sc_copier_free(c);
	}
}
END_TEST

START_TEST(version_and_names)
{
	ck_assert_str_eq(sc_version(), PACKAGE_VERSION);
	ck_assert_int_eq(sc_init(), 0);
	ck_assert_int_eq(sc_init(), 0);
	ck_assert_str_eq(sc_road_name(SC_ROAD_RANGE), "copy_file_range");
	ck_assert_int_eq(sc_road_from_name("read_write"), SC_ROAD_RW);
	ck_assert_int_eq(sc_road_from_name("teleport"), -EINVAL);
	ck_assert_int_eq(sc_road_from_name(NULL), -EINVAL);
	ck_assert_int_eq(sc_api_version(), SC_API_VERSION);
	ck_assert_uint_eq(sc_road_count(), 4);
	ck_assert_str_eq(sc_road_name((enum sc_road)42), "?");
	/* issue 29 item 6: out of range and NULL, as the header says */
	ck_assert_str_eq(sc_change_name((enum sc_change_how)99), "?");
	ck_assert_str_eq(sc_fs_class_name((enum sc_fs_class)99), "?");
	ck_assert_int_eq(sc_kernel_parse(NULL, NULL), -EINVAL);
	{
		struct sc_kernel k;

		ck_assert_int_eq(sc_kernel_parse("6.1.0-13-amd64", &k), 0);
		ck_assert(k.major == 6 && k.minor == 1);
		ck_assert_int_eq(sc_kernel_parse("1.0", &k), -ERANGE);
	}
	ck_assert_str_eq(sc_fs_facts_type(NULL), "unknown");
	ck_assert_int_eq(sc_fs_facts_class(NULL), SC_FS_UNKNOWN);
}
END_TEST

/* ---- API version 1: events, issue 29, cancellation, metadata ---- */

/* A copier with FLAGS, and a context of its own. */
static struct sc_copier *copier_flags(unsigned flags, struct sc_copy_ctx **x)
{
	struct sc_copier *c = NULL;

	ck_assert_int_eq(sc_copier_new(flags, &c), 0);
	ck_assert_int_eq(sc_copy_ctx_new(c, x), 0);
	return c;
}

/* The args of a copy of NAME to DNAME in the test directory. */
static struct sc_copy_args args_of(int dfd, const char *name,
				   const char *dname)
{
	return (struct sc_copy_args){
		.size = sizeof(struct sc_copy_args),
		.src_dirfd = dfd, .src_name = name, .src_fd = -1,
		.dst_dirfd = dfd, .dst_name = dname, .dst_fd = -1,
	};
}

/* The first event of REP of KIND, into EV; false when there is none. */
static bool find_event(const struct sc_copy_report *rep,
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

/* Every failure is an event, with what a program words it from. */
START_TEST(events_say_what_failed)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report *rep = R;
	struct sc_event ev = { .size = sizeof(ev) };
	int in, out;

	out = open("/dev/full", O_WRONLY);
	if (out < 0)
		return;
	make_file("a", 100000, 30);
	in = open(path("a"), O_RDONLY);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, rep), -ENOSPC);
	ck_assert_uint_ge(sc_copy_report_events(rep), 1);
	ck_assert(find_event(rep, SC_EV_DATA, &ev));
	ck_assert_int_eq(ev.err, -ENOSPC);
	ck_assert(ev.fatal);
	ck_assert_int_eq(ev.side, SC_SIDE_WRITE);
	ck_assert_int_eq(sc_copy_report_error(rep), -ENOSPC);
	/* past the last, a NULL, a size too small */
	ck_assert_int_eq(sc_copy_report_event(rep, 1000, &ev), -ERANGE);
	ck_assert_int_eq(sc_copy_report_event(NULL, 0, &ev), -EINVAL);
	ck_assert_int_eq(sc_copy_report_event(rep, 0, NULL), -EINVAL);
	ev.size = 4;
	ck_assert_int_eq(sc_copy_report_event(rep, 0, &ev), -EINVAL);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

/* Issue 29 item 1: a copy shorter or longer than its source is never
 * equal, and *ret_bad says where they part. */
START_TEST(verify_fd_compares_the_length)
{
	struct sc_copier *c = copier(false);
	off_t bad = -1;
	int a, b, e, n;

	make_file("a", 1000000, 31);
	make_file("short", 999999, 31);
	make_file("empty", 0, 0);
	a = open(path("a"), O_RDONLY);
	b = open(path("short"), O_RDONLY);
	e = open(path("empty"), O_RDONLY);
	ck_assert_int_eq(sc_copier_verify_fd(c, a, b, &bad), 0);
	ck_assert_int_eq(bad, 999999);
	bad = -1;
	ck_assert_int_eq(sc_copier_verify_fd(c, a, e, &bad), 0);
	ck_assert_int_eq(bad, 0);
	bad = -1;
	ck_assert_int_eq(sc_copier_verify_fd(c, e, a, &bad), 0);
	ck_assert_int_eq(bad, 0);
	n = open(path("a"), O_RDONLY);
	ck_assert_int_eq(sc_copier_verify_fd(c, a, n, &bad), 1);
	close(a);
	close(b);
	close(e);
	close(n);
	sc_copier_free(c);
}
END_TEST

/* The bytes this process has read (/proc/self/io rchar), -1 unknown. */
static long long bytes_read(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	long long v = -1;
	char line[128];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %lld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* ... and holes both files report are not read: 256 MiB of holes around
 * 8 KiB of data take well under a MiB of reads. */
START_TEST(verify_fd_skips_common_holes)
{
	struct sc_copier *c = copier(false);
	const off_t size = 256 << 20;
	long long before, after;
	int a, b;

	a = open(path("sa"), O_RDWR | O_CREAT, 0600);
	b = open(path("sb"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(ftruncate(a, size), 0);
	ck_assert_int_eq(ftruncate(b, size), 0);
	ck_assert_int_eq(pwrite(a, "head", 4, 0), 4);
	ck_assert_int_eq(pwrite(b, "head", 4, 0), 4);
	ck_assert_int_eq(pwrite(a, "tail", 4, size - 4), 4);
	ck_assert_int_eq(pwrite(b, "tail", 4, size - 4), 4);
	fsync(a);
	fsync(b);
	if (lseek(a, 0, SEEK_HOLE) >= size)
		goto out;	/* this filesystem reports no holes */
	before = bytes_read();
	ck_assert_int_eq(sc_copier_verify_fd(c, a, b, NULL), 1);
	after = bytes_read();
	if (before >= 0 && after >= 0)
		ck_assert_int_lt(after - before, 1 << 20);
	/* a difference in the data is still found */
	ck_assert_int_eq(pwrite(b, "TAIL", 4, size - 4), 4);
	ck_assert_int_eq(sc_copier_verify_fd(c, a, b, NULL), 0);
out:
	close(a);
	close(b);
	sc_copier_free(c);
}
END_TEST

/* Issue 29 item 2: splice is not left out for a road that is itself
 * left out (not allowed, or learned to fail). */
START_TEST(plan_keeps_splice_when_range_cannot_serve)
{
	struct sc_fs_facts *ext4;
	struct sc_plan_input in;
	struct sc_plan *plan;

	ck_assert_int_eq(sc_fs_facts_assume("ext4", 1, 1, &ext4), 0);
	in = (struct sc_plan_input){
		.size = sizeof(in), .src_fs = ext4, .dst_fs = ext4,
		.src_mode = S_IFREG, .dst_mode = S_IFREG, .src_size = 1 << 20,
		.kernel = { 6, 1 }, .roads = SC_ROAD_BIT(SC_ROAD_SPLICE),
	};
	ck_assert_int_eq(sc_plan_new(&in, &plan), 0);
	ck_assert(sc_plan_use(plan, SC_ROAD_SPLICE));
	ck_assert_uint_eq(sc_plan_n_use(plan), 1);
	ck_assert_uint_eq(sc_plan_roads(plan), SC_ROAD_BIT(SC_ROAD_SPLICE));
	ck_assert_str_eq(sc_plan_why(plan, SC_ROAD_RANGE),
			 "not among the allowed roads");
	sc_plan_free(plan);
	/* all roads, copy_file_range learned to fail for the pair */
	in.roads = 0;
	in.learned = SC_ROAD_BIT(SC_ROAD_RANGE);
	ck_assert_int_eq(sc_plan_new(&in, &plan), 0);
	ck_assert(!sc_plan_use(plan, SC_ROAD_RANGE));
	ck_assert(sc_plan_use(plan, SC_ROAD_SPLICE));
	ck_assert(sc_plan_use(plan, SC_ROAD_RW));
	sc_plan_free(plan);
	/* nothing learned: copy_file_range serves, splice stays out */
	in.learned = 0;
	ck_assert_int_eq(sc_plan_new(&in, &plan), 0);
	ck_assert(sc_plan_use(plan, SC_ROAD_RANGE));
	ck_assert(!sc_plan_use(plan, SC_ROAD_SPLICE));
	/* every road has its reason, a used one too */
	for (unsigned r = 0; r < sc_road_count(); r++)
		ck_assert_ptr_nonnull(sc_plan_why(plan, (enum sc_road)r));
	sc_plan_free(plan);
	/* bad input */
	ck_assert_int_eq(sc_plan_new(NULL, &plan), -EINVAL);
	ck_assert_int_eq(sc_plan_new(&in, NULL), -EINVAL);
	in.size = 8;
	ck_assert_int_eq(sc_plan_new(&in, &plan), -EINVAL);
	in.size = sizeof(in);
	in.roads = 1u << 20;
	ck_assert_int_eq(sc_plan_new(&in, &plan), -EINVAL);
	in.roads = 0;
	in.reflink = (enum sc_reflink)7;
	ck_assert_int_eq(sc_plan_new(&in, &plan), -EINVAL);
	sc_fs_facts_free(ext4);
}
END_TEST

/* Issue 29 item 10: reasons in the library's words, not the command
 * line's. */
START_TEST(reasons_speak_library_words)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report *rep = R;
	const struct sc_plan *plan;
	int in, out;

	make_file("a", 1000, 32);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_WRONLY | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_set_roads(c, SC_ROAD_BIT(SC_ROAD_RW),
					     false), 0);
	ck_assert_int_eq(sc_copier_set_reflink(c, SC_REFLINK_NEVER), 0);
	ck_assert_int_eq(sc_copier_explain_fd(c, in, out, rep), 0);
	plan = sc_copy_report_plan(rep);
	ck_assert_ptr_nonnull(plan);
	ck_assert_str_eq(sc_plan_why(plan, SC_ROAD_CLONE), "reflink never");
	ck_assert(sc_plan_by_option(plan, SC_ROAD_CLONE));
	for (unsigned r = 0; r < sc_road_count(); r++)
		ck_assert_ptr_null(strstr(sc_plan_why(plan, (enum sc_road)r),
					  "--"));
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

/* Issue 29 item 10: copy_fd reads and writes at offsets: the caller's
 * file offsets stay where they were. */
START_TEST(copy_fd_leaves_the_offsets)
{
	struct sc_copier *c = copier(false);
	int in, out;

	make_file("a", 200000, 33);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(lseek(in, 17, SEEK_SET), 17);
	ck_assert_int_eq(lseek(out, 5, SEEK_SET), 5);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, NULL), 0);
	ck_assert(same_bytes(path("a"), path("b")));
	ck_assert_int_eq(lseek(in, 0, SEEK_CUR), 17);
	ck_assert_int_eq(lseek(out, 0, SEEK_CUR), 5);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

/* Issue 29 item 7: an existing destination is not emptied before the
 * call knows a road can be taken (only clone allowed, a filesystem that
 * does not clone). */
START_TEST(no_road_leaves_out_intact)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report *rep = R;
	char buf[8] = "";
	int in, out, e;

	make_file("a", 5000, 34);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(write(out, "abc", 3), 3);
	ck_assert_int_eq(sc_copier_set_roads(c, SC_ROAD_BIT(SC_ROAD_CLONE),
					     false), 0);
	e = sc_copier_copy_fd(c, in, out, rep);
	if (e == 0)
		goto out;	/* this filesystem clones */
	ck_assert_int_eq(e, -EOPNOTSUPP);
	ck_assert_int_eq(size_of(path("b")), 3);
	ck_assert_int_eq(pread(out, buf, sizeof(buf), 0), 3);
	ck_assert_str_eq(buf, "abc");
out:
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

/* Progress: bytes moved, never an offset, never going back. */
struct progress {
	uint64_t last, calls;
	bool backwards;
	unsigned cancel_after;	/* cancel at this call (0: never) */
	unsigned delay_us;	/* slow each step down */
	atomic_int started;
};

static int on_progress(void *arg, uint64_t done, enum sc_road road)
{
	struct progress *p = arg;

	(void)road;
	if (done < p->last)
		p->backwards = true;
	p->last = done;
	p->calls++;
	atomic_store(&p->started, 1);
	if (p->delay_us)
		usleep(p->delay_us);
	return p->cancel_after && p->calls >= p->cancel_after;
}

/* Issue 29 item 9. */
START_TEST(progress_counts_bytes_moved)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report *rep = R;
	struct progress p = { 0 };
	static char buf[1 << 16];
	int in, out, pfd[2];
	ssize_t n;

	sc_copy_ctx_set_progress(sc_copier_ctx(c), on_progress, &p);
	/* a sparse file: 64 MiB long, 8 KiB of data */
	in = open(path("s"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(ftruncate(in, 64 << 20), 0);
	ck_assert_int_eq(pwrite(in, buf, 4096, 0), 4096);
	ck_assert_int_eq(pwrite(in, buf, 4096, 32 << 20), 4096);
	fsync(in);
	out = open(path("t"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, rep), 0);
	ck_assert_uint_gt(p.calls, 0);
	ck_assert(!p.backwards);
	ck_assert_uint_eq(p.last, sc_copy_report_bytes(rep));
	if (sc_copy_report_flags(rep) & SC_REPORT_HOLES)
		ck_assert_uint_lt(p.last, 1 << 20);
	close(out);
	/* into a pipe, by splice: the bytes too */
	make_file("a", 100000, 35);
	close(in);
	in = open(path("a"), O_RDONLY);
	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert_int_eq(fcntl(pfd[1], F_SETPIPE_SZ, 1 << 20) >= 0, 1);
	p = (struct progress){ 0 };
	ck_assert_int_eq(sc_copier_copy_fd(c, in, pfd[1], rep), 0);
	ck_assert_uint_eq(p.last, 100000);
	ck_assert(!p.backwards);
	while ((n = read(pfd[0], buf, sizeof(buf))) == (ssize_t)sizeof(buf))
		;
	close(pfd[0]);
	close(pfd[1]);
	close(in);
	sc_copier_free(c);
}
END_TEST

/* Cancellation from the progress function: the copy stops, what it made
 * is gone, -ECANCELED. */
START_TEST(cancel_from_progress_removes_the_copy)
{
	struct sc_copy_ctx *x;
	struct sc_copier *c = copier_flags(0, &x);
	struct sc_copy_report *rep = R;
	struct progress p = { .cancel_after = 3 };
	struct sc_event ev;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct sc_copy_args a = args_of(dfd, "big", "copy");
	int n;

	make_file("big", 16 << 20, 36);
	ck_assert_int_eq(sc_copier_set_roads(c, SC_ROAD_BIT(SC_ROAD_RW),
					     true), 0);
	sc_copy_ctx_set_progress(x, on_progress, &p);
	n = entries();
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -ECANCELED);
	ck_assert_int_eq(sc_copy_report_error(rep), -ECANCELED);
	ck_assert(find_event(rep, SC_EV_CANCELED, &ev));
	ck_assert_int_eq(entries(), n);
	ck_assert_int_eq(access(path("copy"), F_OK), -1);
	/* sticky until reset */
	p = (struct progress){ 0 };
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -ECANCELED);
	ck_assert_int_eq(entries(), n);
	sc_copy_ctx_reset_cancel(x);
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), 0);
	ck_assert(same_bytes(path("big"), path("copy")));
	close(dfd);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

struct canceller {
	struct sc_copy_ctx *x;
	struct progress *p;
};

static void *cancel_later(void *arg)
{
	struct canceller *k = arg;

	while (!atomic_load(&k->p->started))
		usleep(1000);
	usleep(20000);
	sc_copy_ctx_cancel(k->x);
	return NULL;
}

/* ... and from another thread, in the middle of a large file, atomic:
 * the old destination stays as it was, no temporary is left. */
START_TEST(cancel_from_another_thread)
{
	struct sc_copy_ctx *x;
	struct sc_copier *c = copier_flags(SC_COPY_ATOMIC, &x);
	struct sc_copy_report *rep = R;
	struct progress p = { .delay_us = 2000 };
	struct canceller k = { x, &p };
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct sc_copy_args a = args_of(dfd, "big", "old");
	pthread_t t;
	int n;

	make_file("big", 32 << 20, 37);
	make_file("old", 1000, 38);
	make_file("ref", 1000, 38);
	ck_assert_int_eq(sc_copier_set_roads(c, SC_ROAD_BIT(SC_ROAD_RW),
					     true), 0);
	sc_copy_ctx_set_progress(x, on_progress, &p);
	n = entries();
	ck_assert_int_eq(pthread_create(&t, NULL, cancel_later, &k), 0);
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -ECANCELED);
	pthread_join(t, NULL);
	ck_assert_uint_lt(p.last, 32 << 20);
	ck_assert(same_bytes(path("old"), path("ref")));
	ck_assert_int_eq(entries(), n);
	/* in place, a new file: it goes */
	sc_copy_ctx_reset_cancel(x);
	close(dfd);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

/* Bad input through the new calls: an error code, nothing touched. */
START_TEST(bad_args_are_errors)
{
	struct sc_copy_ctx *x;
	struct sc_copier *c = copier_flags(0, &x);
	struct sc_copy_report *rep = R;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct sc_copy_args a;
	struct sc_meta_args m = { .size = sizeof(m) };
	struct stat st;
	int n;

	make_file("a", 100, 39);
	n = entries();
	{
		struct sc_copy_ctx *y = (struct sc_copy_ctx *)1;

		ck_assert_int_eq(sc_copy_ctx_new(NULL, &y), -EINVAL);
		ck_assert_ptr_null(y);
	}
	ck_assert_int_eq(sc_copy_ctx_new(c, NULL), -EINVAL);
	ck_assert_int_eq(sc_copy_report_new(NULL), -EINVAL);
	a = args_of(dfd, "a", "b");
	ck_assert_int_eq(sc_copy_ctx_copy(NULL, &a, rep), -EINVAL);
	ck_assert_int_eq(sc_copy_ctx_copy(x, NULL, rep), -EINVAL);
	a.size = 8;
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -EINVAL);
	ck_assert_int_eq(sc_copy_ctx_explain(x, &a, rep), -EINVAL);
	a = args_of(dfd, "a", "b");
	a.flags = 1u << 29;
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -EINVAL);
	a = args_of(dfd, NULL, "b");
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -EINVAL);
	a = args_of(dfd, "a", NULL);
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -EINVAL);
	/* SC_FILE_COMPARE_ONLY without SC_COPY_IF_CHANGED */
	a = args_of(dfd, "a", "b");
	a.flags = SC_FILE_COMPARE_ONLY;
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -EINVAL);
	/* bad descriptors */
	a = args_of(-7, "a", "b");
	ck_assert_int_lt(sc_copy_ctx_copy(x, &a, rep), 0);
	a = args_of(dfd, "a", "b");
	a.src_fd = 1 << 20;
	a.src_name = NULL;
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -EBADF);
	a = args_of(dfd, "a", "b");
	a.dst_dirfd = 1 << 20;
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), -EBADF);
	ck_assert_int_eq(entries(), n);
	/* metadata: no stat, a size too small, unknown bits */
	ck_assert_int_eq(sc_copy_ctx_meta(x, NULL, rep), -EINVAL);
	m.src_fd = m.dst_fd = -1;
	m.src_dirfd = m.dst_dirfd = dfd;
	m.src_name = "a";
	m.dst_name = "a";
	ck_assert_int_eq(sc_copy_ctx_meta(x, &m, rep), -EINVAL);
	ck_assert_int_eq(stat(path("a"), &st), 0);
	m.src_st = &st;
	m.made = 1u << 30;
	ck_assert_int_eq(sc_copy_ctx_meta(x, &m, rep), -EINVAL);
	m.made = 0;
	m.size = 4;
	ck_assert_int_eq(sc_copy_ctx_meta(x, &m, rep), -EINVAL);
	/* copier calls with NULL */
	ck_assert_ptr_null(sc_copier_ctx(NULL));
	ck_assert_ptr_null(sc_copier_facts(NULL, dfd, &st));
	ck_assert_int_eq(sc_copier_set_umask(NULL, 022), -EINVAL);
	ck_assert_int_eq(sc_copier_set_umask(c, 01000), -EINVAL);
	ck_assert_int_eq(sc_copier_preload(NULL), -EINVAL);
	sc_copy_ctx_cancel(NULL);
	ck_assert(!sc_copy_ctx_abandon(NULL));
	sc_copy_ctx_free(NULL);
	sc_copy_report_free(NULL);
	close(dfd);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

/* Each metadata flag, through sc_copy_ctx_copy. */
START_TEST(metadata_flags)
{
	struct sc_copy_ctx *x;
	struct sc_copier *c;
	struct sc_copy_report *rep = R;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct sc_copy_args a;
	struct timespec ts[2] = { { 1000000000, 0 }, { 1234567890, 5 } };
	struct stat s, d;
	char conf[600], v[32];
	FILE *f;
	bool root = geteuid() == 0;

	make_file("a", 5000, 40);
	ck_assert_int_eq(chmod(path("a"), 0751), 0);
	ck_assert_int_eq(utimensat(AT_FDCWD, path("a"), ts, 0), 0);
	if (root)
		ck_assert_int_eq(chown(path("a"), 1234, 5678), 0);
	ck_assert_int_eq(stat(path("a"), &s), 0);

	/* none: the mode as open() makes it (umask), the times new */
	c = copier_flags(0, &x);
	ck_assert_int_eq(sc_copier_set_umask(c, 027), 0);
	a = args_of(dfd, "a", "none");
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), 0);
	ck_assert_int_eq(stat(path("none"), &d), 0);
	ck_assert(d.st_mtim.tv_sec != s.st_mtim.tv_sec);
	sc_copy_ctx_free(x);
	sc_copier_free(c);

	/* mode */
	c = copier_flags(SC_COPY_KEEP_MODE, &x);
	a = args_of(dfd, "a", "mode");
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), 0);
	ck_assert_int_eq(stat(path("mode"), &d), 0);
	ck_assert_uint_eq(d.st_mode & 07777, 0751);
	sc_copy_ctx_free(x);
	sc_copier_free(c);

	/* times */
	c = copier_flags(SC_COPY_KEEP_TIMES, &x);
	a = args_of(dfd, "a", "times");
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), 0);
	ck_assert_int_eq(stat(path("times"), &d), 0);
	ck_assert_int_eq(d.st_mtim.tv_sec, 1234567890);
	ck_assert_int_eq(d.st_mtim.tv_nsec, 5);
	sc_copy_ctx_free(x);
	sc_copier_free(c);

	/* owner (as root: made by root, it takes the source's) */
	c = copier_flags(SC_COPY_KEEP_OWNER, &x);
	a = args_of(dfd, "a", "owner");
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), 0);
	ck_assert_int_eq(stat(path("owner"), &d), 0);
	if (root) {
		ck_assert_uint_eq(d.st_uid, 1234);
		ck_assert_uint_eq(d.st_gid, 5678);
	}
	sc_copy_ctx_free(x);
	sc_copier_free(c);

	/* xattrs, by the rules of an xattr.conf */
	if (setxattr(path("a"), "user.keep", "1", 1, 0) == 0 &&
	    setxattr(path("a"), "user.skip", "2", 1, 0) == 0) {
		snprintf(conf, sizeof(conf), "%s/xattr.conf", dir);
		f = fopen(conf, "w");
		ck_assert_ptr_nonnull(f);
		fputs("user.skip\tskip\n", f);
		fclose(f);
		c = copier_flags(SC_COPY_KEEP_XATTR, &x);
		ck_assert_int_eq(sc_copier_set_xattr_conf(c, conf), 0);
		a = args_of(dfd, "a", "xattr");
		ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), 0);
		ck_assert_int_eq(getxattr(path("xattr"), "user.keep", v,
					  sizeof(v)), 1);
		ck_assert_int_eq(getxattr(path("xattr"), "user.skip", v,
					  sizeof(v)), -1);
		sc_copy_ctx_free(x);
		sc_copier_free(c);
		unlink(conf);
	}

	/* an ACL (SC_COPY_KEEP_MODE keeps it) */
	snprintf(conf, sizeof(conf), "setfacl -m u:4321:r '%s' 2>/dev/null",
		 path("a"));
	if (system(conf) == 0) {
		c = copier_flags(SC_COPY_KEEP_MODE, &x);
		a = args_of(dfd, "a", "acl");
		ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), 0);
		ck_assert_int_gt(getxattr(path("acl"),
					  "system.posix_acl_access", NULL, 0),
				 0);
		sc_copy_ctx_free(x);
		sc_copier_free(c);
	}
	close(dfd);
}
END_TEST

/* A source and a destination 60 levels past PATH_MAX, as a directory
 * descriptor and a name: no path is ever built. */
START_TEST(deep_source_and_destination)
{
	struct sc_copy_ctx *x;
	struct sc_copier *c = copier_flags(SC_COPY_VERIFY |
					   SC_COPY_KEEP_MODE, &x);
	struct sc_copy_report *rep = R;
	char name[NAME_MAX + 1];
	int sfd = open(dir, O_RDONLY | O_DIRECTORY), dfd, fd, levels;
	struct sc_copy_args a;
	char buf[4096], back[4096];

	/* PATH_MAX / 200 levels of 200 bytes reach PATH_MAX; 60 more */
	levels = PATH_MAX / 200 + 60;
	memset(name, 'd', 200);
	name[200] = '\0';
	for (int side = 0; side < 2; side++) {
		name[0] = side ? 'D' : 's';
		fd = open(dir, O_RDONLY | O_DIRECTORY);
		for (int i = 0; i < levels; i++) {
			int next;

			ck_assert_int_eq(mkdirat(fd, name, 0700), 0);
			next = openat(fd, name, O_RDONLY | O_DIRECTORY);
			ck_assert_int_ge(next, 0);
			close(fd);
			fd = next;
		}
		if (side)
			dfd = fd;
		else {
			close(sfd);
			sfd = fd;
		}
	}
	fd = openat(sfd, "f", O_WRONLY | O_CREAT, 0640);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	ck_assert_int_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
	a = args_of(sfd, "f", "g");
	a.src_dirfd = sfd;
	a.dst_dirfd = dfd;
	ck_assert_int_eq(sc_copy_ctx_copy(x, &a, rep), 0);
	fd = openat(dfd, "g", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, back, sizeof(back)), (ssize_t)sizeof(back));
	ck_assert_int_eq(memcmp(buf, back, sizeof(buf)), 0);
	close(fd);
	ck_assert_int_eq(sc_copy_report_verify(rep, NULL), SC_VERIFIED_OK);
	close(sfd);
	close(dfd);
	sc_copy_ctx_free(x);
	sc_copier_free(c);
}
END_TEST

/* Issue 29 item 4: copy_path where /proc is not mounted (a private
 * mount namespace with an empty tmpfs over /proc), both with the right
 * to link a file by its descriptor (CAP_DAC_READ_SEARCH) and without. */
static int drop_dac_read_search(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	d[CAP_TO_INDEX(CAP_DAC_READ_SEARCH)].effective &=
		~CAP_TO_MASK(CAP_DAC_READ_SEARCH);
	return (int)syscall(SYS_capset, &h, d);
}

static int copy_without_proc(bool drop)
{
	struct sc_copier *c = NULL;
	struct stat st;

	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("none", "/proc", "tmpfs", 0, NULL) < 0)
		return 77;
	if (stat("/proc/self", &st) == 0)
		return 2;	/* /proc still there */
	if (drop && drop_dac_read_search() < 0)
		return 77;
	if (sc_copier_new(SC_COPY_VERIFY, &c) < 0)
		return 3;
	if (sc_copier_copy_path(c, path("a"), path(drop ? "new1" : "new2"),
				NULL) < 0 ||
	    sc_copier_copy_path(c, path("a"), path("old"), NULL) < 0)
		return 4;
	sc_copier_free(c);
	return 0;
}

START_TEST(copy_path_without_proc)
{
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: copy_path_without_proc needs root "
			"(a mount namespace)\n");
		return;
	}
	make_file("a", 300000, 41);
	make_file("old", 10, 42);
	for (int drop = 0; drop < 2; drop++) {
		pid_t pid = fork();
		int status;

		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(copy_without_proc(drop));
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFEXITED(status));
		if (WEXITSTATUS(status) == 77)
			return;
		ck_assert_int_eq(WEXITSTATUS(status), 0);
		ck_assert(same_bytes(path("a"), path(drop ? "new1" : "new2")));
		ck_assert(same_bytes(path("a"), path("old")));
	}
	/* a, old, new1, new2: no temporary left */
	ck_assert_int_eq(entries(), 4);
}
END_TEST

/* Issue 29 item 8: in a directory whose names cannot be removed (chattr
 * +a), copy_path fails and leaves no temporary. */
START_TEST(copy_path_in_append_only_dir)
{
	struct sc_copier *c = copier(false);
	int fd, flags, e, n;
	char sub[600];

	snprintf(sub, sizeof(sub), "%s/ap", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	make_file("a", 5000, 43);
	make_file("ap/dst", 10, 44);
	fd = open(sub, O_RDONLY | O_DIRECTORY);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) {
		close(fd);
		sc_copier_free(c);
		return;		/* no such flags here */
	}
	flags |= FS_APPEND_FL;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0) {
		close(fd);
		sc_copier_free(c);
		return;		/* not root, or not this filesystem */
	}
	n = 0;
	{
		DIR *d = opendir(sub);
		struct dirent *de;

		while ((de = readdir(d)))
			n++;
		closedir(d);
	}
	e = sc_copier_copy_path(c, path("a"), path("ap/dst"), NULL);
	{
		DIR *d = opendir(sub);
		struct dirent *de;
		int m = 0;

		while ((de = readdir(d)))
			m++;
		closedir(d);
		flags &= ~FS_APPEND_FL;
		ck_assert_int_eq(ioctl(fd, FS_IOC_SETFLAGS, &flags), 0);
		close(fd);
		ck_assert_int_lt(e, 0);
		ck_assert_int_eq(m, n);
	}
	ck_assert_int_eq(size_of(path("ap/dst")), 10);
	sc_copier_free(c);
}
END_TEST

static Suite *copier_suite(void)
{
	Suite *s = suite_create("copier");
	TCase *tc = tcase_create("api");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, null_objects_are_einval);
	tcase_add_test(tc, bad_options_are_einval);
	tcase_add_test(tc, closed_and_invalid_descriptors_are_ebadf);
	tcase_add_test(tc, o_path_and_wrong_access_modes_are_ebadf);
	tcase_add_test(tc, directories_are_eisdir);
	tcase_add_test(tc, same_file_is_einval_and_left_alone);
	tcase_add_test(tc, copy_fd_copies_and_reports_the_chain);
	tcase_add_test(tc, copy_fd_verifies);
	tcase_add_test(tc, verify_fd_finds_the_first_difference);
	tcase_add_test(tc, stream_destination);
	tcase_add_test(tc, generated_source_is_read_to_its_end);
	tcase_add_test(tc, copy_path_replaces_atomically);
	tcase_add_test(tc, copy_path_failure_leaves_dst_alone);
	tcase_add_test(tc, version_and_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("chain");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, chain_names_enospc_on_the_first_step);
	tcase_add_test(tc, chain_names_eio_on_the_first_step);
	tcase_add_test(tc, chain_counts_the_bytes_before_eagain);
	tcase_add_test(tc, chain_names_epipe_on_the_first_step);
	tcase_add_test(tc, chain_counts_the_bytes_before_efbig);
	tcase_add_test(tc, chain_of_an_empty_file_is_the_read);
	tcase_add_test(tc, chain_of_a_growing_file_has_no_zero);
	tcase_add_test(tc, live_source_is_verified_by_what_was_read);
	suite_add_tcase(s, tc);

	tc = tcase_create("v1");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, events_say_what_failed);
	tcase_add_test(tc, verify_fd_compares_the_length);
	tcase_add_test(tc, verify_fd_skips_common_holes);
	tcase_add_test(tc, plan_keeps_splice_when_range_cannot_serve);
	tcase_add_test(tc, reasons_speak_library_words);
	tcase_add_test(tc, copy_fd_leaves_the_offsets);
	tcase_add_test(tc, no_road_leaves_out_intact);
	tcase_add_test(tc, progress_counts_bytes_moved);
	tcase_add_test(tc, cancel_from_progress_removes_the_copy);
	tcase_add_test(tc, cancel_from_another_thread);
	tcase_add_test(tc, bad_args_are_errors);
	tcase_add_test(tc, metadata_flags);
	tcase_add_test(tc, deep_source_and_destination);
	tcase_add_test(tc, copy_path_without_proc);
	tcase_add_test(tc, copy_path_in_append_only_dir);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(copier_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
