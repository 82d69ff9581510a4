/* xattr.conf rules, read once (see xattr_rules.h for why not libattr's).
 *
 * The format is libattr's, and so is every corner of it, because cp -a
 * reads the same file through libattr and a copy must keep or drop the
 * same attributes whichever program made it:
 *   - one rule a line: a pattern, blanks, "skip" or "permissions", then
 *     only blanks or a comment to the end of the line;
 *   - '#' starts a comment only where a line (after blanks) starts or
 *     after a whole rule; a pattern running into '#' is an error;
 *   - a pattern alone on its line is an error, but a pattern alone at
 *     the very end of the file is ignored;
 *   - a rule must end with a newline (or a comment): the last rule of a
 *     file without a final newline is an error;
 *   - any error discards every rule; later lines win over earlier ones;
 *   - the text ends at the first NUL byte. */
#include "common.h"
#include "xattr_rules.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <string.h>

struct rule {
	char *pattern;
	enum sc_xattr_action action;
};

struct sc_xattr_rules {
	struct rule *v;
	size_t n;
	int err;
	char *path;
};

/* The whole file, NUL-terminated, or NULL with errno set. */
static char *slurp(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *text = NULL;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n;

		if (!text || len == cap) {
			char *t;

			if (text)
				cap *= 2;
			t = realloc(text, cap + 1);
			if (!t) {
				free(text);
				errno = ENOMEM;
				return NULL;
			}
			text = t;
		}
		n = read(fd, text + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			free(text);
			errno = err;
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	text[len] = '\0';
	return text;
}

static int add(struct sc_xattr_rules *r, const char *pattern, size_t len,
	       enum sc_xattr_action action)
{
	struct rule *v = realloc(r->v, (r->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	r->v = v;
	v[r->n].pattern = strndup(pattern, len);
	if (!v[r->n].pattern)
		return -ENOMEM;
	v[r->n++].action = action;
	return 0;
}

static void clear(struct sc_xattr_rules *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].pattern);
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

/* Fills R from TEXT: 0, -EINVAL for a line libattr would refuse, or
 * -ENOMEM. */
static int parse(struct sc_xattr_rules *r, const char *t)
{
	for (;;) {
		const char *pattern;
		size_t len, plen;
		enum sc_xattr_action action;
		int rc;

		t += strspn(t, " \t\n");
		len = strcspn(t, " \t\n#");
		if (t[len] == '#') {
			if (len)
				return -EINVAL;	/* "pattern#..." */
			t += strcspn(t, "\n");
			continue;
		}
		if (t[len] == '\0')
			return 0;	/* end, perhaps after a lone pattern */
		if (t[len] == '\n')
			return -EINVAL;	/* a pattern without an action */
		pattern = t;
		plen = len;
		t += len;
		t += strspn(t, " \t");
		len = strcspn(t, " \t\n#");
		if (len == 4 && strncmp(t, "skip", 4) == 0)
			action = SC_XATTR_SKIP;
		else if (len == 11 && strncmp(t, "permissions", 11) == 0)
			action = SC_XATTR_PERMISSIONS;
		else
			return -EINVAL;
		t += len;
		t += strspn(t, " \t");
		if (*t != '#' && *t != '\n')
			return -EINVAL;	/* trailing words, or no newline */
		rc = add(r, pattern, plen, action);
		if (rc < 0)
			return rc;
		t += strcspn(t, "\n");
	}
}

/* sc_xattr_rules_load() and _load_file(): NAMED, a file the caller
 * named, which must exist. */
static int load(const char *path, bool named, struct sc_xattr_rules **ret)
{
	struct sc_xattr_rules *r = calloc(1, sizeof(*r));
	char *text;
	int rc;

	*ret = NULL;
	if (!r)
		return -ENOMEM;
	r->path = strdup(path ? path : SC_XATTR_CONF);
	if (!r->path) {
		free(r);
		return -ENOMEM;
	}
	text = slurp(r->path);
	if (!text) {
		if (errno == ENOMEM) {
			sc_xattr_rules_free(r);
			return -ENOMEM;
		}
		if (errno != ENOENT || named)
			r->err = errno;
		*ret = r;
		return 0;
	}
	rc = parse(r, text);
	free(text);
	if (rc == -ENOMEM) {
		sc_xattr_rules_free(r);
		return -ENOMEM;
	}
	if (rc < 0) {
		clear(r);
		r->err = -rc;
	}
	*ret = r;
	return 0;
}

int sc_xattr_rules_load(const char *path, struct sc_xattr_rules **ret)
{
	return load(path, false, ret);
}

int sc_xattr_rules_load_file(const char *path, struct sc_xattr_rules **ret)
{
	return load(path, true, ret);
}

int sc_xattr_rules_acls(struct sc_xattr_rules **ret)
{
	static const char *const acls[] = {
		"system.posix_acl_access", "system.posix_acl_default",
		"system.nfs4_acl", "system.nfs4acl",
	};
	struct sc_xattr_rules *r = calloc(1, sizeof(*r));

	*ret = NULL;
	if (!r || !(r->path = strdup(""))) {
		free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ARRAY_SIZE(acls); i++)
		if (add(r, acls[i], strlen(acls[i]),
			SC_XATTR_PERMISSIONS) < 0) {
			sc_xattr_rules_free(r);
			return -ENOMEM;
		}
	*ret = r;
	return 0;
}

void sc_xattr_rules_free(struct sc_xattr_rules *r)
{
	if (!r)
		return;
	clear(r);
	free(r->path);
	free(r);
}

enum sc_xattr_action sc_xattr_rules_action(const struct sc_xattr_rules *r,
					   const char *name)
{
	if (!r)
		return SC_XATTR_COPY;
	for (size_t i = r->n; i-- > 0;)
		if (fnmatch(r->v[i].pattern, name, 0) == 0)
			return r->v[i].action;
	return SC_XATTR_COPY;
}

int sc_xattr_rules_error(const struct sc_xattr_rules *r)
{
	return r ? r->err : 0;
}

const char *sc_xattr_rules_path(const struct sc_xattr_rules *r)
{
	return r ? r->path : SC_XATTR_CONF;
}
