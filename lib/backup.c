/* Backup names as GNU cp makes them (sc_backup_name()): NAME~, or
 * NAME.~N~ one above the highest N in the directory, made to fit the
 * directory's NAME_MAX.  What cp does, checked against GNU coreutils 9.1:
 *   - only NAME.~N~ with N of digits and no leading zero counts (f.~05~,
 *     f.~+4~, f.~ 3~ do not), and N is counted as text, so that no N is
 *     too large (f.~99999999999999999999~ is followed by ...00~);
 *   - a numbered or "existing" name of NAME_MAX bytes or more becomes
 *     NAME's first bytes, NAME_MAX - 2 at most, and "~" (a 251-byte name
 *     gets NAME~, as its .~1~ would be 255 bytes), but one as long as
 *     the highest backup there is kept (its .~2~ after a .~1~ of 255
 *     bytes: that length fits);
 *   - a simple name is never shortened (the rename then fails with
 *     ENAMETOOLONG, as cp's does). */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

/* The highest N of NAME.~N~ seen, as text. */
struct highest {
	char n[NAME_MAX + 2];	/* its digits, and room for one more */
	size_t len;		/* 0: none seen */
};

/* If D_NAME is BASE.~N~ (BLEN: BASE's length) with an N higher than H's,
 * H takes it. */
static void consider(struct highest *h, const char *d_name,
		     const char *base, size_t blen)
{
	const char *n = d_name + blen + 2;
	size_t len;

	if (strncmp(d_name, base, blen) || strncmp(d_name + blen, ".~", 2) ||
	    *n < '1' || *n > '9')
		return;
	len = strspn(n, "0123456789");
	if (strcmp(n + len, "~") || len >= sizeof(h->n) - 1 ||
	    len < h->len || (len == h->len && memcmp(n, h->n, len) <= 0))
		return;
	memcpy(h->n, n, len);
	h->n[len] = '\0';
	h->len = len;
}

/* The highest N of BASE.~N~ in directory DIRPATH (relative to DIRFD)
 * into *H, and the directory's NAME_MAX into *RET_NAME_MAX (-1: no
 * limit known).  0 or -errno. */
static int read_highest(int dirfd, const char *dirpath, const char *base,
			struct highest *h, long *ret_name_max)
{
	size_t blen = strlen(base);
	struct dirent *e;
	DIR *d;
	int fd, r = 0;

	fd = openat(dirfd, dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	*ret_name_max = fpathconf(fd, _PC_NAME_MAX);
	h->len = 0;
	for (;;) {
		errno = 0;
		e = readdir(d);
		if (!e) {
			r = -errno;
			break;
		}
		consider(h, e->d_name, base, blen);
	}
	closedir(d);
	return r;
}

/* H's N plus one, in place: "9" becomes "10".  Whether it grew longer. */
static bool next_number(struct highest *h)
{
	size_t i = h->len;

	if (!h->len) {
		strcpy(h->n, "1");
		h->len = 1;
		return true;
	}
	while (i > 0 && h->n[i - 1] == '9')
		h->n[--i] = '0';
	if (i > 0) {
		h->n[i - 1]++;
		return false;
	}
	memmove(h->n + 1, h->n, h->len + 1);
	h->n[0] = '1';
	h->len++;
	return true;
}

/* *B, NAME's backup name, made to fit a directory whose names are at
 * most NAME_MAX bytes: NAME's first bytes and "~" when its last name is
 * too long (*B replaced).  SC_BACKUP_NAME_SHORTENED when it was, 0 when
 * it fits or no limit is known, -ENOMEM. */
static int fit(char **b, const char *name, long name_max)
{
	const char *bb = strrchr(*b, '/'), *nb = strrchr(name, '/');
	size_t n;
	char *s;

	bb = bb ? bb + 1 : *b;
	nb = nb ? nb + 1 : name;
	if (name_max < 2 || strlen(bb) < (size_t)name_max)
		return 0;
	n = MIN(strlen(nb), (size_t)name_max - 2);
	if (asprintf(&s, "%.*s%.*s~", (int)(nb - name), name, (int)n, nb) < 0)
		return -ENOMEM;
	free(*b);
	*b = s;
	return SC_BACKUP_NAME_SHORTENED;
}

/* The numbered or "existing" name of NAME (CONTROL) into *RET_NAME: as
 * sc_backup_name(). */
static int numbered_name(int dirfd, const char *name, enum sc_backup control,
			 const char *suffix, char **ret_name)
{
	const char *slash = strrchr(name, '/');
	_cleanup_free_ char *dir = slash ?
		strndup(name, (size_t)(slash - name + 1)) : strdup(".");
	struct highest h;
	long name_max = -1;
	bool longer;
	int r, how = 0;

	if (!dir)
		return -ENOMEM;
	r = read_highest(dirfd, dir, slash ? slash + 1 : name, &h, &name_max);
	if (r < 0)
		return r;
	if (control == SC_BACKUP_EXISTING && !h.len) {
		r = asprintf(ret_name, "%s%s", name, suffix);
	} else {
		how = SC_BACKUP_NAME_NUMBERED;
		longer = next_number(&h);
		r = asprintf(ret_name, "%s.~%s~", name, h.n);
		/* as long as a name that is there: it fits */
		if (!longer)
			name_max = -1;
	}
	if (r < 0) {
		*ret_name = NULL;
		return -ENOMEM;
	}
	r = fit(ret_name, name, name_max);
	if (r < 0) {
		free(*ret_name);
		*ret_name = NULL;
		return r;
	}
	return how | r;
}

int sc_backup_name(int dirfd, const char *name, enum sc_backup control,
		   const char *suffix, char **ret_name)
{
	size_t len = name ? strlen(name) : 0;

	if (ret_name)
		*ret_name = NULL;
	if (!len || name[len - 1] == '/' || !ret_name)
		return -EINVAL;
	if (!suffix)
		suffix = "~";
	switch (control) {
	case SC_BACKUP_SIMPLE:
		if (asprintf(ret_name, "%s%s", name, suffix) < 0) {
			*ret_name = NULL;
			return -ENOMEM;
		}
		return 0;
	case SC_BACKUP_NUMBERED:
	case SC_BACKUP_EXISTING:
		return numbered_name(dirfd, name, control, suffix, ret_name);
	case SC_BACKUP_NONE:
	default:
		return -EINVAL;
	}
}
