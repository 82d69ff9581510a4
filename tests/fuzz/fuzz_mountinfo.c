/* libFuzzer target: fsinfo's mountinfo handling.
 *
 * The input is written to a private, unlinked temporary file and handed to
 * sc_fsinfo_new() as the mountinfo to parse (through libmount), then
 * looked up with sc_fsinfo_lookup_values() by the mount ids and MAJ:MIN
 * numbers found at the start of its lines, by devices no line names, and
 * with statfs magics that name generated filesystems.  The facts must be
 * sane, stable and printable (sc_quote, sc_json_string), and everything
 * must be freed by sc_fsinfo_free() (LeakSanitizer checks). */
#include <config.h>

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fsinfo.h"
#include "fuzz_common.h"

const char *sc_program_name = "smartcp";

#define MAX_LOOKUPS 24

static char path[64];
static int fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char name[4096];

	(void)argc;
	(void)argv;
	fz_locales_init();
	setlocale(LC_ALL, "C");
	/* unlinked at once, and read back through /proc/self/fd: nothing is
	 * left behind, however the fuzzer ends */
	snprintf(name, sizeof(name), "%s/smartcp-fuzz-mountinfo.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	fd = mkostemp(name, O_CLOEXEC);
	if (fd < 0) {
		perror("fuzz_mountinfo: mkstemp");
		exit(2);
	}
	unlink(name);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

struct lookup {
	dev_t dev;
	int mnt_id;
	unsigned long magic;
	const struct sc_fs_facts *f;
};

static void check_facts(const struct sc_fs_facts *f, const struct lookup *l,
			size_t small)
{
	if (!f)
		FZ_FAIL("sc_fsinfo_lookup_values returned NULL");
	if (!memchr(f->type, '\0', sizeof(f->type)))
		FZ_FAIL("type not NUL-terminated");
	if (!memchr(f->identity, '\0', sizeof(f->identity)))
		FZ_FAIL("identity not NUL-terminated");
	if ((unsigned)f->cls > SC_FS_OVERLAY)
		FZ_FAIL("class %d out of range", (int)f->cls);
	if ((unsigned)f->can_clone > SC_YES)
		FZ_FAIL("can_clone %d out of range", (int)f->can_clone);
	if (!sc_fs_class_name(f->cls))
		FZ_FAIL("no class name");
	if (f->dev != l->dev)
		FZ_FAIL("facts for another device");
	/* what --json and --explain print of them; quoting has its own
	 * target, so one locale is enough here */
	fz_check_json(f->type);
	fz_check_json(f->identity);
	if (f->options)
		fz_check_json(f->options);
	uselocale(fz_loc_utf8);
	if (f->target) {
		fz_check_json(f->target);
		fz_check_quote(f->target, true, small);
	}
	if (f->source) {
		fz_check_json(f->source);
		fz_check_quote(f->source, true, small);
	}
	uselocale(LC_GLOBAL_LOCALE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned long magics[] = {
		0x9fa0,		/* proc */
		0x62656572,	/* sysfs */
		0x74726163,	/* tracefs */
		0x01021994,	/* tmpfs */
		0x9123683e,	/* btrfs */
		0,
	};
	struct lookup l[MAX_LOOKUPS];
	struct sc_fsinfo *fsi = NULL;
	size_t n = 0, i = 0, small;
	unsigned k;

	if (ftruncate(fd, 0) != 0 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror("fuzz_mountinfo: write");
		abort();
	}
	if (sc_fsinfo_new(path, &fsi) != 0 || !fsi)
		FZ_FAIL("sc_fsinfo_new failed");

	/* "ID PARENT MAJ:MIN ..." from the first lines: each line looked up
	 * by its mount id (on a device no line names) and by its device */
	while (i < size && n + 2 <= MAX_LOOKUPS - 4) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (data + i)) : size - i;
		char line[128];
		int id, parent;
		unsigned maj, min;

		len = len < sizeof(line) - 1 ? len : sizeof(line) - 1;
		memcpy(line, data + i, len);
		line[len] = '\0';
		i = nl ? (size_t)(nl - data) + 1 : size;
		if (sscanf(line, "%d %d %u:%u", &id, &parent, &maj, &min) != 4)
			continue;
		l[n] = (struct lookup){ makedev(4000 + (unsigned)n, 1), id,
					0, NULL };
		n++;
		l[n] = (struct lookup){ makedev(maj, min), -1, 0, NULL };
		n++;
	}
	/* nothing matches these: the magic decides */
	for (k = 0; k < 4; k++) {
		l[n] = (struct lookup){ makedev(5000 + k, k), 1000000 + (int)k,
					magics[(size + k) % 6], NULL };
		n++;
	}

	small = size ? (size + data[0]) % 40 : 0;
	for (i = 0; i < n; i++) {
		l[i].f = sc_fsinfo_lookup_values(fsi, l[i].dev, l[i].mnt_id,
						 l[i].magic, 0x1234 + i);
		check_facts(l[i].f, &l[i], small);
	}
	/* cached per device, and the pointers stay put as the cache grows */
	for (i = 0; i < n; i++) {
		const struct sc_fs_facts *f =
			sc_fsinfo_lookup_values(fsi, l[i].dev, -1, 0, 0);
		size_t first = i;

		for (size_t j = 0; j < i; j++)
			if (l[j].dev == l[i].dev) {
				first = j;
				break;
			}
		if (f != l[first].f)
			FZ_FAIL("facts for a device moved or were rebuilt");
	}
	sc_fsinfo_free(fsi);
	return 0;
}
