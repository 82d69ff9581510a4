# lib/stacks.txt -> what is made of it (POSIX awk: mawk and gawk alike).
#   awk -v mode=c -f lib/stacks.awk lib/stacks.txt       the C table
#                                                         (lib/stacks_table.c)
#   awk -v mode=readme -f lib/stacks.awk lib/stacks.txt  README's section
#                                                         "Stacks smartcp
#                                                         guards against"
#   awk -v mode=tsv -f lib/stacks.awk lib/stacks.txt     one line a row, for
#                                                         the tests: id, cite,
#                                                         fs, side, kernel,
#                                                         module, param, libc,
#                                                         roads, seen, action,
#                                                         source, date, a
#                                                         stack where it holds
#                                                         (--assume-fs, Linux)
#                                                         and one where not
# A row that breaks the rules of lib/stacks.txt's header stops it with a
# message naming the line, and status 1.

function fail(msg) {
	printf("%s:%d: %s\n", FILENAME, FNR, msg) > "/dev/stderr"
	failed = 1
	exit 1
}

function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

# A version MAJOR.MINOR (N = 2) or MAJOR.MINOR.PATCH (N = 3) as a C
# initializer.
function cver(s, n,    p, k, i) {
	k = split(s, p, ".")
	if (k != n)
		fail("\"" s "\" is not a version of " n " numbers")
	for (i = 1; i <= k; i++)
		if (p[i] !~ /^[0-9]+$/)
			fail("\"" s "\" is not a version")
	return "{ { " p[1] ", " p[2] ", " (n == 3 ? p[3] : 0) " } }"
}

# A range A-B, A-, -B or A of N-number versions: the C initializer in
# RC, the words in RT.
function range(s, n,    a, b) {
	if (s !~ /^[0-9.]*-?[0-9.]*$/ || s == "-" || s == "")
		fail("\"" s "\" is not a range")
	if (index(s, "-") == 0) {
		a = s
		b = s
	} else {
		a = substr(s, 1, index(s, "-") - 1)
		b = substr(s, index(s, "-") + 1)
	}
	RC = "{ " (a != "" ? "true" : "false") ", " \
	     (b != "" ? "true" : "false") ", " \
	     (a != "" ? cver(a, n) : "{ { 0, 0, 0 } }") ", " \
	     (b != "" ? cver(b, n) : "{ { 0, 0, 0 } }") " }"
	if (a == b)
		RT = a
	else if (a == "")
		RT = b " and earlier"
	else if (b == "")
		RT = a " and later"
	else
		RT = a " to " b
}

# "a", "a or b", "a, b or c".
function either(list,    w, k, out, i) {
	k = split(list, w, " ")
	out = w[1]
	for (i = 2; i <= k; i++)
		out = out (i == k ? " or " : ", ") w[i]
	return out
}

function cstr(s) {
	gsub(/\\/, "\\\\", s)
	gsub(/"/, "\\\"", s)
	return "\"" s "\""
}

# S as C string literals, broken at blanks so that no line of the
# initializer (indented by two tabs, after KEY) passes 79 columns.
function cwrap(key, s, mark,    out, line, w, k, room, pre, i) {
	pre = "\t\t." key " = " (mark ? "N_(" : "")
	room = 79 - 16 - length(key) - 4 - (mark ? 4 : 0)
	if (length(s) + 2 <= room)
		return pre cstr(s) (mark ? ")" : "") ",\n"
	out = (mark ? pre : substr(pre, 1, length(pre) - 1)) "\n"
	k = split(s, w, " ")
	line = ""
	for (i = 1; i <= k; i++) {
		if (line != "" && length(line) + 1 + length(w[i]) + 3 > 62) {
			out = out "\t\t\t" cstr(line " ") "\n"
			line = w[i]
		} else {
			line = line == "" ? w[i] : line " " w[i]
		}
	}
	return out "\t\t\t" cstr(line) (mark ? ")" : "") ",\n"
}

function start_row(id) {
	if (id !~ /^[a-z0-9][a-z0-9.-]*$/)
		fail("\"" id "\" is not an id (a-z, 0-9, . and -)")
	if (id in seen_id)
		fail("id \"" id "\" twice")
	seen_id[id] = 1
	n++
	ID[n] = id
	last = ""
}

BEGIN {
	n = 0
	nparams = 0
	split("cite title fs side kernel module param libc roads seen action " \
	      "source date what", required, " ")
	split("cite title fs side kernel module param libc roads seen action " \
	      "reason why does what source date", known_keys, " ")
	for (k in known_keys)
		known[known_keys[k]] = 1
	phrase["corruption"] = "corrupt data"
	phrase["hang"] = "hang"
	phrase["empty destination"] = "leave an empty destination"
	phrase["error"] = "fail"
}

/^#/ || /^[ \t]*$/ { next }

/^\[/ {
	if (!match($0, /^\[[^]]*\]$/))
		fail("a row starts with [ID]")
	start_row(substr($0, 2, length($0) - 2))
	next
}

/^[ \t]/ {
	if (last == "")
		fail("a continuation line with nothing to continue")
	V[n, last] = V[n, last] " " trim($0)
	next
}

{
	if (n == 0)
		fail("a key before the first [ID]")
	if (!match($0, /^[a-z]+:/))
		fail("not \"key: value\"")
	key = substr($0, 1, RLENGTH - 1)
	if (!(key in known))
		fail("unknown key \"" key "\"")
	if ((n, key) in V)
		fail("key \"" key "\" twice")
	V[n, key] = trim(substr($0, RLENGTH + 1))
	last = key
}

# Checks row R and works out what the outputs need: C[r, ...] and
# T[r, ...].
function row(r,    k, w, nw, a, roads, holes, m, p, d, why, does) {
	for (k = 1; k in required; k++)
		if (!((r, required[k]) in V) || V[r, required[k]] == "")
			fail("row " ID[r] ": no " required[k])
	a = V[r, "action"]
	if (a !~ /^(skip|verify|fallback|note|none)$/)
		fail("row " ID[r] ": action \"" a "\"")
	if (V[r, "side"] !~ /^(source|dest|either)$/)
		fail("row " ID[r] ": side \"" V[r, "side"] "\"")
	if (!(V[r, "seen"] in phrase))
		fail("row " ID[r] ": seen \"" V[r, "seen"] "\"")
	if (V[r, "date"] !~ /^20[0-9][0-9]-[01][0-9]-[0-3][0-9]$/)
		fail("row " ID[r] ": date \"" V[r, "date"] "\"")
	if (V[r, "source"] !~ /^https:\/\//)
		fail("row " ID[r] ": source is not a URL")
	if (a == "none" && !((r, "why") in V))
		fail("row " ID[r] ": action none needs why")
	if (a == "note" && !((r, "does") in V))
		fail("row " ID[r] ": action note needs does")
	if (V[r, "fs"] !~ /^(\*|[a-z0-9_.+-]+( [a-z0-9_.+-]+)*)$/)
		fail("row " ID[r] ": fs \"" V[r, "fs"] "\"")

	# kernel
	if (V[r, "kernel"] == "any") {
		C[r, "kernel"] = ".any_kernel = true"
		T[r, "kernel"] = "any"
	} else {
		range(V[r, "kernel"], 2)
		C[r, "kernel"] = ".kernel = " RC
		T[r, "kernel"] = RT
	}
	# module
	C[r, "module"] = ""
	T[r, "module"] = ""
	if (V[r, "module"] != "-") {
		nw = split(V[r, "module"], w, " ")
		if (nw < 2 || nw > 5 || w[1] !~ /^[a-z0-9_]+$/)
			fail("row " ID[r] ": module \"" V[r, "module"] "\"")
		MOD[r] = w[1]
		C[r, "module"] = "\t\t.module = " cstr(w[1]) ", .n_module = " \
				 (nw - 1) ",\n\t\t.module_range = {\n"
		T[r, "module"] = w[1] " "
		for (k = 2; k <= nw; k++) {
			range(w[k], 3)
			C[r, "module"] = C[r, "module"] "\t\t\t" RC ",\n"
			T[r, "module"] = T[r, "module"] (k > 2 ? ", " : "") RT
		}
		C[r, "module"] = C[r, "module"] "\t\t},\n"
	}
	# param
	P[r] = -1
	T[r, "param"] = ""
	if (V[r, "param"] != "-") {
		if (!match(V[r, "param"], \
			   /^[a-z0-9_]+=-?[0-9]+ default=-?[0-9]+$/))
			fail("row " ID[r] ": param \"" V[r, "param"] "\"")
		if (!(r in MOD))
			fail("row " ID[r] ": a param needs a module")
		split(V[r, "param"], w, /[= ]/)
		if (!((w[1]) in param_index)) {
			param_index[w[1]] = nparams
			param_name[nparams] = w[1]
			param_module[nparams] = MOD[r]
			nparams++
		} else if (param_module[param_index[w[1]]] != MOD[r]) {
			fail("row " ID[r] ": param " w[1] " of two modules")
		}
		P[r] = param_index[w[1]]
		PV[r] = w[2]
		PD[r] = w[4]
		T[r, "param"] = w[1] "=" w[2] " (default " w[4] ")"
	}
	# libc
	C[r, "libc"] = ""
	T[r, "libc"] = ""
	if (V[r, "libc"] != "-") {
		split(V[r, "libc"], w, " ")
		if (w[1] != "glibc" || !(2 in w) || (3 in w))
			fail("row " ID[r] ": libc \"" V[r, "libc"] "\"")
		if (a != "none")
			fail("row " ID[r] ": a libc condition needs action " \
			     "none (smartcp does not gather the libc version)")
		range(w[2], 2)
		C[r, "libc"] = "\t\t.libc = \"glibc\",\n\t\t.libc_range = " RC ",\n"
		T[r, "libc"] = "glibc " RT
	}
	# roads
	nw = split(V[r, "roads"], w, " ")
	roads = ""
	holes = "false"
	C[r, "roads"] = "0"
	for (k = 1; k <= nw; k++) {
		if (w[k] == "holes") {
			holes = "true"
			continue
		}
		if (w[k] !~ /^(clone|copy_file_range|splice)$/)
			fail("row " ID[r] ": road \"" w[k] "\"")
		roads = roads == "" ? w[k] : roads " " w[k]
		C[r, "roads"] = C[r, "roads"] " | SC_ROAD_BIT(" \
				(w[k] == "clone" ? "SC_ROAD_CLONE" : \
				 w[k] == "splice" ? "SC_ROAD_SPLICE" : \
				 "SC_ROAD_RANGE") ")"
	}
	sub(/^0 \| /, "", C[r, "roads"])
	ROADS[r] = roads
	HOLES[r] = holes

	# what the plan and the tables say
	why = ((r, "reason") in V) ? V[r, "reason"] : \
	      "known to " phrase[V[r, "seen"]]
	why = why " on " V[r, "title"] " (" V[r, "cite"] ")"
	if (a == "skip") {
		does = ""
		if (roads != "")
			does = "does not take " either(roads)
		if (holes == "true")
			does = does (does == "" ? "" : "; ") \
			       "does not look for holes with SEEK_DATA (the " \
			       "data is read whole)"
	} else if (a == "verify") {
		does = "takes " either(roads) " and verifies the copy, " \
		       "copying it again by read_write if it differs"
	} else if (a == "fallback") {
		does = "takes " either(roads) " and, when it fails so, goes " \
		       "on by the next road from where it stopped"
	} else if (a == "note") {
		does = V[r, "does"]
	} else {
		does = "is not exposed: " V[r, "why"]
	}
	sub(/\.$/, "", does)
	WHY[r] = why
	DOES[r] = does
	ACTION[r] = a
	example(r)
}

# A stack where row R holds (EX_FS[r] for both ends, as --assume-fs
# takes it, on Linux EX_K[r]), and one next to it where it does not
# (CLEAR_FS[r], CLEAR_K[r]; "" when only the type makes the row: no
# such stack).  Rows of action none have none.
function example(r,    w, k, lo, hi, p, v) {
	EX_FS[r] = EX_K[r] = CLEAR_FS[r] = CLEAR_K[r] = ""
	if (ACTION[r] == "none")
		return
	split(V[r, "fs"], w, " ")
	EX_FS[r] = w[1]
	EX_K[r] = "6.1"	# any kernel: an LTS one, for the example
	if (V[r, "kernel"] != "any") {
		lo = V[r, "kernel"]
		hi = ""
		if (index(lo, "-")) {
			hi = substr(lo, index(lo, "-") + 1)
			lo = substr(lo, 1, index(lo, "-") - 1)
		} else {
			hi = lo
		}
		EX_K[r] = lo != "" ? lo : hi
		CLEAR_FS[r] = EX_FS[r]
		split(hi != "" ? hi : lo, v, ".")
		CLEAR_K[r] = hi != "" ? v[1] "." (v[2] + 1) : v[1] "." (v[2] - 1)
	}
	if (r in MOD) {
		split(V[r, "module"], w, " ")
		lo = w[2]
		hi = w[k = split(V[r, "module"], w, " ")]
		lo = index(lo, "-") == 1 ? substr(lo, 2) : \
		     substr(lo, 1, index(lo "-", "-") - 1)
		hi = substr(hi, index(hi, "-") + 1)
		EX_FS[r] = EX_FS[r] "@" lo
		split(hi, v, ".")
		CLEAR_FS[r] = w[1] "@" v[1] "." v[2] "." (v[3] + 1)
		CLEAR_K[r] = EX_K[r]
		if (P[r] >= 0) {
			EX_FS[r] = EX_FS[r] "," param_name[P[r]] "=" PV[r]
			CLEAR_FS[r] = CLEAR_FS[r] "," param_name[P[r]] "=" PV[r]
		}
	}
}

function emit_c(    r, p) {
	print "/* Made by lib/stacks.awk from lib/stacks.txt: do not edit (edit"
	print " * that file).  The known-bad stacks, as lib/stacks.h lays them"
	print " * out. */"
	print "#include \"common.h\""
	print "#include \"stacks.h\""
	print ""
	printf("const char *const stacks_params[STACK_PARAMS_MAX] = {")
	for (p = 0; p < nparams; p++)
		printf("%s%s", p ? ", " : " ", cstr(param_name[p]))
	print nparams ? " };" : " NULL };"
	printf("const char *const stacks_param_module[STACK_PARAMS_MAX] = {")
	for (p = 0; p < nparams; p++)
		printf("%s%s", p ? ", " : " ", cstr(param_module[p]))
	print nparams ? " };" : " NULL };"
	print "const size_t stacks_params_count = " nparams ";"
	print ""
	emit_types()
	print "const struct stack stacks_table[] = {"
	for (r = 1; r <= n; r++) {
		print "\t{"
		printf("%s", cwrap("id", ID[r], 0))
		printf("%s", cwrap("cite", V[r, "cite"], 0))
		printf("%s", cwrap("title", V[r, "title"], 0))
		printf("%s", cwrap("fs", V[r, "fs"], 0))
		print "\t\t.side = STACK_" toupper(V[r, "side"]) ","
		print "\t\t" C[r, "kernel"] ","
		printf("%s", C[r, "module"])
		print "\t\t.param = " P[r] ","
		if (P[r] >= 0)
			print "\t\t.param_value = " PV[r] \
			      ", .param_default = " PD[r] ","
		printf("%s", C[r, "libc"])
		print "\t\t.roads = " C[r, "roads"] ","
		print "\t\t.holes = " HOLES[r] ","
		printf("%s", cwrap("seen", V[r, "seen"], 0))
		print "\t\t.action = STACK_" toupper(ACTION[r]) ","
		printf("%s", cwrap("why", WHY[r], 1))
		printf("%s", cwrap("does", DOES[r], 1))
		printf("%s", cwrap("what", V[r, "what"], 0))
		printf("%s", cwrap("source", V[r, "source"], 0))
		printf("%s", cwrap("date", V[r, "date"], 0))
		printf("%s", cwrap("kernel_text", T[r, "kernel"], 0))
		printf("%s", cwrap("module_text", T[r, "module"], 0))
		printf("%s", cwrap("param_text", T[r, "param"], 0))
		printf("%s", cwrap("libc_text", T[r, "libc"], 0))
		printf("%s", cwrap("action_name", ACTION[r], 0))
		printf("%s", cwrap("side_name", V[r, "side"], 0))
		printf("%s", cwrap("example", EX_FS[r], 0))
		printf("%s", cwrap("example_kernel", EX_K[r], 0))
		print "\t},"
	}
	print "};"
	print "const size_t stacks_count = ARRAY_SIZE(stacks_table);"
}

# The rows that act, by filesystem type, and the module whose version
# rows about the type name: what every lookup of facts asks, kept apart
# from the table and without pointers, so that a copy between other
# filesystems touches one page of constants and relocates nothing.
function emit_types(    r, w, k, t, nt, any, seen, list, i) {
	nt = 0
	any = 0
	for (r = 1; r <= n; r++) {
		if (ACTION[r] == "none")
			continue
		if (V[r, "fs"] == "*") {
			any = any + 2 ^ (r - 1)
			continue
		}
		k = split(V[r, "fs"], w, " ")
		for (i = 1; i <= k; i++) {
			t = w[i]
			if (!(t in seen)) {
				seen[t] = ++nt
				list[nt] = t
				ROWS[t] = 0
				TMOD[t] = ""
			}
			ROWS[t] = ROWS[t] + 2 ^ (r - 1)
			if ((r in MOD) && TMOD[t] == "")
				TMOD[t] = MOD[r]
		}
	}
	print "const uint32_t stacks_any_rows = " sprintf("0x%08x", any) ";"
	print "const struct stack_type stacks_types[] = {"
	for (i = 1; i <= nt; i++) {
		if (length(list[i]) >= 32 || length(TMOD[list[i]]) >= 16)
			fail("type " list[i] " or its module: too long a name")
		printf("\t{ %s, %s, 0x%08x },\n", cstr(list[i]),
		       cstr(TMOD[list[i]]), ROWS[list[i]])
	}
	print "};"
	print "const size_t stacks_types_count = ARRAY_SIZE(stacks_types);"
	print ""
}

# TEXT broken at blanks into lines of at most 72 columns, each after
# INDENT (the first after FIRST instead).
function wrap(text, first, indent,    w, k, line, out, i) {
	k = split(text, w, " ")
	line = first
	out = ""
	for (i = 1; i <= k; i++) {
		if (length(line) + 1 + length(w[i]) > 72 && \
		    line != first && line != indent) {
			out = out line "\n"
			line = indent w[i]
		} else {
			line = line ((line == first || line == indent) ? "" : " ") w[i]
		}
	}
	return out line "\n"
}

function emit_readme(    r, how) {
	print "Stacks smartcp guards against"
	print "-----------------------------"
	print ""
	printf("%s", wrap("Some filesystem, kernel and module versions have " \
	      "corrupted data through a fast road while the copy said " \
	      "success, or hung, or failed and left an empty file.  smartcp " \
	      "knows them (lib/stacks.txt, shown " \
	      "by `smartcp --rules` and in smartcp(1)); where the facts of a " \
	      "copy match one, the plan acts on it and --explain, --json and " \
	      "-v name the row:", "", ""))
	print ""
	for (r = 1; r <= n; r++) {
		how = V[r, "seen"]
		if (ROADS[r] != "")
			how = how " through " either(ROADS[r])
		if (HOLES[r] == "true")
			how = how (ROADS[r] != "" ? " and" : " through") \
			      " hole detection"
		printf("%s", wrap(V[r, "title"] " (" V[r, "cite"] ", " \
				  V[r, "date"] "): " how "; smartcp " \
				  DOES[r] ".", "  - ", "    "))
	}
	print ""
	printf("%s", wrap("`smartcp --explain --assume-fs=zfs@2.2.0 " \
	      "--kernel=6.7 f dst/` shows what it does on such a machine " \
	      "(TYPE@VERSION names the module's version).", "", ""))
}

function emit_tsv(    r) {
	for (r = 1; r <= n; r++)
		printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t" \
		       "%s\t%s\t%s\t%s\t%s\n",
		       ID[r], V[r, "cite"], V[r, "fs"], V[r, "side"],
		       T[r, "kernel"], T[r, "module"], T[r, "param"],
		       T[r, "libc"], ROADS[r] (HOLES[r] == "true" ? \
		       (ROADS[r] != "" ? " " : "") "holes" : ""),
		       V[r, "seen"], ACTION[r], V[r, "source"], V[r, "date"],
		       EX_FS[r], EX_K[r], CLEAR_FS[r], CLEAR_K[r])
}

END {
	if (failed)
		exit 1
	if (n == 0)
		fail("no rows")
	if (n > 31)
		fail("more than 31 rows: plans keep them as bits of a word")
	for (r = 1; r <= n; r++)
		row(r)
	if (nparams > 4)
		fail("more than STACK_PARAMS_MAX parameters")
	if (mode == "c")
		emit_c()
	else if (mode == "readme")
		emit_readme()
	else if (mode == "tsv")
		emit_tsv()
	else
		fail("mode is c, readme or tsv")
}
