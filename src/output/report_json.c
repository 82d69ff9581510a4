/* smartcp's JSON: one object per file (--json, --explain --json), its
 * plan's keys, and the rows of --rules --json.  JSON keys, road names and
 * errno names are an interface: never translated. */
#include "system.h"
#include "output/report.h"
#include "output/report_int.h"

#include <string.h>

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

static const char *verify_name(int v)
{
	return v == SC_VERIFY_OK ? "ok" : v == SC_VERIFY_REPAIRED ?
	       "repaired" : v == SC_VERIFY_FAILED ? "failed" :
	       v == SC_VERIFY_CURRENT ? "current" :
	       v == SC_VERIFY_RECOPIED ? "recopied" : "none";
}

static void json_change(FILE *f, const struct sc_rec_change *ch)
{
	fprintf(f, ",\"source_changed\":{\"how\":\"%s\",\"size_before\":%lld,"
		"\"size_after\":%lld,\"again\":%s}", sc_change_name(ch->how),
		(long long)ch->size_before, (long long)ch->size_after,
		ch->again ? "true" : "false");
}

/* "KEY":{"type":TYPE,"class":"CLASS", the object left open for the
 * keys that follow: the start --json and --rules --json share. */
static void json_fs_open(FILE *f, const char *key, const char *type,
			 enum sc_fs_class cls)
{
	fprintf(f, "\"%s\":{\"type\":", key);
	sc_json_string(f, type);
	fprintf(f, ",\"class\":\"%s\"", sc_fs_class_name(cls));
}

static void json_fs(FILE *f, const char *key, const struct sc_fs_facts *fs,
		    bool assumed)
{
	fputc(',', f);
	if (!fs) {
		fprintf(f, "\"%s\":null", key);
		return;
	}
	json_fs_open(f, key, sc_fs_facts_type(fs), sc_fs_facts_class(fs));
	fputs(",\"uuid\":", f);
	if (sc_fs_facts_uuid(fs)[0])
		sc_json_string(f, sc_fs_facts_uuid(fs));
	else
		fputs("null", f);
	fputs(",\"mount\":", f);
	if (sc_fs_facts_target(fs))
		sc_json_string(f, sc_fs_facts_target(fs));
	else
		fputs("null", f);
	/* only where known-bad stacks name the module's version */
	if (sc_fs_facts_module(fs)[0]) {
		fputs(",\"module\":", f);
		sc_json_string(f, sc_fs_facts_module(fs));
	}
	if (assumed)
		fputs(",\"assumed\":true", f);
	fputs("}", f);
}

/* ["clone","copy_file_range"] for SC_ROAD_BIT()s ROADS. */
static void json_roads(FILE *f, unsigned roads)
{
	const char *sep = "";

	putc('[', f);
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (roads & SC_ROAD_BIT(r)) {
			fprintf(f, "%s\"%s\"", sep, sc_road_name((enum sc_road)r));
			sep = ",";
		}
	putc(']', f);
}

/* ,"advisories":[...]: the rows of the known-bad stacks that hold for
 * PLAN (none: no key, so other plans print as they always did). */
static void json_advice(FILE *f, const struct sc_plan *plan)
{
	struct sc_advisory a = { .size = sizeof(a) };

	for (unsigned i = 0; sc_plan_advisory(plan, i, &a) == 0; i++) {
		fputs(i ? "," : ",\"advisories\":[", f);
		fputs("{\"stack\":", f);
		sc_json_string(f, a.id);
		fprintf(f, ",\"action\":\"%s\",\"roads\":", a.action);
		json_roads(f, a.roads);
		fputs(",\"forced\":", f);
		json_roads(f, a.forced);
		fprintf(f, ",\"holes\":%s,\"verify\":%s,\"maybe\":%s,"
			"\"reason\":", a.holes ? "true" : "false",
			a.verify ? "true" : "false", a.maybe ? "true" : "false");
		sc_json_string(f, a.why);
		putc('}', f);
		a = (struct sc_advisory){ .size = sizeof(a) };
	}
	if (sc_plan_advisory(plan, 0, &a) == 0)
		putc(']', f);
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
	json_advice(f, plan);
}

/* "tried", "roads", "road", "bytes" and "holes": what the copy RES did. */
static void json_copy(FILE *f, const struct sc_copy_report *res)
{
	unsigned n_att = sc_copy_report_attempts(res);
	int res_err = sc_copy_report_data_error(res, NULL);
	int last_road = -1;
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

/* "status", and "error" and "failed" for a file that failed. */
static void json_status(FILE *f, const struct sc_record *rec)
{
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
}

void sc_report_json_record(const struct sc_record *rec,
			   const struct sc_kernel *kernel, bool fs_assumed,
			   FILE *f)
{
	fputs("{\"source\":", f);
	sc_json_string(f, rec->src);
	fputs(",\"destination\":", f);
	sc_json_string(f, rec->dst);
	fprintf(f, ",\"type\":\"%s\"", kind_name(rec->kind));
	if (rec->kind == SC_KIND_FILE) {
		json_fs(f, "source_fs", rec->src_fs, fs_assumed);
		json_fs(f, "destination_fs", rec->dst_fs, fs_assumed);
		fprintf(f, ",\"size\":%lld", (long long)rec->src_size);
		if (kernel)
			fprintf(f, ",\"kernel\":{\"version\":\"%d.%d\",\"assumed\":true}",
				kernel->major, kernel->minor);
	}
	if (rec->planned) {
		fputc(',', f);
		sc_report_json_plan(f, rec->plan);
	}
	if (rec->copied)
		json_copy(f, rec->res);
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
	json_status(f, rec);
	fputs("}\n", f);
}

void sc_report_json_rules_row(FILE *out, const struct sc_rules_row *row)
{
	fputs("{\"case\":", out);
	sc_json_string(out, row->what);
	fputc(',', out);
	/* the type the table names, whatever its facts say */
	json_fs_open(out, "source_fs", row->type[0],
		     sc_fs_facts_class(row->fs[0]));
	fputs("},", out);
	json_fs_open(out, "destination_fs", row->type[1],
		     sc_fs_facts_class(row->fs[1]));
	fputc('}', out);
	fprintf(out, ",\"relation\":\"%s\",\"source\":\"%s\","
		"\"destination\":\"%s\",\"kernel\":{\"from\":\"%d.%d\",\"to\":",
		row->relation, row->pipe[0] ? "pipe" : "file",
		row->pipe[1] ? "pipe" : "file", row->from.major,
		row->from.minor);
	if (row->open_end)
		fputs("null", out);
	else
		fprintf(out, "\"%d.%d\"", row->to.major, row->to.minor);
	fputs("},", out);
	sc_report_json_plan(out, row->plan);
	fputs("}\n", out);
}

/* "KEY":"VALUE", or "KEY":null for "" (a condition a row does not
 * have), after a comma. */
static void json_text(FILE *out, const char *key, const char *value)
{
	fprintf(out, ",\"%s\":", key);
	if (value && *value)
		sc_json_string(out, value);
	else
		fputs("null", out);
}

void sc_report_json_stack(FILE *out, const struct sc_stack_info *st,
			  const struct sc_plan *plan)
{
	fputs("{\"stack\":", out);
	sc_json_string(out, st->id);
	json_text(out, "cite", st->cite);
	json_text(out, "title", st->title);
	json_text(out, "fs", st->fs);
	json_text(out, "side", st->side);
	json_text(out, "kernel", st->kernel);
	json_text(out, "module", st->module);
	json_text(out, "param", st->param);
	json_text(out, "libc", st->libc);
	fputs(",\"roads\":", out);
	json_roads(out, st->roads);
	fprintf(out, ",\"holes\":%s", st->holes ? "true" : "false");
	json_text(out, "seen", st->seen);
	json_text(out, "action", st->action);
	json_text(out, "reason", st->why);
	json_text(out, "does", st->does);
	json_text(out, "what", st->what);
	json_text(out, "source", st->source);
	json_text(out, "date", st->date);
	if (plan) {
		fputs(",\"example\":{\"assume_fs\":", out);
		sc_json_string(out, st->example);
		fputs(",\"kernel\":", out);
		sc_json_string(out, st->example_kernel);
		fputc(',', out);
		sc_report_json_plan(out, plan);
		fputc('}', out);
	}
	fputs("}\n", out);
}
