/* The program's record of each entry the tree copy copies: made from
 * what its AFTER hands (policy/hooks.c) or, for a file, from its copy's
 * report (file.c), and printed through the report for -v, --json and the
 * summary; cp's -v line ahead of a copy; the words of what was made's
 * metadata. */
#include "system.h"
#include "policy/record.h"
#include "policy/attrs.h"
#include "policy/cp.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

void sc_entry_report(struct cp *cp, struct sc_record *rec)
{
	sc_report_failure(&cp->cur.msgs, rec);
	rec->backup = cp->cur.backup;
	rec->announced = cp->cur.announced;
	sc_report_record(cp->rep, rec, sc_report_out(&cp->cur.msgs));
}

/* --json: an entry that failed before a record was made (or after its
 * record said it was fine: a directory whose entries cannot be read) is
 * said anyway, typed by what its source is (an operand: TE->top), with
 * the step and errno of its first error (sc_report_failure()). */
void sc_entry_report_failed(struct cp *cp, const struct sc_tree_entry *te)
{
	const struct sc_options *o = cp->o;
	struct sc_record rec = { .src = te->src, .dst = te->dst,
				 .kind = SC_KIND_UNKNOWN };
	bool follow = o->deref == SC_DEREF_ALWAYS ||
		      (o->deref == SC_DEREF_ARGS && te->top);
	struct stat st;

	if (!o->json || cp->cur.msgs.recorded == 2)
		return;
	if (te->src_name && te->src_dirfd != -1 &&
	    fstatat(te->src_dirfd, te->src_name, &st,
		    follow ? 0 : AT_SYMLINK_NOFOLLOW) == 0)
		rec.kind = S_ISDIR(st.st_mode) ? SC_KIND_DIR :
			   o->hard_link ? SC_KIND_HARDLINK :
			   o->symbolic_link || S_ISLNK(st.st_mode) ?
			   SC_KIND_SYMLINK :
			   S_ISREG(st.st_mode) || !o->recursive ||
			   o->copy_contents ? SC_KIND_FILE : SC_KIND_SPECIAL;
	if (cp->cur.msgs.step && !strcmp(cp->cur.msgs.step, "link"))
		rec.kind = SC_KIND_HARDLINK;	/* to a copy made earlier */
	if (rec.kind == SC_KIND_FILE)
		rec.src_size = st.st_size;
	sc_entry_report(cp, &rec);
}

/* Called as cp, -v names a file that is not a directory before copying
 * it, as cp does: the line is there even when the copy then fails, and
 * comes before the error.  Under smartcp's own name the line comes after
 * the copy, with the road it took. */
void sc_entry_announce(struct cp *cp, const char *src, const char *dst)
{
	const struct sc_options *o = cp->o;

	if (!o->verbose || !o->as_cp || o->json || o->explain ||
	    cp->cur.announced)
		return;
	sc_report_cp_line(&cp->cur.msgs, src, dst, cp->cur.backup);
	cp->cur.announced = true;
}

void sc_record_streams(void *arg, FILE **out, FILE **err)
{
	const struct cp *cp = arg;

	sc_tree_streams(cp->tree, out, err);
}

int sc_record_meta(struct cp *cp, const struct sc_tree_entry *te,
		   const struct sc_tree_result *r)
{
	struct sc_attrs_env env = {
		.o = cp->o, .privileged = cp->privileged,
		.msgs = &cp->cur.msgs, .src_st = te->sst, .old_st = r->old_st,
	};

	if (r->rep)
		sc_attrs_say_all(&env, r->rep, te->src, te->dst);
	return r->rep_err;
}
