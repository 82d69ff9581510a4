/* libFuzzer target: libsmartcp's copier through its public header.
 *
 * The first four bytes of the input are option bits (roads, including an
 * unknown one; forced; reflink and sparse, including values out of
 * range; SC_COPY_VERIFY; a progress function, which cancels the copy at
 * its Nth call when asked to), the kind of source (a regular file, one with
 * a hole before the data, an empty file, a pipe) and of destination (a
 * new file, a longer file, a write-only file, a pipe, an O_APPEND file,
 * the source itself, an O_PATH descriptor, a closed one); the rest is the
 * source's content.  The setters must refuse exactly the invalid
 * options; sc_copier_copy_fd must return 0 or one of its documented
 * errors, leave a regular destination holding the source's bytes when it
 * returns 0, never longer than the source when it fails, and the
 * descriptors it was given open.  sc_copier_explain_fd and
 * sc_copier_verify_fd are driven on the same pair. */
#define _GNU_SOURCE		/* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <smartcp/smartcp.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...) do { \
	fprintf(stderr, "fuzz check failed: " __VA_ARGS__); \
	fputc('\n', stderr); \
	abort(); \
} while (0)

static char dir[4096], src_path[4200], dst_path[4200];
static uint64_t progress_calls, progress_done;
static unsigned cancel_at;	/* the progress call that cancels (0: none) */

static int on_progress(void *arg, uint64_t done, enum sc_road road)
{
	(void)arg;
	if ((unsigned)road >= sc_road_count())
		FAIL("progress with road %d", (int)road);
	if (done < progress_done)
		FAIL("progress went back from %llu to %llu",
		     (unsigned long long)progress_done,
		     (unsigned long long)done);
	progress_done = done;
	progress_calls++;
	return cancel_at && progress_calls >= cancel_at;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "%s/fuzz_copier.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		FAIL("mkdtemp %s: %s", dir, strerror(errno));
	snprintf(src_path, sizeof(src_path), "%s/src", dir);
	snprintf(dst_path, sizeof(dst_path), "%s/dst", dir);
	sc_init();
	return 0;
}

static bool errno_documented(int e)
{
	switch (-e) {
	case EINVAL: case EBADF: case EISDIR: case EOPNOTSUPP: case EBADMSG:
	case EIO: case ENOSPC: case EDQUOT: case EXDEV: case ENOSYS:
	case ENOTTY: case EPERM: case ETXTBSY: case EAGAIN: case EFBIG:
	case ECANCELED:
		return true;
	}
	return false;
}

static void write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			FAIL("write: %s", strerror(errno));
		p += w;
		n -= (size_t)w;
	}
}

/* Reads all of FD from offset 0 into a malloc'd buffer; *N its length. */
static uint8_t *read_back(int fd, size_t *n)
{
	size_t cap = 4096, len = 0;
	uint8_t *b = malloc(cap);
	ssize_t r;

	while (b && (r = pread(fd, b + len, cap - len, (off_t)len)) > 0) {
		len += (size_t)r;
		if (len == cap) {
			uint8_t *nb = realloc(b, cap *= 2);

			if (!nb)
				break;
			b = nb;
		}
	}
	*n = len;
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sc_copier *c = NULL;
	struct sc_copy_report *rep = NULL;
	const struct sc_plan *plan;
	const unsigned all = (1u << sc_road_count()) - 1;
	unsigned roads;
	bool forced, progress;
	enum sc_reflink reflink;
	enum sc_sparse sparse;
	const uint8_t *body;
	size_t n, hole = 0;
	int in = -1, out = -1, p[2] = { -1, -1 }, q[2] = { -1, -1 };
	int src_kind, dst_kind, e;
	bool valid, out_regular = false, want_pipe = false;

	if (size < 4)
		return 0;
	body = data + 4;
	n = size - 4;
	if (n > 60000)		/* a pipe holds 64 KiB without a reader */
		n = 60000;

	roads = data[0] & 0x1f;
	forced = data[0] & 0x20;
	progress = data[0] & 0x80;
	reflink = (enum sc_reflink)(data[1] & 3);
	sparse = (enum sc_sparse)((data[1] >> 2) & 3);
	src_kind = (data[1] >> 4) & 3;
	dst_kind = data[2] % 8;
	/* the top bits of the fourth byte: cancel at the Nth progress call */
	cancel_at = progress ? data[3] >> 5 : 0;
	progress_calls = progress_done = 0;

	e = sc_copier_new(data[0] & 0x40 ? SC_COPY_VERIFY : 0, &c);
	if (e < 0 || !c)
		FAIL("sc_copier_new: %d", e);
	e = sc_copy_report_new(&rep);
	if (e < 0)
		FAIL("sc_copy_report_new: %d", e);
	/* each setter refuses exactly what is out of range */
	valid = roads && !(roads & ~all);
	if ((sc_copier_set_roads(c, roads ? roads : all, forced) == 0) !=
	    (valid || !roads))
		FAIL("sc_copier_set_roads(%#x, %d)", roads, forced);
	if ((sc_copier_set_reflink(c, reflink) == 0) !=
	    (reflink <= SC_REFLINK_NEVER))
		FAIL("sc_copier_set_reflink(%d)", (int)reflink);
	if ((sc_copier_set_sparse(c, sparse) == 0) !=
	    (sparse <= SC_SPARSE_NEVER))
		FAIL("sc_copier_set_sparse(%d)", (int)sparse);
	if (progress)
		sc_copy_ctx_set_progress(sc_copier_ctx(c), on_progress, NULL);

	/* The source. */
	unlink(src_path);
	unlink(dst_path);
	if (src_kind == 3) {
		if (pipe(p) < 0)
			FAIL("pipe: %s", strerror(errno));
		write_all(p[1], body, n);
		close(p[1]);
		p[1] = -1;
		in = p[0];
	} else {
		int w = open(src_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (w < 0)
			FAIL("open %s: %s", src_path, strerror(errno));
		if (src_kind == 1) {
			/* data after a hole of 1 MiB (only a hole when there
			 * is no data) */
			hole = 1 << 20;
			if (ftruncate(w, (off_t)hole) < 0 ||
			    lseek(w, (off_t)hole, SEEK_SET) < 0)
				FAIL("ftruncate, lseek: %s", strerror(errno));
		}
		if (src_kind != 2)
			write_all(w, body, n);
		else
			n = 0;
		close(w);
		in = open(src_path, O_RDONLY);
	}

	/* The destination. */
	switch (dst_kind) {
	case 0:	/* a new file, read and write */
		out = open(dst_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		out_regular = true;
		break;
	case 1: {	/* a longer file: must be cut */
		static const uint8_t junk[8192] = { 1 };

		out = open(dst_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		write_all(out, junk, sizeof(junk));
		out_regular = true;
		break;
	}
	case 2:	/* write-only: verify cannot read it back */
		out = open(dst_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		out_regular = true;
		break;
	case 3:	/* a pipe: a stream */
		if (pipe(q) < 0)
			FAIL("pipe: %s", strerror(errno));
		out = q[1];
		want_pipe = true;
		break;
	case 4:	/* O_APPEND */
		out = open(dst_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
		break;
	case 5:	/* the source itself */
		out = src_kind == 3 ? p[0] : open(src_path, O_RDWR);
		break;
	case 6:	/* O_PATH */
		out = open(dir, O_PATH);
		break;
	default: {	/* a closed descriptor */
		int t = open(dir, O_PATH);

		close(t);
		out = t;
		break;
	}
	}
	if (in < 0 || (dst_kind < 7 && out < 0))
		FAIL("cannot open the test files: %s", strerror(errno));
	/* a pipe destination cannot hold the source's hole without a reader */
	if (want_pipe && hole)
		goto done;

	e = sc_copier_copy_fd(c, in, out, rep);
	if (e > 0 || (e < 0 && !errno_documented(e)))
		FAIL("sc_copier_copy_fd: %d (%s), source %d, destination %d",
		     e, strerror(-e), src_kind, dst_kind);
	if (e != sc_copy_report_error(rep))
		FAIL("returned %d, the report says %d", e,
		     sc_copy_report_error(rep));
	if (e == -ECANCELED && !cancel_at)
		FAIL("cancelled without being asked");
	for (unsigned i = 0; i < sc_copy_report_events(rep); i++) {
		struct sc_event ev = { .size = sizeof(ev) };

		if (sc_copy_report_event(rep, i, &ev) < 0)
			FAIL("event %u of %u", i, sc_copy_report_events(rep));
	}
	/* cancellation is sticky: the next call on this copier starts
	 * afresh */
	sc_copy_ctx_reset_cancel(sc_copier_ctx(c));
	cancel_at = 0;
	if (dst_kind == 5 && e != -EINVAL && !(src_kind == 3 && e == -EBADF))
		FAIL("same file: %d", e);
	if ((dst_kind == 4 || dst_kind == 6 || dst_kind == 7) && e != -EBADF)
		FAIL("destination %d: %d, not -EBADF", dst_kind, e);
	if (e == 0 && out_regular && dst_kind != 2) {
		size_t got;
		uint8_t *b = read_back(out, &got);

		if (!b)
			FAIL("out of memory");
		if (got != hole + n)
			FAIL("copy is %zu bytes, source %zu", got, hole + n);
		for (size_t i = 0; i < hole; i++)
			if (b[i])
				FAIL("byte %zu of the hole is %d", i, b[i]);
		if (memcmp(b + hole, body, n))
			FAIL("copy differs from the source");
		free(b);
	}
	if (e == 0 && want_pipe) {
		uint8_t *b = malloc(n + 1);
		ssize_t r = 0;

		if (!b)
			FAIL("out of memory");
		close(q[1]);
		q[1] = out = -1;
		for (size_t got = 0; got < n + 1; got += (size_t)r) {
			r = read(q[0], b + got, n + 1 - got);
			if (r <= 0) {
				if (got != n || memcmp(b, body, n))
					FAIL("pipe got %zu bytes, not the %zu of the source", got, n);
				break;
			}
		}
		free(b);
	}
	if (e < 0 && out_regular) {
		struct stat st;
		/* what the destination held: a failure either leaves it as
		 * it was (nothing done to it: no road, cancelled before the
		 * first byte) or cut to what was copied */
		size_t before = dst_kind == 1 ? 8192 : 0;

		if (fstat(out, &st) == 0 && (size_t)st.st_size > hole + n &&
		    (size_t)st.st_size != before)
			FAIL("failed copy left %lld bytes, source %zu",
			     (long long)st.st_size, hole + n);
	}
	if (fcntl(in, F_GETFD) < 0 || (out >= 0 && dst_kind < 7 &&
				       fcntl(out, F_GETFD) < 0))
		FAIL("a descriptor was closed by the library");

	/* Planning needs no access at all; verification only regular
	 * files. */
	if (dst_kind != 7) {
		e = sc_copier_explain_fd(c, in, out >= 0 ? out : in, rep);
		if (e < 0 && e != -EBADF && e != -EISDIR)
			FAIL("sc_copier_explain_fd: %d", e);
		/* only a restriction of the roads may leave none */
		plan = sc_copy_report_plan(rep);
		if (e == 0 && !sc_plan_n_use(plan) && !(valid && forced) &&
		    (!roads || roads == all || !valid) &&
		    reflink != SC_REFLINK_ALWAYS)
			FAIL("a plan without a road");
	}
	if (out >= 0 && dst_kind < 7) {
		e = sc_copier_verify_fd(c, in, out, NULL);
		if (e > 1 || (e < 0 && !errno_documented(e)))
			FAIL("sc_copier_verify_fd: %d", e);
	}

done:
	if (in >= 0)
		close(in);
	if (out >= 0 && out != in && dst_kind < 7)
		close(out);
	if (p[1] >= 0)
		close(p[1]);
	if (q[0] >= 0)
		close(q[0]);
	if (q[1] >= 0 && q[1] != out)
		close(q[1]);
	sc_copy_report_free(rep);
	sc_copier_free(c);
	return 0;
}
