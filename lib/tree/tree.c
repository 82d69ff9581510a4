/* The tree copy of <smartcp/smartcp.h> (API 1.3): a struct sc_tree holds
 * the walk (walk.c and the files it calls) across the copies made
 * through it, its settings (struct tree_opts: the flags and what the
 * copier keeps), the threads (jobs.c, workers.c) and what a signal
 * handler reads (progress.c).  The walk calls the caller's callbacks
 * (fail.c); the workers' files reach them here, on the caller's thread,
 * in the walk's order. */
#include "common.h"
#include "tree/tree.h"
#include "copier.h"
#include "tree/deferred.h"
#include "tree/fail.h"
#include "tree/levels.h"
#include "tree/parents.h"
#include "tree/workers.h"

#include <dirent.h>
#include <fcntl.h>

#define SC_TREE_ALL ((SC_TREE_SAME_SYMLINK << 1) - 1)

/* What copier C keeps, and how: its settings as they are when the tree
 * is made, for the walk's directories, symlinks and special files. */
static void copier_keep(struct sc_copier *c, struct tree_opts *o)
{
	o->preserve_mode = c->flags & SC_COPY_KEEP_MODE;
	o->preserve_ownership = c->flags & SC_COPY_KEEP_OWNER;
	o->preserve_timestamps = c->flags & SC_COPY_KEEP_TIMES;
	o->preserve_xattr = c->flags & SC_COPY_KEEP_XATTR;
	o->attributes_only = c->flags & SC_COPY_NO_DATA;
	o->atomic = c->flags & SC_COPY_ATOMIC;
	o->reflink_never = c->reflink == SC_REFLINK_NEVER;
	o->default_mode = c->flags & SC_COPY_DEFAULT_MODE;
	o->umask = sc_copier_umask(c);
}

/* The progress of the walk thread's copy: the file it copies, told to
 * the caller's callback. */
static int on_progress(void *arg, uint64_t done, enum sc_road road)
{
	struct sc_tree *t = arg;
	int r = t->progress(t->progress_arg, t->walk.e.current, done,
			    t->walk.e.current_size, road);

	if (r)
		sc_tree_cancel(t);	/* the caller stops the tree copy */
	return r;
}

/* A worker's file, said on the walk thread in its place in the order:
 * an entry of the directory the walk is in, one deeper. */
static int job_after(void *arg, const struct job_file *f,
		     const struct job_result *r)
{
	struct walk *w = arg;
	const struct sc_tree_entry te = {
		.size = sizeof(te), .kind = SC_TREE_FILE,
		.src = f->src, .dst = f->dst,
		.src_dirfd = f->dirfd, .src_name = tree_path_last(f->src),
		.dst_dirfd = f->dst_dirfd, .dst_name = tree_path_last(f->dst),
	};
	const struct sc_tree_result res = {
		.size = sizeof(res), .point = SC_TREE_END,
		.rep = r->rep, .rep_err = r->err, .seconds = r->seconds,
	};
	int a;

	w->run->depth++;
	a = walk_after(w->run, &te, &res);
	w->run->depth--;
	return a;
}

/* What the callbacks printed while workers' files ahead of it were not
 * yet said, handed back in its place. */
static void job_output(void *arg, const char *out, size_t out_len,
		       const char *err, size_t err_len,
		       const struct sc_tree_run *runs, size_t n_runs)
{
	struct walk *w = arg;

	w->run->ops.output(w->run->ops_arg, out, out_len, err, err_len, runs,
			   n_runs);
}

int sc_tree_new(struct sc_copier *c, unsigned flags, struct sc_tree **ret)
{
	struct sc_tree *t;
	struct walk *w;

	if (!ret)
		return -EINVAL;
	*ret = NULL;
	if (!c || (flags & ~(unsigned)SC_TREE_ALL) ||
	    ((flags & SC_TREE_FOLLOW) && (flags & SC_TREE_FOLLOW_TOP)) ||
	    ((flags & SC_TREE_LINK_FILES) && (flags & SC_TREE_SYMLINK_FILES)))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->opts = (struct tree_opts){
		.recursive = !(flags & SC_TREE_FLAT),
		.copy_contents = flags & SC_TREE_STREAMS,
		.explain = flags & SC_TREE_EXPLAIN,
		.hard_link = flags & SC_TREE_LINK_FILES,
		.symbolic_link = flags & SC_TREE_SYMLINK_FILES,
		.force = flags & SC_TREE_FORCE,
		.posixly_correct = flags & SC_TREE_DANGLING,
		.one_file_system = flags & SC_TREE_ONE_FS,
		.preserve_links = flags & SC_TREE_HARDLINKS,
		.deref_always = flags & SC_TREE_FOLLOW,
		.deref_args = flags & SC_TREE_FOLLOW_TOP,
		.dst_nofollow = flags & SC_TREE_DST_NOFOLLOW,
		.same_symlink = flags & SC_TREE_SAME_SYMLINK,
		.jobs = 1,
	};
	copier_keep(c, &t->opts);
	t->run = (struct run){
		.o = &t->opts, .copier = c, .live = &t->live,
		.cur = &t->walk.e,
	};
	w = &t->walk;
	*w = (struct walk){
		.run = &t->run,
		.wk = { .run = &t->run, .links = &w->links,
			.fd_short = workers_fd_short, .fd_short_arg = w },
		.e = { .at_fd = AT_FDCWD, .dst_fd = AT_FDCWD, .ahead_fd = -1 },
		.op_sfd = AT_FDCWD, .op_dfd = AT_FDCWD,
	};
	t->jobs_ops = workers_ops;
	t->jobs_ops.after = job_after;
	if (sc_copy_ctx_new(c, &w->wk.cx) < 0 ||
	    sc_copy_report_new(&w->wk.crep) < 0) {
		sc_copy_ctx_free(w->wk.cx);
		free(t);
		return -ENOMEM;
	}
	sc_copy_ctx_set_fd_short(w->wk.cx, workers_fd_short, w);
	tree_copying(&t->live, 0, w->wk.cx);
	*ret = t;
	return 0;
}

int sc_tree_set_threads(struct sc_tree *t, unsigned threads)
{
	if (!t || t->started || threads >= TREE_THREADS)
		return -EINVAL;
	t->opts.jobs = threads;
	return 0;
}

int sc_tree_set_ops(struct sc_tree *t, const struct sc_tree_ops *ops,
		    void *arg)
{
	size_t n;

	if (!t || t->copying || (ops && ops->size < sizeof(size_t)))
		return -EINVAL;
	memset(&t->run.ops, 0, sizeof(t->run.ops));
	if (ops) {
		n = MIN(ops->size, sizeof(t->run.ops));
		memcpy(&t->run.ops, ops, n);
	}
	t->run.ops.size = sizeof(t->run.ops);
	t->run.ops_arg = arg;
	t->jobs_ops.output = t->run.ops.output ? job_output : NULL;
	t->jobs_ops.interleave = t->run.ops.flags & SC_TREE_OPS_INTERLEAVE;
	return 0;
}

int sc_tree_set_progress(struct sc_tree *t,
			 int (*fn)(void *arg, const char *file, uint64_t done,
				   off_t size, enum sc_road road),
			 void *arg)
{
	if (!t)
		return -EINVAL;
	t->progress = fn;
	t->progress_arg = arg;
	sc_copy_ctx_set_progress(t->walk.wk.cx, fn ? on_progress : NULL, t);
	return 0;
}

/* Frees W's exclusion patterns. */
static void exclude_free(struct walk *w)
{
	for (size_t i = 0; i < w->n_exclude; i++)
		free(w->exclude[i]);
	free(w->exclude);
	w->exclude = NULL;
	w->n_exclude = 0;
}

int sc_tree_set_exclude(struct sc_tree *t, const char *const *patterns)
{
	struct walk *w;
	size_t n = 0;

	if (!t || t->copying)
		return -EINVAL;
	w = &t->walk;
	exclude_free(w);
	while (patterns && patterns[n])
		n++;
	if (!n)
		return 0;
	w->exclude = calloc(n, sizeof(*w->exclude));
	if (!w->exclude)
		return -ENOMEM;
	for (; w->n_exclude < n; w->n_exclude++) {
		w->exclude[w->n_exclude] = strdup(patterns[w->n_exclude]);
		if (!w->exclude[w->n_exclude]) {
			exclude_free(w);
			return -ENOMEM;
		}
	}
	return 0;
}

void sc_tree_streams(struct sc_tree *t, FILE **out, FILE **err)
{
	struct pool_slot *s = t && t->run.ops.output ?
				 jobs_own_slot(t->run.jobs) : NULL;

	if (out)
		*out = s ? s->out : NULL;
	if (err)
		*err = s ? s->err : NULL;
}

/* The threads, at the first copy: how many the caller asked for is
 * known by then. */
static int start(struct sc_tree *t)
{
	if (t->started)
		return 0;
	if (jobs_new(&t->opts, &t->jobs_ops, &t->walk, &t->run.jobs) < 0)
		return -ENOMEM;
	t->walk.max_open = jobs_levels(t->run.jobs);
	t->started = true;
	return 0;
}

/* Memory ran out for the copy of SRC to DST before anything of it was
 * begun (the threads' state, --parents' list): the caller is told.
 * -ENOMEM. */
static int no_memory(struct sc_tree *t, const char *src, const char *dst)
{
	return walk_fail(&t->run, SC_TREE_MEMORY, ENOMEM,
			 &(struct sc_tree_entry){ .kind = SC_TREE_DIR,
						  .top = true, .src = src,
						  .dst = dst });
}

/* The operand's copy, DST (its whole name), is made in DIRFD (>= 0) as
 * its last name, or, one that is not a plain name ("dir/", ".", ".."),
 * by its path. */
static void copy_in(struct walk *w, int dirfd, const char *dst)
{
	const char *name = tree_path_last(dst);

	w->op_dfd = AT_FDCWD;
	w->op_dname = dst;
	if (dirfd >= 0 && *name && strcmp(name, ".") && strcmp(name, "..")) {
		w->op_dfd = dirfd;
		w->op_dname = name;
	}
}

/* SC_TREE_ARGS_PARENTS: the operand SRC copied to DST (whole names) with
 * the directories of its path made under A's DST_DIRFD, and given their
 * attributes after it. */
static int copy_with_parents(struct sc_tree *t, const struct sc_tree_args *a,
			     const char *src, const char *dst)
{
	struct walk *w = &t->walk;
	struct parents ps = { .fd = a->dst_dirfd };
	int r = parents_make(w, a->dst_dir_path ? a->dst_dir_path : ".",
			     a->src_name, &ps);

	if (r >= 0) {
		copy_in(w, r == PARENTS_BY_PATH ? -1 : ps.fd, dst);
		r = copy_entry(w, src, dst, true, DT_UNKNOWN);
		if (!t->opts.explain) {
			int e = parents_protect(w, &ps);

			r = r < 0 ? r : e;
		}
	}
	parents_release(&ps);
	return r == -ENOMEM ? no_memory(t, src, dst) : r;
}

int sc_tree_copy(struct sc_tree *t, const struct sc_tree_args *a)
{
	struct walk *w;
	const char *src, *dst;
	int r;

	if (!t || !a || a->size < offsetof(struct sc_tree_args, src_path) ||
	    !a->src_name || !a->dst_name)
		return -EINVAL;
	if (t->copying)
		return -EBUSY;
	if (t->run.cancelled)
		return -ECANCELED;
	w = &t->walk;
	src = a->size > offsetof(struct sc_tree_args, src_path) &&
	      a->src_path ? a->src_path : a->src_name;
	dst = a->size > offsetof(struct sc_tree_args, dst_path) &&
	      a->dst_path ? a->dst_path : a->dst_name;
	r = start(t);
	if (r < 0)
		return no_memory(t, src, dst);
	w->op_sfd = a->src_dirfd;
	w->op_sname = a->src_name;
	w->op_dfd = a->dst_dirfd;
	w->op_dname = a->dst_name;
	t->copying = true;
	t->run.status = 0;
	if (a->size > offsetof(struct sc_tree_args, flags) &&
	    (a->flags & SC_TREE_ARGS_PARENTS))
		r = copy_with_parents(t, a, src, dst);
	else
		r = copy_entry(w, src, dst, true, DT_UNKNOWN);
	t->copying = false;
	w->op_sfd = w->op_dfd = AT_FDCWD;
	w->op_sname = w->op_dname = NULL;
	if (t->run.cancelled)
		return -ECANCELED;
	/* the first failure, anywhere in it */
	return t->run.status ? t->run.status : r < 0 ? r : 0;
}

int sc_tree_finish(struct sc_tree *t)
{
	if (!t || t->copying)
		return -EINVAL;
	t->run.status = 0;
	if (t->run.jobs && jobs_running(t->run.jobs)) {
		jobs_finish(t->run.jobs);
		set_deferred_attrs(&t->walk);
	}
	return t->run.cancelled ? -ECANCELED : t->run.status;
}

void sc_tree_cancel(struct sc_tree *t)
{
	if (!t)
		return;
	t->run.cancelled = 1;
	tree_cancel(&t->live);
}

void sc_tree_progress(const struct sc_tree *t, uint64_t *files,
		      uint64_t *bytes)
{
	uint64_t f = 0, b = 0;

	if (t)
		tree_progress((struct tree_live *)&t->live, &f, &b);
	if (files)
		*files = f;
	if (bytes)
		*bytes = b;
}

bool sc_tree_abandon(struct sc_tree *t)
{
	return t && tree_abandon(&t->live);
}

void sc_tree_free(struct sc_tree *t)
{
	struct walk *w;

	if (!t)
		return;
	w = &t->walk;
	sc_tree_finish(t);
	jobs_free(t->run.jobs);
	tree_copying(&t->live, 0, NULL);
	sc_copy_ctx_free(w->wk.cx);
	sc_copy_report_free(w->wk.crep);
	links_free(&w->links);
	free(w->anc);
	free(w->levels);
	free_dnodes(w);
	free(w->deferred);
	free(w->level_hash);
	free(w->src_names.p);
	free(w->dst_names.p);
	exclude_free(w);
	free(t);
}
