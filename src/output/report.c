/* Human and machine output about the files handled: -v lines, --explain
 * blocks, --debug's line, progress and the summary.  Machine output (JSON
 * keys, road names, errno names, the "plan:" line) is an interface: never
 * translated.  The JSON objects are report_json.c's, --rules' table
 * report_rules.c's, the messages messages.c's. */
#include "system.h"
#include "output/report.h"
#include "output/report_int.h"
#include "output/quote.h"

#include <pthread.h>
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

int sc_report_new(unsigned flags, struct sc_report **ret)
{
	struct sc_report *rep = calloc(1, sizeof(*rep));

	if (!rep)
		return -ENOMEM;
	rep->verbose = flags & REPORT_VERBOSE;
	rep->json = flags & REPORT_JSON;
	rep->explain = flags & REPORT_EXPLAIN;
	rep->summary = flags & REPORT_SUMMARY;
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
	/* the module's version, where known-bad stacks name it */
	if (sc_fs_facts_module(fs)[0])
		printf("@%s", sc_fs_facts_module(fs));
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

const char *sc_report_roads(char *buf, size_t size, unsigned roads)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (roads & SC_ROAD_BIT(r) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						len ? ", " : "",
						sc_road_name((enum sc_road)r));
	return buf;
}

bool sc_report_advice_acts(const struct sc_advisory *a)
{
	return a->forced || a->holes || a->verify ||
	       (!strcmp(a->action, "skip") && (a->roads & ~a->forced));
}

void sc_report_advice(FILE *f, const struct sc_advisory *a, bool translate)
{
#define TR(s) (translate ? _(s) : (s))
	unsigned taken = a->roads & ~a->forced;
	const char *sep = "";
	char roads[96];

	fprintf(f, "%s: ", a->id);
	if (a->maybe) {
		fputs(TR(N_("may hold (module version unknown)")), f);
		sep = "; ";
	}
	sc_report_roads(roads, sizeof(roads), taken);
	if (taken || a->verify) {
		fputs(sep, f);
		if (a->verify && !taken)
			fputs(TR(N_("the copy verified")), f);
		else if (!strcmp(a->action, "skip"))
			fprintf(f, TR(N_("%s skipped")), roads);
		else if (a->verify)
			fprintf(f, TR(N_("%s taken, the copy verified")), roads);
		else if (!strcmp(a->action, "fallback"))
			fprintf(f, TR(N_("%s taken, the next road goes on if it fails")),
				roads);
		else
			fprintf(f, TR(N_("%s taken")), roads);
		sep = "; ";
	}
	if (a->holes) {
		fprintf(f, "%s%s", sep, TR(N_("no hole detection with SEEK_DATA")));
		sep = "; ";
	}
	if (a->forced) {
		fputs(sep, f);
		fprintf(f, TR(N_("%s forced")), sc_report_roads(roads,
			sizeof(roads), a->forced));
	}
#undef TR
}

/* "  advisory: ROW: WHAT (WHY)" for each row of the known-bad stacks
 * that holds for REC's plan.  The label is an interface, like "plan:";
 * what follows is said in words, translated. */
static void explain_advice(const struct sc_record *rec)
{
	struct sc_advisory a = { .size = sizeof(a) };

	for (unsigned i = 0; sc_plan_advisory(rec->plan, i, &a) == 0; i++) {
		printf("  %-8s ", "advisory:");
		sc_report_advice(stdout, &a, true);
		printf(" (%s)\n", _(a.why));
		a = (struct sc_advisory){ .size = sizeof(a) };
	}
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
	explain_advice(rec);
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

/* -v: "; ROW: WHAT" for each row of the known-bad stacks that changed
 * what REC's copy did (in English, as -v's other words). */
static void verbose_advice(FILE *out, const struct sc_record *rec)
{
	struct sc_advisory a = { .size = sizeof(a) };

	for (unsigned i = 0; rec->planned &&
	     sc_plan_advisory(rec->plan, i, &a) == 0; i++) {
		if (sc_report_advice_acts(&a)) {
			fputs("; ", out);
			sc_report_advice(out, &a, false);
		}
		a = (struct sc_advisory){ .size = sizeof(a) };
	}
}

/* -v: a link took the place of what was at REC's destination: said
 * after the entry's line, as GNU cp says it. */
static void say_removed(const struct sc_report *rep,
			const struct sc_record *rec, FILE *out)
{
	if (rec->replaced && rep->verbose)
		fprintf(out, _("removed %s\n"), sc_quote(rec->dst));
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
		sc_report_json_record(rec, rep->kernel_assumed ? &rep->kernel :
				      NULL, rep->fs_assumed, out);
		say_removed(rep, rec, out);
		return;
	}
	if (rep->explain) {
		explain_record(rep, rec);
		return;
	}
	if (!rep->verbose || rec->err || rec->announced) {
		say_removed(rep, rec, out);
		return;
	}
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
		verbose_advice(out, rec);
		fputs("]", out);
	}
	fputc('\n', out);
	say_removed(rep, rec, out);
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

/* {"summary":{...}}, the last line of --json: the counters, SECS the
 * run took. */
static void json_summary(const struct sc_report *rep, int failures,
			 double secs)
{
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
}

/* The summary line on stderr: "smartcp: 3 files, 12.0 KiB in 0.01 s
 * (1.2 MiB/s); clone 3". */
static void say_summary(const struct sc_report *rep, int failures,
			double secs)
{
	char bytes[32], rate[32];

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

void sc_report_finish(struct sc_report *rep, int failures)
{
	double secs = since_start(rep);

	if (rep->json) {
		json_summary(rep, failures, secs);
		return;
	}
	sc_report_progress_end(rep);
	if (!rep->summary || rep->explain)
		return;
	say_summary(rep, failures, secs);
}
