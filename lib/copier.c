/* The copier and a thread's context: libsmartcp's version and set-up,
 * the copier's settings and what it reads or learns once and keeps (the
 * facts cache, the roads learned per pair of filesystems, the umask, the
 * xattr.conf rules), and the sc_copy_ctx a thread copies with.  Apart
 * from the one-file pipeline (fcopy.c and the files beside it) because
 * they outlive any one file: a copier lasts the run, a context a
 * worker. */
#include "common.h"
#include "copier.h"
#include "dl.h"
#include "fsinfo.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* The flags this library knows. */
#define COPY_FLAGS ((SC_COPY_LIVE_SOURCE << 1) - 1)

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
		e = copy ? sc_xattr_rules_load_file(path, &rules) : -ENOMEM;
	} else {
		/* no file: "every attribute is copied but ACLs" (issue 36:
		 * no rules at all copied the ACL without SC_COPY_KEEP_MODE) */
		e = sc_xattr_rules_acls(&rules);
	}
	if (e < 0) {
		free(copy);
		return e;
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
unsigned sc_copier_learned_get(struct sc_copier *c,
			       const struct sc_fs_facts *s,
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
void sc_copier_learned_add(struct sc_copier *c, const struct sc_fs_facts *s,
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
	/* Made once, never replaced: a thread that cancels the copy
	 * running on it (which holds OWN_LOCK to its end) does not wait
	 * for that copy (round 3 of issue 36: it did, and the copy ran to
	 * its end, and the next one was cancelled instead). */
	x = atomic_load_explicit(&c->own, memory_order_acquire);
	if (x)
		return x;
	pthread_mutex_lock(&c->own_lock);
	x = atomic_load_explicit(&c->own, memory_order_relaxed);
	if (!x && sc_copy_ctx_new(c, &x) == 0)
		atomic_store_explicit(&c->own, x, memory_order_release);
	pthread_mutex_unlock(&c->own_lock);
	return x;
}
