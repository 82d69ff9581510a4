/* Command line parsing.  Option letters, long names, defaults and
 * combinations follow GNU cp 9.1 so scripts can swap one for the other. */
#include "system.h"
#include "cli/options.h"
#include "cli/help.h"
#include "cli/longopts.h"
#include "output/quote.h"
#include "output/report.h"

#include <ctype.h>
#include <getopt.h>
#include <langinfo.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <wchar.h>
#include <wctype.h>

/* What argmatch() returns when ARG names no one item. */
enum argmatch_miss {
	ARGMATCH_NONE = -1,		/* ARG matches nothing */
	ARGMATCH_AMBIGUOUS = -2,	/* ... more than one (the empty string
					 * always does) */
};

/* Matches ARG against a NULL-terminated list, allowing unambiguous
 * abbreviations as GNU's argmatch does.  Returns the index (>= 0), or
 * an enum argmatch_miss. */
static int argmatch(const char *arg, const char *const *list)
{
	size_t len = strlen(arg);
	int found = ARGMATCH_NONE;

	for (int i = 0; list[i]; i++) {
		if (!strcmp(arg, list[i]))
			return i;
		if (!strncmp(arg, list[i], len)) {
			if (found >= 0)
				return ARGMATCH_AMBIGUOUS;
			found = i;
		}
	}
	return found;
}


static void bad_arg(const char *arg, const char *opt,
		    const char *const *list)
{
	int r = argmatch(arg, list);

	sc_report_usage(r == ARGMATCH_AMBIGUOUS ? SC_USAGE_AMBIGUOUS_ARG :
			SC_USAGE_INVALID_ARG, arg, opt);
	sc_report_valid_args(list, 1);
}

static const char *const when_args[] = { "auto", "always", "never", NULL };
/* cp lists --sparse values in this order */
static const char *const sparse_args[] = { "never", "auto", "always", NULL };

/* --preserve / --no-preserve lists: set or clear each named attribute.
 * An empty item ("mode,", "") is an error, as in cp: "" abbreviates all
 * of them.  0, -EINVAL (said) or -ENOMEM. */
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
		return -ENOMEM;
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
		case 4:
			/* SELinux context: said after the options when there
			 * is no SELinux; contexts are not copied otherwise */
			o->require_preserve_context = on;
			break;
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
			return -EINVAL;
		}
	}
	return 0;
}

/* --road=ROAD[,ROAD...].  0, or -EINVAL (said). */
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
			return -EINVAL;
		}
		mask |= 1u << r;
	}
	if (!mask) {
		sc_report_usage(SC_USAGE_INVALID_ARG, arg, "--road");
		return -EINVAL;
	}
	o->roads = mask;
	o->roads_forced = true;
	return 0;
}

/* The backup type from --backup=ARG, or from $VERSION_CONTROL when ARG
 * is NULL or empty (-b, -S, --backup=), in *RET.  0, or -EINVAL after a
 * message naming where the bad value came from. */
static int backup_from(const char *arg, enum sc_backup *ret)
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
	const char *context = sc_report_backup_type();
	int i;

	if (!arg || !*arg) {
		arg = getenv("VERSION_CONTROL");
		context = "$VERSION_CONTROL";
	}
	if (!arg || !*arg) {
		*ret = SC_BACKUP_EXISTING;
		return 0;
	}
	i = argmatch(arg, names);
	if (i < 0) {
		sc_report_usage(i == ARGMATCH_AMBIGUOUS ?
				SC_USAGE_AMBIGUOUS_ARG : SC_USAGE_INVALID_ARG,
				arg, context);
		sc_report_valid_args(names, 2);
		return -EINVAL;
	}
	*ret = vals[i];
	return 0;
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
	const char **const values[] = { &o->suffix, &o->target_directory };
	size_t mark = sc_longopts_mark();
	int r;

	r = parse(argc, argv, o);
	sc_longopts_restore(argc, argv, mark, values, ARRAY_SIZE(values));
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
	o->posixly_correct = getenv("POSIXLY_CORRECT") != NULL;
}

/* The options that set one flag of struct sc_options and nothing else. */
static const struct {
	int c;
	size_t flag;	/* offsetof a bool */
} bool_options[] = {
	{ 'f', offsetof(struct sc_options, force) },
	{ 'l', offsetof(struct sc_options, hard_link) },
	{ 'q', offsetof(struct sc_options, quiet) },
	{ 's', offsetof(struct sc_options, symbolic_link) },
	{ 'T', offsetof(struct sc_options, no_target_directory) },
	{ 'v', offsetof(struct sc_options, verbose) },
	{ 'x', offsetof(struct sc_options, one_file_system) },
	{ OPT_ATTRIBUTES_ONLY, offsetof(struct sc_options, attributes_only) },
	{ OPT_COPY_CONTENTS, offsetof(struct sc_options, copy_contents) },
	{ OPT_PARENTS, offsetof(struct sc_options, parents) },
	{ OPT_REMOVE_DESTINATION,
	  offsetof(struct sc_options, remove_destination) },
	{ OPT_STRIP_SLASHES,
	  offsetof(struct sc_options, strip_trailing_slashes) },
	{ OPT_EXPLAIN, offsetof(struct sc_options, explain) },
	{ OPT_RULES, offsetof(struct sc_options, rules) },
	{ OPT_JSON, offsetof(struct sc_options, json) },
	{ OPT_VERIFY, offsetof(struct sc_options, verify) },
	{ OPT_ATOMIC, offsetof(struct sc_options, atomic) },
	{ OPT_SYNC, offsetof(struct sc_options, sync) },
	{ OPT_IF_CHANGED, offsetof(struct sc_options, if_changed) },
	{ OPT_ALLOW_CHANGING_SOURCE,
	  offsetof(struct sc_options, allow_changing_source) },
	{ OPT_PROGRESS, offsetof(struct sc_options, progress) },
};

/* An option without an argument: true when C is one (and is set). */
static bool apply_flag(int c, struct sc_options *o, struct backup_request *b)
{
	for (size_t i = 0; i < ARRAY_SIZE(bool_options); i++)
		if (bool_options[i].c == c) {
			*(bool *)((char *)o + bool_options[i].flag) = true;
			return true;
		}
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
	case 'H':
		o->deref = SC_DEREF_ARGS;
		return true;
	case 'i':
		o->interactive = SC_OVERWRITE_ASK;
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
	case 'r':
	case 'R':
		o->recursive = true;
		return true;
	case 'u':
		o->update = SC_UPDATE_OLDER;
		return true;
	case OPT_DEBUG:
		o->debug = o->verbose = true;
		return true;
	}
	return false;
}

/* -j N: 1 to 1024.  0, or -EINVAL (said). */
static int apply_jobs(struct sc_options *o, const char *arg)
{
	char *end;
	int i = (int)strtol(arg, &end, 10);

	if (*end || i < 1 || i > 1024) {
		sc_report_usage(SC_USAGE_JOBS, arg, NULL);
		sc_report_try_help();
		return -EINVAL;
	}
	o->jobs = (unsigned)i;
	return 0;
}

/* --update[=WHEN].  0, or -EINVAL (said). */
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
		sc_report_try_help();
		return -EINVAL;
	}
	o->update = i == 0 ? SC_UPDATE_ALL :
		    i == 1 ? SC_UPDATE_NONE :
		    i == 2 ? SC_UPDATE_NONE_FAIL : SC_UPDATE_OLDER;
	return 0;
}

/* --reflink[=WHEN].  0, or -EINVAL (said). */
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
		sc_report_try_help();
		return -EINVAL;
	}
	o->reflink = i == 0 ? SC_REFLINK_AUTO :
		     i == 1 ? SC_REFLINK_ALWAYS : SC_REFLINK_NEVER;
	return 0;
}

/* --sparse=WHEN.  0, or -EINVAL (said). */
static int apply_sparse(struct sc_options *o, const char *arg)
{
	int i = argmatch(arg, sparse_args);

	if (i < 0) {
		bad_arg(arg, "--sparse", sparse_args);
		sc_report_try_help();
		return -EINVAL;
	}
	o->sparse = i == 0 ? SC_SPARSE_NEVER :
		    i == 1 ? SC_SPARSE_AUTO : SC_SPARSE_ALWAYS;
	return 0;
}

/* --kernel=VERSION.  0, or -EINVAL (said). */
static int apply_kernel(struct sc_options *o, const char *arg)
{
	int e = sc_kernel_parse(arg, &o->kernel);

	if (e < 0) {
		sc_report_usage(e == -ERANGE ? SC_USAGE_UNKNOWN_KERNEL :
				SC_USAGE_KERNEL, arg, "--kernel");
		sc_report_try_help();
		return -EINVAL;
	}
	o->kernel_assumed = true;
	return 0;
}

/* One type of --assume-fs into DST: TYPE, or TYPE@VERSION[,NAME=VALUE...]
 * with the version and parameters of its module (known-bad stacks).  0,
 * or -EINVAL (said). */
static int assume_type(const char *type, char *dst, size_t size)
{
	struct sc_fs_facts *f;
	char name[64];
	size_t n = strcspn(type, "@");
	int e = sc_fs_facts_assume(type, 1, 1, &f);

	if (e == 0 && strlen(type) < size) {
		sc_fs_facts_free(f);
		strcpy(dst, type);
		return 0;
	}
	/* a type smartcp knows, with a module part it cannot read */
	if (type[n] && n < sizeof(name)) {
		memcpy(name, type, n);
		name[n] = '\0';
		if (sc_fs_facts_assume(name, 1, 1, &f) == 0) {
			sc_fs_facts_free(f);
			sc_report_usage(SC_USAGE_ASSUME_FS, type, "--assume-fs");
			return -EINVAL;
		}
	}
	sc_report_usage(SC_USAGE_UNKNOWN_FS, type, "--assume-fs");
	sc_report_known_types();
	return -EINVAL;
}

/* --assume-fs=TYPE or SOURCE_TYPE:DEST_TYPE.  0, or -EINVAL (said). */
static int apply_assume_fs(struct sc_options *o, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char first[64];
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);

	if (!n || (colon && (!colon[1] || strchr(colon + 1, ':'))) ||
	    n >= sizeof(first)) {
		sc_report_usage(SC_USAGE_ASSUME_FS, arg, "--assume-fs");
		sc_report_try_help();
		return -EINVAL;
	}
	memcpy(first, arg, n);
	first[n] = '\0';
	if (assume_type(first, o->assume_type[0], sizeof(o->assume_type[0])) ||
	    assume_type(colon ? colon + 1 : first, o->assume_type[1],
			sizeof(o->assume_type[1]))) {
		sc_report_try_help();
		return -EINVAL;
	}
	o->fs_assumed = true;
	o->assume_one_fs = !colon;
	return 0;
}

/* SELinux is enabled where its filesystem is mounted, as libselinux
 * tells it, without linking it. */
static bool selinux_enabled(void)
{
	struct statfs sfs;

	return statfs("/sys/fs/selinux", &sfs) == 0 &&
	       (unsigned long)sfs.f_type == SELINUX_MAGIC;
}

/* What apply_value() made of an option. */
enum value_outcome {
	VALUE_SET,
	VALUE_REFUSED,		/* a bad argument (said) */
	VALUE_NOT_ONE,		/* C is not an option with an argument */
};

/* E (0, or -errno of an option's argument, said) as a value_outcome. */
static enum value_outcome value_set(int e)
{
	return e < 0 ? VALUE_REFUSED : VALUE_SET;
}

/* A --preserve or --no-preserve list (said, and "Try ..." when bad).
 * 0, or -errno. */
static int apply_preserve(struct sc_options *o, const char *arg, bool on,
			  const char *opt)
{
	int e = preserve_list(o, arg, on, opt);

	if (e < 0)
		sc_report_try_help();
	return e;
}

/* An option with an argument (ARG, NULL when optional and absent). */
static enum value_outcome apply_value(int c, const char *arg,
				      struct sc_options *o,
				      struct backup_request *b)
{
	switch (c) {
	case OPT_BACKUP:
		b->make = true;
		b->arg = arg ? arg : "";
		return VALUE_SET;
	case 'Z':
		/* no contexts are set here; a named one is said to be
		 * ignored where there is no SELinux, as cp says it */
		if (arg && !selinux_enabled())
			sc_report_usage(SC_USAGE_CONTEXT_IGNORED, NULL, NULL);
		return VALUE_SET;
	case 'j':
		return value_set(apply_jobs(o, arg));
	case 'S':
		b->make = true;
		o->suffix = backup_suffix(arg);
		return VALUE_SET;
	case 't':
		if (o->target_directory) {
			sc_report_usage(SC_USAGE_TWO_TARGETS, NULL, NULL);
			return VALUE_REFUSED;
		}
		o->target_directory = arg;
		return VALUE_SET;
	case OPT_UPDATE:
		return value_set(apply_update(o, arg));
	case OPT_NO_PRESERVE:
		return value_set(apply_preserve(o, arg, false,
						"--no-preserve"));
	case OPT_PRESERVE:
		if (apply_preserve(o, arg ? arg : "mode,ownership,timestamps",
				   true, "--preserve") < 0)
			return VALUE_REFUSED;
		o->require_preserve = true;
		return VALUE_SET;
	case OPT_REFLINK:
		return value_set(apply_reflink(o, arg));
	case OPT_ROAD:
		if (parse_roads(o, arg) < 0) {
			sc_report_try_help();
			return VALUE_REFUSED;
		}
		return VALUE_SET;
	case OPT_SPARSE:
		return value_set(apply_sparse(o, arg));
	case OPT_KERNEL:
		return value_set(apply_kernel(o, arg));
	case OPT_ASSUME_FS:
		return value_set(apply_assume_fs(o, arg));
	}
	return VALUE_NOT_ONE;
}

/* The backup asked for, and the options it cannot go with.  0, or
 * -EINVAL (said). */
static int apply_backups(struct sc_options *o, const struct backup_request *b)
{
	if (!b->make)
		return 0;
	if (backup_from(b->arg, &o->backup) < 0) {
		sc_report_try_help();
		return -EINVAL;
	}
	if (o->backup != SC_BACKUP_NONE &&
	    o->interactive == SC_OVERWRITE_NEVER) {
		sc_report_usage(SC_USAGE_BACKUP_NO_CLOBBER, NULL, NULL);
		sc_report_try_help();
		return -EINVAL;
	}
	/* --update=none came with cp 9.3; from 9.5 cp refuses it (and
	 * none-fail) with a backup, in these words */
	if (o->backup != SC_BACKUP_NONE &&
	    (o->update == SC_UPDATE_NONE ||
	     o->update == SC_UPDATE_NONE_FAIL)) {
		sc_report_usage(SC_USAGE_BACKUP_UPDATE, NULL, NULL);
		sc_report_try_help();
		return -EINVAL;
	}
	return 0;
}

/* Options that cannot go together, then what follows from the others.
 * 0, or -EINVAL (said). */
static int finish_options(struct sc_options *o,
			  const struct backup_request *b)
{
	if (o->hard_link && o->symbolic_link) {
		sc_report_usage(SC_USAGE_HARD_AND_SYMBOLIC, NULL, NULL);
		sc_report_try_help();
		return -EINVAL;
	}
	if (apply_backups(o, b) < 0)
		return -EINVAL;
	/* Assumed facts only ever describe a plan: a copy, which really
	 * happens, always goes by the facts of this machine. */
	if ((o->kernel_assumed && !o->explain && !o->rules) ||
	    (o->fs_assumed && !o->explain)) {
		sc_report_usage(SC_USAGE_ONLY_EXPLAIN,
				o->fs_assumed && !o->explain ? "--assume-fs" :
				"--kernel", NULL);
		sc_report_try_help();
		return -EINVAL;
	}
	if (o->reflink == SC_REFLINK_ALWAYS && o->sparse != SC_SPARSE_AUTO) {
		sc_report_usage(SC_USAGE_REFLINK_SPARSE, NULL, NULL);
		sc_report_try_help();
		return -EINVAL;
	}
	if (o->require_preserve_context && !selinux_enabled()) {
		sc_report_usage(SC_USAGE_NO_SELINUX, NULL, NULL);
		return -EINVAL;
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

/* Returns the index of the first operand (>= 0), or an enum
 * sc_options_stop. */
static int parse(int argc, char **argv, struct sc_options *o)
{
	struct backup_request b = { 0 };
	enum value_outcome r;
	int c;

	set_defaults(o);
	/* getopt must not print in its own words: we want the program name
	 * from argv[0] and translated messages, which it does anyway. */
	sc_longopts_expand(argc, argv);
	while ((c = getopt_long(argc, argv, SHORT_OPTIONS, sc_long_options,
				NULL)) != -1) {
		if (apply_flag(c, o, &b))
			continue;
		r = apply_value(c, optarg, o, &b);
		if (r == VALUE_REFUSED)
			return SC_OPTIONS_BAD;
		if (r == VALUE_SET)
			continue;
		switch (c) {
		case OPT_BAD_LONG:
			sc_longopts_bad(argv[0], optarg);
			sc_report_try_help();
			return SC_OPTIONS_BAD;
		case OPT_HELP:
			sc_help_usage();
			return SC_OPTIONS_DONE;
		case OPT_VERSION:
			sc_help_version();
			return SC_OPTIONS_DONE;
		default:
			sc_report_try_help();
			return SC_OPTIONS_BAD;
		}
	}
	if (finish_options(o, &b) < 0)
		return SC_OPTIONS_BAD;
	return optind;
}
