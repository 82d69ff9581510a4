/* An example of libsmartcp: copies /proc/cpuinfo and FILE into DIR, says
 * which road each copy took and why the others were left out, and checks
 * the bytes.  It needs nothing but the installed library:
 *
 *   cc -o example example.c $(pkg-config --cflags --libs smartcp)
 *   ./example notes.txt /mnt/usb
 *
 * /proc/cpuinfo says its size is 0: the library reads it to its end and,
 * with verify, checks the copy against the bytes it read (the file may
 * read differently a second time).  FILE is copied through descriptors
 * and compared with sc_copier_verify_fd.  Exit status 0 when both copies
 * hold the right bytes. */
#include <smartcp/smartcp.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void show(const char *src, const char *dst,
		 const struct sc_copy_report *rep)
{
	const struct sc_copy_result *res = &rep->result;
	const char *sep = "";

	printf("%s -> %s\n", src, dst);
	if (rep->src_fs && rep->dst_fs)
		printf("  from: %s (%s)  to: %s (%s)\n", rep->src_fs->type,
		       sc_fs_class_name(rep->src_fs->class), rep->dst_fs->type,
		       sc_fs_class_name(rep->dst_fs->class));
	printf("  plan:");
	for (int r = 0; r < SC_ROAD__MAX; r++)
		if (rep->plan.step[r].use)
			printf(" %s", sc_road_name(r));
	printf("\n  skipped:");
	for (int r = 0; r < SC_ROAD__MAX; r++)
		if (!rep->plan.step[r].use) {
			printf("%s %s (%s)", sep, sc_road_name(r),
			       rep->plan.step[r].why ? rep->plan.step[r].why : "?");
			sep = ",";
		}
	/* The road chain: every road tried, with the error that made it
	 * hand over to the next. */
	printf("\n  roads: ");
	for (int i = 0; i < res->n_attempts; i++) {
		const struct sc_attempt *a = &res->attempt[i];

		printf("%s%s", i ? " -> " : "", sc_road_name(a->road));
		if (a->err == SC_ERR_ZERO)
			printf(": returned 0 early");
		else if (a->err < 0)
			printf(": %s", strerror(-a->err));
	}
	printf("\n  bytes: %llu, size: %lld, verified: %s\n",
	       (unsigned long long)res->bytes, (long long)res->size,
	       rep->verified ? "yes" : "no");
}

int main(int argc, char **argv)
{
	struct sc_copy_options opts = { .verify = true };
	struct sc_copy_report rep;
	struct sc_copier *c, *plain;
	char cpuinfo[4096], copy[4096];
	const char *base;
	int e, in, out, status = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FILE DIR\n", argv[0]);
		return 2;
	}
	printf("libsmartcp %s\n", sc_version());
	sc_init();
	if ((e = sc_copier_new(&opts, &c)) < 0 ||
	    (e = sc_copier_new(NULL, &plain)) < 0) {
		fprintf(stderr, "sc_copier_new: %s\n", strerror(-e));
		return 1;
	}

	/* 1. A generated file, by path: atomic, verified. */
	snprintf(cpuinfo, sizeof(cpuinfo), "%s/cpuinfo", argv[2]);
	e = sc_copier_copy_path(c, "/proc/cpuinfo", cpuinfo, &rep);
	show("/proc/cpuinfo", cpuinfo, &rep);
	if (e < 0 || rep.verified != 1 || rep.result.bytes == 0) {
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
	e = sc_copier_copy_fd(plain, in, out, &rep);
	show(argv[1], copy, &rep);
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
	sc_copier_free(plain);
	sc_copier_free(c);
	return status;
}
