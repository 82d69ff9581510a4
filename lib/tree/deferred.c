/* -j: directory attributes deferred to the end of the run
 * (deferred.h). */
#include "common.h"
#include "tree/deferred.h"
#include "tree/fail.h"
#include "tree/levels.h"
#include "tree/walk_state.h"
#include "tree/entry.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* A directory whose mode and times wait until every file in it is done:
 * NODE (struct dnode), as its source was (ST), and how it was made. */
struct deferred {
	size_t node;
	struct stat st;
	struct walk_made m;
};

_noinline_ size_t level_node(struct walk *w, size_t k)
{
	size_t j = k;

	if (w->levels[k].node)
		return w->levels[k].node;
	/* nodes are made from a first level down: the shallowest without */
	while (!w->levels[j].root_src && !w->levels[j - 1].node)
		j--;
	for (; j <= k; j++) {
		struct level *l = &w->levels[j];
		size_t parent = l->root_src ? 0 : w->levels[j - 1].node;
		struct dnode *n;

		if (sc_grow(w->dnodes, w->n_dnodes, w->cap_dnodes, 64) < 0)
			return 0;
		n = &w->dnodes[w->n_dnodes];
		*n = (struct dnode){
			.parent = parent,
			.depth = parent ? w->dnodes[parent - 1].depth + 1 : 0,
			.dev = l->dev, .ino = l->ino,
			.ddev = l->ddev, .dino = l->dino,
			.follow = l->follow, .dup = l->dup,
		};
		n->sname = strdup(l->root_src ? l->root_src : l->sname);
		n->dname = l->root_src ? strdup(l->root_dst) : n->sname;
		if (!n->sname || !n->dname) {
			if (n->dname != n->sname)
				free(n->dname);
			free(n->sname);
			return 0;
		}
		l->node = ++w->n_dnodes;
	}
	return w->levels[k].node;
}

_noinline_ bool defer_attrs(struct walk *w, size_t node,
			    const struct stat *st,
			    const struct walk_made *m)
{
	if (sc_grow(w->deferred, w->n_deferred, w->cap_deferred, 64) < 0)
		return false;
	w->deferred[w->n_deferred++] = (struct deferred){ node, *st, *m };
	return true;
}

/* -j, at the end: level for node Y (struct dnode) pushed on the walk's
 * levels, below its parent's (or a first level), and opened, checked as
 * the walk checks a level it comes back to.  One that cannot be is said
 * once, and the nodes below it are left silently.  0, or -errno. */
static int replay_push(struct walk *w, size_t y)
{
	struct dnode *n = &w->dnodes[y];
	bool root = !n->parent;
	struct level *l;
	int e;

	if (sc_grow(w->levels, w->n_levels, w->cap_levels, 16) < 0)
		return -ENOMEM;
	l = &w->levels[w->n_levels];
	*l = (struct level){
		.dev = n->dev, .ino = n->ino, .ddev = n->ddev, .dino = n->dino,
		.sfd = -1, .dfd = -1, .up = !root, .dup = n->dup,
		.spfd = AT_FDCWD, .dpfd = AT_FDCWD,
		.sname = n->sname, .dname = n->dname, .follow = n->follow,
		.root_src = root ? n->sname : NULL,
		.root_dst = root ? n->dname : NULL,
		.node = y + 1,
	};
	if (!root && (!entry_name(w, w->n_levels - 1, false, n->sname) ||
		      !entry_name(w, w->n_levels - 1, true, n->dname)))
		return -ENOMEM;
	e = level_names(w, l, root ? NULL : l - 1, n->sname, n->dname);
	if (e < 0)
		return e;
	w->n_levels++;
	if (n->lost || (!root && w->levels[w->n_levels - 2].lost)) {
		/* said when it was lost */
		l->lost = -ESTALE;
		n->lost = true;
		return l->lost;
	}
	e = replay_open(w, w->n_levels - 1);
	if (e < 0) {
		const char *dst = level_name(w, w->n_levels - 1, true);

		say_level_lost(w, NULL, dst, e);
		n->lost = true;
		/* its attributes, and those below it, are not set: the
		 * caller counts it */
		walk_after(w->run, &(struct sc_tree_entry){
				.size = sizeof(struct sc_tree_entry),
				.kind = SC_TREE_DIR, .dst = dst,
				.src_dirfd = -1, .dst_dirfd = -1,
				.src_name = "" },	/* no SRC: lost */
			   &(struct sc_tree_result){
				.size = sizeof(struct sc_tree_result),
				.point = SC_TREE_LATE, .err = e });
		return e;
	}
	return 0;
}

/* -j, at the end: the walk's levels made the way down to node X, from
 * the levels it has (deferred attributes come in post-order: mostly one
 * level up, or a few down).  0, or -errno when X cannot be reached. */
static int replay_to(struct walk *w, size_t x, size_t **chain, size_t *cap)
{
	size_t y = x, n = 0;

	for (;;) {
		size_t d = w->dnodes[y].depth;

		while (w->n_levels > d + 1)
			level_pop(w, NULL);
		if (w->n_levels == d + 1) {
			if (w->levels[d].node == y + 1)
				break;
			level_pop(w, NULL);
		}
		if (sc_grow(*chain, n, *cap, 64) < 0)
			return -ENOMEM;
		(*chain)[n++] = y;
		if (!w->dnodes[y].parent)
			break;
		y = w->dnodes[y].parent - 1;
	}
	if (w->dnodes[x].lost)
		return -ESTALE;
	while (n) {
		int e = replay_push(w, (*chain)[--n]);

		if (e < 0)
			return e;
	}
	return w->levels[w->n_levels - 1].lost;
}

void set_deferred_attrs(struct walk *w)
{
	size_t *chain = NULL, cap = 0;

	for (size_t i = 0; i < w->n_deferred; i++) {
		struct deferred *d = &w->deferred[i];
		size_t k;
		struct level *l, *p;

		if (replay_to(w, d->node - 1, &chain, &cap) < 0)
			continue;	/* said, once */
		k = w->n_levels - 1;
		if (replay_open(w, k) < 0)
			continue;	/* said when it was lost */
		l = &w->levels[k];
		p = k && l->up ? l - 1 : NULL;
		if (p) {
			/* for its source's name past PATH_MAX, if at hand */
			parent_by_dotdot(w, k);
			levels_trim(w, w->max_open);
		}
		{
			struct tree_at s = {
				p ? p->sfd : l->up ? -1 : l->spfd, l->sname,
				level_name(w, k, false),
			};
			struct tree_at t = {
				l->dfd, ".", level_name(w, k, true),
			};

			/* its copy is held (L->dfd), checked to be the
			 * directory made (replay_open()) */
			struct walk_out out = { .kind = SC_TREE_DIR };
			int e = walk_meta(&w->wk, -1, l->dfd, &s, &t, &d->st,
					  &d->m, 0, &out);

			walk_after(w->run, &(struct sc_tree_entry){
					.size = sizeof(struct sc_tree_entry),
					.kind = SC_TREE_DIR, .src = s.path,
					.dst = t.path, .sst = &d->st,
					.src_dirfd = s.dirfd,
					.src_name = s.name,
					.dst_dirfd = t.dirfd,
					.dst_name = t.name },
				    &(struct sc_tree_result){
					.size = sizeof(struct sc_tree_result),
					.point = SC_TREE_LATE, .err = e,
					.rep = out.rep, .rep_err = out.rep_err,
					.old_st = out.has_old ? &out.old :
						  NULL });
		}
	}
	while (w->n_levels)
		level_pop(w, NULL);
	free(chain);
	free(w->deferred);
	w->deferred = NULL;
	w->n_deferred = w->cap_deferred = 0;
}

void free_dnodes(struct walk *w)
{
	for (size_t i = 0; i < w->n_dnodes; i++) {
		if (w->dnodes[i].dname != w->dnodes[i].sname)
			free(w->dnodes[i].dname);
		free(w->dnodes[i].sname);
	}
	free(w->dnodes);
	w->dnodes = NULL;
	w->n_dnodes = w->cap_dnodes = 0;
}
