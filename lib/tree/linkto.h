/* Entries that become links instead of copies (linkto.c). */
#ifndef SMARTCP_TREE_LINKTO_H
#define SMARTCP_TREE_LINKTO_H

#include <sys/stat.h>

struct worker;
struct entry;
struct decision;

/* -l, -s: E's destination becomes a link to the source instead of a
 * copy.  0 or -errno (said). */
int walk_link_instead(struct worker *wk, struct entry *ent,
		      const struct decision *e);

/* -a, --preserve=links: SRC (ST) is another name of a file already
 * copied to PREV; DST becomes another name of PREV.  0 or -errno
 * (said). */
int walk_link_earlier(struct worker *wk, struct entry *ent, const char *prev,
		      const char *src, const char *dst, const struct stat *st);

/* -a, --preserve=links: DST, the copy of ST (the entry ENT), is
 * remembered as the copy of its source: COPY its stat, else what DST is
 * now if it can only be the copy just made (else it is not remembered). */
void walk_remember_copy(struct worker *wk, const struct entry *ent,
			const struct stat *st, const char *dst,
			const struct stat *copy);

#endif
