#!/bin/bash
# A comment that names a function or a file names one that exists.  This
# reads the comments of the sources (C, shell, awk, automake, configure.ac,
# the version script), and the whole text of the documents (README,
# doc/*.md, the man pages), and fails on each name that the tree does not
# have:
#
#   - a function: a word followed by "()" (level_get()), any sc_ or SC_
#     word (walk_fd_short, SC_COPY_*: the library's names, with or
#     without parentheses; a trailing * is a prefix), and in doc/*.md a
#     `lower_case` word in backquotes.  It exists
#     when the code uses it: a word of the C code outside comments and
#     strings (the project's own definitions, and what it calls from libc,
#     the kernel's headers, libacl, libattr, libmount and Check), a shell
#     or awk function defined in the tree, a word called in the code of a
#     shell script (the C programs tests compile from a here-document), or
#     a name of the short list below (what a comment cites and the code
#     does not call: another project's function, a kernel internal);
#   - a file: a word ending in .c, .h, .sh, .am, .ac, .md, .in, .awk, .sym,
#     .sed, .po, .1 or .3, with a path (lib/copy.c, from the top or from
#     the commenting file's folder; _build/ is the build folder) or bare
#     (copy.c: a file of that name somewhere in the tree); a header
#     #included somewhere, a file the build names (*.am), one made from
#     a .in, and the files autotools make, count as there.  libsmartcp.so.N must be the SONAME
#     lib/Makemodule.am builds;
#   - a test: t-NAME is tests/integration/t-NAME.sh, check_NAME a unit
#     test program of tests/Makemodule.am or a function.
#
# A document's C block (from a line "```c" to a line "```") is code, not
# text: a plan for code not yet written (doc/tree-api.md) declares there
# the names it proposes, and they count as there in that document alone.
#
# The tree is the source folder as it is, checkout or tarball, without
# .git and the build folders in it.  A document outside it (such as the
# design notes the developers keep in ../shared) is not in the clone or
# the tarball a reader has: a comment must not send them there, and this
# fails on it.  Names in <...>
# (system headers, placeholders), words with $, {, [ or :// (run-time
# paths, brace lists, URLs), absolute paths, placeholders (foo, bar, an
# upper-case NAME, FUNC()...), the examples of the man pages (.EX) and
# NEWS, which tells history, are not checked.
#
#	bash tests/comment-names.sh [--print]
#
# --print lists every name checked with what resolved it.  Part of
# "make check".  Exit 0 when every name exists, 1 with each that does not.
set -u
export LC_ALL=C
top=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 99
print=0
[ "${1:-}" = --print ] && print=1

# Cited by a comment, not called by the code: each with why it is real.
# A name here is allowed everywhere: keep the list short.
allow='
attr_copy_check_permissions	libattr: the check xattr_rules.c replaces
attr_copy_file	libattr: the path call meta_xattr.c does the work of
_load_file	libattr: its xattr.conf parser
flistxattr	listxattr(2)
getppid	getppid(2), the cheapest system call
io_uring_enter	io_uring_enter(2)
quotearg	coreutils quotearg.c, whose quoting quote.c follows
quoteaf	coreutils quotearg.c
quotef	coreutils quotearg.c
dlopen_libmount	systemd src/shared/libmount-util.c, loads libmount as dl.c does
src/shared/libmount-util.c	systemd
merge_optstr	util-linux libmount, the mount options mountinfo.c merges
libmount/src/fs.c	util-linux
tests/cp/*.sh	coreutils: the tests tests/coreutils/run.sh runs
tests/cp/abuse.sh	coreutils
misc/head-c.sh	coreutils
head/head-c.sh	coreutils
tests/d/t.sh	coreutils: the form of a test name run.sh takes
d/t.sh	coreutils
show_mountinfo	Linux: writes /proc/PID/mountinfo
fs/proc_namespace.c	Linux
send_sig	Linux: SIGPIPE of a write to a pipe without readers
fs/pipe.c	Linux
net/core/stream.c	Linux
should_remove_suid	Linux: drops set-user-ID on a write
file_accessed	Linux: atime on a read
recently_deleted	Linux ext4: inode reuse
find_group_other	Linux ext4: where a new inode goes
fs/ext4/sysfs.c	Linux
fs/ext4/ialloc.c	Linux
mm/fadvise.c	Linux
io_uring/io_uring.c	Linux
include/uapi/linux/mman.h	Linux
'

# The tree: every file, without .git, autom4te.cache, .deps/.libs and the
# build folders (a folder with config.status, the top one aside).
builds=$(find . -mindepth 2 -name config.status -printf '%h\n' 2>/dev/null)
prune=(-name .git -o -name autom4te.cache -o -name .deps -o -name .libs)
for b in $builds; do
	prune+=(-o -path "$b")
done
tree=$(find . \( "${prune[@]}" \) -prune -o -type f -print | sed 's|^\./||' | sort)
[ -n "$tree" ] || { echo "FAIL: no files under $top"; exit 99; }

# What is read: sources and documents, not data, results or generated files.
scan=$(printf '%s\n' "$tree" | grep -E \
	'^(src|lib|include|tests|doc|bench|man|completion)/|^(configure\.ac|Makefile\.am|README)$' |
	grep -vE '^(tests/data|tests/fuzz/corpus|lib/abi|bench/results)/' |
	grep -E '\.(c|h|sh|am|ac|md|awk|sym|sed|3|1\.in)$|(^|/)README$|^completion/smartcp$')

# The SONAME's number: current - age of -version-info.
major=$(sed -n 's/.*-version-info \([0-9]*\):[0-9]*:\([0-9]*\).*/\1 \2/p' \
	lib/Makemodule.am | awk 'NR == 1 { print $1 - $2 }')

list=$(mktemp "${TMPDIR:-/tmp}/smartcp-comment-names.XXXXXX") || exit 99
trap 'rm -f "$list"' EXIT
printf '%s\n' "$tree" >"$list"

# shellcheck disable=SC2086
awk -v treelist="$list" -v allow="$allow" \
	-v major="$major" -v print_all="$print" '
BEGIN {
	while ((getline p < treelist) > 0) {
		tree[p] = 1
		n = split(p, parts, "/")
		base[parts[n]] = 1
		# every suffix of whole path components: "unit/check_word.c"
		s = p
		while ((i = index(s, "/")) > 0) {
			s = substr(s, i + 1)
			suffix[s] = 1
		}
	}
	n = split(allow, lines, "\n")
	for (i = 1; i <= n; i++) {
		split(lines[i], w, "\t")
		if (w[1] != "")
			known[w[1]] = "allowed"
	}
	for (k in known)
		if (k ~ /[\/.]/) allowed_file[k] = 1
	split("config.h config.h.in Makefile.in Makefile configure " \
		"config.status config.log aclocal.m4 test-suite.log", g, " ")
	for (i in g)
		made[g[i]] = 1
	nc = 0
}

FNR == 1 {
	incom = 0
	kind = "hash"
	if (FILENAME ~ /\.[ch]$/) kind = "c"
	else if (FILENAME ~ /\.md$/ || FILENAME ~ /(^|\/)README$/) kind = "text"
	else if (FILENAME ~ /\.(3|1\.in)$/) kind = "roff"
	example = 0; doc_c = 0
	dir = FILENAME; if (!sub(/\/[^\/]*$/, "", dir)) dir = ""
}

# ---- reading: the code adds known words, the comments are kept ----

function add_code(s,   n, w, i) {
	n = split(s, w, /[^A-Za-z0-9_]+/)
	for (i = 1; i <= n; i++)
		if (w[i] ~ /^[A-Za-z_]/) {
			if (!(w[i] in known))
				known[w[i]] = "code"
			if (kind == "c")
				wordin[FILENAME, w[i]] = 1
		}
}

function keep(text) {
	if (text ~ /[A-Za-z]/) {
		nc++; ctext[nc] = text; cwhere[nc] = FILENAME ":" FNR
		cdir[nc] = dir; cfile[nc] = FILENAME
	}
}

# C: comments apart from code; string and character literals dropped.
function c_line(s,   n, i, ch, code, com, q) {
	if (s ~ /^[ \t]*#[ \t]*include[ \t]*[<"]/) {
		h = s; sub(/^[^<"]*[<"]/, "", h); sub(/[>"].*/, "", h)
		header[h] = 1; k = h; sub(/.*\//, "", k); header[k] = 1
	}
	if (!incom && s !~ /[\/"\047]/) { add_code(s); return }
	code = ""; com = ""; n = length(s); i = 1
	while (i <= n) {
		ch = substr(s, i, 1)
		if (incom) {
			if (ch == "*" && substr(s, i + 1, 1) == "/") {
				incom = 0; i += 2; com = com " "; continue
			}
			com = com ch; i++; continue
		}
		if (ch == "/" && substr(s, i + 1, 1) == "*") {
			incom = 1; i += 2; continue
		}
		if (ch == "/" && substr(s, i + 1, 1) == "/") {
			com = com " " substr(s, i + 2); break
		}
		if (ch == "\"" || ch == "\047") {
			q = ch; i++
			while (i <= n) {
				ch = substr(s, i, 1)
				if (ch == "\\") { i += 2; continue }
				if (ch == q) break
				i++
			}
			i++; code = code " "; continue
		}
		code = code ch; i++
	}
	add_code(code)
	keep(com)
}

# Shell, awk, automake, configure.ac: "#" (or dnl) to the end of the line,
# where "#" starts a word outside quotes.
function hash_line(s,   n, i, ch, q, code, w, f, v) {
	if (s ~ /^[ \t]*dnl([ \t]|$)/ && FILENAME ~ /\.ac$/) {
		keep(substr(s, index(s, "dnl") + 3)); return
	}
	q = ""; n = length(s); code = s
	for (i = 1; i <= n; i++) {
		ch = substr(s, i, 1)
		if (q != "") { if (ch == q) q = ""; else if (ch == "\\" && q == "\"") i++; continue }
		if (ch == "\\") { i++; continue }
		if (ch == "\"" || ch == "\047") { q = ch; continue }
		if (ch == "#" && (i == 1 || substr(s, i - 1, 1) ~ /[ \t;]/)) {
			keep(substr(s, i + 1)); code = substr(s, 1, i - 1); break
		}
	}
	# functions the script defines: "name()" and awk "function name("
	if (code ~ /^[ \t]*(function[ \t]+)?[A-Za-z_][A-Za-z0-9_-]*[ \t]*\(\)/) {
		f = code; sub(/^[ \t]*(function[ \t]+)?/, "", f); sub(/[ \t]*\(.*/, "", f)
		known[f] = "script"
	}
	# variables it sets; the words of automake'"'"'s code (check_PROGRAMS)
	f = code
	while (match(f, /(^|[ \t;(])[A-Za-z_][A-Za-z0-9_]*=/)) {
		v = substr(f, RSTART, RLENGTH - 1); sub(/^[ \t;(]/, "", v)
		if (!(v in known)) known[v] = "script"
		f = substr(f, RSTART + RLENGTH)
	}
	if (FILENAME ~ /\.am$/) {
		add_code(code)
		# files the build names: its sources and what it makes
		n = split(code, w, /[ \t=:\\]+/)
		for (i = 1; i <= n; i++) {
			sub(/^\$\([a-z_]*\)\//, "", w[i])
			if (w[i] ~ /\.[a-z0-9]+$/) {
				built[w[i]] = 1
				f = w[i]; sub(/.*\//, "", f); built[f] = 1
			}
		}
	}
	if (code ~ /function[ \t]+[A-Za-z_][A-Za-z0-9_]*\(/) {
		f = code; sub(/.*function[ \t]+/, "", f); sub(/\(.*/, "", f)
		known[f] = "script"
	}
	# words called in a script: the C a test compiles, awk built-ins
	while (match(code, /[A-Za-z_][A-Za-z0-9_]*\(/)) {
		f = substr(code, RSTART, RLENGTH - 1)
		if (!(f in known)) known[f] = "script"
		code = substr(code, RSTART + RLENGTH)
	}
}

function roff_line(s) {
	if (s ~ /^\.EX/) example = 1
	if (s ~ /^\.EE/) example = 0
	if (example) return
	gsub(/\\f[BIRP]/, "", s); gsub(/\\f\([A-Z][A-Z]/, "", s)
	gsub(/\\-/, "-", s); gsub(/\\&/, "", s); gsub(/\\e/, "\\", s)
	sub(/^\.\\"/, "", s); sub(/^\.[A-Za-z]+[ \t]*/, "", s)
	gsub(/"/, " ", s)
	# ".BR sc_init ()" is sc_init()
	gsub(/[ \t]+\(\)/, "()", s)
	keep(s)
}

kind == "c"	{ c_line($0); next }
# a document: its C blocks declare names for it alone
function text_line(s,   n, w, i) {
	if (s ~ /^```c[ \t]*$/) { doc_c = 1; return }
	if (doc_c && s ~ /^```[ \t]*$/) { doc_c = 0; return }
	if (!doc_c) { keep(s); return }
	n = split(s, w, /[^A-Za-z0-9_]+/)
	for (i = 1; i <= n; i++)
		if (w[i] ~ /^[A-Za-z_]/)
			docknown[FILENAME, w[i]] = 1
}

kind == "text"	{ text_line($0); next }
kind == "roff"	{ roff_line($0); next }
		{ hash_line($0) }

# ---- checking ----

function report(i, what) {
	printf "%s: %s\n", cwhere[i], what
	bad = 1
}

function found(i, what, how) {
	if (print_all)
		printf "%s: %s (%s)\n", cwhere[i], what, how
}

function fn_known(f,   k) {
	if (f in known) return known[f]
	if (f ~ /\*$/) {
		f = substr(f, 1, length(f) - 1)
		for (k in known)
			if (index(k, f) == 1) return "prefix of " k
	}
	return ""
}

# "../x/y" from folder d, to a path from the top ("" when above it)
function norm(d, p,   n, a, i, out, m, o) {
	if (d != "") p = d "/" p
	n = split(p, a, "/"); m = 0
	for (i = 1; i <= n; i++) {
		if (a[i] == "." || a[i] == "") continue
		if (a[i] == "..") { if (m == 0) return ""; m--; continue }
		o[++m] = a[i]
	}
	out = ""
	for (i = 1; i <= m; i++) out = out (i > 1 ? "/" : "") o[i]
	return out
}

function glob_re(g) {
	gsub(/\./, "[.]", g); gsub(/\+/, "[+]", g); gsub(/\*/, "[^/]*", g)
	return "(^|/)" g "$"
}

function file_known(w, d,   p, re, k, stem) {
	if (w ~ /\*/) {
		re = glob_re(w)
		for (k in tree) if (k ~ re) return "glob " k
		return ""
	}
	if (w ~ /^\.\.?\//) {
		p = norm(d, w)
		return (p != "" && (p in tree)) ? "relative" : ""
	}
	if (w ~ /\//) {
		if (w in tree || w in suffix) return "path"
		p = norm(d, w)
		if (p in tree) return "relative"
	} else {
		if (w in base) return "name"
		if (w in made) return "made by autotools"
	}
	if (w in built) return "named by the build"
	if (w in header) return "#included"
	stem = w
	if (sub(/\.in$/, ".am", stem) && (stem in tree || stem in suffix || stem in base))
		return "made from .am"
	stem = w ".in"
	if (stem in tree || stem in suffix || stem in base) return "made from .in"
	return ""
}

function check_fn(i, f,   how) {
	if (f ~ /^[A-Z]+$/) return	# a placeholder: FUNC()
	if (f in seen_fn_at && seen_fn_at[f] == i) return
	seen_fn_at[f] = i
	how = fn_known(f)
	if (how == "" && (cfile[i], f) in docknown)
		how = "a C block of its document"
	if (how == "") report(i, "names " f ", which nothing defines")
	else found(i, f, how)
}

function check_word(i, w, d,   how, m) {
	# sentence and markdown punctuation around a word
	sub(/^[`*]+/, "", w); gsub(/[.`*,]+$/, "", w)
	sub(/^_build\//, "", w)
	if (w ~ /^[\/~]/ || w ~ /[${}\[\]]/ || w ~ /:\/\//) return
	if (w ~ /^\./ && w !~ /^\.\.?\//) return	# a dot file
	if (w ~ /(^|[^A-Za-z])(foo|bar|NAME|FUNC|FILE|DIR)([^A-Za-z]|$)/) return
	if (w in allowed_file) { found(i, w, "allowed"); return }
	if (w ~ /^lib[A-Za-z0-9_+-]*\.so(\.[0-9]+)*$/) {
		if (w !~ /^libsmartcp\.so/) return
		if (w == "libsmartcp.so" || w == "libsmartcp.so." major) {
			found(i, w, "SONAME"); return
		}
		report(i, "names " w ", but the SONAME is libsmartcp.so." major)
		return
	}
	if (w ~ /^[A-Za-z0-9_.\/*+-]*[A-Za-z0-9_*]\.(c|h|sh|am|ac|md|in|awk|sym|sed|po|1|3)$/ &&
	    w ~ /[a-z][^\/]*\.[a-z0-9]+$/) {
		how = file_known(w, d)
		if (how == "") report(i, "names " w ", which is not in the tree")
		else found(i, w, how)
		return
	}
	if (w ~ /^t-[a-z0-9][a-z0-9-]*[a-z0-9]$/) {
		if (("tests/integration/" w ".sh") in tree) found(i, w, "test")
		else report(i, "names the test " w ", which is not in tests/integration")
		return
	}
	if (w ~ /^check_[a-z_]*[a-z]$/) {
		if (w in known) found(i, w, "unit test or function")
		else report(i, "names " w ", neither a unit test nor a function")
	}
}

# "NAME() in FILE.c", "`NAME` in `FILE.h`", "NAME_X in FILE.c": the file
# has NAME in its code.  Names in plain words ("declared in report.h")
# are not read as code.
function check_in(i, t,   s, m, name, f, k, any, has) {
	s = t
	while (match(s, /[A-Za-z_][A-Za-z0-9_]*(\(\))?`? in `?[A-Za-z0-9_\/.]*[A-Za-z0-9_]\.[ch]([^A-Za-z0-9_]|$)/)) {
		m = substr(s, RSTART, RLENGTH)
		s = substr(s, RSTART + RLENGTH)
		name = m; sub(/[(`].*/, "", name); sub(/ .*/, "", name)
		if (m !~ /^[A-Za-z_][A-Za-z0-9_]*(\(\)|`)/ && name !~ /_/)
			continue
		f = m; sub(/.* in `?/, "", f); sub(/[^A-Za-z0-9_]$/, "", f)
		any = 0; has = 0
		for (k in tree)
			if (k == f || substr(k, length(k) - length(f)) == "/" f) {
				any = 1
				if ((k, name) in wordin) has = 1
			}
		if (any && !has)
			report(i, "names " name " in " f ", which does not have it")
	}
}

END {
	for (i = 1; i <= nc; i++) {
		t = ctext[i]
		check_in(i, t)
		# function names: word()
		s = t
		while (match(s, /[A-Za-z_][A-Za-z0-9_]*\(\)/)) {
			check_fn(i, substr(s, RSTART, RLENGTH - 2))
			s = substr(s, RSTART + RLENGTH)
		}
		# the library'"'"'s names: sc_ and SC_ words, a * for a prefix
		s = " " t
		while (match(s, /[^A-Za-z0-9_][sS][cC]_[A-Za-z0-9_]*[A-Za-z0-9*]/)) {
			check_fn(i, substr(s, RSTART + 1, RLENGTH - 1))
			s = substr(s, RSTART + RLENGTH)
		}
		# a document'"'"'s code: `lower_case` words are names too
		if (cwhere[i] ~ /\.md:/) {
			s = t
			while (match(s, /`[a-z_][a-z0-9_]*_[a-z0-9_]+`/)) {
				check_fn(i, substr(s, RSTART + 1, RLENGTH - 2))
				s = substr(s, RSTART + RLENGTH)
			}
		}
		# files and tests: words, <...> dropped
		gsub(/<[^<>]*>/, " ", t)
		n = split(t, w, /[ \t"\047()\[\],;:=|!?<>]+/)
		for (j = 1; j <= n; j++)
			if (w[j] ~ /[.-]|^check_/) check_word(i, w[j], cdir[i])
	}
	exit bad
}' $scan
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "FAIL: comments name functions or files that do not exist (see above)"
	exit 1
fi
echo "PASS: every function and file a comment names exists"
exit 0
