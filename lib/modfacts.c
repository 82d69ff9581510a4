/* The module behind a filesystem, where known-bad stacks (stacks.h) name
 * its version: OpenZFS's /sys/module/zfs/version and the parameters the
 * rows name (zfs_bclone_enabled...).  Read only for a filesystem type
 * that such rows are about, once per filesystem (the facts are cached),
 * so that a copy between other filesystems pays nothing for it; or
 * taken from what --assume-fs says after '@'. */
#include "common.h"
#include "fsinfo.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The first line of the small file PATH into BUF, without its newline.
 * Its length, or -errno. */
static ssize_t read_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return (ssize_t)strlen(buf);
}

/* TEXT as a whole decimal number (a module parameter) into *RET. */
static bool parse_long(const char *text, long *ret)
{
	char *end;

	errno = 0;
	*ret = strtol(text, &end, 10);
	return end != text && !*end && !errno;
}

/* Appends ",NAME=VALUE" to F's module text; false when it does not fit. */
static bool add_param(struct sc_fs_facts *f, int i, long value)
{
	size_t len = strlen(f->module);
	int w = snprintf(f->module + len, sizeof(f->module) - len, ",%s=%ld",
			 stacks_params[i], value);

	f->param[i] = value;
	f->params_known |= 1u << i;
	return w > 0 && (size_t)w < sizeof(f->module) - len;
}

void module_facts_read(struct sc_fs_facts *f)
{
	const char *mod, *root;
	char path[PATH_MAX], buf[sizeof(f->module)];

	f->stacks = stacks_for_type(f->type);
	mod = f->stacks ? stacks_module_of(f->type) : NULL;
	if (!mod)
		return;
	/* For tests: a directory that stands in for /sys/module */
	root = secure_getenv("SMARTCP_SYS_MODULE");
	if (!root || !*root)
		root = "/sys/module";
	snprintf(path, sizeof(path), "%s/%s/version", root, mod);
	if (read_line(path, buf, sizeof(buf)) <= 0 ||
	    stacks_parse_version(buf, &f->modver) < 0)
		return;		/* unknown: rows about it may hold */
	f->module_known = true;
	snprintf(f->module, sizeof(f->module), "%s", buf);
	for (size_t i = 0; i < stacks_params_count; i++) {
		long v;

		if (strcmp(stacks_param_module[i], mod))
			continue;
		snprintf(path, sizeof(path), "%s/%s/parameters/%s", root, mod,
			 stacks_params[i]);
		/* a parameter this version does not have keeps its row's
		 * default */
		if (read_line(path, buf, sizeof(buf)) > 0 &&
		    parse_long(buf, &v))
			add_param(f, (int)i, v);
	}
}

int module_facts_assume(struct sc_fs_facts *f, const char *spec)
{
	const char *mod = stacks_module_of(f->type);
	char buf[sizeof(f->module)], *p, *next;
	size_t len = strcspn(spec, ",");

	if (strlen(spec) >= sizeof(buf))
		return -ENAMETOOLONG;
	/* the version as the module would say it: "2.2.0", "2.2.2-1" */
	memcpy(buf, spec, len);
	buf[len] = '\0';
	if (!len || strpbrk(buf, " \t\n") ||
	    stacks_parse_version(buf, &f->modver) < 0)
		return -EINVAL;
	f->module_known = true;
	snprintf(f->module, sizeof(f->module), "%s", buf);
	strcpy(buf, spec);
	for (p = spec[len] ? buf + len + 1 : NULL; p; p = next) {
		char *eq = strchr(p, '=');
		int i;
		long v;

		next = strchr(p, ',');
		if (next)
			*next++ = '\0';
		if (!eq)
			return -EINVAL;
		*eq = '\0';
		i = stacks_param_index(p);
		/* only parameters of this type's module, which rows name */
		if (i < 0 || !mod || strcmp(stacks_param_module[i], mod))
			return -ENOENT;
		if (!parse_long(eq + 1, &v))
			return -EINVAL;
		add_param(f, i, v);
	}
	return 0;
}

const char *sc_fs_facts_module(const struct sc_fs_facts *f)
{
	return f ? f->module : "";
}
