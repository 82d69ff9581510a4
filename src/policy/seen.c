/* Operands and what they became, when several go into a directory: cp
 * copies a source named twice once (and warns), and never writes over,
 * or through, what this run just made of an earlier operand.  Kept by
 * the operands (operands.c), asked by the destination policy and by
 * the walk (calls up, src/layers.txt), which is why it is a file of its
 * own. */
#include "system.h"
#include "policy/seen.h"
#include "policy/cp.h"
#include "policy/dest.h"
#include "output/quote.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* An operand and what it became (struct sc_seen's SRC and DST). */
struct seen {
	dev_t dev;
	ino_t ino;
	bool is_dir;
	char *name;	/* a source file's name; a source directory's copy */
};

/* Command-line operands and what they became, when several go into a
 * directory: cp refuses to overwrite what this run just made, and warns
 * about a source named twice. */
static bool seen_has(const struct seen *v, size_t n, const struct stat *st)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].dev == st->st_dev && v[i].ino == st->st_ino)
			return true;
	return false;
}

static void seen_add(struct seen **v, size_t *n, const struct stat *st,
		     const char *name)
{
	struct seen *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return;
	*v = nv;
	nv[*n].dev = st->st_dev;
	nv[*n].ino = st->st_ino;
	nv[*n].is_dir = S_ISDIR(st->st_mode);
	nv[*n].name = name ? strdup(name) : NULL;
	(*n)++;
}

bool sc_seen_just_created(const struct sc_seen *s, const struct stat *st)
{
	return seen_has(s->dst, s->n_dst, st);
}

_noinline_ bool sc_seen_named_twice(struct sc_seen *s, struct cp *cp,
				    bool backup, const char *src,
				    const char *dst, const struct stat *sst)
{
	if (!S_ISDIR(sst->st_mode)) {
		if (backup)
			return false;
		/* the same entry, not another hard link to it */
		for (size_t i = 0; i < s->n_src; i++)
			if (s->src[i].dev == sst->st_dev &&
			    s->src[i].ino == sst->st_ino &&
			    !s->src[i].is_dir && s->src[i].name &&
			    sc_path_same_entry(src, s->src[i].name)) {
				sc_report_warn(&cp->cur.msgs, SC_WARN_FILE_TWICE,
					       0, src, NULL);
				return true;
			}
		seen_add(&s->src, &s->n_src, sst, src);
		return false;
	}
	for (size_t i = 0; i < s->n_src; i++)
		if (s->src[i].dev == sst->st_dev &&
		    s->src[i].ino == sst->st_ino && s->src[i].is_dir &&
		    s->src[i].name && sc_path_same_entry(dst, s->src[i].name)) {
			sc_report_warn(&cp->cur.msgs, SC_WARN_DIR_TWICE, 0, src,
				       NULL);
			return true;
		}
	seen_add(&s->src, &s->n_src, sst, dst);
	return false;
}

int sc_seen_dir_again(const struct sc_seen *s, struct cp *cp,
		      const struct decision *e)
{
	const struct sc_options *o = cp->o;

	if (!s || e->cmdline || !S_ISDIR(e->sst.st_mode) ||
	    o->deref == SC_DEREF_ALWAYS || o->hard_link)
		return 0;
	for (size_t i = 0; i < s->n_src; i++)
		if (s->src[i].dev == e->sst.st_dev &&
		    s->src[i].ino == e->sst.st_ino && s->src[i].is_dir &&
		    s->src[i].name && !sc_path_same_entry(e->dst, s->src[i].name))
			return sc_report_fail(&cp->cur.msgs, SC_FAIL_DIR_LINK, 0,
					      e->dst, s->src[i].name);
	return 0;
}

_noinline_ int sc_seen_through_new_symlink(const struct sc_seen *s,
					   struct cp *cp,
					   const struct decision *e)
{
	struct stat l;

	if (lstat(e->dst, &l) == 0 && S_ISLNK(l.st_mode) &&
	    seen_has(s->dst, s->n_dst, &l))
		return sc_report_fail(&cp->cur.msgs, SC_FAIL_NEW_SYMLINK, 0,
				      e->src, e->dst);
	return 0;
}

_noinline_ void sc_seen_remember_made(struct sc_seen *s, const char *dst)
{
	struct stat l;

	if (lstat(dst, &l) == 0)
		seen_add(&s->dst, &s->n_dst, &l, NULL);
}

void sc_seen_free(struct sc_seen *s)
{
	for (size_t i = 0; i < s->n_src; i++)
		free(s->src[i].name);
	free(s->src);
	free(s->dst);
}
