/* The one pipeline: everything done to one regular file, phase by phase
 * -- open the source, compare it (SC_COPY_IF_CHANGED), open the
 * destination (in place, removed first, or a temporary), plan, copy with
 * fallback, see whether the source held still, verify and repair once,
 * the metadata, sync, commit -- or, when something fails, leave no
 * destination that looks complete.  smartcp copies every regular file
 * through it, and so does any program that links libsmartcp; the simple
 * calls at the end (copy_fd, copy_path, verify_fd) are this pipeline
 * too.  Nothing is printed: what happened is the report's (report.c),
 * each failure an event a program words as it likes. */
#include "common.h"
#include "copier.h"
#include "dl.h"
#include "fsinfo.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The flags this library knows. */
#define COPY_FLAGS ((SC_COPY_XATTR_STRICT << 1) - 1)
#define FILE_FLAGS ((SC_FILE_COMPARE_ONLY << 1) - 1)
/* sc_copier_copy_path's own, never given by a caller: SC_COPY_ATOMIC
 * for this call, and a destination replaced as mv would replace it (the
 * new file does not take the old one's owner, mode and attributes). */
#define FILE_ATOMIC (1u << 30)
#define FILE_REPLACE (1u << 31)

int sc_api_version(void)
{
	return SC_API_VERSION;
}

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

/* ---- the copier ---------------------------------------------------------- */

int sc_copier_new(unsigned flags, struct sc_copier **ret)
{
	struct sc_copier *c;
	int e;

	if (!ret)
		return -EINVAL;
	*ret = NULL;
	if (flags & ~COPY_FLAGS)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	e = sc_fsinfo_new(NULL, &c->fsi);
	if (e < 0) {
		free(c);
		return e;
	}
	c->flags = flags;
	c->roads = SC_ROADMASK_ALL;
	c->kernel = sc_kernel_running();
	c->privileged = -1;
	c->link_how = LINK_UNKNOWN;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->own_lock, NULL);
	*ret = c;
	return 0;
}

void sc_copier_free(struct sc_copier *c)
{
	if (!c)
		return;
	sc_copy_ctx_free(c->own);
	sc_fsinfo_free(c->fsi);
	sc_xattr_rules_free(c->rules);
	free(c->xattr_conf);
	free(c->learned);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->own_lock);
	free(c);
}

unsigned sc_copier_flags(const struct sc_copier *c)
{
	return c ? c->flags : 0;
}

int sc_copier_set_roads(struct sc_copier *c, unsigned roads, bool forced)
{
	if (!c || !roads || (roads & ~SC_ROADMASK_ALL))
		return -EINVAL;
	c->roads = roads;
	c->roads_forced = forced;
	return 0;
}

int sc_copier_set_reflink(struct sc_copier *c, enum sc_reflink reflink)
{
	if (!c || (unsigned)reflink > SC_REFLINK_NEVER)
		return -EINVAL;
	c->reflink = reflink;
	return 0;
}

int sc_copier_set_sparse(struct sc_copier *c, enum sc_sparse sparse)
{
	if (!c || (unsigned)sparse > SC_SPARSE_NEVER)
		return -EINVAL;
	c->sparse = sparse;
	return 0;
}

int sc_copier_assume_kernel(struct sc_copier *c, struct sc_kernel kernel)
{
	if (!c || kernel.major < 0 || kernel.minor < 0)
		return -EINVAL;
	c->kernel = kernel;
	c->kernel_assumed = true;
	return 0;
}

int sc_copier_assume_fs(struct sc_copier *c, const struct sc_fs_facts *src_fs,
			const struct sc_fs_facts *dst_fs)
{
	if (!c || !src_fs || !dst_fs)
		return -EINVAL;
	c->assumed_src = src_fs;
	c->assumed_dst = dst_fs;
	c->fs_assumed = true;
	return 0;
}

int sc_copier_set_umask(struct sc_copier *c, mode_t umask)
{
	if (!c || (umask & ~(mode_t)0777))
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	c->umask = umask;
	c->umask_known = true;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int sc_copier_set_xattr_conf(struct sc_copier *c, const char *path)
{
	struct sc_xattr_rules *rules = NULL;
	char *copy = NULL;
	int e;

	if (!c)
		return -EINVAL;
	if (path) {
		copy = strdup(path);
		e = copy ? sc_xattr_rules_load(path, &rules) : -ENOMEM;
		if (e < 0) {
			free(copy);
			return e;
		}
	}
	pthread_mutex_lock(&c->lock);
	sc_xattr_rules_free(c->rules);
	free(c->xattr_conf);
	c->rules = rules;
	c->xattr_conf = copy;
	c->no_xattr_conf = !path;
	c->rules_loaded = true;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int sc_copier_want_uuid(struct sc_copier *c, bool want)
{
	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	sc_fsinfo_want_uuid(c->fsi, want);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int sc_copier_preload(struct sc_copier *c)
{
	int e;

	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	e = sc_fsinfo_preload(c->fsi);
	pthread_mutex_unlock(&c->lock);
	return e;
}

/* "Umask:\t0022" in /proc/self/status (Linux 4.7): read, not set --
 * umask(2) would change it for every thread of the process meanwhile. */
static mode_t read_umask(void)
{
	char buf[2048];
	_cleanup_close_ int fd = open("/proc/self/status",
				      O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	const char *p;

	if (n <= 0)
		return 022;
	buf[n] = '\0';
	p = strstr(buf, "\nUmask:");
	return p ? (mode_t)strtoul(p + 7, NULL, 8) & 0777 : 022;
}

mode_t sc_copier_umask(struct sc_copier *c)
{
	mode_t m;

	pthread_mutex_lock(&c->lock);
	if (!c->umask_known) {
		c->umask = read_umask();
		c->umask_known = true;
	}
	m = c->umask;
	pthread_mutex_unlock(&c->lock);
	return m;
}

bool sc_copier_privileged(struct sc_copier *c)
{
	bool p;

	pthread_mutex_lock(&c->lock);
	if (c->privileged < 0)
		c->privileged = geteuid() == 0;
	p = c->privileged;
	pthread_mutex_unlock(&c->lock);
	return p;
}

const struct sc_xattr_rules *sc_copier_rules(struct sc_copier *c)
{
	const struct sc_xattr_rules *r;

	pthread_mutex_lock(&c->lock);
	if (!c->rules_loaded) {
		/* out of memory: no rules, every attribute copied */
		(void)sc_xattr_rules_load(c->xattr_conf, &c->rules);
		c->rules_loaded = true;
	}
	r = c->rules;
	pthread_mutex_unlock(&c->lock);
	return r;
}

const struct sc_fs_facts *sc_copier_facts(struct sc_copier *c, int fd,
					   const struct stat *st)
{
	const struct sc_fs_facts *f;

	if (!c)
		return NULL;
	pthread_mutex_lock(&c->lock);
	f = sc_fsinfo_lookup(c->fsi, fd, st);
	pthread_mutex_unlock(&c->lock);
	return f;
}

int sc_copier_origins_text(struct sc_copier *c, const struct sc_fs_facts *f,
			   char *buf, size_t size)
{
	int n;

	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	n = sc_fsinfo_origins_text(c->fsi, f, buf, size);
	pthread_mutex_unlock(&c->lock);
	return n;
}

const struct sc_fs_facts *sc_copier_facts_at(struct sc_copier *c, int dirfd,
					      const char *name)
{
	_cleanup_free_ char *p = name ? strdup(name) : NULL;
	const struct sc_fs_facts *f = NULL;

	while (c && p && *p) {
		int fd = openat(dirfd, p, O_PATH | O_CLOEXEC);
		struct stat st;
		char *slash;

		if (fd >= 0) {
			if (fstat(fd, &st) == 0)
				f = sc_copier_facts(c, fd, &st);
			close(fd);
			break;
		}
		slash = strrchr(p, '/');
		if (!slash) {
			if (!strcmp(p, "."))
				break;
			strcpy(p, ".");
			continue;
		}
		if (slash == p)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	return f;
}

/* Roads that failed "not here" for this pair of filesystems. */
static unsigned learned_get(struct sc_copier *c, const struct sc_fs_facts *s,
			    const struct sc_fs_facts *d)
{
	unsigned roads = 0;

	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->n_learned; i++)
		if (c->learned[i].src == s && c->learned[i].dst == d)
			roads = c->learned[i].roads;
	pthread_mutex_unlock(&c->lock);
	return roads;
}

/* Out of memory only forgets: the next copy tries the road again. */
static void learned_add(struct sc_copier *c, const struct sc_fs_facts *s,
			const struct sc_fs_facts *d, unsigned roads)
{
	struct sc_learned *n;
	size_t i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->n_learned; i++)
		if (c->learned[i].src == s && c->learned[i].dst == d)
			break;
	if (i == c->n_learned) {
		n = realloc(c->learned, (c->n_learned + 1) * sizeof(*n));
		if (!n)
			goto out;
		c->learned = n;
		c->learned[c->n_learned++] = (struct sc_learned){ s, d, 0 };
	}
	c->learned[i].roads |= roads;
out:
	pthread_mutex_unlock(&c->lock);
}

/* ---- a thread's context ---------------------------------------------------- */

int sc_copy_ctx_new(struct sc_copier *c, struct sc_copy_ctx **ret)
{
	struct sc_copy_ctx *x;

	if (!ret)
		return -EINVAL;
	*ret = NULL;
	if (!c)
		return -EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->c = c;
	sc_engine_init(&x->eng);
	atomic_init(&x->cancel, 0);
	atomic_init(&x->partial.set, PARTIAL_NONE);
	atomic_init(&x->tmp_set, 0);
	x->tmp_dirfd = AT_FDCWD;
	*ret = x;
	return 0;
}

void sc_copy_ctx_free(struct sc_copy_ctx *x)
{
	if (!x)
		return;
	sc_engine_done(&x->eng);
	sc_copy_report_free(x->own_rep);
	free(x);
}

void sc_copy_ctx_set_progress(struct sc_copy_ctx *x, sc_progress_fn fn,
			      void *arg)
{
	if (!x)
		return;
	x->eng.progress = fn;
	x->eng.progress_arg = arg;
}

void sc_copy_ctx_set_fd_short(struct sc_copy_ctx *x, sc_fd_short_fn fn,
			      void *arg)
{
	if (!x)
		return;
	x->fd_short = fn;
	x->fd_short_arg = arg;
}

void sc_copy_ctx_cancel(struct sc_copy_ctx *x)
{
	if (x)
		atomic_store_explicit(&x->cancel, 1, memory_order_relaxed);
}

void sc_copy_ctx_reset_cancel(struct sc_copy_ctx *x)
{
	if (x)
		atomic_store_explicit(&x->cancel, 0, memory_order_relaxed);
}

struct sc_copy_ctx *sc_copier_ctx(struct sc_copier *c)
{
	struct sc_copy_ctx *x;

	if (!c)
		return NULL;
	pthread_mutex_lock(&c->own_lock);
	if (!c->own)
		(void)sc_copy_ctx_new(c, &c->own);
	x = c->own;
	pthread_mutex_unlock(&c->own_lock);
	return x;
}

/* ---- one file ------------------------------------------------------------- */

/* One regular file being copied: what the phases share. */
struct fcopy {
	struct sc_copy_ctx *x;
	struct sc_copier *c;
	const struct sc_copy_args *a;
	struct sc_copy_report *rep;
	unsigned flags;		/* the args' SC_FILE_* */
	int in, out;
	bool own_in;		/* IN was opened here */
	bool given_out;		/* OUT is the caller's (DST_FD) */
	struct stat ist, ost, old;
	bool have_old;		/* OLD is the existing destination's stat */
	bool dst_exists, created, atomic, named_tmp;
	bool exclusive;		/* created here with O_EXCL: the name is ours */
	bool as_new;		/* an atomic copy made as a new file would be */
	bool truncated;		/* an existing destination was emptied */
	/* SC_COPY_ATOMIC through a symlink: the file the link leads to, as
	 * its directory (TDIRFD, ours) and its name there; else -1 */
	int tdirfd;
	char *tname;
	bool size_trusted, out_seekable;
	bool clone_only;	/* SC_REFLINK_ALWAYS */
	bool removable;		/* a failure removes the destination */
	bool shared;		/* ... or empties it: it has other names */
	struct sc_made m;
	/* the engine asked whether the source held still (held_still()) */
	bool still_asked, still;
	struct sc_change still_change;
};

/* A new event of F's report. */
static struct sc_ev *event(struct fcopy *f, enum sc_event_kind kind, int err,
			   bool fatal)
{
	return sc_report_add(f->rep, kind, err, fatal, true);
}

/* openat(), tried again while the caller gives descriptors back. */
static int open_retry(struct sc_copy_ctx *x, int dirfd, const char *name,
		      int flags, mode_t mode)
{
	unsigned tries = 0;
	int fd;

	while ((fd = openat(dirfd, name, flags, mode)) < 0 &&
	       (errno == EMFILE || errno == ENFILE) && x->fd_short) {
		int err = errno;
		bool again = x->fd_short(x->fd_short_arg, err, &tries);

		errno = err;
		if (!again)
			break;
	}
	return fd;
}

static bool canceled(const struct fcopy *f)
{
	return atomic_load_explicit(&f->x->cancel, memory_order_relaxed);
}

static void make_plan(struct fcopy *f, const struct stat *sst, mode_t dst_mode)
{
	struct sc_copier *c = f->c;
	struct sc_copy_report *rep = f->rep;
	struct sc_plan_input in = {
		.size = sizeof(in),
		.src_fs = rep->src_fs, .dst_fs = rep->dst_fs,
		.src_mode = sst->st_mode, .dst_mode = dst_mode,
		.src_size = sst->st_size, .kernel = c->kernel,
		.reflink = c->reflink, .roads = c->roads,
		.sparse = c->sparse, .roads_forced = c->roads_forced,
	};

	in.learned = learned_get(c, rep->src_fs, rep->dst_fs);
	sc_plan_make(&in, &rep->plan);
	rep->kernel = c->kernel;
	rep->flags |= SC_REPORT_PLANNED;
}

/* SC_COPY_IF_CHANGED: does the destination already hold exactly IN's
 * bytes?  1 yes, 0 no, -errno.  Reads both to the end: sizes of
 * generated files mean nothing. */
static int same_content(struct fcopy *f)
{
	struct sc_engine *eng = &f->x->eng;
	_cleanup_close_ int own = -1;
	struct stat st;
	size_t half;
	char *a, *b;
	off_t at = 0;
	int fd, e;

	if (f->given_out) {
		fd = f->a->dst_fd;
	} else {
		fd = own = open_retry(f->x, f->a->dst_dirfd, f->a->dst_name,
				      O_RDONLY | O_CLOEXEC | O_NOCTTY, 0);
	}
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (f->size_trusted && st.st_size != f->ist.st_size)
		return 0;
	e = sc_engine_buf(eng);
	if (e < 0)
		return e;
	half = eng->bufsize / 2;
	a = eng->buf;
	b = eng->buf + half;
	for (;;) {
		ssize_t n = pread(f->in, a, half, at), m;

		if (n < 0)
			return -errno;
		m = pread(fd, b, half, at);
		if (m < 0)
			return -errno;
		if (n != m || memcmp(a, b, (size_t)n))
			return 0;
		if (n == 0)
			return 1;
		at += n;
	}
}

/* The source as a name for the metadata (by name, no descriptor). */
static struct sc_meta_at src_at(const struct fcopy *f, char *buf, size_t size)
{
	if (f->a->src_name)
		return (struct sc_meta_at){ f->a->src_dirfd, f->a->src_name };
	snprintf(buf, size, "/proc/self/fd/%d", f->in);
	return (struct sc_meta_at){ AT_FDCWD, buf };
}

static struct sc_meta_at dst_at(const struct fcopy *f)
{
	return (struct sc_meta_at){ f->a->dst_dirfd,
				    f->a->dst_name ? f->a->dst_name : "" };
}

/* Where SC_COPY_ATOMIC puts its temporary and renames it to: the file a
 * copy through the destination writes, the last target of a symlink it
 * leads through (F->tdirfd), else the destination. */
static struct sc_meta_at atomic_at(const struct fcopy *f)
{
	if (f->tdirfd >= 0)
		return (struct sc_meta_at){ f->tdirfd, f->tname };
	return dst_at(f);
}

/* Opens the source (unless the caller did), and checks that it is the
 * file the caller expects.  0 or -errno, with its event. */
static int open_source(struct fcopy *f, bool explain)
{
	const struct sc_copy_args *a = f->a;
	struct sc_copy_report *rep = f->rep;

	if (a->src_fd >= 0) {
		f->in = a->src_fd;
		if (a->src_st) {
			f->ist = *a->src_st;
		} else if (fstat(f->in, &f->ist) < 0) {
			int err = errno;

			event(f, SC_EV_STAT_SOURCE, -err, true);
			return -err;
		}
	} else {
		bool nofollow = f->flags & SC_FILE_NOFOLLOW;
		int err = 0;

		f->in = open_retry(f->x, a->src_dirfd, a->src_name,
				   (explain ? O_PATH : O_RDONLY | O_NOCTTY) |
				   O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0), 0);
		if (f->in >= 0 && explain) {
			/* --explain: O_PATH, so that a FIFO is neither waited
			 * on nor woken and a device sees no open; what the
			 * copy's open would refuse is refused as it would be:
			 * a socket (ENXIO), a file that may not be read, a
			 * symlink not to be followed */
			struct stat st;

			if (fstat(f->in, &st) < 0)
				err = errno;
			else if (S_ISSOCK(st.st_mode))
				err = ENXIO;
			else if (S_ISLNK(st.st_mode))
				err = ELOOP;
			else if (faccessat(a->src_dirfd, a->src_name, R_OK,
					   AT_EACCESS | (nofollow ?
					   AT_SYMLINK_NOFOLLOW : 0)) < 0)
				err = errno;
			if (err) {
				close(f->in);
				f->in = -1;
			}
		} else if (f->in < 0) {
			err = errno;
		}
		if (f->in < 0) {
			event(f, SC_EV_OPEN_SOURCE, -err, true);
			return -err;
		}
		f->own_in = true;
		rep->flags |= SC_REPORT_OPENED;
		if (fstat(f->in, &f->ist) < 0) {
			err = errno;
			event(f, SC_EV_STAT_SOURCE, -err, true);
			return -err;
		}
	}
	rep->flags |= SC_REPORT_OPENED;
	rep->src_st = f->ist;
	if (a->src_expect && (f->ist.st_ino != a->src_expect->st_ino ||
			      f->ist.st_dev != a->src_expect->st_dev)) {
		event(f, SC_EV_REPLACED, 0, true);
		return -ESTALE;
	}
	if (!(f->flags & SC_FILE_SOURCE_ANY) && !S_ISREG(f->ist.st_mode))
		return S_ISDIR(f->ist.st_mode) ? -EISDIR : -EINVAL;
	rep->src_fs = sc_copier_facts(f->c, f->in, &f->ist);
	f->size_trusted = !sc_plan_size_untrusted(rep->src_fs);
	return 0;
}

/* SC_COPY_IF_CHANGED: a destination that already holds the source's
 * bytes only gets its metadata.  1: done (SC_REPORT_UNCHANGED), 0: to be
 * copied, -errno: failed. */
static int already_equal(struct fcopy *f)
{
	char buf[64];
	struct sc_meta_at s, d;
	int e;

	if (!(f->c->flags & SC_COPY_IF_CHANGED) || !f->have_old ||
	    !S_ISREG(f->old.st_mode) || !S_ISREG(f->ist.st_mode))
		return 0;
	e = same_content(f);
	if (e < 0) {
		event(f, SC_EV_COMPARE, e, true);
		return e;
	}
	if (e == 0)
		return 0;
	f->rep->flags |= SC_REPORT_UNCHANGED;
	f->m.have_old = true;
	f->m.old_mode = f->old.st_mode;
	if (sc_copier_meta_match(f->c, &f->ist, &f->old))
		return 1;
	s = src_at(f, buf, sizeof(buf));
	d = dst_at(f);
	e = sc_meta_apply(f->c, f->rep, -1, -1, &s, &d, &f->ist, &f->m);
	return e < 0 ? e : 1;
}

/* SC_COPY_ATOMIC onto a symlink: the copy in place writes the file the
 * link leads to, and so does the atomic copy, with its temporary in that
 * file's directory, renamed over that file: the link stays a link, and
 * its target is the new file.  A link to nowhere is refused as it is
 * without SC_COPY_ATOMIC.  0 or -errno, with its event. */
static int atomic_through_link(struct fcopy *f)
{
	const struct sc_copy_args *a = f->a;
	struct stat st;
	int r = sc_target_resolve(a->dst_dirfd, a->dst_name, &f->tdirfd,
				  &f->tname, &st);

	if (r < 0) {
		event(f, SC_EV_OPEN_DEST, r, true);
		return r;
	}
	if (r == 0)
		return 0;
	if (!st.st_mode) {
		struct stat real;

		/* /dev/stdout -> /proc/self/fd/1 -> "pipe:[4026]": a link the
		 * kernel follows to a pipe, a socket or a deleted file,
		 * though its text names no file.  It is not dangling, and
		 * has no directory a temporary could be renamed in: it is
		 * written in place, as without SC_COPY_ATOMIC. */
		if (fstatat(a->dst_dirfd, a->dst_name, &real, 0) == 0) {
			close(f->tdirfd);
			f->tdirfd = -1;
			free(f->tname);
			f->tname = NULL;
			f->dst_exists = f->have_old = true;
			f->old = real;
			f->atomic = false;
			return 0;
		}
		if (!(f->flags & SC_FILE_DANGLING)) {
			event(f, SC_EV_DANGLING, 0, true);
			return -ENOENT;
		}
		f->dst_exists = f->have_old = false;	/* POSIXLY_CORRECT */
	} else {
		/* as it is now, not as the caller saw it through the link */
		f->dst_exists = f->have_old = true;
		f->old = st;
	}
	return 0;
}

/* The mode a new destination is made with: the source's permissions
 * without the bits that must wait (see struct sc_made), and writable by
 * us where xattrs are to be set on it.  Fills F->m's OMITTED and EXTRA,
 * which the metadata step gives back. */
static mode_t new_file_mode(struct fcopy *f)
{
	mode_t mode = f->ist.st_mode & 0777;

	f->m.omitted = sc_copier_omitted(f->c, f->ist.st_mode) & 0777;
	f->m.extra = (f->c->flags & SC_COPY_KEEP_XATTR) &&
		     !sc_copier_privileged(f->c) ? S_IWUSR & ~mode : 0;
	return (mode & ~f->m.omitted) | f->m.extra;
}

/* Is the destination's name still the file written (F->ost), and not a
 * symlink it was written through, or what took its place? */
static bool name_leads_here(const struct fcopy *f)
{
	struct stat st;

	return fstatat(f->a->dst_dirfd, f->a->dst_name, &st,
		       AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_dev == f->ost.st_dev && st.st_ino == f->ost.st_ino;
}

/* Roads restricted by the caller (sc_copier_set_roads): the plan may be
 * left with none, and an existing destination must not be emptied
 * before that is known (issue 29: with only clone allowed from ext4 to
 * ext4, OUT was truncated, then -EOPNOTSUPP returned). */
static bool roads_restricted(const struct fcopy *f)
{
	return f->c->roads != SC_ROADMASK_ALL;
}

/* Opens the destination: a temporary (SC_COPY_ATOMIC), the existing file,
 * or a new one made without the bits that must wait.  0 or -errno, with
 * its event (nothing to clean up). */
/* The destination that exists, opened for writing (f->out).  Returns 0
 * -- also when it went away, or was removed under SC_FILE_FORCE, and is
 * to be made anew (f->dst_exists false) -- or -errno, said. */
static int open_existing(struct fcopy *f, int flags)
{
	const struct sc_copy_args *a = f->a;
	/* SC_REFLINK_ALWAYS must leave the old file intact when the clone
	 * is refused: clone over it, then cut it to size; so must
	 * restricted roads until the plan has one. */
	bool trunc = !f->clone_only && !(f->c->flags & SC_COPY_NO_DATA) &&
		     !roads_restricted(f);
	int e;

	f->out = open_retry(f->x, a->dst_dirfd, a->dst_name,
			    flags | (trunc ? O_TRUNC : 0), 0);
	f->truncated = f->out >= 0 && trunc;
	if (f->out < 0 && errno == ENOENT) {
		/* gone since it was stat'ed (another NFS client, say): made
		 * anew below, as cp does */
		f->dst_exists = f->have_old = false;
	} else if (f->out < 0 && (f->flags & SC_FILE_FORCE)) {
		/* a destination we cannot open goes, and a new one is made
		 * in its place */
		if (unlinkat(a->dst_dirfd, a->dst_name, 0) < 0) {
			if (errno != ENOENT) {
				e = -errno;
				event(f, SC_EV_REMOVE_DEST, e, true);
				return e;
			}
		} else {
			sc_report_add(f->rep, SC_EV_REMOVE_DEST, 0, false,
				      false);
			f->rep->flags |= SC_REPORT_REMOVED;
		}
		f->dst_exists = f->have_old = false;
	} else if (f->out < 0) {
		e = -errno;
		event(f, SC_EV_OPEN_DEST, e, true);
		return e;
	}
	return 0;
}

/* The destination made anew (O_EXCL) and opened (f->out).  Returns 0 or
 * -errno, said. */
static int create_new(struct fcopy *f, int flags)
{
	const struct sc_copy_args *a = f->a;
	int e;

	f->out = open_retry(f->x, a->dst_dirfd, a->dst_name,
			    flags | O_CREAT | O_EXCL, new_file_mode(f));
	f->exclusive = f->out >= 0;
	if (f->out < 0 && errno == EEXIST) {
		struct stat lst;

		/* not there when looked at, but a name: a symlink to
		 * nowhere.  cp does not write through it (POSIXLY_CORRECT:
		 * it does, making the file it names). */
		if (fstatat(a->dst_dirfd, a->dst_name, &lst,
			    AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(lst.st_mode)) {
			errno = EEXIST;
		} else if (!(f->flags & SC_FILE_DANGLING)) {
			event(f, SC_EV_DANGLING, 0, true);
			return -ENOENT;
		} else {
			f->out = openat(a->dst_dirfd, a->dst_name,
					flags | O_CREAT, f->ist.st_mode & 0777);
		}
	}
	if (f->out < 0) {
		e = -errno;
		event(f, SC_EV_OPEN_DEST, e, true);
		return e;
	}
	f->created = true;
	f->rep->flags |= SC_REPORT_CREATED;
	return 0;
}

static int open_destination(struct fcopy *f)
{
	const struct sc_copy_args *a = f->a;
	struct sc_copier *c = f->c;
	int flags = (c->flags & SC_COPY_VERIFY ? O_RDWR : O_WRONLY) |
		    O_CLOEXEC | O_NOCTTY;
	int e;

	if (f->given_out) {
		f->out = a->dst_fd;
		return 0;
	}
	if (f->atomic && (e = atomic_through_link(f)) < 0)
		return e;
	/* A running program cannot be opened for writing (ETXTBSY), but it
	 * can be replaced: SC_COPY_ATOMIC renames over it, as install
	 * does. */
	if (f->atomic && f->have_old && !S_ISREG(f->old.st_mode))
		f->atomic = false;	/* a device or FIFO: write into it */
	f->as_new = !f->have_old || (f->flags & FILE_REPLACE);

	if (f->atomic) {
		struct sc_meta_at at = atomic_at(f);

		/* The temporary of a new file is made as the file itself
		 * would be; one that replaces a file is ours alone until it
		 * takes the old file's attributes (finish_file()). */
		f->out = sc_target_temp_open(f->x, at.dirfd, at.name,
					     f->as_new ? new_file_mode(f) :
					     S_IRUSR | S_IWUSR, &f->named_tmp);
		if (f->out < 0) {
			event(f, SC_EV_OPEN_DEST, f->out, true);
			return f->out;
		}
	} else if (f->dst_exists && (e = open_existing(f, flags)) < 0) {
		return e;
	}
	if (!f->atomic && !f->dst_exists && (e = create_new(f, flags)) < 0)
		return e;
	f->m.created = f->created || (f->atomic && f->as_new);
	f->m.have_old = f->have_old && !f->as_new;
	f->m.old_mode = f->m.have_old ? f->old.st_mode : 0;
	if (f->m.created)
		f->rep->flags |= SC_REPORT_CREATED;
	f->rep->flags |= SC_REPORT_DEST_OPENED;
	return 0;
}

/* What the open destination is, what a signal or a failure does to it,
 * and the plan for the data.  0 or -errno (then abandon_file()). */
/* --verify: what the copy can be proven by.  Returns 0, or -EOPNOTSUPP
 * (said) for a destination that keeps nothing to read back. */
static int plan_for_verify(struct fcopy *f)
{
	struct sc_copy_report *rep = f->rep;

	if (!(f->c->flags & SC_COPY_NO_DATA) &&
	    (!f->out_seekable ||
	     (lseek(f->out, 0, SEEK_CUR) < 0 && errno == ESPIPE))) {
		/* /dev/null, a FIFO, a terminal or a file opened as a
		 * stream (FUSE FOPEN_NONSEEKABLE) keeps nothing that could
		 * be read back: such a copy could never be proven, so
		 * nothing is written. */
		event(f, SC_EV_UNVERIFIABLE, -EOPNOTSUPP, true);
		return -EOPNOTSUPP;
	}
	if (!S_ISREG(f->ist.st_mode) && !S_ISBLK(f->ist.st_mode)) {
		/* A pipe cannot be read twice: its bytes must pass through
		 * the library to be checked. */
		for (int r = 0; r < SC_ROAD__MAX; r++)
			if (r != SC_ROAD_RW && rep->plan.step[r].use) {
				rep->plan.step[r].use = false;
				rep->plan.step[r].why = sc_why_stream_verify;
				rep->plan.n_use--;
			}
	}
	return 0;
}

static int prepare_destination(struct fcopy *f)
{
	struct sc_copier *c = f->c;
	struct sc_copy_report *rep = f->rep;
	const struct sc_fs_facts *dir_facts = f->a->dst_dir_facts;

	if (f->exclusive && dir_facts) {
		/* A file just made (O_EXCL) in a directory whose facts the
		 * caller knows: a regular file on the directory's
		 * filesystem, no need to ask. */
		f->ost.st_mode = S_IFREG;
		rep->dst_fs = dir_facts;
	} else if (fstat(f->out, &f->ost) < 0) {
		int e = -errno;

		event(f, SC_EV_STAT_DEST, e, true);
		return e;
	} else {
		rep->dst_fs = sc_copier_facts(c, f->out, &f->ost);
	}
	f->out_seekable = S_ISREG(f->ost.st_mode) || S_ISBLK(f->ost.st_mode);
	/* Only a regular file of ours is ever removed: never /dev/null or
	 * another device or FIFO that was the destination, nor the
	 * caller's descriptor. */
	f->removable = !f->atomic && !f->given_out &&
		       !(c->flags & SC_COPY_NO_DATA) && S_ISREG(f->ost.st_mode);
	/* A file with other names, or one written through a symlink (or
	 * /dev/stdout), is emptied, never removed: the name is not ours to
	 * take away, and the file must not look complete. */
	f->shared = f->removable && !f->exclusive &&
		    (f->ost.st_nlink > 1 || !name_leads_here(f));
	if (f->removable)
		sc_target_partial_begin(f->x, f->a->dst_dirfd, f->a->dst_name,
					f->out, f->exclusive && dir_facts ?
					NULL : &f->ost, f->shared);
	make_plan(f, &f->ist, f->ost.st_mode);
	if (c->flags & SC_COPY_VERIFY) {
		int e = plan_for_verify(f);

		if (e < 0)
			return e;
	}
	if (c->flags & SC_COPY_NO_DATA)
		return 0;
	if (!rep->plan.n_use) {
		/* no road: the destination was not emptied, and stays */
		if (!f->truncated && !f->created && !f->atomic)
			f->removable = false;
	} else if (f->dst_exists && !f->truncated && !f->clone_only &&
		   !f->atomic && S_ISREG(f->ost.st_mode) &&
		   (roads_restricted(f) || f->given_out)) {
		/* a road will be taken: now the old bytes go */
		if (ftruncate(f->out, 0) < 0) {
			int e = -errno;
			struct sc_ev *ev;

			rep->res.side = SC_SIDE_WRITE;
			rep->res.err = e;
			ev = event(f, SC_EV_DATA, e, true);
			if (ev)
				ev->side = SC_SIDE_WRITE;
			return e;
		}
		f->truncated = true;
	}
	return 0;
}

/* Only errors that belong to the filesystem pair are learned: EPERM or
 * ETXTBSY belong to one file. */
static void learn_from(struct fcopy *f)
{
	const struct sc_copy_result *res = &f->rep->res;
	unsigned roads = 0;

	for (int i = 0; i < res->n_attempts; i++) {
		int err = -res->attempt[i].err;

		if (err == EXDEV || err == EOPNOTSUPP || err == ENOSYS ||
		    err == ENOTTY)
			roads |= 1u << res->attempt[i].road;
	}
	if (roads)
		learned_add(f->c, f->rep->src_fs, f->rep->dst_fs, roads);
}

/* Has the source, fstat'ed as BEFORE before its first byte was copied,
 * changed since?  Its name is looked at again as it was opened (through
 * the directory's descriptor, following links or not): while it leads to
 * the same file, that one stat tells all; when it leads elsewhere or
 * nowhere, the open file is asked too (the destination is cut to what
 * that file still holds).  The inode of an open descriptor never
 * changes, so only the name can tell a file replaced by a rename, as a
 * log rotation or a package upgrade does.  Fills CH; true when the
 * source changed.  Never fails: a stat that cannot be made tells
 * nothing. */
static bool source_changed(struct fcopy *f, const struct stat *before,
			   bool generated, struct sc_change *ch)
{
	const struct sc_copy_args *a = f->a;
	struct stat now, mine;
	enum sc_change_how who = SC_CHANGE_NONE, what;
	int r = -1;

	if (a->src_name) {
		r = fstatat(a->src_dirfd, a->src_name, &now,
			    f->flags & SC_FILE_NOFOLLOW ?
			    AT_SYMLINK_NOFOLLOW : 0);
		who = sc_change_identity(before, &now, r < 0 ? -errno : 0,
					 generated);
	}
	if (r == 0 && who == SC_CHANGE_NONE)
		mine = now;
	else if (fstat(f->in, &mine) < 0)
		mine = *before;
	what = sc_change_compare(before, &mine, generated);
	*ch = (struct sc_change){
		.how = who > what ? who : what,
		.size_before = before->st_size, .size_after = mine.st_size,
	};
	return ch->how != SC_CHANGE_NONE;
}

/* The engine reached the size the source had: has it held still?  The
 * stat is the one the change check takes after the copy, taken now and
 * kept for it. */
static bool held_still(void *arg)
{
	struct fcopy *f = arg;

	f->still_asked = true;
	f->still = !source_changed(f, &f->ist, false, &f->still_change);
	return f->still;
}

/* The destination of a source that changed (CH) as it must be left: its
 * size is asked (a clone copies what the file held at that moment, not
 * what the first stat said), and it is cut to what the source still
 * holds when that shrank, so no stale tail of bytes the source no longer
 * has stays past its end.  0 or -errno. */
static int settle_changed(struct fcopy *f, bool generated)
{
	struct sc_copy_result *res = &f->rep->res;
	struct stat ost;

	if (!f->out_seekable || !S_ISREG(f->ost.st_mode))
		return 0;
	if (fstat(f->out, &ost) == 0)
		res->size = ost.st_size;
	if (!generated && f->rep->change.size_after < res->size) {
		if (ftruncate(f->out, f->rep->change.size_after) < 0)
			return -errno;
		res->size = f->rep->change.size_after;
	}
	return 0;
}

/* Does the source report holes (cp's test: fewer blocks than its
 * size)?  Then the verification skips the holes both files have. */
static bool src_sparse(const struct fcopy *f)
{
	return f->size_trusted && S_ISREG(f->ist.st_mode) &&
	       (uint64_t)f->ist.st_blocks * 512 < (uint64_t)f->ist.st_size;
}

/* The copy again, through read_write, after a verification that failed
 * (ST: the source as it now is; TRUSTED: its size may be believed).  0
 * or -errno, with its event. */
static int repair(struct fcopy *f, const struct stat *st, bool trusted)
{
	struct sc_copy_report *rep = f->rep;
	struct sc_copy_result again;
	struct sc_plan rw;
	int e;

	/* The road lied: copy again through read/write, where every byte
	 * passes through the library and is hashed on the way.  A block
	 * device is simply written over again. */
	if (S_ISREG(f->ost.st_mode) && ftruncate(f->out, 0) < 0) {
		e = -errno;
		event(f, SC_EV_REPAIR_START, e, true);
		return e;
	}
	sc_plan_repair(&rw);
	e = sc_copy_data(&f->x->eng, f->in, f->out, st, f->out_seekable, &rw,
			 trusted, &again);
	sc_copy_result_merge(&rep->res, &again);
	if (e < 0) {
		struct sc_ev *ev = event(f, SC_EV_REPAIR, e, true);

		if (ev)
			ev->side = again.side;
	}
	return e;
}

/* A verification that could not read or write (V, SIDE). */
static int verify_error(struct fcopy *f, int v, enum sc_verify_side side)
{
	struct sc_ev *ev = event(f, SC_EV_VERIFY, v, true);

	if (ev)
		ev->vside = side;
	return v;
}

/* The copy still differs at BAD after its repair. */
static int verify_differs(struct fcopy *f, off_t bad)
{
	struct sc_ev *ev = event(f, SC_EV_VERIFY, 0, true);

	f->rep->verify = SC_VERIFIED_FAILED;
	f->rep->verify_bad = bad;
	if (ev)
		ev->offset = bad;
	return -EBADMSG;
}

/* SC_COPY_VERIFY after a copy of a source that held still; repairs once
 * with read_write.  0 when the destination holds the source's bytes,
 * else -errno (-EBADMSG: still differs), with its event. */
static int verify(struct fcopy *f)
{
	struct sc_copy_report *rep = f->rep;
	struct sc_engine *eng = &f->x->eng;
	bool rereadable = S_ISREG(f->ist.st_mode) && f->size_trusted;
	enum sc_verify_side side = SC_VSIDE_BACK;
	off_t bad = 0;
	int v, e;

	for (int pass = 0;; pass++) {
		bool digests = rep->res.road_bytes[SC_ROAD_RW] ==
			       rep->res.bytes &&
			       sc_digests_cover(&eng->dg, rep->res.size);

		if (!digests && !rereadable) {
			/* Bytes that cannot be read twice, moved by a kernel
			 * road: only a copy through our own hands can be
			 * checked. */
			v = 0;
			bad = 0;
		} else if ((v = sc_engine_buf(eng)) == 0) {
			v = sc_verify(f->in, f->out, rep->res.size, digests,
				      rereadable, f->c->flags & SC_COPY_SYNC,
				      src_sparse(f), &eng->dg, eng->buf,
				      eng->bufsize, &bad, &side);
		}
		if (v < 0)
			return verify_error(f, v, side);
		if (v == 1) {
			rep->verify = pass ? SC_VERIFIED_REPAIRED :
				      SC_VERIFIED_OK;
			return 0;
		}
		rep->verify_bad = bad;
		if (pass)
			return verify_differs(f, bad);
		e = repair(f, &f->ist, f->size_trusted);
		if (e < 0)
			return e;
	}
}

/* The source changed while it was copied: said, and, with SC_COPY_VERIFY
 * where nothing can be proven (FATAL), it fails the copy. */
static int changed(struct fcopy *f, bool fatal)
{
	event(f, SC_EV_CHANGED, 0, fatal);
	if (!fatal)
		return 0;
	f->rep->verify = SC_VERIFIED_FAILED;
	return -EBADMSG;
}

/* SC_COPY_VERIFY of a source that changed while it was copied: the bytes
 * that were read prove nothing about the source now.  The copy is
 * compared with the source as it now is, and if they differ it is copied
 * once more with read_write; either is proven only if the source held
 * still meanwhile.  One retry, as rsync's: never a loop.  A source
 * replaced or removed cannot be reached through IN any more.  0 when the
 * destination holds the source as it now is, else -errno with its event
 * (-EBADMSG: it changed again, or still differs). */
static int verify_changed(struct fcopy *f, bool generated)
{
	struct sc_copy_report *rep = f->rep;
	struct sc_engine *eng = &f->x->eng;
	struct sc_change ch = { 0 };
	enum sc_verify_side side = SC_VSIDE_BACK;
	struct stat now;
	off_t bad = 0;
	int v, e;

	if (rep->change.how == SC_CHANGE_REPLACED ||
	    rep->change.how == SC_CHANGE_REMOVED || generated)
		return changed(f, true);
	e = sc_engine_buf(eng);
	if (e < 0)
		return verify_error(f, e, SC_VSIDE_BACK);
	if (fstat(f->in, &now) < 0) {
		e = -errno;
		event(f, SC_EV_STAT_SOURCE, e, true);
		return e;
	}
	if (now.st_size == rep->res.size) {
		v = sc_verify(f->in, f->out, rep->res.size, false, true,
			      f->c->flags & SC_COPY_SYNC, src_sparse(f),
			      &eng->dg, eng->buf, eng->bufsize, &bad, &side);
		if (v < 0)
			return verify_error(f, v, side);
		if (v == 1 && !source_changed(f, &now, false, &ch)) {
			rep->verify = SC_VERIFIED_CURRENT;
			return 0;
		}
	}
	/* Once more, from the start, through our own hands. */
	if (fstat(f->in, &now) < 0) {
		e = -errno;
		event(f, SC_EV_STAT_SOURCE, e, true);
		return e;
	}
	e = repair(f, &now, true);
	if (e < 0)
		return e;
	if (source_changed(f, &now, false, &ch)) {
		ch.again = true;
		rep->change = ch;
		return changed(f, true);
	}
	v = sc_verify(f->in, f->out, rep->res.size,
		      sc_digests_cover(&eng->dg, rep->res.size), true,
		      f->c->flags & SC_COPY_SYNC, src_sparse(f), &eng->dg,
		      eng->buf, eng->bufsize, &bad, &side);
	if (v < 0)
		return verify_error(f, v, side);
	if (v == 1) {
		rep->verify = SC_VERIFIED_RECOPIED;
		return 0;
	}
	return verify_differs(f, bad);
}

/* The call's error for a data step that ended with E: the road's own
 * error, but -EOPNOTSUPP where it only said that no allowed road could
 * be taken here (EXDEV from a clone or copy_file_range across
 * filesystems, no road at all): the report keeps the road's. */
static int data_error(const struct fcopy *f, int e)
{
	const struct sc_copy_result *res = &f->rep->res;
	const struct sc_attempt *last;

	if (!res->n_attempts)
		return e == -EOPNOTSUPP || res->err == -EOPNOTSUPP ?
		       -EOPNOTSUPP : e;
	last = &res->attempt[res->n_attempts - 1];
	if (e == res->err && last->err == e && last->err < 0 &&
	    sc_copy_not_here(last->road, -e, last->bytes != 0))
		return -EOPNOTSUPP;
	return e;
}

/* The data, by the plan's roads; then whether the source changed
 * meanwhile, and SC_COPY_VERIFY.  0 or -errno (then abandon_file()). */
static int copy_and_verify(struct fcopy *f)
{
	struct sc_copier *c = f->c;
	struct sc_copy_report *rep = f->rep;
	struct sc_engine *eng = &f->x->eng;
	enum sc_fs_class cls = sc_fs_facts_class(rep->src_fs);
	bool generated = !f->size_trusted;
	int e;

	if (c->flags & SC_COPY_NO_DATA)
		return 0;
	if (canceled(f))
		return -ECANCELED;
	eng->sparse = c->sparse;
	eng->verify = c->flags & SC_COPY_VERIFY;
	eng->cancel = &f->x->cancel;
	eng->done = 0;
	/* The end of a regular file on a local filesystem, whose stat can
	 * be trusted, may be taken from the stat the change check takes
	 * anyway; generated files, FUSE and network filesystems keep the
	 * read that proves it. */
	eng->held_still = S_ISREG(f->ist.st_mode) && f->size_trusted &&
			  (cls == SC_FS_LOCAL || cls == SC_FS_MEMORY) ?
			  held_still : NULL;
	eng->held_arg = f;
	e = sc_copy_data(eng, f->in, f->out, &f->ist, f->out_seekable,
			 &rep->plan, f->size_trusted, &rep->res);
	eng->held_still = NULL;
	rep->flags |= SC_REPORT_COPIED;
	if (rep->res.holes)
		rep->flags |= SC_REPORT_HOLES;
	if (rep->res.seek_data)
		rep->flags |= SC_REPORT_SEEK_DATA;
	if (rep->res.zero_scan)
		rep->flags |= SC_REPORT_ZERO_SCAN;
	if (rep->res.extend_failed)
		rep->flags |= SC_REPORT_EXTEND_FAILED;
	learn_from(f);
	if (e == 0 && f->clone_only && f->dst_exists &&
	    ftruncate(f->out, f->ist.st_size) < 0) {
		e = -errno;
		rep->res.side = SC_SIDE_WRITE;
	}
	/* Did the source change while it was copied?  Only regular files
	 * have a content that a size and times identify: a FIFO or a
	 * device is read once, as it comes.  The engine may have asked
	 * already, at the end, with nothing copied since. */
	if (e == 0 && S_ISREG(f->ist.st_mode)) {
		bool ch = f->still_asked && f->still ?
			  (rep->change = f->still_change, false) :
			  source_changed(f, &f->ist, generated, &rep->change);

		if (ch && (e = settle_changed(f, generated)) < 0)
			rep->res.side = SC_SIDE_WRITE;
	}
	if (e < 0) {
		struct sc_ev *ev;

		if (f->clone_only && f->dst_exists && !f->created)
			f->removable = false;	/* untouched: keep it */
		if (e == -ECANCELED)
			return e;
		ev = event(f, SC_EV_DATA, e, true);
		if (ev)
			ev->side = rep->res.side;
		return data_error(f, e);
	}
	if (c->flags & SC_COPY_VERIFY)
		return rep->change.how == SC_CHANGE_NONE ? verify(f) :
		       verify_changed(f, generated);
	if (rep->change.how != SC_CHANGE_NONE)
		changed(f, false);
	return 0;
}

/* The metadata, SC_COPY_SYNC, the rename of the atomic temporary and the
 * close.  0 (OUT is closed), or -errno (then abandon_file()); a metadata
 * failure that counts but leaves a whole copy in place goes to
 * *META_ERR. */
static int finish_file(struct fcopy *f, int *meta_err)
{
	struct sc_copier *c = f->c;
	char buf[64];
	struct sc_meta_at s = src_at(f, buf, sizeof(buf)), d = dst_at(f);
	int e;

	if (f->atomic && f->have_old && !f->as_new) {
		/* The new inode first becomes what the old one would be
		 * after an overwrite in place; then the metadata asked for
		 * is done to it as it would have been to the old one. */
		struct sc_meta_at at = atomic_at(f);

		e = sc_meta_take_old(c, f->rep, f->out, &at, &f->old);
		if (e < 0)
			return e;
	}
	/* the caller's descriptor gets bytes only (sc_copier_copy_fd) */
	e = f->given_out ? 0 :
	    sc_meta_apply(c, f->rep, f->in, f->out, &s, &d, &f->ist, &f->m);
	if (e < 0) {
		if (f->atomic)
			return e;
		*meta_err = e;
	}
	/* A FIFO, a terminal or a character device has nothing to sync:
	 * fsync(2) says EINVAL there, after every byte was delivered. */
	if ((c->flags & SC_COPY_SYNC) && fsync(f->out) < 0 &&
	    !(errno == EINVAL && !S_ISREG(f->ost.st_mode) &&
	      !S_ISBLK(f->ost.st_mode))) {
		e = -errno;
		event(f, SC_EV_SYNC, e, true);
		return e;
	}
	if (f->atomic) {
		struct sc_meta_at at = atomic_at(f);

		e = sc_target_temp_commit(f->x, f->out, at.dirfd, at.name,
					  f->named_tmp, !f->have_old);
		if (e < 0) {
			event(f, SC_EV_COMMIT, e, true);
			return e;
		}
	}
	/* complete: a signal leaves it now, before its descriptor goes */
	sc_target_partial_end(f->x);
	if (f->given_out) {
		f->out = -1;
		return 0;
	}
	e = close(f->out);
	f->out = -1;
	if (e < 0) {
		e = -errno;
		event(f, SC_EV_CLOSE, e, true);
		return e;
	}
	return 0;
}

/* Never leave a destination that looks complete and is not.  An atomic
 * copy never touched the old file, and the temporary goes; in place,
 * what was written is a prefix, or nothing: remove it (an existing
 * destination was already emptied), or, when other names share it or
 * it was written through a symlink, empty it and keep the names.  The
 * caller's descriptor is cut to what was copied. */
static void abandon_file(struct fcopy *f)
{
	/* the name goes only while it leads to the file written (not
	 * known, and not asked, for one made here with O_EXCL) */
	bool remove = f->removable && !f->shared &&
		      ((f->exclusive && f->a->dst_dir_facts) ||
		       name_leads_here(f));

	sc_target_partial_end(f->x);
	if (f->given_out) {
		struct stat st;

		/* a road may have written past the offset it then
		 * reported, a repair may have failed */
		if ((f->truncated || f->rep->res.bytes) &&
		    fstat(f->out, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size > f->rep->res.size)
			(void)!ftruncate(f->out, f->rep->res.size);
		f->out = -1;
		return;
	}
	if (f->out >= 0) {
		if (f->removable && !remove)
			(void)!ftruncate(f->out, 0);
		close(f->out);
		f->out = -1;
	}
	if (f->atomic)
		sc_target_temp_abandon(f->x, f->named_tmp);
	else if (remove)
		unlinkat(f->a->dst_dirfd, f->a->dst_name, 0);
}

static int copy_file(struct fcopy *f)
{
	const struct sc_copy_args *a = f->a;
	struct sc_copier *c = f->c;
	int e, meta_err = 0;

	e = open_source(f, false);
	if (e < 0)
		return e;
	if (a->dst_st) {	/* the caller's stat: no second one */
		f->old = *a->dst_st;
		f->have_old = f->dst_exists = true;
	} else if (f->given_out) {
		f->dst_exists = true;	/* OUT itself: no model to take */
	} else if (!(f->flags & SC_FILE_NEW)) {
		if (fstatat(a->dst_dirfd, a->dst_name, &f->old, 0) == 0)
			f->have_old = f->dst_exists = true;
		else if (errno != ENOENT)
			f->dst_exists = true;	/* the open will say */
	}
	e = already_equal(f);
	if (e)
		return e > 0 ? 0 : e;
	if (f->flags & SC_FILE_COMPARE_ONLY)
		return 0;
	if (canceled(f))
		return -ECANCELED;
	e = open_destination(f);
	if (e < 0)
		return e;
	e = prepare_destination(f);
	if (!e)
		e = copy_and_verify(f);
	if (!e && canceled(f))
		e = -ECANCELED;
	if (!e)
		e = finish_file(f, &meta_err);
	if (e) {
		if (e == -ECANCELED)
			event(f, SC_EV_CANCELED, e, true);
		abandon_file(f);
		return e;
	}
	sc_target_partial_end(f->x);
	if ((c->flags & SC_COPY_SYNC) && !f->given_out) {
		struct sc_meta_at at = f->atomic ? atomic_at(f) : dst_at(f);

		e = sc_target_fsync_dir(at.dirfd, at.name);
		if (e < 0) {
			event(f, SC_EV_SYNC_DIR, e, true);
			return e;
		}
	}
	return meta_err;
}

/* A call's error before anything was done: said in REP, if any. */
static int refuse(struct sc_copy_report *rep, int e)
{
	if (rep) {
		sc_report_reset(rep);
		rep->error = e;
	}
	return e;
}

/* The report a call fills: the caller's, or the context's own. */
static struct sc_copy_report *report_of(struct sc_copy_ctx *x,
					struct sc_copy_report *rep)
{
	if (rep)
		return rep;
	if (!x->own_rep && sc_copy_report_new(&x->own_rep) < 0)
		return NULL;
	return x->own_rep;
}

/* Bad input: an error code, nothing touched. */
static bool args_ok(const struct sc_copy_ctx *x,
		    const struct sc_copy_args *a)
{
	return x && a && a->size >= sizeof(struct sc_copy_args) &&
	       !(a->flags & ~(FILE_FLAGS | FILE_ATOMIC | FILE_REPLACE)) &&
	       (a->src_fd >= 0 || a->src_name) &&
	       (a->dst_fd >= 0 || a->dst_name) &&
	       (!(a->flags & SC_FILE_COMPARE_ONLY) ||
		(x->c->flags & SC_COPY_IF_CHANGED));
}

int sc_copy_ctx_copy(struct sc_copy_ctx *x, const struct sc_copy_args *args,
		     struct sc_copy_report *rep)
{
	struct fcopy f;
	int e;

	if (!args_ok(x, args) || x->c->kernel_assumed || x->c->fs_assumed) {
		return refuse(rep, -EINVAL);
	}
	rep = report_of(x, rep);
	if (!rep)
		return -ENOMEM;
	sc_report_reset(rep);
	f = (struct fcopy){
		.x = x, .c = x->c, .a = args, .rep = rep,
		.flags = args->flags, .in = -1, .out = -1, .tdirfd = -1,
		.given_out = args->dst_fd >= 0,
		/* SC_COPY_NO_DATA writes no data: the metadata goes on the
		 * file in place, which a temporary renamed over it would
		 * empty */
		.atomic = ((x->c->flags & SC_COPY_ATOMIC) ||
			   (args->flags & FILE_ATOMIC)) &&
			  !(x->c->flags & SC_COPY_NO_DATA) &&
			  args->dst_fd < 0,
		.clone_only = x->c->reflink == SC_REFLINK_ALWAYS &&
			      !x->c->roads_forced,
	};
	e = copy_file(&f);
	if (f.own_in)
		close(f.in);
	if (f.tdirfd >= 0)
		close(f.tdirfd);
	free(f.tname);
	rep->error = e;
	return e;
}

int sc_copy_ctx_explain(struct sc_copy_ctx *x,
			const struct sc_copy_args *args,
			struct sc_copy_report *rep)
{
	struct sc_copier *c;
	struct fcopy f;
	const struct sc_copy_args *a = args;
	struct stat st;
	int e;

	if (!args_ok(x, args) || !args->dst_name) {
		return refuse(rep, -EINVAL);
	}
	c = x->c;
	rep = report_of(x, rep);
	if (!rep)
		return -ENOMEM;
	sc_report_reset(rep);
	f = (struct fcopy){
		.x = x, .c = c, .a = args, .rep = rep, .flags = args->flags,
		.in = -1, .out = -1, .tdirfd = -1,
		.atomic = ((c->flags & SC_COPY_ATOMIC) ||
			   (args->flags & FILE_ATOMIC)) &&
			  !(c->flags & SC_COPY_NO_DATA),
	};
	e = open_source(&f, args->src_fd < 0);
	if (e < 0)
		goto out;
	/* A symlink to nowhere is not written through (a caller that
	 * removes the destination first says SC_FILE_DANGLING). */
	if (!a->dst_st && !(f.flags & SC_FILE_DANGLING) &&
	    fstatat(a->dst_dirfd, a->dst_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode) && fstatat(a->dst_dirfd, a->dst_name, &st,
					   0) < 0 && errno == ENOENT) {
		event(&f, SC_EV_DANGLING, 0, true);
		e = -ENOENT;
		goto out;
	}
	if ((c->flags & SC_COPY_VERIFY) && !(c->flags & SC_COPY_NO_DATA) &&
	    a->dst_st && !S_ISREG(a->dst_st->st_mode) &&
	    !S_ISBLK(a->dst_st->st_mode)) {
		event(&f, SC_EV_UNVERIFIABLE, -EOPNOTSUPP, true);
		e = -EOPNOTSUPP;
		goto out;
	}
	/* an existing file is opened for writing (SC_FILE_FORCE removes
	 * one it may not open; SC_COPY_ATOMIC renames over it) */
	if (a->dst_st && !f.atomic && !(f.flags & SC_FILE_FORCE) &&
	    faccessat(a->dst_dirfd, a->dst_name, W_OK, AT_EACCESS) < 0) {
		e = -errno;
		event(&f, SC_EV_OPEN_DEST, e, true);
		goto out;
	}
	if (c->fs_assumed) {
		rep->src_fs = c->assumed_src;
		rep->dst_fs = c->assumed_dst;
	} else {
		rep->dst_fs = sc_copier_facts_at(c, a->dst_dirfd, a->dst_name);
	}
	make_plan(&f, &f.ist, a->dst_st ? a->dst_st->st_mode : S_IFREG);
	if (c->flags & SC_COPY_NO_DATA)
		/* no road is taken: the data stays where it is */
		sc_plan_none(&rep->plan, sc_why_no_data);
	e = 0;
out:
	if (f.own_in)
		close(f.in);
	rep->error = e;
	return e;
}

int sc_copy_ctx_meta(struct sc_copy_ctx *x, const struct sc_meta_args *args,
		     struct sc_copy_report *rep)
{
	struct sc_made m;
	struct sc_meta_at s, d;
	int e;

	if (!x || !args || args->size < sizeof(struct sc_meta_args) ||
	    !args->src_st || (args->made & ~((SC_MADE_PARENT << 1) - 1)) ||
	    (args->src_fd < 0 && !args->src_name) ||
	    (args->dst_fd < 0 && !args->dst_name)) {
		return refuse(rep, -EINVAL);
	}
	rep = report_of(x, rep);
	if (!rep)
		return -ENOMEM;
	sc_report_reset(rep);
	if (args->made & SC_MADE_PARENT) {
		e = sc_meta_parent(x->c, rep, args->src_name, args->dst_name,
				   args->src_st,
				   args->made & SC_MADE_RESTORE);
		rep->error = e;
		return e;
	}
	m = (struct sc_made){
		.created = args->made & SC_MADE_CREATED,
		.mode_known = args->made & SC_MADE_MODE_KNOWN,
		.restore = args->made & SC_MADE_RESTORE,
		.mode = args->made_mode, .omitted = args->omitted,
		.extra = args->extra, .have_old = args->made & SC_MADE_OLD,
		.old_mode = args->old_mode,
	};
	s = (struct sc_meta_at){ args->src_dirfd,
				 args->src_name ? args->src_name : "" };
	d = (struct sc_meta_at){ args->dst_dirfd,
				 args->dst_name ? args->dst_name : "" };
	/* through descriptors only when both are open (libattr and libacl
	 * take a pair) */
	e = sc_meta_apply(x->c, rep,
			  args->src_fd >= 0 && args->dst_fd >= 0 ?
			  args->src_fd : -1,
			  args->src_fd >= 0 && args->dst_fd >= 0 ?
			  args->dst_fd : -1, &s, &d, args->src_st, &m);
	rep->error = e;
	return e;
}

/* ---- simple calls ---------------------------------------------------------- */

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

int sc_copier_copy_fd(struct sc_copier *c, int in, int out,
		      struct sc_copy_report *rep)
{
	struct sc_copy_args a = {
		.size = sizeof(a), .src_dirfd = AT_FDCWD, .src_fd = in,
		.dst_dirfd = AT_FDCWD, .dst_fd = out,
		.flags = SC_FILE_SOURCE_ANY,
	};
	struct sc_copy_ctx *x;
	struct stat ist, ost;
	bool out_seekable;
	int e, fl;

	if (!c || c->kernel_assumed || c->fs_assumed)
		return refuse(rep, -EINVAL);
	e = check_pair(in, out, false, &ist, &ost);
	if (e < 0)
		return refuse(rep, e);
	if (ist.st_dev == ost.st_dev && ist.st_ino == ost.st_ino)
		return refuse(rep, -EINVAL);
	out_seekable = S_ISREG(ost.st_mode) || S_ISBLK(ost.st_mode);
	/* copy_file_range and FICLONE refuse an O_APPEND destination with
	 * EBADF, and pwrite(2) on it appends wherever it is asked to write:
	 * the offsets the engine keeps would mean nothing. */
	fl = fcntl(out, F_GETFL);
	if (out_seekable && (fl & O_APPEND))
		return refuse(rep, -EBADF);
	/* A FIFO, a socket or a terminal keeps nothing that could be read
	 * back: such a copy could never be proven. */
	if ((c->flags & SC_COPY_VERIFY) && !out_seekable)
		return refuse(rep, -EOPNOTSUPP);
	if ((c->flags & SC_COPY_VERIFY) && (fl & O_ACCMODE) != O_RDWR)
		return refuse(rep, -EBADF);
	x = sc_copier_ctx(c);
	if (!x)
		return refuse(rep, -ENOMEM);
	a.src_st = &ist;
	a.dst_st = &ost;
	pthread_mutex_lock(&c->own_lock);
	e = sc_copy_ctx_copy(x, &a, rep);
	pthread_mutex_unlock(&c->own_lock);
	return e;
}

int sc_copier_copy_path(struct sc_copier *c, const char *src,
			const char *dst, struct sc_copy_report *rep)
{
	struct sc_copy_args a = {
		.size = sizeof(a), .src_dirfd = AT_FDCWD, .src_name = src,
		.dst_fd = -1, .flags = FILE_ATOMIC | FILE_REPLACE,
	};
	_cleanup_close_ int in = -1;
	_cleanup_close_ int dir = -1;
	_cleanup_free_ char *dirname = NULL;
	const char *slash, *base;
	struct stat ist, dst_st;
	struct sc_copy_ctx *x;
	int e;

	if (!c || !src || !dst || !*src || !*dst || c->kernel_assumed ||
	    c->fs_assumed)
		return refuse(rep, -EINVAL);

	/* O_NONBLOCK: opening a FIFO must not wait for a writer before it
	 * can be refused. */
	in = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (in < 0) {
		e = -errno;
		/* a socket cannot be opened (ENXIO): it is no regular file */
		if (e == -ENXIO && stat(src, &ist) == 0 &&
		    S_ISSOCK(ist.st_mode))
			e = -EINVAL;
		return refuse(rep, e);
	}
	if (fstat(in, &ist) < 0)
		return refuse(rep, -errno);
	if (S_ISDIR(ist.st_mode))
		return refuse(rep, -EISDIR);
	if (!S_ISREG(ist.st_mode))
		return refuse(rep, -EINVAL);
	if (fcntl(in, F_SETFL, fcntl(in, F_GETFL) & ~O_NONBLOCK) < 0)
		return refuse(rep, -errno);

	slash = strrchr(dst, '/');
	base = slash ? slash + 1 : dst;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return refuse(rep, -EISDIR);
	dirname = dir_part(dst);
	if (!dirname)
		return refuse(rep, -ENOMEM);
	dir = open(dirname, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return refuse(rep, -errno);
	if (fstatat(dir, base, &dst_st, 0) == 0) {
		if (S_ISDIR(dst_st.st_mode))
			return refuse(rep, -EISDIR);
		if (dst_st.st_dev == ist.st_dev && dst_st.st_ino == ist.st_ino)
			return refuse(rep, -EINVAL);
		a.dst_st = &dst_st;
	} else if (errno != ENOENT) {
		return refuse(rep, -errno);
	} else {
		a.flags |= SC_FILE_NEW;
	}
	a.src_fd = in;
	a.src_st = &ist;
	a.src_expect = &ist;
	a.dst_dirfd = dir;
	a.dst_name = base;
	x = sc_copier_ctx(c);
	if (!x)
		return refuse(rep, -ENOMEM);
	pthread_mutex_lock(&c->own_lock);
	e = sc_copy_ctx_copy(x, &a, rep);
	pthread_mutex_unlock(&c->own_lock);
	return e;
}

int sc_copier_explain_fd(struct sc_copier *c, int in, int out,
			 struct sc_copy_report *rep)
{
	struct fcopy f;
	struct stat ist, ost;
	mode_t dst_mode;

	if (!c || !rep)
		return -EINVAL;
	sc_report_reset(rep);
	/* Nothing is read or written: an O_PATH descriptor or one of any
	 * access mode is enough to learn where the files are. */
	if (in < 0 || out < 0 || fstat(in, &ist) < 0 || fstat(out, &ost) < 0)
		return refuse(rep, -EBADF);
	if (S_ISDIR(ist.st_mode))
		return refuse(rep, -EISDIR);
	dst_mode = S_ISDIR(ost.st_mode) ? S_IFREG : ost.st_mode;
	if (c->fs_assumed) {
		rep->src_fs = c->assumed_src;
		rep->dst_fs = c->assumed_dst;
	} else {
		rep->src_fs = sc_copier_facts(c, in, &ist);
		rep->dst_fs = sc_copier_facts(c, out, &ost);
		if (!rep->src_fs || !rep->dst_fs)
			return refuse(rep, -ENOMEM);
	}
	rep->src_st = ist;
	f = (struct fcopy){ .c = c, .rep = rep };
	make_plan(&f, &ist, dst_mode);
	return 0;
}

/* The length of a file to compare: a block device's from its end. */
static off_t length_of(int fd, const struct stat *st)
{
	return S_ISBLK(st->st_mode) ? lseek(fd, 0, SEEK_END) : st->st_size;
}

int sc_copier_verify_fd(struct sc_copier *c, int in, int out,
			off_t *ret_bad)
{
	struct stat ist, ost;
	enum sc_verify_side side;
	struct sc_copy_ctx *x;
	off_t bad = 0, ilen, olen;
	bool sparse;
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
	ilen = length_of(in, &ist);
	olen = length_of(out, &ost);
	if (ilen < 0 || olen < 0)
		return -errno;
	/* A copy shorter or longer than its source is never equal (issue
	 * 29: it compared the copy's length of bytes only). */
	if (ilen != olen) {
		if (ret_bad)
			*ret_bad = MIN(ilen, olen);
		return 0;
	}
	sparse = (S_ISREG(ist.st_mode) &&
		  (uint64_t)ist.st_blocks * 512 < (uint64_t)ilen) ||
		 (S_ISREG(ost.st_mode) &&
		  (uint64_t)ost.st_blocks * 512 < (uint64_t)olen);
	x = sc_copier_ctx(c);
	if (!x)
		return -ENOMEM;
	pthread_mutex_lock(&c->own_lock);
	e = sc_engine_buf(&x->eng);
	v = e < 0 ? e :
	    sc_verify(in, out, ilen, false, true, c->flags & SC_COPY_SYNC,
		      sparse, NULL, x->eng.buf, x->eng.bufsize, &bad, &side);
	pthread_mutex_unlock(&c->own_lock);
	if (v == 0 && ret_bad)
		*ret_bad = bad;
	return v;
}
