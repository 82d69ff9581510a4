/* /etc/xattr.conf, read once per run: which extended attributes a copy
 * leaves out ("skip") and which it leaves to the permission code
 * ("permissions"), with the meaning libattr gives the file.
 *
 * Why not libattr's own attr_copy_check_permissions(): it parses the
 * file on first use into a static list, with no lock.  Two -j workers
 * copying their first attributes at once both parse it; one can walk the
 * list while the other is still building it and miss a rule (copying
 * trusted.SGI_ACL_FILE that a rule says to skip), and rules get lost.
 * These rules are read once per copier, under its lock, the first time a
 * copy keeps extended attributes (or when the caller names the file), and
 * never change afterwards, so the threads that copy only read them. */
#ifndef SMARTCP_XATTR_RULES_H
#define SMARTCP_XATTR_RULES_H

/* The file libattr reads (its SYSCONFDIR is /etc on every distribution
 * that ships it). */
#define SC_XATTR_CONF "/etc/xattr.conf"

enum sc_xattr_action {
	SC_XATTR_COPY,		/* no rule names it */
	SC_XATTR_SKIP,		/* "skip": never copied */
	SC_XATTR_PERMISSIONS,	/* "permissions": copied with the mode */
};

struct sc_xattr_rules;

/* Reads the rules of PATH (NULL: SC_XATTR_CONF).  A missing file means no
 * rules.  A file that cannot be read or parsed also means no rules, as in
 * libattr, and the rules remember why (sc_xattr_rules_error).  Returns 0,
 * or -ENOMEM with *RET NULL. */
int sc_xattr_rules_load(const char *path, struct sc_xattr_rules **ret);
/* The same for a file a caller named: one that does not exist is an
 * error (ENOENT) as one that cannot be read is. */
int sc_xattr_rules_load_file(const char *path, struct sc_xattr_rules **ret);
/* The rules of no file at all: every attribute is copied but ACLs
 * (POSIX and NFSv4), which are "permissions", left to the mode's copy.
 * 0, or -ENOMEM with *RET NULL. */
int sc_xattr_rules_acls(struct sc_xattr_rules **ret);
void sc_xattr_rules_free(struct sc_xattr_rules *r);

/* What the rules say of attribute NAME: the last line whose pattern
 * (fnmatch) matches it wins, as in libattr.  R may be NULL (no rules).
 * Safe to call from any thread once loaded. */
enum sc_xattr_action sc_xattr_rules_action(const struct sc_xattr_rules *r,
					   const char *name);

/* 0, or the errno that left the rules empty: EINVAL for a line libattr
 * would not parse, else what opening or reading the file said. */
int sc_xattr_rules_error(const struct sc_xattr_rules *r);

/* The file the rules came from. */
const char *sc_xattr_rules_path(const struct sc_xattr_rules *r);

#endif
