/* Command line parsing.  Option letters, long names, defaults and
 * combinations follow GNU cp 9.1 so scripts can swap one for the other. */
#include "system.h"
#include "options.h"
#include "quote.h"

#include <ctype.h>
#include <getopt.h>
#include <langinfo.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>
#include <wctype.h>

#ifdef ENABLE_NLS
/* The messages below that stand in for getopt_long's own come from the C
 * library's catalog, as getopt_long's do, so they read the same. */
# define libc_(s) dgettext("libc", s)
#else
# define libc_(s) (s)
#endif

enum {
	OPT_ATTRIBUTES_ONLY = 256, OPT_ALLOW_CHANGING_SOURCE, OPT_ASSUME_FS,
	OPT_ATOMIC, OPT_BACKUP, OPT_COPY_CONTENTS,
	OPT_DEBUG, OPT_EXPLAIN, OPT_HELP, OPT_IF_CHANGED, OPT_JSON, OPT_KERNEL,
	OPT_NO_PRESERVE, OPT_PARENTS, OPT_PRESERVE, OPT_PROGRESS, OPT_REFLINK,
	OPT_REMOVE_DESTINATION, OPT_ROAD, OPT_RULES, OPT_SPARSE, OPT_STRIP_SLASHES,
	OPT_SYNC, OPT_UPDATE, OPT_VERIFY, OPT_VERSION, OPT_BAD_LONG,
};

#define SHORT_OPTIONS "abdfHij:lLnpPqrRsS:t:TuvxZ"
/* Not an option: what expand_long_options() turns an abbreviation into
 * when it wants a usage error said in its place (see there). */
#define BAD_LONG_NAME "\001bad-long-option"

static const struct option long_options[] = {
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

/* The entry of long_options named exactly NAME (LEN bytes), or NULL. */
static const struct option *long_option(const char *name, size_t len)
{
	for (const struct option *p = long_options; p->name; p++)
		if (p->val != OPT_BAD_LONG && strlen(p->name) == len &&
		    !strncmp(p->name, name, len))
			return p;
	return NULL;
}

/* The I-th option of GNU cp's table (gnu) or of ours; NULL past the end.
 * Every name in gnu_long_names is in long_options. */
static const struct option *nth_option(bool gnu, size_t i)
{
	if (!gnu)
		return long_options[i].name ? &long_options[i] : NULL;
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
 * LIST, also prints each of them as getopt_long's "possibilities" do. */
static int match_prefix(const char *name, size_t len, bool gnu, bool list,
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
		if (list)
			fprintf(stderr, " '--%s'", p->name);
		n++;
	}
	*ret = first;
	return n;
}

/* Says what is wrong with a long option expand_long_options() set aside:
 * ARG is a kind letter ('a' ambiguous, 'u' unrecognized) followed by the
 * argument as given, "--NAME[=VALUE]".  The words are getopt_long's. */
static void bad_long_option(const char *prog, const char *arg)
{
	const char *name = arg + 3;
	const struct option *first;

	if (arg[0] == 'u') {
		fprintf(stderr, libc_("%s: unrecognized option '%s%s'\n"),
			prog, "--", name);
		return;
	}
	fprintf(stderr, libc_("%s: option '%s%s' is ambiguous; possibilities:"),
		prog, "--", name);
	match_prefix(name, strcspn(name, "="), true, true, &first);
	fputc('\n', stderr);
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
 * caller's string (see restore_args()): ARGV then holds the caller's own
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

/* Puts the caller's strings back where expand_long_options() put its
 * own (those from the FIRST-th rewrite on), wherever getopt_long moved
 * them, and frees ours. */
static void restore_args(int argc, char **argv, struct sc_options *o,
			 size_t first)
{
	value_to_orig(&o->suffix, first);
	value_to_orig(&o->target_directory, first);
	for (int i = 0; i < argc; i++)
		for (size_t k = first; k < n_rewritten; k++)
			if (argv[i] == rewritten[k].full) {
				argv[i] = rewritten[k].orig;
				break;
			}
	while (n_rewritten > first)
		free(rewritten[--n_rewritten].full);
}

static void expand_long_options(int argc, char **argv)
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
			n = match_prefix(name, len, true, false, &o);
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
			if (!n && match_prefix(name, len, false, false,
					       &o) != 1)
				return;	/* getopt_long says what is wrong */
			if (asprintf(&full, "--%s%s", o->name, name + len) >= 0)
				rewrite_arg(argv, i, full);
		}
		if (o->has_arg == required_argument && !name[len])
			i++;	/* its value, whatever it looks like */
	}
}

void sc_options_try_help(void)
{
	fprintf(stderr, _("Try '%s --help' for more information.\n"),
		sc_program_name);
}

static void usage(void)
{
	printf(_("\
Usage: %s [OPTION]... [-T] SOURCE DEST\n\
  or:  %s [OPTION]... SOURCE... DIRECTORY\n\
  or:  %s [OPTION]... -t DIRECTORY SOURCE...\n"),
	       sc_program_name, sc_program_name, sc_program_name);
	fputs(_("\
Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY, choosing for each\n\
file the fastest safe way the kernel offers (clone, copy_file_range, splice\n\
or read/write) and saying which one it took with -v, --explain or --json.\n\
\n"), stdout);
	fputs(_("\
Mandatory arguments to long options are mandatory for short options too.\n\
  -a, --archive                same as -dR --preserve=all\n\
      --attributes-only        don't copy the file data, just the attributes\n\
      --backup[=CONTROL]       make a backup of each existing destination file\n\
  -b                           like --backup but does not accept an argument\n\
      --copy-contents          copy contents of special files when recursive\n\
  -d                           same as --no-dereference --preserve=links\n\
      --debug                  explain how a file is copied; implies -v\n\
  -f, --force                  if an existing destination file cannot be\n\
                                 opened, remove it and try again\n\
  -i, --interactive            prompt before overwrite (overrides a previous -n\n\
                                 option)\n\
  -H                           follow command-line symbolic links in SOURCE\n\
  -l, --link                   hard link files instead of copying\n\
  -L, --dereference            always follow symbolic links in SOURCE\n\
"), stdout);
	fputs(_("\
  -n, --no-clobber             do not overwrite an existing file (overrides\n\
                                 a previous -i option)\n\
  -P, --no-dereference         never follow symbolic links in SOURCE\n\
  -p                           same as --preserve=mode,ownership,timestamps\n\
      --preserve[=ATTR_LIST]   preserve the specified attributes (default:\n\
                                 mode,ownership,timestamps), if possible\n\
                                 additional attributes: context, links, xattr,\n\
                                 all\n\
      --no-preserve=ATTR_LIST  don't preserve the specified attributes\n\
      --parents                use full source file name under DIRECTORY\n\
  -R, -r, --recursive          copy directories recursively\n\
      --reflink[=WHEN]         control clone/CoW copies (auto, always, never)\n\
      --remove-destination     remove each existing destination file before\n\
                                 attempting to open it (contrast with --force)\n\
      --sparse=WHEN            control creation of sparse files (auto,\n\
                                 always, never)\n\
      --strip-trailing-slashes  remove any trailing slashes from each SOURCE\n\
                                 argument\n\
  -s, --symbolic-link          make symbolic links instead of copying\n\
  -S, --suffix=SUFFIX          override the usual backup suffix\n\
  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into DIRECTORY\n\
  -T, --no-target-directory    treat DEST as a normal file\n\
  -u                           copy only when the SOURCE file is newer\n\
                                 than the destination file or when the\n\
                                 destination file is missing\n\
      --update[=WHEN]          like -u, or with WHEN: all (replace every\n\
                                 destination), none (replace none),\n\
                                 none-fail (replace none, and fail), older\n\
  -v, --verbose                explain what is being done, and which road\n\
                                 each file took (not when called as cp)\n\
  -x, --one-file-system        stay on this file system\n\
  -Z, --context[=CTX]          accepted for compatibility; SELinux contexts\n\
                                 are not set\n\
"), stdout);
	fputs(_("\
\n\
smartcp options:\n\
      --explain                show facts and the plan for each file; copy\n\
                                 nothing, create nothing\n\
      --json                   print one JSON object per file and a summary\n\
                                 (JSON Lines) on standard output\n\
      --kernel=VERSION         with --explain: plan for this kernel version\n\
                                 (such as 5.4 or 6.1) instead of the running one\n\
      --assume-fs=TYPE[:TYPE]  with --explain: plan as if the files were on\n\
                                 one filesystem of type TYPE, or the source on\n\
                                 the first type and the destination on another\n\
                                 filesystem of the second (such as nfs4:ext4)\n\
      --rules                  print the rules that choose the roads: for each\n\
                                 kind of filesystem pair and kernel version,\n\
                                 the roads in order and why others are skipped\n\
      --road=LIST              use only these roads, for experiments: any of\n\
                                 clone, copy_file_range, splice, read_write\n\
      --verify                 read the destination back and compare it with\n\
                                 the source\n\
      --atomic                 write to a temporary file, then rename it over\n\
                                 the destination\n\
      --sync                   flush each file, and the directory holding it,\n\
                                 to storage\n\
      --if-changed             leave destinations that already hold the same\n\
                                 data untouched\n\
      --allow-changing-source  a source that changes while it is copied (a\n\
                                 log being written) is no failure; -v and\n\
                                 --json still say so\n\
      --progress               show progress on standard error\n\
  -q, --quiet                  no summary line on a terminal\n\
  -j, --jobs=N                 copy up to N files of a tree at once (default:\n\
                                 the number of CPUs, fewer where that is\n\
                                 slower, see smartcp(1)); output keeps its\n\
                                 order\n\
      --help        display this help and exit\n\
      --version     output version information and exit\n\
"), stdout);
	fputs(_("\
\n\
The roads, fastest first: clone (FICLONE, shares extents), copy_file_range\n\
(in-kernel or server-side copy), splice (through a pipe) and read_write.\n\
Generated files (/proc, /sys, tracefs, debugfs) are always read until read()\n\
returns 0, whatever their size claims.\n\
\n\
Exit status is 0 if every file was copied, 1 otherwise.  A regular file that\n\
changed while it was copied (it grew, shrank, was rewritten or replaced) is\n\
said on standard error and counts as a failure, unless --allow-changing-source\n\
is given or smartcp runs as cp.\n"), stdout);
}

static void version(void)
{
	const char *slash = strrchr(sc_program_name, '/');

	printf("%s (%s) %s\n", slash ? slash + 1 : sc_program_name,
	       PACKAGE_NAME, PACKAGE_VERSION);
	fputs(_("\
Copyright (C) 2026 the smartcp authors.\n\
License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n\
This is free software: you are free to change and redistribute it.\n\
There is NO WARRANTY, to the extent permitted by law.\n"), stdout);
}

/* Matches ARG against a NULL-terminated list, allowing unambiguous
 * abbreviations as GNU's argmatch does.  Returns the index, -1 if ARG
 * matches nothing, -2 if it is ambiguous (the empty string always is). */
static int argmatch(const char *arg, const char *const *list)
{
	size_t len = strlen(arg);
	int found = -1;

	for (int i = 0; list[i]; i++) {
		if (!strcmp(arg, list[i]))
			return i;
		if (!strncmp(arg, list[i], len)) {
			if (found >= 0)
				return -2;	/* ambiguous */
			found = i;
		}
	}
	return found;
}


static void bad_arg(const char *arg, const char *opt,
		    const char *const *list)
{
	int r = argmatch(arg, list);

	fprintf(stderr, r == -2 ?
		_("%s: ambiguous argument %s for %s\n") :
		_("%s: invalid argument %s for %s\n"),
		sc_program_name, sc_quote_locale(arg), sc_quote_locale(opt));
	fputs(_("Valid arguments are:\n"), stderr);
	for (int i = 0; list[i]; i++)
		fprintf(stderr, "  - %s\n", sc_quote_locale(list[i]));
}

static const char *const when_args[] = { "auto", "always", "never", NULL };
/* cp lists --sparse values in this order */
static const char *const sparse_args[] = { "never", "auto", "always", NULL };

/* --preserve / --no-preserve lists: set or clear each named attribute.
 * An empty item ("mode,", "") is an error, as in cp: "" abbreviates all
 * of them. */
static int preserve_list(struct sc_options *o, const char *arg, bool on,
			 const char *opt)
{
	static const char *const attrs[] = {
		"mode", "timestamps", "ownership", "links", "context",
		"xattr", "all", NULL
	};
	_cleanup_free_ char *copy = strdup(arg);
	char *tok, *comma;

	if (!copy)
		return -1;
	for (tok = copy; tok; tok = comma ? comma + 1 : NULL) {
		comma = strchr(tok, ',');
		if (comma)
			*comma = '\0';
		switch (argmatch(tok, attrs)) {
		case 0:
			o->preserve_mode = on;
			o->explicit_no_preserve_mode = !on;
			break;
		case 1: o->preserve_timestamps = on; break;
		case 2: o->preserve_ownership = on; break;
		case 3: o->preserve_links = on; break;
		case 4: break;	/* SELinux context: not supported, ignored */
		case 5:
			o->preserve_xattr = o->require_preserve_xattr = on;
			break;
		case 6:
			o->explicit_no_preserve_mode = !on;
			o->preserve_mode = o->preserve_ownership = on;
			o->preserve_timestamps = o->preserve_links = on;
			o->preserve_xattr = on;
			break;
		default:
			bad_arg(tok, opt, attrs);
			return -1;
		}
	}
	return 0;
}

static int parse_roads(struct sc_options *o, const char *arg)
{
	unsigned mask = 0;

	/* token by token on the stack: nothing to allocate, nothing to
	 * fail when memory is short */
	for (const char *p = arg, *end; *p; p = *end ? end + 1 : end) {
		char tok[32];
		size_t len;
		int r;

		end = strchrnul(p, ',');
		len = (size_t)(end - p);
		if (!len)
			continue;
		snprintf(tok, sizeof(tok), "%.*s",
			 (int)MIN(len, sizeof(tok) - 1), p);
		r = len < sizeof(tok) ? sc_road_from_name(tok) : -1;
		if (r < 0) {
			static const char *const names[] = {
				"clone", "copy_file_range", "splice",
				"read_write", NULL
			};
			/* the whole token, however long */
			char *whole = strndup(p, len);

			bad_arg(whole ? whole : tok, "--road", names);
			free(whole);
			return -1;
		}
		mask |= 1u << r;
	}
	if (!mask) {
		fprintf(stderr, _("%s: invalid argument %s for %s\n"),
			sc_program_name, sc_quote_locale(arg), sc_quote_locale("--road"));
		return -1;
	}
	o->roads = mask;
	o->roads_forced = true;
	return 0;
}

/* The backup type from --backup=ARG, or from $VERSION_CONTROL when ARG
 * is NULL or empty (-b, -S, --backup=); (enum sc_backup)-1 after a
 * message naming where the bad value came from. */
static enum sc_backup backup_from(const char *arg)
{
	static const char *const names[] = {
		"none", "off", "simple", "never", "existing", "nil",
		"numbered", "t", NULL
	};
	static const enum sc_backup vals[] = {
		SC_BACKUP_NONE, SC_BACKUP_NONE, SC_BACKUP_SIMPLE,
		SC_BACKUP_SIMPLE, SC_BACKUP_EXISTING, SC_BACKUP_EXISTING,
		SC_BACKUP_NUMBERED, SC_BACKUP_NUMBERED,
	};
	const char *context = _("backup type");
	int i;

	if (!arg || !*arg) {
		arg = getenv("VERSION_CONTROL");
		context = "$VERSION_CONTROL";
	}
	if (!arg || !*arg)
		return SC_BACKUP_EXISTING;
	i = argmatch(arg, names);
	if (i < 0) {
		fprintf(stderr, i == -2 ?
			_("%s: ambiguous argument %s for %s\n") :
			_("%s: invalid argument %s for %s\n"),
			sc_program_name, sc_quote_locale(arg), sc_quote_locale(context));
		fputs(_("Valid arguments are:\n"), stderr);
		for (int k = 0; names[k]; k += 2)
			fprintf(stderr, "  - %s, %s\n", sc_quote_locale(names[k]),
				sc_quote_locale(names[k + 1]));
		return (enum sc_backup)-1;
	}
	return vals[i];
}

/* A backup suffix as cp takes it, from -S or $SIMPLE_BACKUP_SUFFIX: one
 * that is empty or not a single file name component (a '/' with
 * something after it, "/x", "../x") would put the backup elsewhere, so
 * it means "~".  Trailing slashes are kept, as cp keeps them. */
static const char *backup_suffix(const char *s)
{
	const char *slash;

	if (!s || !*s)
		return "~";
	slash = strchr(s, '/');
	if (slash && (slash == s || slash[strspn(slash, "/")]))
		return "~";
	return s;
}

static int parse(int argc, char **argv, struct sc_options *o);

int sc_options_parse(int argc, char **argv, struct sc_options *o)
{
	size_t before = n_rewritten;
	int r;

	r = parse(argc, argv, o);
	if (n_rewritten != before)
		restore_args(argc, argv, o, before);
	return r;
}

/* What -b, --backup and -S asked for: decided once every option is
 * read (apply_backups). */
struct backup_request {
	bool make;
	const char *arg;	/* --backup=ARG, or NULL */
};

static void set_defaults(struct sc_options *o)
{
	memset(o, 0, sizeof(*o));
	o->roads = (1u << sc_road_count()) - 1;	/* all of them */
	o->jobs = 0;	/* automatic: the CPUs for a tree, 1 otherwise */
	o->suffix = backup_suffix(getenv("SIMPLE_BACKUP_SUFFIX"));
}

/* An option without an argument: true when C is one (and is set). */
static bool apply_flag(int c, struct sc_options *o, struct backup_request *b)
{
	switch (c) {
	case 'a':
		o->deref = SC_DEREF_NEVER;
		o->preserve_links = true;
		o->preserve_mode = o->preserve_ownership = true;
		o->preserve_timestamps = o->preserve_xattr = true;
		o->require_preserve = o->reduce_diagnostics = true;
		o->recursive = true;
		return true;
	case 'b':
		b->make = true;
		return true;
	case 'd':
		o->deref = SC_DEREF_NEVER;
		o->preserve_links = true;
		return true;
	case 'f':
		o->force = true;
		return true;
	case 'H':
		o->deref = SC_DEREF_ARGS;
		return true;
	case 'i':
		o->interactive = SC_OVERWRITE_ASK;
		return true;
	case 'l':
		o->hard_link = true;
		return true;
	case 'L':
		o->deref = SC_DEREF_ALWAYS;
		return true;
	case 'n':
		o->interactive = SC_OVERWRITE_NEVER;
		return true;
	case 'P':
		o->deref = SC_DEREF_NEVER;
		return true;
	case 'p':
		o->preserve_mode = o->preserve_ownership = true;
		o->preserve_timestamps = true;
		o->require_preserve = true;
		return true;
	case 'q':
		o->quiet = true;
		return true;
	case 'r':
	case 'R':
		o->recursive = true;
		return true;
	case 's':
		o->symbolic_link = true;
		return true;
	case 'T':
		o->no_target_directory = true;
		return true;
	case 'u':
		o->update = SC_UPDATE_OLDER;
		return true;
	case 'v':
		o->verbose = true;
		return true;
	case 'x':
		o->one_file_system = true;
		return true;
	case 'Z':
		return true;	/* no SELinux contexts here; accepted */
	case OPT_ATTRIBUTES_ONLY:
		o->attributes_only = true;
		return true;
	case OPT_COPY_CONTENTS:
		o->copy_contents = true;
		return true;
	case OPT_DEBUG:
		o->debug = o->verbose = true;
		return true;
	case OPT_PARENTS:
		o->parents = true;
		return true;
	case OPT_REMOVE_DESTINATION:
		o->remove_destination = true;
		return true;
	case OPT_STRIP_SLASHES:
		o->strip_trailing_slashes = true;
		return true;
	case OPT_EXPLAIN:
		o->explain = true;
		return true;
	case OPT_RULES:
		o->rules = true;
		return true;
	case OPT_JSON:
		o->json = true;
		return true;
	case OPT_VERIFY:
		o->verify = true;
		return true;
	case OPT_ATOMIC:
		o->atomic = true;
		return true;
	case OPT_SYNC:
		o->sync = true;
		return true;
	case OPT_IF_CHANGED:
		o->if_changed = true;
		return true;
	case OPT_ALLOW_CHANGING_SOURCE:
		o->allow_changing_source = true;
		return true;
	case OPT_PROGRESS:
		o->progress = true;
		return true;
	}
	return false;
}

/* -j N: 1 to 1024.  0, or -1 said. */
static int apply_jobs(struct sc_options *o, const char *arg)
{
	char *end;
	int i = (int)strtol(arg, &end, 10);

	if (*end || i < 1 || i > 1024) {
		fprintf(stderr, _("%s: invalid number of jobs: %s\n"),
			sc_program_name, sc_quote_locale(arg));
		sc_options_try_help();
		return -1;
	}
	o->jobs = (unsigned)i;
	return 0;
}

/* --update[=WHEN].  0, or -1 said. */
static int apply_update(struct sc_options *o, const char *arg)
{
	static const char *const update_args[] = { "all", "none", "none-fail",
						   "older", NULL };
	int i;

	if (!arg) {
		o->update = SC_UPDATE_OLDER;
		return 0;
	}
	i = argmatch(arg, update_args);
	if (i < 0) {
		bad_arg(arg, "--update", update_args);
		sc_options_try_help();
		return -1;
	}
	o->update = i == 0 ? SC_UPDATE_ALL :
		    i == 1 ? SC_UPDATE_NONE :
		    i == 2 ? SC_UPDATE_NONE_FAIL : SC_UPDATE_OLDER;
	return 0;
}

/* --reflink[=WHEN].  0, or -1 said. */
static int apply_reflink(struct sc_options *o, const char *arg)
{
	int i;

	if (!arg) {
		o->reflink = SC_REFLINK_ALWAYS;
		return 0;
	}
	i = argmatch(arg, when_args);
	if (i < 0) {
		bad_arg(arg, "--reflink", when_args);
		sc_options_try_help();
		return -1;
	}
	o->reflink = i == 0 ? SC_REFLINK_AUTO :
		     i == 1 ? SC_REFLINK_ALWAYS : SC_REFLINK_NEVER;
	return 0;
}

/* --sparse=WHEN.  0, or -1 said. */
static int apply_sparse(struct sc_options *o, const char *arg)
{
	int i = argmatch(arg, sparse_args);

	if (i < 0) {
		bad_arg(arg, "--sparse", sparse_args);
		sc_options_try_help();
		return -1;
	}
	o->sparse = i == 0 ? SC_SPARSE_NEVER :
		    i == 1 ? SC_SPARSE_AUTO : SC_SPARSE_ALWAYS;
	return 0;
}

/* --kernel=VERSION.  0, or -1 said. */
static int apply_kernel(struct sc_options *o, const char *arg)
{
	int e = sc_kernel_parse(arg, &o->kernel);

	if (e == -ERANGE) {
		fprintf(stderr, _("%s: unknown kernel version %s for %s\n"),
			sc_program_name, sc_quote_locale(arg),
			sc_quote_locale("--kernel"));
		fputs(_("Linux 2.6, 3.0 to 3.19, 4.0 to 4.20, 5.0 to 5.19, 6.0 to 6.19 and 7.x exist\n"),
		      stderr);
	} else if (e < 0) {
		fprintf(stderr, _("%s: invalid kernel version %s for %s\n"),
			sc_program_name, sc_quote_locale(arg),
			sc_quote_locale("--kernel"));
		fputs(_("Accepted forms: MAJOR.MINOR, MAJOR.MINOR.PATCH or what 'uname -r' prints,\n"
			"such as 5.4, 6.1.0 or 6.1.0-13-amd64\n"), stderr);
	}
	if (e < 0) {
		sc_options_try_help();
		return -1;
	}
	o->kernel_assumed = true;
	return 0;
}

/* One type of --assume-fs into DST.  0, or -1 said. */
static int assume_type(const char *type, char *dst, size_t size)
{
	struct sc_fs_facts *f;
	const char *name;
	size_t col;

	if (sc_fs_facts_assume(type, 1, 1, &f) == 0 && strlen(type) < size) {
		sc_fs_facts_free(f);
		strcpy(dst, type);
		return 0;
	}
	fprintf(stderr, _("%s: unknown filesystem type %s for %s\n"),
		sc_program_name, sc_quote_locale(type),
		sc_quote_locale("--assume-fs"));
	fputs(_("Known types:"), stderr);
	col = strlen(_("Known types:"));
	for (size_t i = 0; (name = sc_fs_type_name(i)); i++) {
		col += strlen(name) + 2;
		if (col > 72) {
			fputs(i ? ",\n " : "\n ", stderr);
			col = strlen(name) + 2;
		} else {
			fputs(i ? ", " : " ", stderr);
		}
		fputs(name, stderr);
	}
	fputs(_(";\nand fuse.SUBTYPE for any FUSE filesystem\n"), stderr);
	return -1;
}

/* --assume-fs=TYPE or SOURCE_TYPE:DEST_TYPE.  0, or -1 said. */
static int apply_assume_fs(struct sc_options *o, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char first[64];
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);

	if (!n || (colon && (!colon[1] || strchr(colon + 1, ':'))) ||
	    n >= sizeof(first)) {
		fprintf(stderr, _("%s: invalid argument %s for %s\n"),
			sc_program_name, sc_quote_locale(arg),
			sc_quote_locale("--assume-fs"));
		fputs(_("Accepted forms: TYPE (both files on one filesystem of that type), or\n"
			"SOURCE_TYPE:DEST_TYPE (two filesystems), such as ext4 or nfs4:xfs\n"),
		      stderr);
		sc_options_try_help();
		return -1;
	}
	memcpy(first, arg, n);
	first[n] = '\0';
	if (assume_type(first, o->assume_type[0], sizeof(o->assume_type[0])) ||
	    assume_type(colon ? colon + 1 : first, o->assume_type[1],
			sizeof(o->assume_type[1]))) {
		sc_options_try_help();
		return -1;
	}
	o->fs_assumed = true;
	o->assume_one_fs = !colon;
	return 0;
}

/* An option with an argument (ARG, NULL when optional and absent).
 * 0: set, -1: refused (said), 1: C is not one of these. */
static int apply_value(int c, const char *arg, struct sc_options *o,
		       struct backup_request *b)
{
	switch (c) {
	case OPT_BACKUP:
		b->make = true;
		b->arg = arg ? arg : "";
		return 0;
	case 'j':
		return apply_jobs(o, arg);
	case 'S':
		b->make = true;
		o->suffix = backup_suffix(arg);
		return 0;
	case 't':
		if (o->target_directory) {
			fprintf(stderr, _("%s: multiple target directories specified\n"),
				sc_program_name);
			return -1;
		}
		o->target_directory = arg;
		return 0;
	case OPT_UPDATE:
		return apply_update(o, arg);
	case OPT_NO_PRESERVE:
		if (preserve_list(o, arg, false, "--no-preserve")) {
			sc_options_try_help();
			return -1;
		}
		return 0;
	case OPT_PRESERVE:
		if (preserve_list(o, arg ? arg : "mode,ownership,timestamps",
				  true, "--preserve")) {
			sc_options_try_help();
			return -1;
		}
		o->require_preserve = true;
		return 0;
	case OPT_REFLINK:
		return apply_reflink(o, arg);
	case OPT_ROAD:
		if (parse_roads(o, arg)) {
			sc_options_try_help();
			return -1;
		}
		return 0;
	case OPT_SPARSE:
		return apply_sparse(o, arg);
	case OPT_KERNEL:
		return apply_kernel(o, arg);
	case OPT_ASSUME_FS:
		return apply_assume_fs(o, arg);
	}
	return 1;
}

/* The backup asked for, and the options it cannot go with.  0, or -1
 * said. */
static int apply_backups(struct sc_options *o, const struct backup_request *b)
{
	enum sc_backup kind;

	if (!b->make)
		return 0;
	kind = backup_from(b->arg);
	if ((int)kind < 0) {
		sc_options_try_help();
		return -1;
	}
	o->backup = kind;
	if (o->backup != SC_BACKUP_NONE &&
	    o->interactive == SC_OVERWRITE_NEVER) {
		fprintf(stderr, _("%s: options --backup and --no-clobber are mutually exclusive\n"),
			sc_program_name);
		sc_options_try_help();
		return -1;
	}
	/* --update=none came with cp 9.3; from 9.5 cp refuses it (and
	 * none-fail) with a backup, in these words */
	if (o->backup != SC_BACKUP_NONE &&
	    (o->update == SC_UPDATE_NONE ||
	     o->update == SC_UPDATE_NONE_FAIL)) {
		fprintf(stderr, _("%s: --backup is mutually exclusive with -n or --update=none-fail\n"),
			sc_program_name);
		sc_options_try_help();
		return -1;
	}
	return 0;
}

/* Options that cannot go together, then what follows from the others.
 * 0, or -1 said. */
static int finish_options(struct sc_options *o,
			  const struct backup_request *b)
{
	if (o->hard_link && o->symbolic_link) {
		fprintf(stderr, _("%s: cannot make both hard and symbolic links\n"),
			sc_program_name);
		sc_options_try_help();
		return -1;
	}
	if (apply_backups(o, b) < 0)
		return -1;
	/* Assumed facts only ever describe a plan: a copy, which really
	 * happens, always goes by the facts of this machine. */
	if ((o->kernel_assumed && !o->explain && !o->rules) ||
	    (o->fs_assumed && !o->explain)) {
		fprintf(stderr, _("%s: %s goes only with --explain: a copy uses the facts of this machine\n"),
			sc_program_name, o->fs_assumed && !o->explain ?
			"--assume-fs" : "--kernel");
		sc_options_try_help();
		return -1;
	}
	if (o->reflink == SC_REFLINK_ALWAYS && o->sparse != SC_SPARSE_AUTO) {
		fprintf(stderr, _("%s: --reflink can be used only with --sparse=auto\n"),
			sc_program_name);
		sc_options_try_help();
		return -1;
	}
	/* cp: a recursive copy keeps links as links -- unless it makes hard
	 * links, which then go to what the links point to. */
	if (o->deref == SC_DEREF_UNSET)
		o->deref = o->recursive && !o->hard_link ? SC_DEREF_NEVER :
			   SC_DEREF_ALWAYS;
	if (o->json)
		o->verbose = false;	/* stdout carries JSON only */
	return 0;
}

/* Returns the index of the first operand, -1 on an error (said), -2
 * after --help or --version. */
static int parse(int argc, char **argv, struct sc_options *o)
{
	struct backup_request b = { 0 };
	int c, r;

	set_defaults(o);
	/* getopt must not print in its own words: we want the program name
	 * from argv[0] and translated messages, which it does anyway. */
	expand_long_options(argc, argv);
	while ((c = getopt_long(argc, argv, SHORT_OPTIONS, long_options,
				NULL)) != -1) {
		if (apply_flag(c, o, &b))
			continue;
		r = apply_value(c, optarg, o, &b);
		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		switch (c) {
		case OPT_BAD_LONG:
			bad_long_option(argv[0], optarg);
			sc_options_try_help();
			return -1;
		case OPT_HELP:
			usage();
			return -2;
		case OPT_VERSION:
			version();
			return -2;
		default:
			sc_options_try_help();
			return -1;
		}
	}
	if (finish_options(o, &b) < 0)
		return -1;
	return optind;
}
