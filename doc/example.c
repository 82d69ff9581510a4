/* An example of libsmartcp: copies /proc/cpuinfo and FILE into DIR, says
 * which road each copy took and why the others were left out, and checks
 * the bytes.  It needs nothing but the installed library:
 *
 *   cc -o example example.c $(pkg-config --cflags --libs smartcp)
 *   ./example notes.txt /mnt/usb
 *
 * /proc/cpuinfo says its size is 0: the library reads it to its end and,
 * with SC_COPY_VERIFY, checks the copy against the bytes it read (the
 * file may read differently a second time).  FILE is copied through
 * descriptors and compared with sc_copier_verify_fd.  Exit status 0 when
 * both copies hold the right bytes. */
#include <smartcp/smartcp.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void show(const char *src, const char *dst,
		 const struct sc_copy_report *rep)
{
	const struct sc_fs_facts *from = sc_copy_report_src_fs(rep);
	const struct sc_fs_facts *to = sc_copy_report_dst_fs(rep);
	const struct sc_plan *plan = sc_copy_report_plan(rep);
	const char *sep = "";

	printf("%s -> %s\n", src, dst);
	if (from && to)
		printf("  from: %s (%s)  to: %s (%s)\n", sc_fs_facts_type(from),
		       sc_fs_class_name(sc_fs_facts_class(from)),
		       sc_fs_facts_type(to),
		       sc_fs_class_name(sc_fs_facts_class(to)));
	/* The roads: size nothing by today's four (more may come). */
	printf("  plan:");
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (sc_plan_use(plan, (enum sc_road)r))
			printf(" %s (%s)", sc_road_name((enum sc_road)r),
			       sc_plan_why(plan, (enum sc_road)r));
	printf("\n  skipped:");
	for (unsigned r = 0; r < sc_road_count(); r++)
		if (plan && !sc_plan_use(plan, (enum sc_road)r)) {
			printf("%s %s (%s)", sep, sc_road_name((enum sc_road)r),
			       sc_plan_why(plan, (enum sc_road)r));
			sep = ",";
		}
	/* The road chain: every road tried, with the error that made it
	 * hand over to the next. */
	printf("\n  roads: ");
	for (unsigned i = 0; i < sc_copy_report_attempts(rep); i++) {
		enum sc_road road;
		uint64_t bytes;
		int err;

		sc_copy_report_attempt(rep, i, &road, &err, &bytes);
		printf("%s%s", i ? " -> " : "", sc_road_name(road));
		if (err == SC_ERR_ZERO)
			printf(": returned 0 early");
		else if (err < 0)
			printf(": %s", strerror(-err));
	}
	printf("\n  bytes: %llu, size: %lld, verified: %s\n",
	       (unsigned long long)sc_copy_report_bytes(rep),
	       (long long)sc_copy_report_size(rep),
	       sc_copy_report_verify(rep, NULL) == SC_VERIFIED_OK ? "yes" :
	       "no");
}

int main(int argc, char **argv)
{
	struct sc_copy_report *rep;
	struct sc_copier *c, *plain;
	char cpuinfo[4096], copy[4096];
	const char *base;
	int e, in, out, status = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FILE DIR\n", argv[0]);
		return 2;
	}
	printf("libsmartcp %s (API %d)\n", sc_version(), sc_api_version());
	if ((e = sc_copier_new(SC_COPY_VERIFY, &c)) < 0 ||
	    (e = sc_copier_new(0, &plain)) < 0 ||
	    (e = sc_copy_report_new(&rep)) < 0) {
		fprintf(stderr, "libsmartcp: %s\n", strerror(-e));
		return 1;
	}

	/* 1. A generated file, by path: atomic, verified. */
	snprintf(cpuinfo, sizeof(cpuinfo), "%s/cpuinfo", argv[2]);
	e = sc_copier_copy_path(c, "/proc/cpuinfo", cpuinfo, rep);
	show("/proc/cpuinfo", cpuinfo, rep);
	if (e < 0 || sc_copy_report_verify(rep, NULL) != SC_VERIFIED_OK ||
	    sc_copy_report_bytes(rep) == 0) {
		fprintf(stderr, "copying /proc/cpuinfo: %s\n",
			e < 0 ? strerror(-e) : "not verified");
		status = 1;
	}

	/* 2. A file, by descriptors, with the default options; then its
	 * bytes are compared. */
	base = strrchr(argv[1], '/');
	snprintf(copy, sizeof(copy), "%s/%s", argv[2],
		 base ? base + 1 : argv[1]);
	in = open(argv[1], O_RDONLY | O_CLOEXEC);
	out = open(copy, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (in < 0 || out < 0) {
		perror(in < 0 ? argv[1] : copy);
		return 1;
	}
	e = sc_copier_copy_fd(plain, in, out, rep);
	show(argv[1], copy, rep);
	if (e < 0) {
		fprintf(stderr, "copying %s: %s\n", argv[1], strerror(-e));
		status = 1;
	} else if ((e = sc_copier_verify_fd(plain, in, out, NULL)) != 1) {
		fprintf(stderr, "%s: %s\n", copy,
			e < 0 ? strerror(-e) : "differs from the source");
		status = 1;
	} else {
		printf("  check: same bytes\n");
	}
	close(in);
	close(out);
	sc_copy_report_free(rep);
	sc_copier_free(plain);
	sc_copier_free(c);
	return status;
}
