/* The convenience layer of libsmartcp: a copier runs the whole rule set
 * for one file at a time -- facts about both filesystems, the plan, the
 * copy with its fallback, a check that the source held still, and the
 * verification -- the way the smartcp program does for each file, at the
 * level of open descriptors (sc_copier_copy_fd) and of paths
 * (sc_copier_copy_path, which replaces the destination atomically). */
#include "common.h"
#include "copy.h"
#include "dl.h"
#include "fsinfo.h"
#include "verify.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

/* Roads that failed "not here" for one pair of filesystems.  Facts live
 * as long as the copier's cache, so their addresses identify them. */
struct learned {
	const struct sc_fs_facts *src, *dst;
	unsigned roads;
};

struct sc_copier {
	struct sc_copy_options opts;
	struct sc_fsinfo *fsi;
	struct sc_copy_ctx ctx;
	struct sc_kernel kernel;
	struct learned *learned;
	size_t n_learned;
};

const char *sc_version(void)
{
	return PACKAGE_VERSION;
}

int sc_init(void)
{
	/* libmount and libblkid read their LIBMOUNT_DEBUG / LIBBLKID_DEBUG
	 * masks on first use, into globals, without a lock.  They are
	 * loaded only when a fact needs them (dl.c), and the loading runs
	 * that set-up under its pthread_once, whatever thread asks first:
	 * here only what is loaded already is set up, and nothing is
	 * loaded for it. */
	if (sc_dl_libmount_loaded())
		sc_dl_libmount()->mnt_init_debug(0);
	if (sc_dl_libblkid_loaded())
		sc_dl_libblkid()->blkid_init_debug(0);
	return 0;
}

int sc_copier_new(const struct sc_copy_options *opts, struct sc_copier **ret)
{
	struct sc_copy_options o = { 0 };
	struct sc_copier *c;
	int e;

	if (!ret)
		return -EINVAL;
	*ret = NULL;
	if (opts)
		o = *opts;
	if ((o.roads & ~SC_ROADMASK_ALL) ||
	    (unsigned)o.reflink > SC_REFLINK_NEVER ||
	    (unsigned)o.sparse > SC_SPARSE_NEVER ||
	    (o.roads_forced && !o.roads))
		return -EINVAL;
	if (!o.roads)
		o.roads = SC_ROADMASK_ALL;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->opts = o;
	e = sc_fsinfo_new(NULL, &c->fsi);
	if (e < 0) {
		free(c);
		return e;
	}
	e = sc_copy_ctx_init(&c->ctx, o.sparse);
	if (e < 0) {
		sc_fsinfo_free(c->fsi);
		free(c);
		return e;
	}
	c->ctx.verify = o.verify;
	c->ctx.progress = o.progress;
	c->ctx.progress_arg = o.progress_arg;
	c->kernel = sc_kernel_running();
	*ret = c;
	return 0;
}

void sc_copier_free(struct sc_copier *c)
{
	if (!c)
		return;
	sc_copy_ctx_done(&c->ctx);
	sc_fsinfo_free(c->fsi);
	free(c->learned);
	free(c);
}

static unsigned learned_get(const struct sc_copier *c,
			    const struct sc_fs_facts *s,
			    const struct sc_fs_facts *d)
{
	for (size_t i = 0; i < c->n_learned; i++)
		if (c->learned[i].src == s && c->learned[i].dst == d)
			return c->learned[i].roads;
	return 0;
}

/* Out of memory only forgets: the next copy tries the road again. */
static void learned_add(struct sc_copier *c, const struct sc_fs_facts *s,
			const struct sc_fs_facts *d, unsigned roads)
{
	struct learned *n;
	size_t i;

	for (i = 0; i < c->n_learned; i++)
		if (c->learned[i].src == s && c->learned[i].dst == d)
			break;
	if (i == c->n_learned) {
		n = realloc(c->learned, (c->n_learned + 1) * sizeof(*n));
		if (!n)
			return;
		c->learned = n;
		c->learned[c->n_learned++] = (struct learned){ s, d, 0 };
	}
	c->learned[i].roads |= roads;
}

/* Checks that FD is open (not O_PATH) with an access mode that allows
 * reading (READ) or writing, and fstats it into ST.  0 or -EBADF. */
static int check_fd(int fd, bool read, struct stat *st)
{
	int fl, acc;

	if (fd < 0)
		return -EBADF;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -EBADF;
	/* fstat succeeds on an O_PATH descriptor, and read(2) and write(2)
	 * fail on it with EBADF: say so before anything is tried. */
	if (fl & O_PATH)
		return -EBADF;
	acc = fl & O_ACCMODE;
	if (read ? acc != O_RDONLY && acc != O_RDWR :
		   acc != O_WRONLY && acc != O_RDWR)
		return -EBADF;
	if (fstat(fd, st) < 0)
		return -errno;
	return 0;
}

/* A source IN to read and a destination OUT to write (or, OUT_READ, to
 * read back), neither a directory; their fstat in IST and OST.  0,
 * -EBADF or -EISDIR. */
static int check_pair(int in, int out, bool out_read, struct stat *ist,
		      struct stat *ost)
{
	int e = check_fd(in, true, ist);

	if (e < 0)
		return e;
	e = check_fd(out, out_read, ost);
	if (e < 0)
		return e;
	if (S_ISDIR(ist->st_mode) || S_ISDIR(ost->st_mode))
		return -EISDIR;
	return 0;
}

static void plan_for(struct sc_copier *c, const struct stat *ist,
		     mode_t dst_mode, struct sc_copy_report *rep)
{
	struct sc_plan_input in = {
		.src_fs = rep->src_fs, .dst_fs = rep->dst_fs,
		.src_mode = ist->st_mode, .dst_mode = dst_mode,
		.src_size = ist->st_size, .kernel = c->kernel,
		.reflink = c->opts.reflink, .sparse = c->opts.sparse,
		.roads = c->opts.roads, .roads_forced = c->opts.roads_forced,
		.learned = learned_get(c, rep->src_fs, rep->dst_fs),
	};

	rep->kernel = c->kernel;
	sc_plan_make(&in, &rep->plan);
}

int sc_copier_explain_fd(struct sc_copier *c, int in, int out,
			 struct sc_copy_report *ret)
{
	struct stat ist, ost;
	mode_t dst_mode;

	if (!c || !ret)
		return -EINVAL;
	*ret = (struct sc_copy_report){ 0 };
	/* Nothing is read or written: an O_PATH descriptor or one of any
	 * access mode is enough to learn where the files are. */
	if (in < 0 || out < 0 || fstat(in, &ist) < 0 || fstat(out, &ost) < 0)
		return -EBADF;
	if (S_ISDIR(ist.st_mode))
		return -EISDIR;
	dst_mode = S_ISDIR(ost.st_mode) ? S_IFREG : ost.st_mode;
	ret->src_fs = sc_fsinfo_lookup(c->fsi, in, &ist);
	ret->dst_fs = sc_fsinfo_lookup(c->fsi, out, &ost);
	if (!ret->src_fs || !ret->dst_fs)
		return -ENOMEM;
	plan_for(c, &ist, dst_mode, ret);
	return 0;
}

/* Reads OUT back and compares it with IN; on a difference, copies once
 * more with read_write and compares again.  0, -EBADMSG (still
 * different), or -errno of the verification or the copy. */
static int verify_copy(struct sc_copier *c, int in, int out,
		       const struct stat *ist, const struct stat *ost,
		       bool size_trusted, struct sc_copy_report *rep)
{
	struct sc_copy_result *res = &rep->result;
	bool regular = S_ISREG(ist->st_mode) && size_trusted;
	enum sc_verify_side side = SC_VSIDE_BACK;
	struct sc_copy_result again;
	struct sc_plan rw;
	off_t bad = 0;
	int v, e;

	for (int pass = 0;; pass++) {
		bool digests = res->road_bytes[SC_ROAD_RW] == res->bytes &&
			       sc_digests_cover(&c->ctx.dg, res->size);

		if (!digests && !regular) {
			/* Bytes that cannot be read twice, moved by a kernel
			 * road: only a copy through our hands can be
			 * checked. */
			v = 0;
		} else {
			v = sc_verify(in, out, res->size, digests, regular,
				      c->opts.durable, &c->ctx.dg, c->ctx.buf,
				      c->ctx.bufsize, &bad, &side);
		}
		if (v < 0) {
			res->side = side == SC_VSIDE_SOURCE ? SC_SIDE_READ :
								SC_SIDE_WRITE;
			return v;
		}
		if (v == 1) {
			rep->verified = 1;
			return 0;
		}
		if (pass)
			return -EBADMSG;
		if (S_ISREG(ost->st_mode) && ftruncate(out, 0) < 0) {
			res->side = SC_SIDE_WRITE;
			return -errno;
		}
		sc_plan_repair(&rw);
		e = sc_copy_data(&c->ctx, in, out, ist,
				 S_ISREG(ost->st_mode) || S_ISBLK(ost->st_mode),
				 &rw, size_trusted, &again);
		sc_copy_result_merge(res, &again);
		if (e < 0)
			return e;
	}
}

static int copy_fd(struct sc_copier *c, int in, int out,
		   struct sc_copy_report *rep)
{
	struct sc_copy_result *res = &rep->result;
	struct stat ist, ost, after;
	bool out_seekable, size_trusted, generated;
	unsigned learned = 0;
	int e, fl;

	e = check_pair(in, out, false, &ist, &ost);
	if (e < 0)
		return e;
	if (ist.st_dev == ost.st_dev && ist.st_ino == ost.st_ino)
		return -EINVAL;
	out_seekable = S_ISREG(ost.st_mode) || S_ISBLK(ost.st_mode);
	/* copy_file_range and FICLONE refuse an O_APPEND destination with
	 * EBADF, and pwrite(2) on it appends wherever it is asked to write:
	 * the offsets the engine keeps would mean nothing. */
	fl = fcntl(out, F_GETFL);
	if (out_seekable && (fl & O_APPEND))
		return -EBADF;
	/* A FIFO, a socket or a terminal keeps nothing that could be read
	 * back: such a copy could never be proven. */
	if (c->opts.verify && !out_seekable)
		return -EOPNOTSUPP;
	if (c->opts.verify && (fl & O_ACCMODE) != O_RDWR)
		return -EBADF;

	rep->src_fs = sc_fsinfo_lookup(c->fsi, in, &ist);
	rep->dst_fs = sc_fsinfo_lookup(c->fsi, out, &ost);
	if (!rep->src_fs || !rep->dst_fs)
		return -ENOMEM;
	plan_for(c, &ist, ost.st_mode, rep);
	size_trusted = !sc_plan_size_untrusted(rep->src_fs);
	generated = !size_trusted;
	if (c->opts.verify && !S_ISREG(ist.st_mode) && !S_ISBLK(ist.st_mode)) {
		/* A pipe cannot be read twice: its bytes must pass through
		 * the library to be checked. */
		for (int r = 0; r < SC_ROAD__MAX; r++)
			if (r != SC_ROAD_RW && rep->plan.step[r].use) {
				rep->plan.step[r].use = false;
				rep->plan.step[r].why = N_("--verify of a stream");
				rep->plan.n_use--;
			}
	}

	/* From offset 0 of each: a regular destination starts empty. */
	if (S_ISREG(ost.st_mode) && ftruncate(out, 0) < 0) {
		res->side = SC_SIDE_WRITE;
		return -errno;
	}
	if (out_seekable && lseek(out, 0, SEEK_SET) < 0 && errno != ESPIPE)
		return -errno;
	if (lseek(in, 0, SEEK_SET) < 0 && errno != ESPIPE)
		return -errno;

	e = sc_copy_data(&c->ctx, in, out, &ist, out_seekable, &rep->plan,
			 size_trusted, res);
	/* Only errors that belong to the filesystem pair are learned: EPERM
	 * or ETXTBSY belong to one file. */
	for (int i = 0; i < res->n_attempts; i++) {
		int err = -res->attempt[i].err;

		if (err == EXDEV || err == EOPNOTSUPP || err == ENOSYS ||
		    err == ENOTTY)
			learned |= SC_ROAD_BIT(res->attempt[i].road);
	}
	if (learned)
		learned_add(c, rep->src_fs, rep->dst_fs, learned);
	if (e < 0)
		return e;

	/* Did the source change while it was copied?  Only a regular file
	 * has a content that a size and times identify. */
	if (S_ISREG(ist.st_mode) && fstat(in, &after) == 0) {
		rep->changed = sc_change_compare(&ist, &after, generated);
		/* A clone copies what the file held at that moment, not what
		 * the first fstat said; a source that shrank leaves no stale
		 * tail past its new end. */
		if (rep->changed != SC_CHANGE_NONE && S_ISREG(ost.st_mode)) {
			struct stat now;

			if (fstat(out, &now) == 0)
				res->size = now.st_size;
			if (!generated && after.st_size < res->size) {
				if (ftruncate(out, after.st_size) < 0) {
					res->side = SC_SIDE_WRITE;
					return -errno;
				}
				res->size = after.st_size;
			}
		}
	}

	if (c->opts.verify)
		return verify_copy(c, in, out, &ist, &ost, size_trusted, rep);
	if (c->opts.durable && out_seekable && fdatasync(out) < 0) {
		res->side = SC_SIDE_WRITE;
		return -errno;
	}
	return 0;
}

int sc_copier_copy_fd(struct sc_copier *c, int in, int out,
		      struct sc_copy_report *ret)
{
	struct sc_copy_report mine;
	struct sc_copy_report *rep = ret ? ret : &mine;
	struct stat ost;
	int e;

	if (!c)
		return -EINVAL;
	*rep = (struct sc_copy_report){ 0 };
	e = copy_fd(c, in, out, rep);
	/* Whatever went wrong, a regular destination is never left longer
	 * than what was copied (a road may have written past the offset
	 * it then reported, a verification repair may have failed). */
	if (e < 0 && rep->result.n_attempts > 0 && fstat(out, &ost) == 0 &&
	    S_ISREG(ost.st_mode) && ost.st_size > rep->result.size &&
	    ftruncate(out, rep->result.size) < 0) {
		/* the error already returned says more */
	}
	if (e < 0)
		rep->result.err = e;
	return e;
}

/* Opens a new, unnamed file in directory DIR (O_TMPFILE, Linux 3.11+ on
 * most local filesystems), or else a hidden file with a random name
 * beside BASE, returned in TMP ("" for an unnamed file).  Returns the
 * descriptor (read and write: verification reads it back) or -errno. */
static int open_temp(int dir, const char *base, mode_t mode, char *tmp,
		     size_t tmpsize)
{
	int fd, tries;

	tmp[0] = '\0';
	fd = openat(dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	if (fd >= 0)
		return fd;
	/* EOPNOTSUPP: the filesystem has no O_TMPFILE (FUSE, NFS before
	 * 4.2...); EISDIR or EINVAL: the kernel predates it. */
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	for (tries = 0; tries < 100; tries++) {
		uint64_t r = 0;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) < 0)
			r = (uint64_t)getpid() * 2654435761u + (uint64_t)tries;
		if (snprintf(tmp, tmpsize, ".%.200s.%016llx.sc-tmp", base,
			     (unsigned long long)r) >= (int)tmpsize)
			return -ENAMETOOLONG;
		/* The kernel applies the umask (or a default ACL) to MODE,
		 * as for any file open(2) creates. */
		fd = openat(dir, tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			    mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	tmp[0] = '\0';
	return -errno;
}

/* Gives the unnamed file FD a name in DIR: a random one, returned in TMP,
 * which is then renamed over the destination.  0 or -errno. */
static int link_temp(int fd, int dir, const char *base, char *tmp,
		     size_t tmpsize)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (int tries = 0; tries < 100; tries++) {
		uint64_t r = 0;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) < 0)
			r = (uint64_t)getpid() * 2654435761u + (uint64_t)tries;
		if (snprintf(tmp, tmpsize, ".%.200s.%016llx.sc-tmp", base,
			     (unsigned long long)r) >= (int)tmpsize)
			return -ENAMETOOLONG;
		if (linkat(AT_FDCWD, proc, dir, tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST) {
			int e = -errno;

			tmp[0] = '\0';
			return e;
		}
	}
	tmp[0] = '\0';
	return -EEXIST;
}

int sc_copier_copy_path(struct sc_copier *c, const char *src,
			const char *dst, struct sc_copy_report *ret)
{
	struct sc_copy_report mine;
	struct sc_copy_report *rep = ret ? ret : &mine;
	_cleanup_close_ int in = -1;
	_cleanup_close_ int dir = -1;
	_cleanup_close_ int out = -1;
	_cleanup_free_ char *dirname = NULL;
	char tmp[256 + 64];
	const char *slash, *base;
	struct stat ist, dst_st;
	mode_t mode;
	int e;

	if (!c || !src || !dst || !*src || !*dst)
		return -EINVAL;
	*rep = (struct sc_copy_report){ 0 };

	/* O_NONBLOCK: opening a FIFO must not wait for a writer before it
	 * can be refused. */
	in = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (in < 0)
		return -errno;
	if (fstat(in, &ist) < 0)
		return -errno;
	if (S_ISDIR(ist.st_mode))
		return -EISDIR;
	if (!S_ISREG(ist.st_mode))
		return -EINVAL;
	if (fcntl(in, F_SETFL, fcntl(in, F_GETFL) & ~O_NONBLOCK) < 0)
		return -errno;

	slash = strrchr(dst, '/');
	base = slash ? slash + 1 : dst;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return -EISDIR;
	if (slash == dst)
		dirname = strdup("/");
	else if (slash)
		dirname = strndup(dst, (size_t)(slash - dst));
	else
		dirname = strdup(".");
	if (!dirname)
		return -ENOMEM;
	dir = open(dirname, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	if (fstatat(dir, base, &dst_st, 0) == 0) {
		if (S_ISDIR(dst_st.st_mode))
			return -EISDIR;
		if (dst_st.st_dev == ist.st_dev && dst_st.st_ino == ist.st_ino)
			return -EINVAL;
	} else if (errno != ENOENT) {
		return -errno;
	}

	/* The source's permission bits without set-user-ID, set-group-ID
	 * and sticky (as cp gives a new file), computed once; open(2)
	 * applies the umask (or a default ACL). */
	mode = ist.st_mode & 0777;
	out = open_temp(dir, base, mode, tmp, sizeof(tmp));
	if (out < 0)
		return out;
	e = sc_copier_copy_fd(c, in, out, rep);
	if (e == 0 && !tmp[0])
		e = link_temp(out, dir, base, tmp, sizeof(tmp));
	if (e == 0 && renameat(dir, tmp, dir, base) < 0)
		e = -errno;
	if (e < 0) {
		/* DST stays as it was; an unnamed file vanishes with its
		 * descriptor. */
		if (tmp[0])
			unlinkat(dir, tmp, 0);
		rep->result.err = e;
		return e;
	}
	if (c->opts.durable) {
		/* The new name must reach the disk too. */
		_cleanup_close_ int d = openat(dir, ".", O_RDONLY |
					       O_DIRECTORY | O_CLOEXEC);

		if (d < 0 || fsync(d) < 0)
			return -errno;
	}
	return 0;
}

int sc_copier_verify_fd(struct sc_copier *c, int in, int out,
			off_t *ret_bad)
{
	struct stat ist, ost;
	enum sc_verify_side side;
	off_t bad = 0;
	int e, v;

	if (!c)
		return -EINVAL;
	e = check_pair(in, out, true, &ist, &ost);
	if (e < 0)
		return e;
	/* Both are read from offset 0, and the source a second time: only
	 * files that hold their bytes can be compared. */
	if ((!S_ISREG(ist.st_mode) && !S_ISBLK(ist.st_mode)) ||
	    (!S_ISREG(ost.st_mode) && !S_ISBLK(ost.st_mode)))
		return -EINVAL;
	v = sc_verify(in, out, ost.st_size, false, true, c->opts.durable,
		      NULL, c->ctx.buf, c->ctx.bufsize, &bad, &side);
	if (v == 0 && ret_bad)
		*ret_bad = bad;
	return v;
}
