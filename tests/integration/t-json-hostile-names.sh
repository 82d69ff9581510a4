#!/bin/bash
# --json names files whatever bytes their names hold: newlines, quotes,
# backslashes, tabs, control bytes, UTF-8 and invalid UTF-8.  Every line is
# JSON that python's json.loads accepts, and every "source"/"destination"
# gives back the exact name bytes through the surrogateescape convention
# (a byte that is not UTF-8 is written as \udcXX).
set -eu
. "$(dirname "$0")/lib.sh"
need_cmd python3

cd "$T"
mkdir src
# name bytes, one per line in printf notation
names=(
	'new\nline'
	'dq"uo"te'
	'back\\slash\\'
	'tab\there'
	'\001ctl'
	'\033[1mesc'
	'caf\303\251'
	'\346\227\245\346\234\254'
	'bad\377'
	'lone\303'
	'surrogate\355\240\200'
	'cr\rdel\177'
)
i=0
for n in "${names[@]}"; do
	f=$(printf "$n"x)
	f=${f%x}
	head -c $((1000 + i * 7)) /dev/urandom >"src/$f"
	i=$((i + 1))
done
# also below a directory with a hostile name
d=$(printf 'sub\ndir\377"x')
d=${d%x}
mkdir "src/$d"
printf 'inner\n' >"src/$d/$(printf 'in\\ner\001')"
nfiles=$((i + 1))
assert_eq "$(find src -type f -printf x | wc -c)" "$nfiles" "files created"

say "smartcp --json -r over $nfiles hostile names"
assert_exit 0 "$SMARTCP" --json -r src dst
[ ! -s "$ERR" ] || { _show "$ERR"; fail "stderr not empty"; }

python3 - "$OUT" "$nfiles" <<'PY' || fail "JSON output does not name the files exactly (above)"
import json, os, sys, filecmp

out, nfiles = sys.argv[1], int(sys.argv[2])
bad = []
recs = []
raw = open(out, "rb").read()
if not raw.endswith(b"\n"):
    bad.append("output does not end with a newline")
for ln, line in enumerate(raw.split(b"\n")[:-1], 1):
    try:
        text = line.decode("utf-8")      # JSON text must be valid UTF-8
    except UnicodeDecodeError as e:
        bad.append("line %d is not UTF-8: %s: %r" % (ln, e, line[:200]))
        continue
    try:
        recs.append(json.loads(text))    # strict: no raw control chars
    except ValueError as e:
        bad.append("line %d is not JSON: %s: %r" % (ln, e, line[:200]))

def enc(s):
    return s.encode("utf-8", "surrogateescape")

# the files really there, as bytes
files, dirs = set(), set()
for top, ds, fs in os.walk(b"src"):
    dirs.add(top)
    for f in fs:
        files.add(os.path.join(top, f))

if not recs or "summary" not in recs[-1]:
    bad.append("last line is not a summary: %r" % (recs[-1:] or None))
else:
    s = recs[-1]["summary"]
    if s.get("files") != nfiles:
        bad.append("summary files %r, expected %d" % (s.get("files"), nfiles))
    if s.get("failures") != 0:
        bad.append("summary failures %r" % s.get("failures"))

seen = set()
for r in recs[:-1]:
    if "source" not in r or "destination" not in r:
        bad.append("record without source/destination: %r" % r)
        continue
    try:
        sb, db = enc(r["source"]), enc(r["destination"])
    except UnicodeEncodeError as e:
        bad.append("name not encodable back to bytes: %r (%s)" % (r["source"], e))
        continue
    want_d = b"dst" + sb[3:]
    if not sb.startswith(b"src"):
        bad.append("source %r is not under src" % sb)
    if db != want_d:
        bad.append("destination %r, expected %r" % (db, want_d))
    if r.get("type") == "file":
        if sb not in files:
            bad.append("source %r is not a file of the tree" % sb)
        seen.add(sb)
        if r.get("status") != "ok":
            bad.append("record for %r: status %r" % (sb, r.get("status")))
        if not os.path.isfile(db):
            bad.append("copy %r missing" % db)
        elif not filecmp.cmp(sb, db, shallow=False):
            bad.append("copy %r differs from %r" % (db, sb))
    elif r.get("type") == "directory":
        if sb not in dirs:
            bad.append("directory record %r is not a directory of the tree" % sb)
    else:
        bad.append("unexpected record type %r" % r.get("type"))
for f in sorted(files - seen):
    bad.append("no record for %r" % f)
# the copied tree holds exactly the same names
got = set()
for top, ds, fs in os.walk(b"dst"):
    for f in fs:
        got.add(b"src" + os.path.join(top, f)[3:])
if got != files:
    bad.append("dst names differ: missing %r, extra %r" %
               (sorted(files - got), sorted(got - files)))
for b in bad:
    print("  " + b)
print("%d records checked, %d problems" % (len(recs), len(bad)))
sys.exit(1 if bad else 0)
PY
pass "every line is JSON, names round-trip byte for byte"

say "cmp every copy"
n=0
while IFS= read -r -d '' f; do
	assert_same "$f" "dst/${f#src/}"
	n=$((n + 1))
done < <(find src -type f -print0)
assert_eq "$n" "$nfiles" "files compared"
pass "$n copies equal"
