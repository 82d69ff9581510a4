/* cp's words for the walk's failures: each stage of <smartcp/smartcp.h> said as
 * cp says it, about the source or the copy as the stage names it. */
#include "system.h"
#include "policy/hooks.h"
#include "output/report.h"
#include "policy/record.h"
#include "policy/cp.h"

/* The message of each stage, and whether it names the copy (DST). */
static const struct {
	enum sc_fail what;
	bool dst;
} stage_words[] = {
	[SC_TREE_STAT] = { SC_FAIL_STAT, false },
	[SC_TREE_VANISHED] = { SC_FAIL_STAT, false },
	[SC_TREE_NOT_RECURSIVE] = { SC_FAIL_OMIT_DIR, false },
	[SC_TREE_NO_DIR] = { SC_FAIL_CREATE, true },
	[SC_TREE_READLINK] = { SC_FAIL_READLINK, false },
	[SC_TREE_MAKE] = { SC_FAIL_MKDIR, true },	/* by kind: make_words() */
	[SC_TREE_CHECK] = { SC_FAIL_STAT, true },
	[SC_TREE_REPLACED] = { SC_FAIL_DIR_REPLACED, true },
	[SC_TREE_SRC_REPLACED] = { SC_FAIL_DIR_REPLACED, false },
	[SC_TREE_ENTER_MODE] = { SC_FAIL_SET_MODE, true },
	[SC_TREE_READ_DIR] = { SC_FAIL_ACCESS, false },
	[SC_TREE_COPY_LOST] = { SC_FAIL_ACCESS, true },
	[SC_TREE_CYCLE] = { SC_FAIL_CYCLE, false },
	[SC_TREE_INTO_ITSELF] = { SC_FAIL_INTO_ITSELF, false },
	[SC_TREE_DIR_LINK] = { SC_FAIL_DIR_LINK, true },
	[SC_TREE_RELATIVE_LINK] = { SC_FAIL_SYMLINK_HERE, true },
	[SC_TREE_EARLIER_REPLACED] = { SC_FAIL_FILE_REPLACED, false },
	[SC_TREE_MEMORY] = { SC_FAIL_MEMORY, false },
	[SC_TREE_UNSAFE_LINK] = { SC_FAIL_UNSAFE_SYMLINK, true },
	[SC_TREE_NOT_DIR] = { SC_FAIL_NOT_DIR, true },
};

/* --parents' directories (PARENT): what could not be made, or looked at
 * (the source, SC_TREE_STAT; the copy, SC_TREE_CHECK), in cp's words for
 * them; else as for any entry. */
static enum sc_fail parent_words(enum sc_tree_stage stage, enum sc_fail what)
{
	switch (stage) {
	case SC_TREE_MAKE:
		return SC_FAIL_MAKE_DIR;
	case SC_TREE_STAT:
	case SC_TREE_CHECK:
		return SC_FAIL_GET_ATTRS;
	default:
		return what;
	}
}

/* What could not be made, by what it is (SC_TREE_MAKE). */
static enum sc_fail make_words(const struct sc_tree_entry *e)
{
	switch (e->kind) {
	case SC_TREE_HARDLINK:
		return SC_FAIL_LINK;
	case SC_TREE_SYMLINK:
		return e->earlier ? SC_FAIL_SYMLINK_TO : SC_FAIL_SYMLINK;
	case SC_TREE_SPECIAL:
		return e->sst && S_ISFIFO(e->sst->st_mode) ? SC_FAIL_MKFIFO :
		       SC_FAIL_MKNOD;
	default:
		return SC_FAIL_MKDIR;
	}
}

enum sc_tree_verdict hooks_error(void *arg, const struct sc_tree_entry *e,
				 enum sc_tree_stage stage, int err)
{
	struct cp *cp = arg;
	enum sc_fail what;
	const char *a, *b = NULL;

	if ((unsigned)stage >= ARRAY_SIZE(stage_words))
		return SC_TREE_CONTINUE;
	/* no memory to keep the messages of the entry it interrupts: said
	 * in them */
	if (hooks_at_depth(cp, e->depth) < 0)
		sc_report_fail(&cp->cur.msgs, SC_FAIL_NO_MEMORY, 0, NULL,
			       NULL);
	/* past its stat, a file the walk copies without asking BEFORE (a
	 * new one, and another name of an earlier copy): cp's -v line
	 * first, as BEFORE says it for the others */
	if (e->kind != SC_TREE_DIR && stage != SC_TREE_STAT &&
	    stage != SC_TREE_VANISHED)
		sc_entry_announce(cp, e->src, e->dst);
	what = stage == SC_TREE_MAKE ? make_words(e) : stage_words[stage].what;
	if (e->parent)
		what = parent_words(stage, what);
	a = stage_words[stage].dst ? e->dst : e->src;
	switch (stage) {
	case SC_TREE_MAKE:
		b = e->earlier;	/* a link's target */
		break;
	case SC_TREE_EARLIER_REPLACED:
		a = e->earlier;
		break;
	case SC_TREE_REPLACED:
	case SC_TREE_SRC_REPLACED:
		if (e->kind != SC_TREE_DIR)
			what = SC_FAIL_FILE_REPLACED;
		break;
	case SC_TREE_VANISHED:
		sc_report_vanished(cp->rep);	/* the summary counts it */
		break;
	case SC_TREE_INTO_ITSELF:
		b = e->dst;
		break;
	case SC_TREE_DIR_LINK:
		a = e->earlier;
		b = e->dst;
		break;
	case SC_TREE_MEMORY:
		a = e->src ? e->src : e->dst;
		break;
	default:
		break;
	}
	sc_report_fail(&cp->cur.msgs, what, err, a, b);
	return SC_TREE_CONTINUE;
}
