/* smartcp's long options and GNU cp's rules for abbreviating them: the
 * table getopt_long reads, and the rewriting of abbreviations before it
 * reads them (see sc_longopts_expand). */
#include "system.h"
#include "cli/longopts.h"
#include "output/report.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Not an option: what sc_longopts_expand() turns an abbreviation into
 * when it wants a usage error said in its place (see there). */
#define BAD_LONG_NAME "\001bad-long-option"

const struct option sc_long_options[] = {
	{ "allow-changing-source", no_argument,	NULL, OPT_ALLOW_CHANGING_SOURCE },
	{ "archive",		no_argument,		NULL, 'a' },
	{ "assume-fs",		required_argument,	NULL, OPT_ASSUME_FS },
	{ "atomic",		no_argument,		NULL, OPT_ATOMIC },
	{ "attributes-only",	no_argument,		NULL, OPT_ATTRIBUTES_ONLY },
	{ "backup",		optional_argument,	NULL, OPT_BACKUP },
	{ "copy-contents",	no_argument,		NULL, OPT_COPY_CONTENTS },
	{ "debug",		no_argument,		NULL, OPT_DEBUG },
	{ "dereference",	no_argument,		NULL, 'L' },
	{ "explain",		no_argument,		NULL, OPT_EXPLAIN },
	{ "force",		no_argument,		NULL, 'f' },
	{ "help",		no_argument,		NULL, OPT_HELP },
	{ "if-changed",		no_argument,		NULL, OPT_IF_CHANGED },
	{ "interactive",	no_argument,		NULL, 'i' },
	{ "jobs",		required_argument,	NULL, 'j' },
	{ "json",		no_argument,		NULL, OPT_JSON },
	{ "kernel",		required_argument,	NULL, OPT_KERNEL },
	{ "link",		no_argument,		NULL, 'l' },
	{ "no-clobber",		no_argument,		NULL, 'n' },
	{ "no-dereference",	no_argument,		NULL, 'P' },
	{ "no-preserve",	required_argument,	NULL, OPT_NO_PRESERVE },
	{ "no-target-directory", no_argument,		NULL, 'T' },
	{ "one-file-system",	no_argument,		NULL, 'x' },
	{ "parents",		no_argument,		NULL, OPT_PARENTS },
	{ "path",		no_argument,		NULL, OPT_PARENTS },
	{ "preserve",		optional_argument,	NULL, OPT_PRESERVE },
	{ "progress",		no_argument,		NULL, OPT_PROGRESS },
	{ "quiet",		no_argument,		NULL, 'q' },
	{ "recursive",		no_argument,		NULL, 'R' },
	{ "remove-destination",	no_argument,		NULL, OPT_REMOVE_DESTINATION },
	{ "reflink",		optional_argument,	NULL, OPT_REFLINK },
	{ "road",		required_argument,	NULL, OPT_ROAD },
	{ "rules",		no_argument,		NULL, OPT_RULES },
	{ "sparse",		required_argument,	NULL, OPT_SPARSE },
	{ "strip-trailing-slashes", no_argument,	NULL, OPT_STRIP_SLASHES },
	{ "suffix",		required_argument,	NULL, 'S' },
	{ "symbolic-link",	no_argument,		NULL, 's' },
	{ "sync",		no_argument,		NULL, OPT_SYNC },
	{ "target-directory",	required_argument,	NULL, 't' },
	{ "update",		optional_argument,	NULL, OPT_UPDATE },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "verify",		no_argument,		NULL, OPT_VERIFY },
	{ "version",		no_argument,		NULL, OPT_VERSION },
	{ "context",		optional_argument,	NULL, 'Z' },
	{ BAD_LONG_NAME,	required_argument,	NULL, OPT_BAD_LONG },
	{ NULL, 0, NULL, 0 }
};

/* GNU cp 9.1's long options, in the order of its own table, which is the
 * order its getopt_long lists them in when an abbreviation is ambiguous.
 * "path" is its old, undocumented name for --parents.  An abbreviation
 * of one of these means what it means to cp, whatever smartcp adds. */
static const char *const gnu_long_names[] = {
	"archive", "attributes-only", "backup", "copy-contents",
	"dereference", "force", "interactive", "link", "no-clobber",
	"no-dereference", "no-preserve", "no-target-directory",
	"one-file-system", "parents", "path", "preserve", "recursive",
	"remove-destination", "sparse", "reflink", "strip-trailing-slashes",
	"suffix", "symbolic-link", "target-directory", "update", "verbose",
	"context", "help", "version", NULL
};

/* The entry of sc_long_options named exactly NAME (LEN bytes), or NULL. */
static const struct option *long_option(const char *name, size_t len)
{
	for (const struct option *p = sc_long_options; p->name; p++)
		if (p->val != OPT_BAD_LONG && strlen(p->name) == len &&
		    !strncmp(p->name, name, len))
			return p;
	return NULL;
}

/* The I-th option of GNU cp's table (gnu) or of ours; NULL past the end.
 * Every name in gnu_long_names is in sc_long_options. */
static const struct option *nth_option(bool gnu, size_t i)
{
	if (!gnu)
		return sc_long_options[i].name ? &sc_long_options[i] : NULL;
	if (!gnu_long_names[i])
		return NULL;
	return long_option(gnu_long_names[i], strlen(gnu_long_names[i]));
}

/* getopt_long counts two names as one option when they do the same
 * (--parents, --path). */
static bool same_option(const struct option *a, const struct option *b)
{
	return a->has_arg == b->has_arg && a->flag == b->flag &&
	       a->val == b->val;
}

/* Abbreviation matching as getopt_long does it, over GNU cp's options
 * (gnu) or over all of smartcp's.  Returns how many different options
 * NAME (LEN bytes) is a prefix of, and the first one in *ret; with
 * LIST, also their names, in LIST's first CAP places. */
static int match_prefix(const char *name, size_t len, bool gnu,
			const char **list, size_t cap,
			const struct option **ret)
{
	const struct option *first = NULL, *p;
	int n = 0;

	for (size_t i = 0; (p = nth_option(gnu, i)); i++) {
		if (p->val == OPT_BAD_LONG || strncmp(p->name, name, len))
			continue;
		if (first && same_option(first, p))
			continue;
		if (!first)
			first = p;
		if (list && (size_t)n < cap)
			list[n] = p->name;
		n++;
	}
	*ret = first;
	return n;
}

/* Says what is wrong with a long option sc_longopts_expand() set aside:
 * ARG is a kind letter ('a' ambiguous, 'u' unrecognized) followed by the
 * argument as given, "--NAME[=VALUE]".  The words are getopt_long's. */
void sc_longopts_bad(const char *prog, const char *arg)
{
	const char *name = arg + 3;
	const char *list[ARRAY_SIZE(gnu_long_names)];
	const struct option *first;
	int n;

	if (arg[0] == 'u') {
		sc_report_bad_option(prog, name, NULL, 0);
		return;
	}
	n = match_prefix(name, strcspn(name, "="), true, list,
			 ARRAY_SIZE(list), &first);
	sc_report_bad_option(prog, name, list,
			     MIN((size_t)n, ARRAY_SIZE(list)));
}

/* 1 if the cluster of short options LETTERS ("-abS" without the dash)
 * ends with a letter that takes the next argument as its value. */
static int short_takes_next(const char *letters)
{
	for (const char *p = letters; *p; p++) {
		const char *s = *p == ':' ? NULL : strchr(SHORT_OPTIONS, *p);

		if (!s)
			return 0;	/* getopt_long stops the parse here */
		if (s[1] == ':')
			return !p[1];
	}
	return 0;
}

/* smartcp's own long options (--progress, --debug, --sync...) would make
 * abbreviations that GNU cp takes ambiguous for getopt_long (--pr, --de,
 * --sy).  So before getopt_long runs, each long option in ARGV, found as
 * getopt_long will find it, is rewritten in full:
 *  - an exact name stays as it is;
 *  - else an abbreviation of GNU cp's options only is resolved among those
 *    alone; if it is ambiguous there, it is set aside (BAD_LONG_NAME) so
 *    that getopt_long hands it back in its turn and the message, with
 *    GNU's candidates only, comes after those of earlier options;
 *  - else it is left to getopt_long over all options, smartcp's too.
 * The rewritten strings are kept in a list with the strings they
 * replaced, which go back into ARGV once getopt_long is done, and option
 * values kept from them (--suff=X) are pointed at the same bytes of the
 * caller's string (see sc_longopts_restore()): ARGV then holds the caller's own
 * strings again, only in getopt_long's order, and ours are freed. */
static struct rewrite {
	char *full, *orig;
} *rewritten;
static size_t n_rewritten;

/* ARGV[I] = FULL, FULL kept in the list (on ENOMEM, ARGV stays as it
 * was: getopt_long then says what it thinks of the abbreviation). */
static void rewrite_arg(char **argv, int i, char *full)
{
	struct rewrite *nv = realloc(rewritten,
				     (n_rewritten + 1) * sizeof(*nv));

	if (!nv) {
		free(full);
		return;
	}
	rewritten = nv;
	rewritten[n_rewritten++] = (struct rewrite){ full, argv[i] };
	argv[i] = full;
}

/* *VALUE, if it points into one of our strings (the FIRST-th rewrite
 * on), points at the same value in the caller's string: both end in the
 * "=VALUE" the caller wrote. */
static void value_to_orig(const char **value, size_t first)
{
	for (size_t k = first; *value && k < n_rewritten; k++) {
		const char *full = rewritten[k].full, *orig = rewritten[k].orig;
		size_t fl = strlen(full), ol = strlen(orig), vl;

		if (*value < full || *value > full + fl)
			continue;
		vl = strlen(*value);
		if (vl <= ol)
			*value = orig + (ol - vl);
		return;
	}
}

size_t sc_longopts_mark(void)
{
	return n_rewritten;
}

void sc_longopts_restore(int argc, char **argv, size_t mark,
			 const char **const values[], size_t n)
{
	if (n_rewritten == mark)
		return;
	for (size_t v = 0; v < n; v++)
		value_to_orig(values[v], mark);
	for (int i = 0; i < argc; i++)
		for (size_t k = mark; k < n_rewritten; k++)
			if (argv[i] == rewritten[k].full) {
				argv[i] = rewritten[k].orig;
				break;
			}
	while (n_rewritten > mark)
		free(rewritten[--n_rewritten].full);
}

void sc_longopts_expand(int argc, char **argv)
{
	bool posix = getenv("POSIXLY_CORRECT");

	for (int i = 1; i < argc; i++) {
		char *arg = argv[i], *name, *full;
		const struct option *o;
		size_t len;
		int n;

		if (!strcmp(arg, "--"))
			return;
		if (arg[0] != '-' || !arg[1]) {
			if (posix)	/* getopt_long stops at an operand */
				return;
			continue;
		}
		if (arg[1] != '-') {
			i += short_takes_next(arg + 1);
			continue;
		}
		name = arg + 2;
		len = strcspn(name, "=");
		o = long_option(name, len);
		if (!o) {
			n = match_prefix(name, len, true, NULL, 0, &o);
			if (n > 1 || (!n && len &&
				      !strncmp(BAD_LONG_NAME, name, len))) {
				/* getopt_long would list smartcp's options
				 * too, or match the internal entry */
				if (asprintf(&full, "--%s=%c%s",
					     BAD_LONG_NAME, n ? 'a' : 'u',
					     arg) >= 0)
					rewrite_arg(argv, i, full);
				return;
			}
			if (!n && match_prefix(name, len, false, NULL, 0,
					       &o) != 1)
				return;	/* getopt_long says what is wrong */
			if (asprintf(&full, "--%s%s", o->name, name + len) >= 0)
				rewrite_arg(argv, i, full);
		}
		if (o->has_arg == required_argument && !name[len])
			i++;	/* its value, whatever it looks like */
	}
}
