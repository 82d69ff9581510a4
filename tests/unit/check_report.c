/* report: JSON strings that round-trip any file name, the -v fallback
 * chain, and the messages and -v lines said for the walk. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suites.h"
#include "copier.h"
#include "fsinfo.h"
#include "output/report.h"

/* What sc_json_string writes for S. */
static char *json(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	sc_json_string(f, s);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static void check_json(const char *in, const char *want)
{
	char *got = json(in);

	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_json_ascii)
{
	check_json("", "\"\"");
	check_json("abc", "\"abc\"");
	check_json("/tmp/a b/c.txt", "\"/tmp/a b/c.txt\"");
	check_json("it's", "\"it's\"");
}
END_TEST

START_TEST(test_json_quote_and_backslash)
{
	check_json("a\"b", "\"a\\\"b\"");
	check_json("a\\b", "\"a\\\\b\"");
	check_json("\"\\\"", "\"\\\"\\\\\\\"\"");
	/* A slash needs no escape. */
	check_json("a/b", "\"a/b\"");
}
END_TEST

START_TEST(test_json_control_bytes)
{
	check_json("a\nb", "\"a\\nb\"");
	check_json("a\tb", "\"a\\tb\"");
	check_json("\r\b\f", "\"\\r\\b\\f\"");
	check_json("\x01", "\"\\u0001\"");
	check_json("x\x1fy", "\"x\\u001fy\"");
	check_json("\x1b[1m", "\"\\u001b[1m\"");
	check_json("\x7f", "\"\\u007f\"");
}
END_TEST

START_TEST(test_json_utf8_kept)
{
	check_json("caf\xc3\xa9", "\"caf\xc3\xa9\"");			/* é */
	check_json("\xe2\x82\xac", "\"\xe2\x82\xac\"");			/* € */
	check_json("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");	/* U+1F600 */
	check_json("\xef\xbf\xbd", "\"\xef\xbf\xbd\"");			/* U+FFFD */
	check_json("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"");	/* U+10FFFF */
	check_json("\xc2\x80", "\"\xc2\x80\"");				/* U+0080 */
}
END_TEST

/* Python's surrogateescape: one \udcXX per byte that is not valid UTF-8. */
START_TEST(test_json_invalid_utf8)
{
	check_json("\xff", "\"\\udcff\"");
	check_json("a\xfe" "b", "\"a\\udcfeb\"");
	/* A lead byte without its continuation, mid-string and at the end. */
	check_json("\xc3x", "\"\\udcc3x\"");
	check_json("x\xc3", "\"x\\udcc3\"");
	/* A stray continuation byte. */
	check_json("\x80", "\"\\udc80\"");
	/* Overlong encodings of '/' (2 bytes) and of U+002F (3 bytes). */
	check_json("\xc0\xaf", "\"\\udcc0\\udcaf\"");
	check_json("\xe0\x80\xaf", "\"\\udce0\\udc80\\udcaf\"");
	/* A UTF-16 surrogate (U+D800) encoded as UTF-8 (CESU). */
	check_json("\xed\xa0\x80", "\"\\udced\\udca0\\udc80\"");
	/* Beyond U+10FFFF. */
	check_json("\xf4\x90\x80\x80", "\"\\udcf4\\udc90\\udc80\\udc80\"");
	/* Truncated 3-byte sequence followed by valid text. */
	check_json("\xe2\x82" "ab", "\"\\udce2\\udc82ab\"");
	/* Latin-1 name: each high byte escaped, ASCII kept. */
	check_json("caf\xe9.txt", "\"caf\\udce9.txt\"");
}
END_TEST

/* A report (the library's, opaque to the program) that says RES: the
 * tests reach into the library's layout to make one. */
static const struct sc_copy_report *rep_of(const struct sc_copy_result *res)
{
	static struct sc_copy_report r[4];
	static int i;

	i = (i + 1) % 4;
	r[i] = (struct sc_copy_report){ .res = *res,
					.flags = SC_REPORT_COPIED |
						 (res->holes ? SC_REPORT_HOLES :
						  0) };
	return &r[i];
}

/* -v chain. */
static char *chain(const struct sc_copy_result *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	sc_report_chain(f, rep_of(res));
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static void check_chain(const struct sc_copy_result *res, const char *want)
{
	char *got = chain(res);

	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_chain_single_road)
{
	struct sc_copy_result res = {
		.attempt = { { SC_ROAD_RANGE, 0, 4096 } }, .n_attempts = 1,
	};

	check_chain(&res, "copy_file_range");
	res.n_attempts = 0;
	check_chain(&res, "");
}
END_TEST

START_TEST(test_chain_fallback)
{
	struct sc_copy_result res = {
		.attempt = {
			{ SC_ROAD_RANGE, -EXDEV, 0 },
			{ SC_ROAD_RW, 0, 4096 },
		},
		.n_attempts = 2,
	};

	check_chain(&res, "copy_file_range: EXDEV \u2192 read_write");

	res.attempt[0] = (struct sc_attempt){ SC_ROAD_CLONE, -EOPNOTSUPP, 0 };
	res.attempt[1] = (struct sc_attempt){ SC_ROAD_RANGE, -EXDEV, 0 };
	res.attempt[2] = (struct sc_attempt){ SC_ROAD_SPLICE, 0, 10 };
	res.n_attempts = 3;
	check_chain(&res, "clone: EOPNOTSUPP \u2192 copy_file_range: EXDEV "
		    "\u2192 splice");
}
END_TEST

/* The 5.3-5.18 silent zero: copy_file_range said 0 though a read found
 * data, and read_write went on. */
START_TEST(test_chain_zero_before_end)
{
	struct sc_copy_result res = {
		.attempt = {
			{ SC_ROAD_RANGE, SC_ERR_ZERO, 0 },
			{ SC_ROAD_RW, 0, 23 },
		},
		.n_attempts = 2,
	};

	check_chain(&res, "copy_file_range: 0 before end \u2192 read_write");
}
END_TEST

/* A failure at the end of the chain names the errno. */
START_TEST(test_chain_failure)
{
	struct sc_copy_result res = {
		.attempt = {
			{ SC_ROAD_CLONE, -ENOTTY, 0 },
			{ SC_ROAD_RW, -ENOSPC, 8192 },
		},
		.n_attempts = 2,
	};

	check_chain(&res, "clone: ENOTTY \u2192 read_write: ENOSPC");
}
END_TEST

/* --json: one object per line whatever the names hold, with the plan,
 * the skip reasons and the roads tried. */
START_TEST(test_json_record_one_line)
{
	static const struct sc_fs_facts proc_fs = {
		.mnt_id = 23, .type = "proc", .identity = "dev:0:21",
		.cls = SC_FS_GENERATED, .can_clone = SC_NO,
	};
	static const struct sc_fs_facts ext4_fs = {
		.mnt_id = 22, .type = "ext4", .identity = "uuid:x",
		.cls = SC_FS_LOCAL, .can_clone = SC_NO,
	};
	struct sc_plan_input in = {
		.src_fs = &proc_fs, .dst_fs = &ext4_fs,
		.src_mode = S_IFREG, .dst_mode = S_IFREG,
		.kernel = { 6, 1 }, .roads = SC_ROADMASK_ALL,
	};
	struct sc_record rec = {
		.src = "/proc/a\nb\"q", .dst = "out\xff", .kind = SC_KIND_FILE,
		.src_fs = &proc_fs, .dst_fs = &ext4_fs, .planned = true,
		.copied = true,
	};
	struct sc_copy_result res = {
		.attempt = { { SC_ROAD_RW, 0, 23 } }, .n_attempts = 1,
		.bytes = 23, .size = 23,
		.road_bytes = { [SC_ROAD_RW] = 23 },
	};
	struct sc_plan plan;
	struct sc_report *rep = NULL;
	FILE *tmp = tmpfile();
	char line[4096];
	int saved;
	size_t n;

	ck_assert_ptr_nonnull(tmp);
	sc_plan_make(&in, &plan);
	rec.plan = &plan;
	rec.res = rep_of(&res);
	ck_assert_int_eq(sc_report_new(REPORT_JSON, &rep), 0);
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(tmp), 1);
	sc_report_record(rep, &rec, NULL);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	sc_report_free(rep);

	rewind(tmp);
	n = fread(line, 1, sizeof(line) - 1, tmp);
	fclose(tmp);
	line[n] = '\0';
	ck_assert_uint_gt(n, 0);
	ck_assert_msg(strchr(line, '\n') == line + n - 1, "not one line: %s",
		      line);
	ck_assert_msg(line[0] == '{' && line[n - 2] == '}', "%s", line);
	ck_assert_ptr_nonnull(strstr(line,
				     "\"source\":\"/proc/a\\nb\\\"q\""));
	ck_assert_ptr_nonnull(strstr(line, "\"destination\":\"out\\udcff\""));
	ck_assert_ptr_nonnull(strstr(line, "\"plan\":[\"read_write\"]"));
	ck_assert_ptr_nonnull(strstr(line, "{\"road\":\"clone\",\"reason\":"));
	ck_assert_ptr_nonnull(strstr(line, "\"road\":\"read_write\""));
	ck_assert_ptr_nonnull(strstr(line, "\"bytes\":23"));
	ck_assert_ptr_nonnull(strstr(line, "\"status\":\"ok\""));
}
END_TEST

/* Messages: a thread's streams, as a -j slot gives them, in memory. */
struct captured {
	char *out_buf, *err_buf;
	size_t out_len, err_len;
	FILE *out, *err;
};

static void captured_streams(void *arg, FILE **out, FILE **err)
{
	struct captured *c = arg;

	*out = c->out;
	*err = c->err;
}

static void capture(struct captured *c, struct sc_msgs *m)
{
	memset(c, 0, sizeof(*c));
	c->out = open_memstream(&c->out_buf, &c->out_len);
	c->err = open_memstream(&c->err_buf, &c->err_len);
	ck_assert_ptr_nonnull(c->out);
	ck_assert_ptr_nonnull(c->err);
	*m = (struct sc_msgs){ .streams = captured_streams, .arg = c };
}

static void release(struct captured *c)
{
	fclose(c->out);
	fclose(c->err);
	free(c->out_buf);
	free(c->err_buf);
}

START_TEST(test_error_fails_the_entry)
{
	struct captured c;
	struct sc_msgs m;

	capture(&c, &m);
	ck_assert_int_eq(sc_report_fail(&m, SC_FAIL_STAT, ENOENT, "x", NULL),
			 -ENOENT);
	fflush(c.err);
	ck_assert_str_eq(c.err_buf,
			 "smartcp: cannot stat 'x': No such file or directory\n");
	ck_assert(m.failed);
	ck_assert_int_eq(m.last_errno, ENOENT);
	ck_assert_int_eq(sc_report_code(&m), -ENOENT);
	ck_assert_uint_eq(c.out_len, 0);
	release(&c);
}
END_TEST

START_TEST(test_warning_leaves_the_entry)
{
	struct captured c;
	struct sc_msgs m;

	capture(&c, &m);
	sc_report_warn(&m, SC_WARN_FILE_TWICE, 0, "f", NULL);
	fflush(c.err);
	ck_assert_str_eq(c.err_buf,
			 "smartcp: warning: source file 'f' specified more than once\n");
	ck_assert(!m.failed);
	ck_assert_int_eq(m.last_errno, 0);
	ck_assert_int_eq(m.code, 0);
	release(&c);
}
END_TEST

START_TEST(test_verbose_lines_go_to_out)
{
	struct captured c;
	struct sc_msgs m;

	capture(&c, &m);
	sc_report_cp_line(&m, "a", "b", NULL);
	sc_report_cp_line(&m, "a", "b", "b~");
	sc_report_removed(&m, "b");
	sc_report_skipped(&m, "c");
	sc_report_parent_made(&m, "d/e", "t/d/e", false);
	sc_report_parent_made(&m, "d/\033x", "t/d/\033x", true);
	fflush(c.out);
	ck_assert_str_eq(c.out_buf,
			 "'a' -> 'b'\n"
			 "'a' -> 'b' (backup: 'b~')\n"
			 "removed 'b'\n"
			 "skipped 'c'\n"
			 "d/e -> t/d/e\n"
			 "'d/'$'\\033''x' -> 't/d/'$'\\033''x'\n");
	ck_assert_uint_eq(c.err_len, 0);
	release(&c);
}
END_TEST

/* A record's JSON object, as sc_report_record() prints it. */
static char *json_of(const struct sc_record *rec)
{
	struct sc_report *rep = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(sc_report_new(REPORT_JSON, &rep), 0);
	sc_report_record(rep, rec, f);
	sc_report_free(rep);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

/* A copy that failed: "tried" ends with the road that met the error
 * and the bytes it delivered; no road finished the file. */
START_TEST(test_json_failed_copy)
{
	struct sc_copy_result res = {
		.attempt = { { SC_ROAD_SPLICE, -ENOSPC, 2097152 } },
		.n_attempts = 1, .bytes = 2097152, .size = 2097152,
		.road_bytes = { [SC_ROAD_SPLICE] = 2097152 },
		.err = -ENOSPC, .side = SC_SIDE_WRITE,
	};
	struct sc_record rec = {
		.src = "a", .dst = "b", .kind = SC_KIND_FILE, .copied = true,
		.res = rep_of(&res),
		.err = -ENOSPC, .failure = "write",
	};
	char *j = json_of(&rec);

	ck_assert_ptr_nonnull(strstr(j, "\"tried\":[{\"road\":\"splice\","
				     "\"result\":\"ENOSPC\",\"bytes\":2097152}]"));
	ck_assert_ptr_nonnull(strstr(j, "\"roads\":[\"splice\"],\"road\":null,"
				     "\"bytes\":2097152"));
	ck_assert_ptr_nonnull(strstr(j, "\"status\":\"failed\","
				     "\"error\":\"ENOSPC\",\"failed\":\"write\"}"));
	free(j);
}
END_TEST

/* The step each failure names, and its text. */
START_TEST(test_step_of_messages)
{
	ck_assert_str_eq(sc_report_fail_step(SC_FAIL_OPEN_READ), "open");
	ck_assert_str_eq(sc_report_fail_step(SC_FAIL_MKFIFO), "mknod");
	ck_assert_str_eq(sc_report_fail_step(SC_FAIL_MKNOD), "mknod");
	ck_assert_str_eq(sc_report_fail_step(SC_FAIL_SAME_FILE), "same-file");
	ck_assert_str_eq(sc_report_fail_step(SC_FAIL_OMIT_DIR), "omitted");
	ck_assert_str_eq(sc_report_fail_step(SC_FAIL_NOT_REPLACING),
			 "not-replaced");
	ck_assert_str_eq(sc_report_fail_step(SC_FAIL_ACCESS), "read");
	ck_assert_str_eq(sc_report_fail_step(SC_FAIL_MKDIR), "mkdir");
	ck_assert_str_eq(sc_report_fail_text(SC_FAIL_MKDIR),
			 "cannot create directory %s");
	ck_assert_ptr_null(sc_report_fail_step(SC_WARN_FILE_TWICE));
	ck_assert_ptr_null(sc_report_fail_step(SC_FAIL__COUNT));
	ck_assert_ptr_null(sc_report_fail_text(SC_FAIL__COUNT));
}
END_TEST

/* Every failure has its text, and the text takes what its shape
 * passes: as many conversions as names, all of them %s but the byte
 * offset's. */
START_TEST(test_every_failure_has_its_text)
{
	for (int i = 0; i < SC_FAIL__COUNT; i++) {
		const char *t = sc_report_fail_text((enum sc_fail)i);

		ck_assert_msg(t != NULL, "failure %d has no text", i);
		ck_assert_ptr_null(strstr(t, "\n"));
		for (const char *p = t; (p = strchr(p, '%')); p++) {
			p++;
			ck_assert_msg(*p == 's' || !strncmp(p, "lld", 3),
				      "failure %d: %s", i, t);
		}
	}
}
END_TEST

/* A failure without an errno stands for its own, for the caller to
 * return; each message quotes as cp quotes it there. */
START_TEST(test_failure_codes_and_quoting)
{
	struct captured c;
	struct sc_msgs m;

	capture(&c, &m);
	ck_assert_int_eq(sc_report_fail(&m, SC_FAIL_OMIT_DIR, 0, "d", NULL),
			 -EISDIR);
	ck_assert_int_eq(sc_report_code(&m), -EISDIR);
	ck_assert_int_eq(sc_report_fail(&m, SC_FAIL_SAME_FILE, 0, "a b", "c"),
			 -EINVAL);
	ck_assert_int_eq(sc_report_code(&m), -EISDIR);	/* the first's */
	sc_report_fail(&m, SC_FAIL_SYMLINK_HERE, 0, "l", NULL);
	sc_report_fail_at(&m, SC_FAIL_DIFFERS, 0, "b", "a", 4096);
	sc_report_fail(&m, SC_FAIL_MEMORY, ENOMEM, "x", NULL);
	sc_report_fail(&m, SC_FAIL_CHANGED, 0, "f", "size 1 -> 2");
	fflush(c.err);
	ck_assert_str_eq(c.err_buf,
			 "smartcp: -r not specified; omitting directory 'd'\n"
			 "smartcp: 'a b' and 'c' are the same file\n"
			 "smartcp: l: can make relative symbolic links only in current directory\n"
			 "smartcp: 'b' differs from 'a' at byte 4096, also after copying again\n"
			 "smartcp: 'x': Cannot allocate memory\n"
			 "smartcp: 'f' changed while it was copied: size 1 -> 2\n");
	ck_assert_str_eq(m.step, "omitted");
	sc_report_begin(&m);
	ck_assert_int_eq(m.code, 0);
	ck_assert_int_eq(sc_report_code(&m), -EIO);
	release(&c);
}
END_TEST

/* The first error said about an entry names the step and the errno; a
 * warning's step stands only until an error is said; a new entry starts
 * afresh. */
START_TEST(test_first_error_names_the_step)
{
	struct captured c;
	struct sc_msgs m;

	capture(&c, &m);
	sc_report_warn(&m, SC_FAIL_KEEP_TIMES, EPERM, "x", NULL);
	ck_assert(!m.failed);
	ck_assert_str_eq(m.step, "attributes");
	sc_report_fail(&m, SC_FAIL_OPEN_READ, EACCES, "x", NULL);
	sc_report_fail(&m, SC_FAIL_WRITE, EIO, "y", NULL);
	ck_assert_str_eq(m.step, "open");
	ck_assert_int_eq(m.step_errno, EACCES);
	ck_assert_int_eq(m.last_errno, EIO);
	sc_report_begin(&m);
	ck_assert(!m.failed);
	ck_assert_ptr_null(m.step);
	ck_assert_int_eq(m.recorded, 0);
	ck_assert_ptr_eq(m.arg, &c);	/* its streams stay */
	release(&c);
}
END_TEST

/* A failure with no errno: failed, with its step, and no "error". */
START_TEST(test_json_failure_without_errno)
{
	struct sc_record rec = { .src = "f", .dst = "f", .kind = SC_KIND_FILE };
	struct captured c;
	struct sc_msgs m;
	char *j;

	capture(&c, &m);
	sc_report_fail(&m, SC_FAIL_SAME_FILE, 0, "f", "f");
	sc_report_failure(&m, &rec);
	ck_assert_int_eq(m.recorded, 2);
	j = json_of(&rec);
	ck_assert_ptr_nonnull(strstr(j, "\"status\":\"failed\","
				     "\"failed\":\"same-file\"}"));
	ck_assert_ptr_null(strstr(j, "\"error\""));
	free(j);
	release(&c);
}
END_TEST

/* A record made after an error was said about its entry (an attribute
 * of a symlink that was not kept) is a failed one, with the step and
 * errno said; one made before (a directory, when it was made) is ok. */
START_TEST(test_json_failure_from_messages)
{
	struct sc_record dir = { .src = "d", .dst = "e", .kind = SC_KIND_DIR };
	struct sc_record link = { .src = "l", .dst = "m",
				  .kind = SC_KIND_SYMLINK };
	struct captured c;
	struct sc_msgs m;
	char *j;

	capture(&c, &m);
	sc_report_failure(&m, &dir);
	ck_assert_int_eq(m.recorded, 1);
	j = json_of(&dir);
	ck_assert_ptr_nonnull(strstr(j, "\"status\":\"ok\"}"));
	free(j);
	sc_report_begin(&m);
	sc_report_fail(&m, SC_FAIL_OWNER, EPERM, "m", NULL);
	sc_report_failure(&m, &link);
	j = json_of(&link);
	ck_assert_ptr_nonnull(strstr(j, "\"type\":\"symlink\""));
	ck_assert_ptr_nonnull(strstr(j, "\"status\":\"failed\",\"error\":\"EPERM\","
				     "\"failed\":\"attributes\"}"));
	free(j);
	release(&c);
}
END_TEST

/* -j, where stdout and stderr keep one order: the runs of a job's
 * output come out each on its stream, in the order they were written. */
START_TEST(test_buffered_runs_keep_order)
{
	static const struct sc_tree_run runs[] = {
		{ 3, false }, { 7, true }, { 9, false }, { 12, true },
	};
	FILE *tmp = tmpfile(), *other = tmpfile();
	int out, err;
	char buf[64];
	size_t n;

	ck_assert_ptr_nonnull(tmp);
	ck_assert_ptr_nonnull(other);
	fflush(stdout);
	fflush(stderr);
	out = dup(1);
	err = dup(2);
	dup2(fileno(tmp), 1);
	dup2(fileno(tmp), 2);
	ck_assert(sc_report_interleave(false));
	sc_report_buffered_runs("-> ERR\n->E!\n", runs, 4);
	fflush(stdout);
	dup2(fileno(other), 2);
	ck_assert(!sc_report_interleave(false));
	ck_assert(sc_report_interleave(true));
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "-> ERR\n->E!\n");
	fclose(tmp);
	fclose(other);
}
END_TEST

START_TEST(test_mode_letters_as_ls)
{
	char s[10];

	sc_report_mode_letters(0644, s);
	ck_assert_str_eq(s, "rw-r--r--");
	sc_report_mode_letters(04755, s);
	ck_assert_str_eq(s, "rwsr-xr-x");
	sc_report_mode_letters(02644, s);
	ck_assert_str_eq(s, "rw-r-Sr--");
	sc_report_mode_letters(01777, s);
	ck_assert_str_eq(s, "rwxrwxrwt");
	sc_report_mode_letters(01000, s);
	ck_assert_str_eq(s, "--------T");
}
END_TEST

static void tcase(Suite *s, const char *name, const TTest *test)
{
	TCase *tc = tcase_create(name);

	tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
}

Suite *report_suite(void)
{
	Suite *s = suite_create("report");

	tcase(s, "json_ascii", test_json_ascii);
	tcase(s, "json_quote_and_backslash", test_json_quote_and_backslash);
	tcase(s, "json_control_bytes", test_json_control_bytes);
	tcase(s, "json_utf8_kept", test_json_utf8_kept);
	tcase(s, "json_invalid_utf8", test_json_invalid_utf8);
	tcase(s, "chain_single_road", test_chain_single_road);
	tcase(s, "chain_fallback", test_chain_fallback);
	tcase(s, "chain_zero_before_end", test_chain_zero_before_end);
	tcase(s, "chain_failure", test_chain_failure);
	tcase(s, "json_record_one_line", test_json_record_one_line);
	tcase(s, "error_fails_the_entry", test_error_fails_the_entry);
	tcase(s, "warning_leaves_the_entry", test_warning_leaves_the_entry);
	tcase(s, "verbose_lines_go_to_out", test_verbose_lines_go_to_out);
	tcase(s, "mode_letters_as_ls", test_mode_letters_as_ls);
	tcase(s, "json_failed_copy", test_json_failed_copy);
	tcase(s, "step_of_messages", test_step_of_messages);
	tcase(s, "every_failure_has_its_text", test_every_failure_has_its_text);
	tcase(s, "failure_codes_and_quoting", test_failure_codes_and_quoting);
	tcase(s, "first_error_names_the_step", test_first_error_names_the_step);
	tcase(s, "json_failure_without_errno", test_json_failure_without_errno);
	tcase(s, "json_failure_from_messages", test_json_failure_from_messages);
	tcase(s, "buffered_runs_keep_order", test_buffered_runs_keep_order);
	return s;
}
