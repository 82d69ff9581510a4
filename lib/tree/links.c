/* The hard-link table: a hash table from (device, inode) to the name of
 * the copy, with open addressing kept at most half full. */
#include "common.h"
#include "tree/links.h"

#include <string.h>

struct link {
	dev_t dev;
	ino_t ino;
	char *dst;		/* NULL: a free slot */
	dev_t cdev;		/* the copy, once said (CINO 0: not yet) */
	ino_t cino;
};

bool links_tracked(const struct tree_opts *o, const struct stat *st,
		      bool cmdline)
{
	return o->preserve_links && !o->hard_link && !S_ISDIR(st->st_mode) &&
	       (st->st_nlink > 1 || o->deref_always ||
		(cmdline && o->deref_args));
}

static size_t slot_of(dev_t dev, ino_t ino, size_t cap)
{
	uint64_t h = ((uint64_t)ino * 0x9e3779b97f4a7c15ull) ^ (uint64_t)dev;

	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static struct link *find(const struct links *t, dev_t dev, ino_t ino)
{
	if (!t->n)
		return NULL;
	for (size_t i = slot_of(dev, ino, t->cap); t->slot[i].dst;
	     i = (i + 1) & (t->cap - 1))
		if (t->slot[i].dev == dev && t->slot[i].ino == ino)
			return &t->slot[i];
	return NULL;
}

const char *links_find(const struct links *t, dev_t dev, ino_t ino)
{
	const struct link *l = find(t, dev, ino);

	return l ? l->dst : NULL;
}

void links_identify(struct links *t, dev_t dev, ino_t ino,
		       const struct stat *copy)
{
	struct link *l = find(t, dev, ino);

	if (l && !l->cino) {
		l->cdev = copy->st_dev;
		l->cino = copy->st_ino;
	}
}

bool links_is_copy(const struct links *t, dev_t dev, ino_t ino,
		      const struct stat *st)
{
	const struct link *l = find(t, dev, ino);

	return l && (!l->cino ||
		     (l->cdev == st->st_dev && l->cino == st->st_ino));
}

/* Doubles the table (64 slots to start with). */
static int grow(struct links *t)
{
	size_t cap = t->cap ? 2 * t->cap : 64;
	struct link *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t k = 0; k < t->cap; k++) {
		size_t i;

		if (!t->slot[k].dst)
			continue;
		for (i = slot_of(t->slot[k].dev, t->slot[k].ino, cap);
		     n[i].dst; i = (i + 1) & (cap - 1))
			;
		n[i] = t->slot[k];
	}
	free(t->slot);
	t->slot = n;
	t->cap = cap;
	return 0;
}

int links_remember(struct links *t, dev_t dev, ino_t ino,
		      const char *dst)
{
	size_t i;

	/* open addressing wants a half-empty table */
	if (2 * (t->n + 1) > t->cap && grow(t) < 0)
		return -ENOMEM;
	for (i = slot_of(dev, ino, t->cap); t->slot[i].dst;
	     i = (i + 1) & (t->cap - 1))
		if (t->slot[i].dev == dev && t->slot[i].ino == ino)
			return 0;	/* the first copy stays the one */
	t->slot[i].dst = strdup(dst);
	if (!t->slot[i].dst)
		return -ENOMEM;
	t->slot[i].dev = dev;
	t->slot[i].ino = ino;
	t->n++;
	return 0;
}

void links_free(struct links *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slot[i].dst);
	free(t->slot);
	*t = (struct links){ 0 };
}
