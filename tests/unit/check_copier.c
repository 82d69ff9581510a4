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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <smartcp/smartcp.h>

static char dir[256];

static void setup(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/check_copier.XXXXXX", t ? t : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
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
	struct sc_copy_options o = { .verify = verify };
	struct sc_copier *c = NULL;

	ck_assert_int_eq(sc_copier_new(&o, &c), 0);
	ck_assert_ptr_nonnull(c);
	return c;
}

START_TEST(null_objects_are_einval)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report rep;
	int in, out;

	make_file("a", 10, 1);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_WRONLY | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_new(NULL, NULL), -EINVAL);
	ck_assert_int_eq(sc_copier_copy_fd(NULL, in, out, &rep), -EINVAL);
	ck_assert_int_eq(sc_copier_copy_path(NULL, path("a"), path("c"), NULL),
			 -EINVAL);
	ck_assert_int_eq(sc_copier_copy_path(c, NULL, path("c"), NULL), -EINVAL);
	ck_assert_int_eq(sc_copier_copy_path(c, path("a"), NULL, NULL), -EINVAL);
	ck_assert_int_eq(sc_copier_copy_path(c, "", path("c"), NULL), -EINVAL);
	ck_assert_int_eq(sc_copier_explain_fd(NULL, in, out, &rep), -EINVAL);
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
	struct sc_copy_options o = { .roads = 0x10 };

	ck_assert_int_eq(sc_copier_new(&o, &c), -EINVAL);
	ck_assert_ptr_null(c);
	o = (struct sc_copy_options){ .reflink = (enum sc_reflink)3 };
	ck_assert_int_eq(sc_copier_new(&o, &c), -EINVAL);
	o = (struct sc_copy_options){ .sparse = (enum sc_sparse)-1 };
	ck_assert_int_eq(sc_copier_new(&o, &c), -EINVAL);
	o = (struct sc_copy_options){ .roads_forced = true };
	ck_assert_int_eq(sc_copier_new(&o, &c), -EINVAL);
	o = (struct sc_copy_options){ .roads = SC_ROAD_BIT(SC_ROAD_RW),
				      .roads_forced = true };
	ck_assert_int_eq(sc_copier_new(&o, &c), 0);
	sc_copier_free(c);
	ck_assert_int_eq(sc_copier_new(NULL, &c), 0);
	sc_copier_free(c);
}
END_TEST

START_TEST(closed_and_invalid_descriptors_are_ebadf)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report rep;
	int in, out, closed;

	make_file("a", 100, 2);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_WRONLY | O_CREAT, 0600);
	closed = open(path("a"), O_RDONLY);
	close(closed);
	ck_assert_int_eq(sc_copier_copy_fd(c, -1, out, &rep), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, -1, &rep), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, closed, out, &rep), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, closed, &rep), -EBADF);
	ck_assert_int_eq(sc_copier_copy_fd(c, 1 << 20, out, NULL), -EBADF);
	ck_assert_int_eq(sc_copier_explain_fd(c, closed, out, &rep), -EBADF);
	ck_assert_int_eq(sc_copier_verify_fd(c, in, closed, NULL), -EBADF);
	ck_assert_int_eq(rep.result.n_attempts, 0);
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
	struct sc_copy_report rep;
	ck_assert_int_eq(sc_copier_explain_fd(c, pin, pout, &rep), 0);
	ck_assert_int_ge(rep.plan.n_use, 1);
	ck_assert_ptr_nonnull(rep.src_fs);
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
	struct sc_copy_report rep;
	int in, out;

	make_file("a", 300000, 7);
	make_file("b", 900000, 8);	/* longer: must be cut */
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_WRONLY);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, &rep), 0);
	ck_assert(same_bytes(path("a"), path("b")));
	ck_assert_int_ge(rep.result.n_attempts, 1);
	ck_assert_int_eq(rep.result.bytes, 300000);
	ck_assert_int_eq(rep.result.size, 300000);
	ck_assert_int_ge(rep.plan.n_use, 1);
	ck_assert_int_eq(rep.changed, SC_CHANGE_NONE);
	ck_assert_int_eq(rep.verified, 0);
	ck_assert_str_ne(sc_road_name(rep.result.attempt[rep.result.n_attempts - 1].road), "?");
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
	struct sc_copy_report rep;
	int in, out, wr;

	make_file("a", 70000, 9);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	wr = open(path("b"), O_WRONLY);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, &rep), 0);
	ck_assert_int_eq(rep.verified, 1);
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
	struct sc_copy_report rep;
	int in, out;

	in = open("/proc/self/mountinfo", O_RDONLY);
	if (in < 0)
		return;
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, &rep), 0);
	ck_assert_int_gt(rep.result.bytes, 0);
	ck_assert_int_eq(size_of(path("b")), (off_t)rep.result.bytes);
	ck_assert(sc_plan_size_untrusted(rep.src_fs));
	ck_assert_int_eq(rep.verified, 1);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

START_TEST(copy_path_replaces_atomically)
{
	struct sc_copier *c = copier(true);
	struct sc_copy_report rep;
	mode_t um = umask(022);	/* the test's own: the library never sets it */
	struct stat st;

	make_file("a", 123457, 12);
	ck_assert_int_eq(chmod(path("a"), 04775), 0);
	make_file("b", 10, 13);
	ck_assert_int_eq(sc_copier_copy_path(c, path("a"), path("b"), &rep), 0);
	ck_assert(same_bytes(path("a"), path("b")));
	ck_assert_int_eq(rep.verified, 1);
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
static const struct sc_attempt *last_attempt(const struct sc_copy_report *rep)
{
	ck_assert_int_ge(rep->result.n_attempts, 1);
	return &rep->result.attempt[rep->result.n_attempts - 1];
}

/* The bytes of all attempts: what the copy delivered, step by step. */
static uint64_t chain_bytes(const struct sc_copy_report *rep)
{
	uint64_t sum = 0;

	for (int i = 0; i < rep->result.n_attempts; i++)
		sum += rep->result.attempt[i].bytes;
	return sum;
}

/* Kernel roads only where they are the rules' choice: no clone, so that
 * an empty file on btrfs or xfs is not cloned. */
static struct sc_copier *copier_roads(unsigned roads, bool forced)
{
	struct sc_copy_options o = { .roads = roads, .roads_forced = forced };
	struct sc_copier *c = NULL;

	ck_assert_int_eq(sc_copier_new(&o, &c), 0);
	return c;
}
#define NO_CLONE (SC_ROAD_BIT(SC_ROAD_RANGE) | SC_ROAD_BIT(SC_ROAD_SPLICE) | \
		  SC_ROAD_BIT(SC_ROAD_RW))

/* ENOSPC on the first step (/dev/full takes nothing): the chain names the
 * road with the error, not an empty chain. */
START_TEST(chain_names_enospc_on_the_first_step)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report rep;
	int in, out;

	out = open("/dev/full", O_WRONLY);
	if (out < 0)
		return;
	make_file("a", 100000, 20);
	in = open(path("a"), O_RDONLY);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, &rep), -ENOSPC);
	/* splice may be refused first (EINVAL: "not here") */
	for (int i = 0; i < rep.result.n_attempts; i++)
		ck_assert_int_ne(rep.result.attempt[i].err, 0);
	ck_assert_int_eq(last_attempt(&rep)->err, -ENOSPC);
	ck_assert_int_eq(last_attempt(&rep)->bytes, 0);
	ck_assert_int_eq(rep.result.bytes, 0);
	ck_assert_int_eq(rep.result.side, SC_SIDE_WRITE);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

/* EIO on the first read: /proc/self/mem has no mapping at address 0. */
START_TEST(chain_names_eio_on_the_first_step)
{
	struct sc_copier *c = copier(false);
	struct sc_copy_report rep;
	int in, out;

	in = open("/proc/self/mem", O_RDONLY);
	if (in < 0)
		return;
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, &rep), -EIO);
	ck_assert_int_eq(rep.result.n_attempts, 1);
	ck_assert_int_eq(last_attempt(&rep)->road, SC_ROAD_RW);
	ck_assert_int_eq(last_attempt(&rep)->err, -EIO);
	ck_assert_int_eq(rep.result.side, SC_SIDE_READ);
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
		struct sc_copy_report rep;
		uint64_t held = 0;
		ssize_t n;
		int in, p[2];

		in = open(path("a"), O_RDONLY);
		ck_assert_int_eq(pipe(p), 0);
		ck_assert_int_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
		ck_assert_int_eq(sc_copier_copy_fd(c, in, p[1], &rep), -EAGAIN);
		ck_assert_int_eq(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
		while ((n = read(p[0], buf, sizeof(buf))) > 0)
			held += (uint64_t)n;
		ck_assert_uint_gt(held, 0);
		ck_assert_int_eq(last_attempt(&rep)->err, -EAGAIN);
		ck_assert_uint_eq(chain_bytes(&rep), held);
		ck_assert_uint_eq(rep.result.bytes, held);
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
	struct sc_copy_report rep;
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	int in, p[2];

	make_file("a", 100000, 22);
	in = open(path("a"), O_RDONLY);
	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, p[1], &rep), -EPIPE);
	ck_assert_int_eq(rep.result.n_attempts, 1);
	ck_assert_int_eq(last_attempt(&rep)->err, -EPIPE);
	ck_assert_int_eq(last_attempt(&rep)->bytes, 0);
	signal(SIGPIPE, old);
	close(in);
	close(p[1]);
	sc_copier_free(c);
}
END_TEST

/* RLIMIT_FSIZE cuts a step short, then EFBIG: the bytes of that step
 * count, so the chain, the total and the destination's size agree, on
 * every road that writes a file. */
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
		struct sc_copy_report rep;
		int in, out, e;

		in = open(path("a"), O_RDONLY);
		out = open(path("b"), O_RDWR | O_CREAT | O_TRUNC, 0600);
		lim = was;
		lim.rlim_cur = limit;
		ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
		e = sc_copier_copy_fd(c, in, out, &rep);
		ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &was), 0);
		ck_assert_int_eq(e, -EFBIG);
		ck_assert_int_eq(rep.result.n_attempts, 1);
		ck_assert_int_eq(last_attempt(&rep)->road, roads[i]);
		ck_assert_int_eq(last_attempt(&rep)->err, -EFBIG);
		ck_assert_uint_eq(last_attempt(&rep)->bytes, limit);
		ck_assert_uint_eq(rep.result.bytes, limit);
		ck_assert_int_eq(rep.result.size, (off_t)limit);
		ck_assert_int_eq(size_of(path("b")), (off_t)limit);
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
	struct sc_copy_report rep;
	int in, out;

	make_file("a", 0, 0);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, &rep), 0);
	ck_assert_int_eq(rep.result.n_attempts, 1);
	ck_assert_int_eq(rep.result.attempt[0].road, SC_ROAD_RW);
	ck_assert_int_eq(rep.result.attempt[0].err, 0);
	ck_assert_int_eq(rep.result.attempt[0].bytes, 0);
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

/* A file that grows while it is copied: copy_file_range copies the size
 * it had and is stopped there without ever returning 0, so it is not
 * marked SC_ERR_ZERO; read_write copies what was added. */
static void grow(void *arg, uint64_t done, enum sc_road road)
{
	int *grown = arg;
	int fd;

	(void)done;
	if (*grown || road != SC_ROAD_RANGE)
		return;
	fd = open(path("a"), O_WRONLY | O_APPEND);
	ck_assert_int_eq(write(fd, "0123456789", 10), 10);
	close(fd);
	*grown = 1;
}

START_TEST(chain_of_a_growing_file_has_no_zero)
{
	int grown = 0;
	struct sc_copy_options o = {
		.roads = SC_ROAD_BIT(SC_ROAD_RANGE) | SC_ROAD_BIT(SC_ROAD_RW),
		.progress = grow, .progress_arg = &grown,
	};
	struct sc_copier *c = NULL;
	struct sc_copy_report rep;
	int in, out;

	make_file("a", 100000, 24);
	ck_assert_int_eq(sc_copier_new(&o, &c), 0);
	in = open(path("a"), O_RDONLY);
	out = open(path("b"), O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(sc_copier_copy_fd(c, in, out, &rep), 0);
	if (rep.result.attempt[0].road != SC_ROAD_RANGE)
		goto out;	/* no copy_file_range here: nothing to see */
	ck_assert_int_eq(grown, 1);
	ck_assert_int_eq(rep.result.n_attempts, 2);
	ck_assert_int_eq(rep.result.attempt[0].err, 0);
	ck_assert_uint_eq(rep.result.attempt[0].bytes, 100000);
	ck_assert_int_eq(rep.result.attempt[1].road, SC_ROAD_RW);
	ck_assert_int_eq(rep.result.attempt[1].err, 0);
	ck_assert_uint_eq(rep.result.attempt[1].bytes, 10);
	ck_assert_int_eq(rep.changed, SC_CHANGE_GREW);
	ck_assert(same_bytes(path("a"), path("b")));
out:
	close(in);
	close(out);
	sc_copier_free(c);
}
END_TEST

START_TEST(version_and_names)
{
	ck_assert_str_eq(sc_version(), PACKAGE_VERSION);
	ck_assert_int_eq(sc_init(), 0);
	ck_assert_int_eq(sc_init(), 0);
	ck_assert_str_eq(sc_road_name(SC_ROAD_RANGE), "copy_file_range");
	ck_assert_int_eq(sc_road_from_name("read_write"), SC_ROAD_RW);
	ck_assert_int_eq(sc_road_from_name("teleport"), -1);
	ck_assert_str_eq(sc_road_name((enum sc_road)42), "?");
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
