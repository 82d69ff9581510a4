/* Mounts as the kernel describes them: statmount(2) for one mount
 * (Linux 6.8), the line /proc/self/mountinfo would have for it, the
 * options libmount would give for that line, and the libmount calls
 * that read a table or one line.  The facts cache (fsinfo.c) asks here;
 * nothing here keeps state. */
#include "common.h"
#include "fsinfo.h"

#include "dl.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

/* statmount(2), Linux 6.8.  glibc (2.36 here) has no wrapper and the
 * headers of older distributions no definitions: the ABI is stable, so
 * it is spelled out here.  457 on every architecture but alpha and mips,
 * whose headers define it when they know the call. */
#ifndef __NR_statmount
# if defined(__alpha__) || defined(__mips__)
#  define __NR_statmount -1
# else
#  define __NR_statmount 457
# endif
#endif

#define SM_SB_BASIC		0x0001U
#define SM_MNT_BASIC		0x0002U
#define SM_MNT_ROOT		0x0008U
#define SM_MNT_POINT		0x0010U
#define SM_FS_TYPE		0x0020U
#define SM_MNT_OPTS		0x0080U	/* Linux 6.11 */
#define SM_FS_SUBTYPE		0x0100U	/* Linux 6.13 */
#define SM_SB_SOURCE		0x0200U	/* Linux 6.13 */
#define SM_SUPPORTED_MASK	0x1000U	/* Linux 6.15 */
/* Everything a mountinfo line needs.  A kernel that cannot tell whether it
 * has them all (no supported_mask: before 6.15), or has not, is asked
 * nothing more: the whole table is the answer there. */
#define SM_WANT (SM_SB_BASIC | SM_MNT_BASIC | SM_MNT_ROOT | SM_MNT_POINT | \
		 SM_FS_TYPE | SM_MNT_OPTS | SM_FS_SUBTYPE | SM_SB_SOURCE)

struct sm_req {			/* struct mnt_id_req, first version */
	uint32_t size;
	uint32_t spare;
	uint64_t mnt_id;
	uint64_t param;
};

struct sm_reply {		/* struct statmount */
	uint32_t size;
	uint32_t mnt_opts;
	uint64_t mask;
	uint32_t sb_dev_major;
	uint32_t sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags;
	uint32_t fs_type;
	uint64_t mnt_id;
	uint64_t mnt_parent_id;
	uint32_t mnt_id_old;
	uint32_t mnt_parent_id_old;
	uint64_t mnt_attr;
	uint64_t mnt_propagation;
	uint64_t mnt_peer_group;
	uint64_t mnt_master;
	uint64_t propagate_from;
	uint32_t mnt_root;
	uint32_t mnt_point;
	uint64_t mnt_ns_id;
	uint32_t fs_subtype;
	uint32_t sb_source;
	uint32_t opt_num;
	uint32_t opt_array;
	uint32_t opt_sec_num;
	uint32_t opt_sec_array;
	uint64_t supported_mask;
	uint32_t mnt_uidmap_num;
	uint32_t mnt_uidmap;
	uint32_t mnt_gidmap_num;
	uint32_t mnt_gidmap;
	uint64_t spare2[43];
	char str[];
};

/* Flags of struct statmount's sb_flags (the kernel's SB_*, equal to the
 * MS_* of mount(2)) and mnt_attr (MOUNT_ATTR_*, as mount_setattr(2)). */
#define SM_SB_RDONLY		0x00000001U
#define SM_SB_SYNCHRONOUS	0x00000010U
#define SM_SB_DIRSYNC		0x00000080U
#define SM_SB_LAZYTIME		0x02000000U
#define SM_ATTR_RDONLY		0x00000001U
#define SM_ATTR_NOSUID		0x00000002U
#define SM_ATTR_NODEV		0x00000004U
#define SM_ATTR_NOEXEC		0x00000008U
#define SM_ATTR__ATIME		0x00000070U
#define SM_ATTR_RELATIME	0x00000000U
#define SM_ATTR_NOATIME		0x00000010U
#define SM_ATTR_NODIRATIME	0x00000080U
#define SM_ATTR_IDMAP		0x00100000U
#define SM_ATTR_NOSYMFOLLOW	0x00200000U

struct libmnt_fs *sc_mountinfo_find_id(const struct sc_libmount *lm,
					struct libmnt_table *tb, int id)
{
	struct libmnt_iter *it = lm->mnt_new_iter(MNT_ITER_BACKWARD);
	struct libmnt_fs *fs = NULL, *found = NULL;

	if (!it)
		return NULL;
	while (lm->mnt_table_next_fs(tb, it, &fs) == 0)
		if (lm->mnt_fs_get_id(fs) == id) {
			found = fs;
			break;
		}
	lm->mnt_free_iter(it);
	return found;
}

/* As the kernel writes a name into mountinfo: space, tab, newline and
 * backslash as \ooo, which libmount undoes. */
static void put_mangled(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\')
			fprintf(f, "\\%03o", (unsigned char)*s);
		else
			putc(*s, f);
	}
}

/* The per mount options of mountinfo's field 6 ("rw,nosuid,relatime"),
 * in the order of fs/proc_namespace.c's show_mountinfo(). */
static void put_mount_options(FILE *f, const struct sc_mount_fields *m)
{
	static const struct {
		uint64_t mask, value;
		const char *name;
	} flags[] = {
		{ SM_ATTR_NOSUID, SM_ATTR_NOSUID, ",nosuid" },
		{ SM_ATTR_NODEV, SM_ATTR_NODEV, ",nodev" },
		{ SM_ATTR_NOEXEC, SM_ATTR_NOEXEC, ",noexec" },
		{ SM_ATTR__ATIME, SM_ATTR_NOATIME, ",noatime" },
		{ SM_ATTR_NODIRATIME, SM_ATTR_NODIRATIME, ",nodiratime" },
		{ SM_ATTR__ATIME, SM_ATTR_RELATIME, ",relatime" },
		{ SM_ATTR_NOSYMFOLLOW, SM_ATTR_NOSYMFOLLOW, ",nosymfollow" },
		{ SM_ATTR_IDMAP, SM_ATTR_IDMAP, ",idmapped" },
	};

	fputs(m->attr & SM_ATTR_RDONLY ? "ro" : "rw", f);
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
		if ((m->attr & flags[i].mask) == flags[i].value)
			fputs(flags[i].name, f);
}

/* The superblock's options of the last field: the flags, then what the
 * filesystem's show_options wrote, escaped already as in mountinfo. */
static void put_sb_options(FILE *f, const struct sc_mount_fields *m)
{
	static const struct {
		uint32_t mask;
		const char *name;
	} flags[] = {
		{ SM_SB_SYNCHRONOUS, ",sync" },
		{ SM_SB_DIRSYNC, ",dirsync" },
		{ SM_SB_LAZYTIME, ",lazytime" },
	};

	fputs(m->sb_flags & SM_SB_RDONLY ? "ro" : "rw", f);
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
		if (m->sb_flags & flags[i].mask)
			fputs(flags[i].name, f);
	if (m->options && *m->options)
		fprintf(f, ",%s", m->options);
}

char *sc_fsinfo_mountinfo_line(const struct sc_mount_fields *m)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	if (!f)
		return NULL;
	fprintf(f, "%u %u %u:%u ", m->id, m->parent, m->dev_major,
		m->dev_minor);
	put_mangled(f, m->root);
	putc(' ', f);
	put_mangled(f, m->point);
	putc(' ', f);
	put_mount_options(f, m);
	fputs(" - ", f);
	put_mangled(f, m->type);
	if (m->subtype && *m->subtype) {
		putc('.', f);
		put_mangled(f, m->subtype);
	}
	putc(' ', f);
	put_mangled(f, m->source);
	putc(' ', f);
	put_sb_options(f, m);
	putc('\n', f);
	if (fclose(f) != 0) {
		free(line);
		return NULL;
	}
	return line;
}

/* What one of the put_*_options above writes, in a malloc'd string. */
static char *options_string(void (*put)(FILE *, const struct sc_mount_fields *),
			    const struct sc_mount_fields *m)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	put(f, m);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* Undoes the kernel's \ooo escapes in place, as libmount's unmangle()
 * does with a field of mountinfo. */
#define OCTAL(c) (((c) & ~7) == '0')
static void unmangle(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && OCTAL(s[1]) && OCTAL(s[2]) && OCTAL(s[3])) {
			*w++ = (char)(64 * (s[1] & 7) + 8 * (s[2] & 7) +
				      (s[3] & 7));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

/* Removes the first option called NAME (with or without a value) from
 * the comma-separated S; whether there was one.  Options here have no
 * quotes and no empty items (sc_mountinfo_options_plain). */
static bool remove_option(char *s, const char *name)
{
	size_t n = strlen(name);
	char *p = s;

	while (*p) {
		char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		size_t name_len = strcspn(p, "=,");

		if (name_len == n && !strncmp(p, name, n)) {
			if (end)			/* "x,NAME,y" */
				memmove(p, end + 1, strlen(end + 1) + 1);
			else if (p > s)			/* "x,NAME" */
				p[-1] = '\0';
			else				/* "NAME" */
				*p = '\0';
			return true;
		}
		p += len + (end ? 1 : 0);
	}
	return false;
}

/* Options libmount's option parser and the simple one above read alike:
 * no quotes (libmount keeps commas inside them together), no empty
 * items, no whitespace. */
bool sc_mountinfo_options_plain(const char *s)
{
	return !strpbrk(s, "\" \t\n\r\v\f") && *s != ',' &&
	       !strstr(s, ",,") && (!*s || s[strlen(s) - 1] != ',');
}

/* The options libmount gives for a mountinfo line (mnt_fs_strdup_options
 * -> merge_optstr() in libmount/src/fs.c): the per mount and the
 * superblock options joined, "rw"/"ro" of both taken out, and one put
 * first: "ro" when either side is read-only.  NULL when out of memory. */
static char *merge_options(const char *vfs, const char *sb)
{
	size_t size = strlen(vfs) + strlen(sb) + 5;
	char *res, *p;
	int rw = 0, ro = 0;

	if (!strcmp(vfs, sb))
		return strdup(vfs);
	res = malloc(size);
	if (!res)
		return NULL;
	p = res + 3;
	snprintf(p, size - 3, "%s,%s", vfs, sb);
	rw += remove_option(p, "rw");
	rw += remove_option(p, "rw");
	if (rw != 2) {
		ro += remove_option(p, "ro");
		if (ro + rw < 2)
			ro += remove_option(p, "ro");
	}
	if (!*p)
		memcpy(res, ro ? "ro" : "rw", 3);
	else
		memcpy(res, ro ? "ro," : "rw,", 3);
	return res;
}

char *sc_mountinfo_options(const struct sc_mount_fields *m)
{
	char *vfs = options_string(put_mount_options, m);
	char *sb = options_string(put_sb_options, m);
	char *res = NULL;

	if (vfs && sb) {
		unmangle(sb);
		res = merge_options(vfs, sb);
	}
	free(vfs);
	free(sb);
	return res;
}

/* The one libmount entry of LINE, in a table of its own (*RET_TB, which
 * the caller unrefs), or NULL. */
struct libmnt_fs *sc_mountinfo_parse_line(const struct sc_libmount *lm,
					  const char *line,
					  struct libmnt_table **ret_tb)
{
	struct libmnt_table *tb = lm->mnt_new_table();
	struct libmnt_fs *fs = NULL;
	FILE *f;

	*ret_tb = NULL;
	if (!tb)
		return NULL;
	f = fmemopen((void *)line, strlen(line), "r");
	/* libmount insists on a file name, only to tell whose
	 * /proc/PID/mountinfo it reads: "/" names no process and costs no
	 * system call to resolve. */
	if (f && lm->mnt_table_parse_stream(tb, f, "/") == 0 &&
	    lm->mnt_table_get_nents(tb) == 1 &&
	    lm->mnt_table_first_fs(tb, &fs) == 0) {
		*ret_tb = tb;
	} else {
		fs = NULL;
		lm->mnt_unref_table(tb);
	}
	if (f)
		fclose(f);
	return fs;
}

/* statmount(2) through libc's syscall(), so that the fault shim of the
 * tests can stand in for a kernel without it, as for the other calls. */
static int sys_statmount(uint64_t id, uint64_t mask, struct sm_reply *buf,
			 size_t size)
{
	struct sm_req req = { .size = sizeof(req), .mnt_id = id,
			      .param = mask };

	if (__NR_statmount < 0)
		return -ENOSYS;
	return syscall(__NR_statmount, &req, buf, size, 0) < 0 ? -errno : 0;
}

/* A string of REPLY that the kernel set (FLAG in its mask), else "". */
static const char *sm_str(const struct sm_reply *r, uint32_t flag,
			  uint32_t off)
{
	return (r->mask & flag) && off < r->size - sizeof(*r) ?
		r->str + off : "";
}

/* The fields of the mount whose unique ID is ID, from statmount alone:
 * no table is read.  Returns 0 with *RET (its strings point into
 * *RET_REPLY, which the caller frees), or -errno: -ENOSYS, -EPERM (a
 * seccomp filter), -EINVAL... when the kernel cannot answer (and will
 * not later), -ENOENT when the mount is not in this namespace (any
 * more), -ENODATA when a field mountinfo would show is missing (a mount
 * point outside our root: mountinfo skips those), -EOVERFLOW when its
 * strings need more than 1 MiB. */
int sc_statmount_fields(uint64_t id, struct sc_mount_fields *ret,
			struct sm_reply **ret_reply)
{
	struct sm_reply *r = NULL;
	struct sc_mount_fields m;
	size_t size = 4096;
	int e;

	for (;;) {
		struct sm_reply *n = realloc(r, size);

		if (!n) {
			free(r);
			return -ENOMEM;
		}
		r = n;
		e = sys_statmount(id, SM_WANT | SM_SUPPORTED_MASK, r, size);
		/* The strings did not fit; options can be long. */
		if (e != -EOVERFLOW || size >= (1U << 20))
			break;
		size *= 2;
	}
	if (e < 0)
		goto fail;
	e = -EINVAL;
	if (r->size < sizeof(*r) || r->size > size ||
	    !(r->mask & SM_SUPPORTED_MASK) ||
	    (r->supported_mask & SM_WANT) != SM_WANT)
		goto fail;
	/* Options and subtype are left out of the mask when empty. */
	e = -ENODATA;
	if ((r->mask & (SM_WANT & ~(SM_MNT_OPTS | SM_FS_SUBTYPE))) !=
	    (SM_WANT & ~(SM_MNT_OPTS | SM_FS_SUBTYPE)))
		goto fail;
	m = (struct sc_mount_fields){
		.id = r->mnt_id_old, .parent = r->mnt_parent_id_old,
		.dev_major = r->sb_dev_major, .dev_minor = r->sb_dev_minor,
		.sb_flags = r->sb_flags, .attr = r->mnt_attr,
		.root = sm_str(r, SM_MNT_ROOT, r->mnt_root),
		.point = sm_str(r, SM_MNT_POINT, r->mnt_point),
		.type = sm_str(r, SM_FS_TYPE, r->fs_type),
		.subtype = sm_str(r, SM_FS_SUBTYPE, r->fs_subtype),
		.source = sm_str(r, SM_SB_SOURCE, r->sb_source),
		.options = sm_str(r, SM_MNT_OPTS, r->mnt_opts),
	};
	/* mountinfo skips a mount outside the caller's root, and writes
	 * "none" for a mount made without a source: the table answers
	 * those, as before. */
	if (!*m.root || !*m.point || !*m.type || !*m.source)
		goto fail;
	*ret = m;
	*ret_reply = r;
	return 0;
fail:
	free(r);
	return e;
}

