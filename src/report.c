/* Human and machine output.  Machine output (JSON keys, road names, errno
 * names, the "plan:" line) is an interface: never translated. */
#include "system.h"
#include "report.h"
#include "quote.h"

#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

struct sc_report {
	bool verbose, json, explain, summary;
	bool plain;		/* -v lines exactly as cp's: no road */
	/* --explain about another machine: these facts were assumed */
	bool kernel_assumed, fs_assumed;
	struct sc_kernel kernel;
	struct sc_copier *copier;	/* where --explain's facts came from */
	uint64_t files, bytes;
	unsigned changed, vanished;	/* sources that changed, entries
					 * gone before their turn */
	uint64_t road_bytes[SC_ROADS_SHOWN];
	unsigned road_files[SC_ROADS_SHOWN];
	struct timespec start;
	pthread_mutex_t lock;	/* counters: -j workers report too */
	/* progress */
	bool progress, progress_now, progress_shown;
	double last_progress;
	uint64_t done_before;	/* bytes of the files finished before */
};

static double since_start(const struct sc_report *rep)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec - rep->start.tv_sec) +
	       (double)(ts.tv_nsec - rep->start.tv_nsec) / 1e9;
}

void sc_report_plain(struct sc_report *rep, bool plain)
{
	rep->plain = plain;
}

void sc_report_copier(struct sc_report *rep, struct sc_copier *copier)
{
	rep->copier = copier;
}

void sc_report_assumed(struct sc_report *rep, const struct sc_kernel *kernel,
		       bool fs)
{
	rep->kernel_assumed = kernel != NULL;
	if (kernel)
		rep->kernel = *kernel;
	rep->fs_assumed = fs;
}

int sc_report_new(bool verbose, bool json, bool explain, bool summary,
		  struct sc_report **ret)
{
	struct sc_report *rep = calloc(1, sizeof(*rep));

	if (!rep)
		return -ENOMEM;
	rep->verbose = verbose;
	rep->json = json;
	rep->explain = explain;
	rep->summary = summary;
	pthread_mutex_init(&rep->lock, NULL);
	clock_gettime(CLOCK_MONOTONIC, &rep->start);
	*ret = rep;
	return 0;
}

void sc_report_free(struct sc_report *rep)
{
	if (rep)
		pthread_mutex_destroy(&rep->lock);
	free(rep);
}

static const char *err_name(int err)
{
	const char *n;

	if (err == SC_ERR_ZERO)
		return "0 before end";
	n = strerrorname_np(-err);
	return n ? n : "E?";
}

/* One attempt of a report's road chain. */
struct attempt {
	enum sc_road road;
	int err;		/* 0, -errno, or SC_ERR_ZERO */
	uint64_t bytes;
};

static struct attempt attempt_of(const struct sc_copy_report *res,
				 unsigned i)
{
	struct attempt a = { SC_ROAD_RW, 0, 0 };

	sc_copy_report_attempt(res, i, &a.road, &a.err, &a.bytes);
	return a;
}

void sc_report_chain(FILE *f, const struct sc_copy_report *res)
{
	for (unsigned i = 0; i < sc_copy_report_attempts(res); i++) {
		struct attempt a = attempt_of(res, i);

		if (i)
			fputs(" \u2192 ", f);
		fputs(sc_road_name(a.road), f);
		if (a.err)
			fprintf(f, ": %s", err_name(a.err));
	}
}

/* Length of the valid UTF-8 sequence at S, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n, i;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void sc_json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', f);
	while (*s) {
		size_t n = utf8_len(s);

		if (n == 0) {
			fprintf(f, "\\udc%02x", *s);
			s++;
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		switch (*s) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (*s < 0x20 || *s == 0x7f)
				fprintf(f, "\\u%04x", *s);
			else
				putc(*s, f);
		}
		s++;
	}
	putc('"', f);
}

static const char *kind_name(enum sc_kind k)
{
	static const char *const names[] = {
		[SC_KIND_FILE] = "file", [SC_KIND_DIR] = "directory",
		[SC_KIND_SYMLINK] = "symlink", [SC_KIND_SPECIAL] = "special",
		[SC_KIND_HARDLINK] = "hardlink", [SC_KIND_UNKNOWN] = "unknown",
	};
	return names[k];
}

static const char *verify_name(int v)
{
	return v == SC_VERIFY_OK ? "ok" : v == SC_VERIFY_REPAIRED ?
	       "repaired" : v == SC_VERIFY_FAILED ? "failed" :
	       v == SC_VERIFY_CURRENT ? "current" :
	       v == SC_VERIFY_RECOPIED ? "recopied" : "none";
}

const char *sc_report_change_text(char *buf, size_t size,
				  const struct sc_rec_change *ch, bool translate)
{
#define TR(s) (translate ? _(s) : (s))
	long long a = (long long)ch->size_before;
	long long b = (long long)ch->size_after;

	switch (ch->how) {
	case SC_CHANGE_GREW:
		snprintf(buf, size, TR(N_("grew from %lld to %lld bytes")), a, b);
		break;
	case SC_CHANGE_SHRANK:
		snprintf(buf, size, TR(N_("shrank from %lld to %lld bytes")), a,
			 b);
		break;
	case SC_CHANGE_REWRITTEN:
		snprintf(buf, size, "%s", TR(N_("rewritten, same size")));
		break;
	case SC_CHANGE_STATUS:
		snprintf(buf, size, "%s",
			 TR(N_("status changed (ctime): its data may have been rewritten")));
		break;
	case SC_CHANGE_REMOVED:
		snprintf(buf, size, "%s", TR(N_("removed")));
		break;
	case SC_CHANGE_REPLACED:
		snprintf(buf, size, "%s", TR(N_("replaced by another file")));
		break;
	default:
		snprintf(buf, size, "%s", TR(N_("unchanged")));
		break;
	}
#undef TR
	return buf;
}

static void json_change(FILE *f, const struct sc_rec_change *ch)
{
	fprintf(f, ",\"source_changed\":{\"how\":\"%s\",\"size_before\":%lld,"
		"\"size_after\":%lld,\"again\":%s}", sc_change_name(ch->how),
		(long long)ch->size_before, (long long)ch->size_after,
		ch->again ? "true" : "false");
}

static void json_fs(FILE *f, const char *key, const struct sc_fs_facts *fs,
		    bool assumed)
{
	fprintf(f, ",\"%s\":", key);
	if (!fs) {
		fputs("null", f);
		return;
	}
	fputs("{\"type\":", f);
	sc_json_string(f, sc_fs_facts_type(fs));
	fprintf(f, ",\"class\":\"%s\",\"uuid\":",
		sc_fs_class_name(sc_fs_facts_class(fs)));
	if (sc_fs_facts_uuid(fs)[0])
		sc_json_string(f, sc_fs_facts_uuid(fs));
	else
		fputs("null", f);
	fputs(",\"mount\":", f);
	if (sc_fs_facts_target(fs))
		sc_json_string(f, sc_fs_facts_target(fs));
	else
		fputs("null", f);
	if (assumed)
		fputs(",\"assumed\":true", f);
	fputs("}", f);
}

/* The library says its reasons in its own words; where those name what
 * is an option here, smartcp has always said the option (--explain,
 * --json, --rules are interfaces): the same words as before. */
static const struct {
	const char *lib, *prog;
} why_words[] = {
	{ "not among the allowed roads", N_("excluded by --road") },
	{ "reflink never", N_("--reflink=never") },
	{ "reflink always", N_("--reflink=always") },
	{ "reflink never: copy_file_range may share extents",
	  N_("--reflink=never: copy_file_range may share extents") },
	{ "sparse always: zero runs must be seen to become holes",
	  N_("--sparse=always: zero runs must be seen to become holes") },
	{ "sparse never: every block must be written",
	  N_("--sparse=never: every block must be written") },
	{ "verification of a stream", N_("--verify of a stream") },
	{ "no data is copied", N_("--attributes-only: no data is copied") },
};

const char *sc_report_why(const char *why)
{
	if (!why)
		return "";
	for (size_t i = 0; i < ARRAY_SIZE(why_words); i++)
		if (!strcmp(why, why_words[i].lib))
			return why_words[i].prog;
	return why;
}

void sc_report_json_plan(FILE *f, const struct sc_plan *plan)
{
	const char *sep = "";

	fputs("\"plan\":[", f);
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (sc_plan_use(plan, (enum sc_road)r)) {
			fprintf(f, "%s\"%s\"", sep, sc_road_name((enum sc_road)r));
			sep = ",";
		}
	fputs("],\"skipped\":[", f);
	sep = "";
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (!sc_plan_use(plan, (enum sc_road)r)) {
			fprintf(f, "%s{\"road\":\"%s\",\"reason\":", sep,
				sc_road_name((enum sc_road)r));
			sc_json_string(f, sc_report_why(sc_plan_why(plan,
							(enum sc_road)r)));
			fputs("}", f);
			sep = ",";
		}
	fputs("]", f);
}

static void json_record(const struct sc_report *rep,
			const struct sc_record *rec, FILE *f)
{
	const struct sc_copy_report *res = rec->copied ? rec->res : NULL;
	unsigned n_att = sc_copy_report_attempts(res);
	int res_err = sc_copy_report_data_error(res, NULL);
	int last_road = -1;

	fputs("{\"source\":", f);
	sc_json_string(f, rec->src);
	fputs(",\"destination\":", f);
	sc_json_string(f, rec->dst);
	fprintf(f, ",\"type\":\"%s\"", kind_name(rec->kind));
	if (rec->kind == SC_KIND_FILE) {
		json_fs(f, "source_fs", rec->src_fs, rep->fs_assumed);
		json_fs(f, "destination_fs", rec->dst_fs, rep->fs_assumed);
		fprintf(f, ",\"size\":%lld", (long long)rec->src_size);
		if (rep->kernel_assumed)
			fprintf(f, ",\"kernel\":{\"version\":\"%d.%d\",\"assumed\":true}",
				rep->kernel.major, rep->kernel.minor);
	}
	if (rec->planned) {
		fputc(',', f);
		sc_report_json_plan(f, rec->plan);
	}
	if (rec->copied) {
		const char *sep = "";

		fputs(",\"tried\":[", f);
		for (unsigned i = 0; i < n_att; i++) {
			struct attempt a = attempt_of(res, i);

			fprintf(f, "%s{\"road\":\"%s\",\"result\":\"%s\",\"bytes\":%llu}",
				sep, sc_road_name(a.road),
				a.err ? err_name(a.err) : "ok",
				(unsigned long long)a.bytes);
			sep = ",";
			if (!a.err && a.bytes && !res_err)
				last_road = (int)a.road;
		}
		fputs("],\"roads\":[", f);
		sep = "";
		for (unsigned r = 0; r < sc_road_count(); r++)
			if (sc_copy_report_road_bytes(res, (enum sc_road)r)) {
				fprintf(f, "%s\"%s\"", sep,
					sc_road_name((enum sc_road)r));
				sep = ",";
			}
		fputs("]", f);
		/* A copy that failed was finished by no road: its last
		 * attempt in "tried" carries the error that ended it. */
		if (last_road < 0 && n_att && !res_err &&
		    !attempt_of(res, n_att - 1).err)
			last_road = (int)attempt_of(res, n_att - 1).road;
		if (last_road >= 0)
			fprintf(f, ",\"road\":\"%s\"",
				sc_road_name((enum sc_road)last_road));
		else
			fputs(",\"road\":null", f);
		fprintf(f, ",\"bytes\":%llu,\"holes\":%s",
			(unsigned long long)sc_copy_report_bytes(res),
			sc_copy_report_flags(res) & SC_REPORT_HOLES ?
			"true" : "false");
	}
	if (rec->unchanged)
		fputs(",\"unchanged\":true", f);
	if (rec->backup) {
		fputs(",\"backup\":", f);
		sc_json_string(f, rec->backup);
	}
	if (rec->change.how != SC_CHANGE_NONE)
		json_change(f, &rec->change);
	if (rec->verify != SC_VERIFY_NONE)
		fprintf(f, ",\"verify\":\"%s\"", verify_name(rec->verify));
	/* a verification cut short by a change has no mismatch to tell */
	if (rec->verify == SC_VERIFY_REPAIRED ||
	    (rec->verify == SC_VERIFY_FAILED &&
	     !(rec->failure && !strcmp(rec->failure, "changed"))))
		fprintf(f, ",\"verify_mismatch_at\":%lld",
			(long long)rec->verify_bad);
	fprintf(f, ",\"seconds\":%.6f,\"status\":\"%s\"", rec->seconds,
		rec->err || rec->change_failed || rec->failed ?
		"failed" : "ok");
	if (rec->err || rec->failed) {
		/* a failure with no errno (the same file, an omitted
		 * directory) has no "error" */
		int err = rec->err ? rec->err : rec->failed_err;

		if (err)
			fprintf(f, ",\"error\":\"%s\"", err_name(err));
		fprintf(f, ",\"failed\":\"%s\"",
			rec->failure ? rec->failure :
			rec->change_failed ? "changed" : "other");
	} else if (rec->change_failed) {
		fputs(",\"failed\":\"changed\"", f);
	}
	fputs("}\n", f);
}

static void explain_fs(const char *label, const struct sc_fs_facts *fs,
		       const struct sc_record *rec, bool is_src, bool assumed)
{
	printf("  %-8s ", label);
	if (!fs) {
		puts(_("unknown filesystem"));
		return;
	}
	/* "assumed", like the labels, is for scripts: not translated */
	printf("%s%s", assumed ? "assumed " : "",
	       sc_fs_facts_type(fs)[0] ? sc_fs_facts_type(fs) : "?");
	if (sc_fs_facts_source(fs) &&
	    strcmp(sc_fs_facts_source(fs), sc_fs_facts_type(fs)))
		printf(" %s", sc_fs_facts_source(fs));
	if (sc_fs_facts_target(fs))
		printf(_(" on %s"), sc_fs_facts_target(fs));
	if (sc_fs_facts_uuid(fs)[0])
		printf(" uuid %s", sc_fs_facts_uuid(fs));
	if (is_src && sc_fs_facts_class(fs) == SC_FS_GENERATED)
		printf(_(" (generated content: st_size %lld is not its length)"),
		       (long long)rec->src_size);
	else if (is_src)
		printf(_(" (%s, %lld bytes%s)"), sc_fs_class_name(sc_fs_facts_class(fs)),
		       (long long)rec->src_size,
		       rec->src_sparse ? _(", sparse") : "");
	else
		printf(" (%s%s)", sc_fs_class_name(sc_fs_facts_class(fs)),
		       sc_fs_facts_can_clone(fs) == SC_YES ? _(", can clone") :
		       sc_fs_facts_can_clone(fs) == SC_MAYBE ? _(", may clone") : "");
	putchar('\n');
}

/* "  facts:   source type statmount, class magic, ...; dest ...": where
 * the facts came from (issue 30), for what fsinfo made; none for
 * assumed facts.  Labels and words are an interface: not translated. */
static void explain_origins(const struct sc_report *rep,
			    const struct sc_record *rec)
{
	char src[160], dst[160];
	bool s, d;

	s = rec->src_fs && sc_copier_origins_text(rep->copier, rec->src_fs,
						  src, sizeof(src)) > 0;
	d = rec->dst_fs && sc_copier_origins_text(rep->copier, rec->dst_fs,
						  dst, sizeof(dst)) > 0;
	if (!s && !d)
		return;
	printf("  %-8s ", "facts:");
	if (s)
		printf("source %s", src);
	if (d)
		printf("%sdest %s", s ? "; " : "", dst);
	putchar('\n');
}

static void explain_record(const struct sc_report *rep,
			   const struct sc_record *rec)
{
	const char *sep = "";

	printf("%s -> %s\n", sc_quote(rec->src), sc_quote(rec->dst));
	if (rec->kind != SC_KIND_FILE || !rec->planned) {
		printf("  %-8s %s\n", "plan:", kind_name(rec->kind));
		return;
	}
	/* The labels are an interface, like "plan:": not translated. */
	explain_fs("source:", rec->src_fs, rec, true, rep->fs_assumed);
	explain_fs("dest:", rec->dst_fs, rec, false, rep->fs_assumed);
	explain_origins(rep, rec);
	if (rep->kernel_assumed)
		printf("  %-8s assumed Linux %d.%d\n", "kernel:",
		       rep->kernel.major, rep->kernel.minor);
	printf("  %-8s ", "plan:");
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (sc_plan_use(rec->plan, (enum sc_road)r)) {
			printf("%s%s", sep, sc_road_name((enum sc_road)r));
			sep = ", ";
		}
	if (!*sep)
		fputs(_("(no road)"), stdout);
	putchar('\n');
	sep = "";
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (!sc_plan_use(rec->plan, (enum sc_road)r)) {
			if (!*sep)
				printf("  %-8s ", "skipped:");
			printf("%s%s (%s)", sep, sc_road_name((enum sc_road)r),
			       _(sc_report_why(sc_plan_why(rec->plan,
							   (enum sc_road)r))));
			sep = ", ";
		}
	if (*sep)
		putchar('\n');
}

void sc_report_progress_enable(struct sc_report *rep, bool now)
{
	rep->progress = true;
	rep->progress_now = now;
}

void sc_report_debug(FILE *out, const struct sc_copy_report *res,
		     const struct sc_plan *plan, bool reflink)
{
	const char *offload = "unknown", *clone = reflink ? "unknown" : "no";
	const char *sparse = "unknown";
	bool tried[SC_ROADS_SHOWN] = { false }, ok[SC_ROADS_SHOWN] = { false };

	if (!out)
		out = stdout;
	if (res) {
		unsigned flags = sc_copy_report_flags(res);

		for (unsigned i = 0; i < sc_copy_report_attempts(res); i++) {
			struct attempt a = attempt_of(res, i);

			if ((unsigned)a.road >= SC_ROADS_SHOWN)
				continue;
			tried[a.road] = true;
			/* a road that moved bytes was used, even if it then
			 * failed */
			ok[a.road] |= !a.err || a.bytes;
		}
		/* cp tries a clone first and copy_file_range next; a road
		 * smartcp knew would fail, and skipped, counts as refused */
		if (reflink)
			clone = ok[SC_ROAD_CLONE] ? "yes" : "unsupported";
		if (!ok[SC_ROAD_CLONE]) {
			offload = ok[SC_ROAD_RANGE] ? "yes" :
				  !tried[SC_ROAD_RANGE] && plan &&
				  sc_plan_by_option(plan, SC_ROAD_RANGE) ?
				  "avoided" :
				  /* planned, but no data asked for it (an
				   * empty file: one read found the end) */
				  !tried[SC_ROAD_RANGE] && plan &&
				  sc_plan_use(plan, SC_ROAD_RANGE) &&
				  !sc_copy_report_bytes(res) &&
				  !sc_copy_report_data_error(res, NULL) ?
				  "unknown" : "unsupported";
			sparse = (flags & SC_REPORT_SEEK_DATA) &&
				 (flags & SC_REPORT_ZERO_SCAN) ?
				 "SEEK_HOLE + zeros" :
				 flags & SC_REPORT_SEEK_DATA ? "SEEK_HOLE" :
				 flags & SC_REPORT_ZERO_SCAN ? "zeros" : "no";
		}
	}
	fprintf(out, "copy offload: %s, reflink: %s, sparse detection: %s\n",
		offload, clone, sparse);
}

static void human_size(char *buf, size_t size, double b);

void sc_report_progress(struct sc_report *rep, const char *file,
			uint64_t done, off_t size, enum sc_road road)
{
	double t, rate;
	char total[32], speed[32], eta[32] = "";
	uint64_t before;

	if (!rep->progress)
		return;
	t = since_start(rep);
	/* Automatic progress waits two seconds: short copies stay quiet. */
	if ((!rep->progress_now && t < 2.0) || t - rep->last_progress < 0.2)
		return;
	rep->last_progress = t;
	/* -j workers add to it under the lock (sc_report_record) */
	pthread_mutex_lock(&rep->lock);
	before = rep->done_before;
	pthread_mutex_unlock(&rep->lock);
	rate = t > 0 ? (double)(before + done) / t : 0;
	human_size(total, sizeof(total), (double)(before + done));
	human_size(speed, sizeof(speed), rate);
	if (size > 0 && (uint64_t)size > done && rate > 0)
		snprintf(eta, sizeof(eta), _(", ETA %.0f s"),
			 (double)((uint64_t)size - done) / rate);
	fprintf(stderr, "\r\033[K%s  %s/s%s  %s [%s]", total, speed, eta,
		sc_quote(file), sc_road_name(road));
	rep->progress_shown = true;
}

void sc_report_progress_end(struct sc_report *rep)
{
	if (rep->progress_shown) {
		fputs("\r\033[K", stderr);
		rep->progress_shown = false;
	}
}

void sc_report_record(struct sc_report *rep, const struct sc_record *rec,
		      FILE *out)
{
	bool own = !out || out == stdout;

	if (!out)
		out = stdout;
	pthread_mutex_lock(&rep->lock);
	if (rec->copied)
		rep->done_before += sc_copy_report_bytes(rec->res);
	if (rec->change.how != SC_CHANGE_NONE)
		rep->changed++;
	if (rec->kind == SC_KIND_FILE && rec->copied && !rec->err) {
		rep->files++;
		rep->bytes += sc_copy_report_bytes(rec->res);
		for (unsigned r = 0; r < sc_road_count() &&
				     r < SC_ROADS_SHOWN; r++) {
			uint64_t b = sc_copy_report_road_bytes(rec->res,
							       (enum sc_road)r);

			rep->road_bytes[r] += b;
			rep->road_files[r] += b != 0;
		}
	}
	pthread_mutex_unlock(&rep->lock);
	/* Only the walk's own thread owns the terminal line. */
	if (own)
		sc_report_progress_end(rep);
	if (rep->json) {
		json_record(rep, rec, out);
		return;
	}
	if (rep->explain) {
		explain_record(rep, rec);
		return;
	}
	if (!rep->verbose || rec->err || rec->announced)
		return;
	fprintf(out, "%s -> %s", sc_quote(rec->src), sc_quote(rec->dst));
	if (rec->backup)
		fprintf(out, _(" (backup: %s)"), sc_quote(rec->backup));
	if (rep->plain) {
		/* nothing after the names */
	} else if (rec->unchanged) {
		fputs(" [unchanged]", out);
	} else if (rec->kind == SC_KIND_FILE && rec->copied) {
		fputs(" [", out);
		sc_report_chain(out, rec->res);
		if (rec->change.how != SC_CHANGE_NONE) {
			char what[128];

			fprintf(out, ", source changed: %s",
				sc_report_change_text(what, sizeof(what),
						      &rec->change, false));
		}
		if (rec->verify == SC_VERIFY_CURRENT)
			fputs("; the copy equals it as it now is", out);
		else if (rec->verify == SC_VERIFY_RECOPIED)
			fputs("; copied again, equals it as it now is", out);
		if (rec->verify == SC_VERIFY_OK)
			fputs(", verified", out);
		else if (rec->verify == SC_VERIFY_REPAIRED)
			fprintf(out, ", verify: differed at byte %lld, repaired",
				(long long)rec->verify_bad);
		fputs("]", out);
	}
	fputc('\n', out);
}

void sc_report_vanished(struct sc_report *rep)
{
	pthread_mutex_lock(&rep->lock);
	rep->vanished++;
	pthread_mutex_unlock(&rep->lock);
}

static void human_size(char *buf, size_t size, double b)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;

	while (b >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		b /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", b, units[u]);
}

bool sc_report_stderr_tty(void)
{
	static int tty = -1;

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	return tty;
}

void sc_report_finish(struct sc_report *rep, int failures)
{
	struct timespec ts;
	double secs;
	char bytes[32], rate[32];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	secs = (double)(ts.tv_sec - rep->start.tv_sec) +
	       (double)(ts.tv_nsec - rep->start.tv_nsec) / 1e9;
	if (rep->json) {
		const char *sep = "";

		printf("{\"summary\":{\"files\":%llu,\"bytes\":%llu,\"failures\":%d,\"roads\":{",
		       (unsigned long long)rep->files,
		       (unsigned long long)rep->bytes, failures);
		for (unsigned r = 0; r < sc_road_count() &&
				     r < SC_ROADS_SHOWN; r++) {
			printf("%s\"%s\":{\"files\":%u,\"bytes\":%llu}", sep,
			       sc_road_name((enum sc_road)r), rep->road_files[r],
			       (unsigned long long)rep->road_bytes[r]);
			sep = ",";
		}
		printf("}");
		/* only when there were any: runs without keep their bytes */
		if (rep->changed)
			printf(",\"changed\":%u", rep->changed);
		if (rep->vanished)
			printf(",\"vanished\":%u", rep->vanished);
		printf(",\"seconds\":%.6f}}\n", secs);
		return;
	}
	sc_report_progress_end(rep);
	if (!rep->summary || rep->explain)
		return;
	human_size(bytes, sizeof(bytes), (double)rep->bytes);
	human_size(rate, sizeof(rate), secs > 0 ? (double)rep->bytes / secs : 0);
	fprintf(stderr, "%s: ", sc_program_name);
	fprintf(stderr, ngettext("%llu file", "%llu files",
				 (unsigned long)rep->files),
		(unsigned long long)rep->files);
	fprintf(stderr, _(", %s in %.2f s (%s/s)"), bytes, secs, rate);
	for (unsigned r = 0, first = 1; r < sc_road_count() &&
					r < SC_ROADS_SHOWN; r++)
		if (rep->road_files[r]) {
			fprintf(stderr, "%s%s %u", first ? "; " : ", ",
				sc_road_name((enum sc_road)r), rep->road_files[r]);
			first = 0;
		}
	if (failures)
		fprintf(stderr, ngettext("; %d failed", "; %d failed",
					 (unsigned long)failures), failures);
	if (rep->changed)
		fprintf(stderr, ngettext("; %u changed while copied",
					 "; %u changed while copied",
					 rep->changed), rep->changed);
	if (rep->vanished)
		fprintf(stderr, ngettext("; %u vanished before its turn",
					 "; %u vanished before their turn",
					 rep->vanished), rep->vanished);
	fputc('\n', stderr);
}

/* --- messages ---------------------------------------------------------- */

/* The step each message names, for --json's "failed" (an interface:
 * never translated).  Messages are found by their msgid, or its
 * translation: the callers pass the format through _(). */
static const struct {
	const char *msgid, *step;
} steps[] = {
	{ N_("cannot open %s for reading"), "open" },
	{ N_("cannot stat %s"), "stat" },
	{ N_("cannot fstat %s"), "stat" },
	{ N_("failed to get attributes of %s"), "stat" },
	{ N_("error reading %s"), "read" },
	/* a directory whose entries cannot be read (opened, listed) */
	{ N_("cannot access %s"), "read" },
	{ N_("cannot read symbolic link %s"), "read" },
	{ N_("error writing %s"), "write" },
	{ N_("failed to extend %s"), "write" },
	{ N_("failed to close %s"), "write" },
	{ N_("error copying %s to %s"), "copy" },
	{ N_("failed to clone %s from %s"), "clone" },
	{ N_("cannot verify %s: nothing written there can be read back"),
	  "verify" },
	{ N_("error reading back %s"), "verify" },
	{ N_("%s differs from %s at byte %lld, also after copying again"),
	  "verify" },
	{ N_("%s changed while it was copied: %s"), "changed" },
	{ N_("%s changed while it was copied, and again while it was copied once more: %s"),
	  "changed" },
	{ N_("cannot create regular file %s"), "create" },
	{ N_("not writing through dangling symlink %s"), "create" },
	{ N_("cannot replace %s"), "replace" },
	{ N_("cannot create directory %s"), "mkdir" },
	{ N_("cannot make directory %s"), "mkdir" },
	{ N_("%s exists but is not a directory"), "mkdir" },
	{ N_("cannot create fifo %s"), "mknod" },
	{ N_("cannot create special file %s"), "mknod" },
	{ N_("cannot create symbolic link %s"), "symlink" },
	{ N_("cannot create symbolic link %s to %s"), "symlink" },
	{ N_("%s: can make relative symbolic links only in current directory"),
	  "symlink" },
	{ N_("cannot create hard link %s to %s"), "link" },
	{ N_("%s and %s are the same file"), "same-file" },
	{ N_("-r not specified; omitting directory %s"), "omitted" },
	{ N_("not replacing %s"), "not-replaced" },
	{ N_("cannot copy a directory, %s, into itself, %s"), "into-itself" },
	{ N_("cannot copy cyclic symbolic link %s"), "cycle" },
	{ N_("cannot overwrite non-directory %s with directory %s"),
	  "overwrite" },
	{ N_("cannot overwrite directory %s with non-directory"), "overwrite" },
	{ N_("will not overwrite just-created %s with %s"), "overwrite" },
	{ N_("will not copy %s through just-created symlink %s"), "overwrite" },
	{ N_("cannot backup %s"), "backup" },
	{ N_("backing up %s might destroy source;  %s not copied"), "backup" },
	{ N_("cannot remove %s"), "remove" },
	{ N_("skipping file %s, as it was replaced while being copied"),
	  "replaced" },
	{ N_("skipping directory %s, as it was replaced while being copied"),
	  "replaced" },
	{ N_("setting permissions for %s"), "attributes" },
	{ N_("clearing permissions for %s"), "attributes" },
	{ N_("preserving permissions for %s"), "attributes" },
	{ N_("preserving times for %s"), "attributes" },
	{ N_("failed to preserve ownership for %s"), "attributes" },
	{ N_("failed to preserve permissions for %s"), "attributes" },
	{ N_("failed to preserve times for %s"), "attributes" },
	{ N_("cannot sync the directory of %s"), "sync" },
	{ N_("memory exhausted"), "memory" },
};

const char *sc_report_step(const char *fmt)
{
	if (!fmt)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++)
		if (!strcmp(fmt, steps[i].msgid) ||
		    !strcmp(fmt, _(steps[i].msgid)))
			return steps[i].step;
	return NULL;
}

void sc_report_begin(struct sc_msgs *m)
{
	m->failed = false;
	m->last_errno = 0;
	m->step = NULL;
	m->step_errno = 0;
	m->step_of_error = false;
	m->recorded = 0;
}

/* Remembers the step of the first error said about M's entry (or, until
 * one is, of its first warning: xattrs and ACLs libattr and libacl said
 * something about are attributes). */
static void note_step(struct sc_msgs *m, bool fail, int err, const char *fmt)
{
	const char *step;

	if (m->step_of_error || (!fail && m->step))
		return;
	step = err == ENOMEM ? "memory" : sc_report_step(fmt);
	if (!step && !fail)
		step = "attributes";
	m->step = step;
	m->step_errno = err;
	m->step_of_error = fail;
}

void sc_report_failure(struct sc_msgs *m, struct sc_record *rec)
{
	if (!m)
		return;
	if (m->failed && !rec->err && !rec->failed) {
		rec->failed = true;
		rec->failed_err = -m->step_errno;
	}
	if (!rec->failure && (rec->err || rec->failed))
		rec->failure = m->step ? m->step :
			       m->failed ? "attributes" : NULL;
	m->recorded = rec->err || rec->failed || rec->change_failed ? 2 : 1;
}

static void streams(struct sc_msgs *m, FILE **out, FILE **err)
{
	*out = *err = NULL;
	if (m && m->streams)
		m->streams(m->arg, out, err);
}

void sc_report_verror(struct sc_msgs *m, bool fail, int err,
		      const char *fmt, va_list ap)
{
	FILE *out, *f;

	streams(m, &out, &f);
	if (m)
		note_step(m, fail, err, fmt);
	if (fail && m) {
		m->failed = true;
		m->last_errno = err;
	}
	if (!f) {
		/* what was said on stdout comes first */
		fflush(stdout);
		f = stderr;
	}
	fprintf(f, "%s: ", sc_program_name);
	vfprintf(f, fmt, ap);
	if (err) {
		/* strerror_r: no static buffer shared by -j workers */
		char buf[128];

		fprintf(f, ": %s", strerror_r(err, buf, sizeof(buf)));
	}
	fputc('\n', f);
}

void sc_report_verror_args(struct sc_msgs *m, bool fail, int err,
			   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_report_verror(m, fail, err, fmt, ap);
	va_end(ap);
}

void sc_report_error(struct sc_msgs *m, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_report_verror(m, true, err, fmt, ap);
	va_end(ap);
}

void sc_report_warning(struct sc_msgs *m, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_report_verror(m, false, err, fmt, ap);
	va_end(ap);
}

FILE *sc_report_out(struct sc_msgs *m)
{
	FILE *out, *err;

	streams(m, &out, &err);
	return out ? out : stdout;
}

void sc_report_removed(struct sc_msgs *m, const char *dst)
{
	fprintf(sc_report_out(m), _("removed %s\n"), sc_quote(dst));
}

void sc_report_skipped(struct sc_msgs *m, const char *dst)
{
	fprintf(sc_report_out(m), _("skipped %s\n"), sc_quote(dst));
}

void sc_report_cp_line(struct sc_msgs *m, const char *src, const char *dst,
		       const char *backup)
{
	FILE *out = sc_report_out(m);

	fprintf(out, "%s -> %s", sc_quote(src), sc_quote(dst));
	if (backup)
		fprintf(out, _(" (backup: %s)"), sc_quote(backup));
	fputc('\n', out);
}

void sc_report_parent_made(struct sc_msgs *m, const char *rel,
			   const char *dir)
{
	fprintf(sc_report_out(m), "%s -> %s\n", rel, dir);
}

void sc_report_mode_letters(mode_t mode, char out[10])
{
	static const char rwx[] = "rwxrwxrwx";

	for (int i = 0; i < 9; i++)
		out[i] = mode & (0400 >> i) ? rwx[i] : '-';
	if (mode & S_ISUID)
		out[2] = out[2] == 'x' ? 's' : 'S';
	if (mode & S_ISGID)
		out[5] = out[5] == 'x' ? 's' : 'S';
	if (mode & S_ISVTX)
		out[8] = out[8] == 'x' ? 't' : 'T';
	out[9] = '\0';
}

void sc_report_ask_overwrite(const char *dst, const struct stat *st,
			     bool unwritable, bool force)
{
	if (unwritable) {
		char perms[10];

		sc_report_mode_letters(st->st_mode, perms);
		fprintf(stderr, force ?
			_("%s: replace %s, overriding mode %04lo (%s)? ") :
			_("%s: unwritable %s (mode %04lo, %s); try anyway? "),
			sc_program_name, sc_quote(dst),
			(unsigned long)(st->st_mode & 07777), perms);
	} else {
		fprintf(stderr, _("%s: overwrite %s? "), sc_program_name,
			sc_quote(dst));
	}
	fflush(stderr);
}

void sc_report_buffered_runs(const char *buf, const struct sc_out_run *runs,
			     size_t n)
{
	size_t start = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len = runs[i].end - start;

		if (runs[i].to_err) {
			/* what was said on stdout comes first */
			fflush(stdout);
			fwrite(buf + start, 1, len, stderr);
		} else {
			fwrite(buf + start, 1, len, stdout);
		}
		start = runs[i].end;
	}
	fflush(stdout);
}

bool sc_report_interleave(bool as_cp)
{
	struct stat out, err;

	if (as_cp)
		return true;
	return fstat(STDOUT_FILENO, &out) == 0 &&
	       fstat(STDERR_FILENO, &err) == 0 &&
	       out.st_dev == err.st_dev && out.st_ino == err.st_ino;
}

void sc_report_buffered(const char *out, size_t out_len, const char *err,
			size_t err_len)
{
	if (out_len) {
		fwrite(out, 1, out_len, stdout);
		fflush(stdout);
	}
	if (err_len)
		fwrite(err, 1, err_len, stderr);
}
