# The systematic test matrix of issue 27: smartcp's own options, each
# with -p, -a and neither, against every kind of destination, under one
# fault per test file.  Sourced after lib.sh (and lib-faultfs.sh for the
# EIO fault), never run:
#
#	. "$(dirname "$0")/lib.sh"
#	. "$(dirname "$0")/lib-matrix.sh"
#	mx_main none 'plain atomic verify'
#
# The rows (options): plain (none of smartcp's own), --explain, --atomic,
# --verify, --if-changed, --sync, --attributes-only, -j4 on a file, -j4 -r
# on a tree, and two pairs that have hurt: --atomic --attributes-only and
# -j4 -r --atomic on a tree; and --atomic --remove-destination, whose
# new file must be made as cp's (only onto an absent, regular, hard-linked
# or directory destination: it replaces the others, as cp does).  The
# preservations: none, -p, -a.  The destinations: absent, regular, a
# symlink to a file, a dangling symlink, a hard link (a file with another
# name), a directory, a FIFO (a reader at the other end), a character
# device, /dev/stdout redirected to a file.  The faults, one per test file: none, ENOSPC, EIO, SIGINT part
# way, a destination filesystem that refuses chmod and chown (setattr:
# faultfs, without the hard-link and device destinations it cannot
# hold) (see mx_init).  The sources are 300007 bytes with modes 4755, 755,
# 2750, 1755 or 644 (without a fault an absent destination meets each;
# other cells take one in turn), and a tree with all of them, a sticky
# directory and a FIFO.
#
# A cell is one row, one preservation, one destination (and source mode)
# under the file's fault.  It checks invariants, never exact outputs:
#
#   exit     a run that cannot have copied everything (a fault that
#            strikes the data: not with --attributes-only, which moves
#            none) exits non-zero; no run blocks (killed after 60 s).
#   mode     a file or directory the run made, or whose mode it changed,
#            has no mode bit its source lacks; set-id bits (and, on
#            files, the sticky bit) only with -p/-a (a directory keeps
#            its sticky bit without -p, as GNU cp and mkdir(2) do); with
#            -p/-a and exit 0 a copied file or directory has the
#            source's mode.
#   link     a destination that is a symlink stays that symlink, to the
#            same target (as cp keeps it), dangling or not; /dev/stdout
#            stays a symlink (the stdout cells run in a mount namespace
#            with a private /dev: a run that breaks this must not break
#            the machine's).
#   kind     an existing FIFO, device or directory stays that object (the
#            same inode, and a directory its mode); a regular
#            destination stays a regular file.
#   data     nothing looks complete that is not.  Each file the copy
#            writes (the destination, a symlink's target, the other name
#            of a hard link, the file stdout is redirected to, what a
#            FIFO's reader got) is, after exit 0, equal to the source;
#            after a failure its old content untouched, or absent, or a
#            prefix of the source (so a file of the source's size is
#            equal to it).  With --atomic a failure leaves the old file
#            byte for byte, and where there was none, none or a whole
#            copy.  With --attributes-only the bytes never change.
#   outside  nothing but the destination changes: no other file of its
#            directory or of a symlink's target directory, not the
#            source, not the private /dev; no temporaries are left; the
#            other name of a hard link changes only as cp would (it
#            shares the destination's inode, or, where a new file took
#            the name, with --atomic or -a, keeps its old bytes).
#   explain  --explain never blocks (killed after 10 s), changes nothing
#            (a strict snapshot before and after: inodes, sizes, modes,
#            times of everything), never reads the data (the EIO and
#            SIGINT faults would strike).  Without a fault every row
#            runs --explain with its options first, and its plan must be
#            what the run then does: the same exit status, the same
#            files with the same types and status, the first road of a
#            plan is the first road tried, the road that finished is in
#            the plan, and a plan with roads for a file the run copies
#            no data into is a wrong plan.
#   json     every line is JSON; a record with status "failed" names
#            the step that failed (the "failed" key); a road that failed
#            is not "ok" in "tried"; the summary counts the failed
#            records; exit 0 if and only if nothing failed; an EIO of the
#            source is failed "read", ENOSPC or EPIPE failed "write", and
#            when stderr says EIO (ENOSPC, EPIPE) a failed record says it
#            too.  (Not with a /dev/stdout destination, where stdout
#            carries the data.)
#   gnumode  a file the run wrote whole has the mode GNU cp's run (with
#            the options cp has, without smartcp's own) gives the file
#            it wrote whole in the same set-up (issue 37: --atomic
#            --remove-destination gave a 0600 secret the old file's 0644).
#            Where "cp" below runs cp, and only where cp ran to its end:
#            a cp killed by a signal (SIGINT, SIGPIPE) can leave a file
#            whose data is whole but whose mode is still the 0700 it was
#            made with, and which file that is depends on the order
#            readdir gives (ext4's hash seed).
#   discard  under the setattr fault, a run that failed after an
#            attribute was refused and left a file without the copy (the
#            old file kept, none made) says so: a message names it and
#            says it was not replaced or made (MX_KEPT_RE).  A refused
#            attribute never throws a whole copy away without a word.
#   cp       the exit status is GNU cp's (/bin/cp) in the same set-up,
#            with the options cp has (-p, -a, -r, --attributes-only):
#            smartcp's own options change how a file is written, not
#            whether the copy succeeds.  Not for --explain, nor for
#            --verify onto a FIFO or a device, which it refuses as
#            documented; under a fault that strikes the data (where
#            "exit" holds every row to a failure) only for the rows whose
#            options cp has (no option, --attributes-only, -r on a
#            tree); under setattr for every row.
#
# Each broken invariant prints one line naming the cell (row,
# preservation, destination, source mode, fault) and what broke; all
# cells run, then the test exits 1 if any broke, and the last line says
# how many cells there were.  Known bugs are listed in MX_XFAIL: the
# cells that break them are told as XFAIL and do not fail the test, and
# an entry no cell breaks any more fails it.  MATRIX_ROWS, MATRIX_PRES
# (none p a) and MATRIX_DESTS (space-separated) run a subset, to look at
# one cell;
# MATRIX_LOGS=DIR keeps every run's stdout, stderr and JSON.

MX_ALL_ROWS="plain atomic verify if-changed sync attributes-only j4-tree j-file explain
atomic+attributes-only j4-tree+atomic"
MX_ALL_PRES="none p a"
MX_ALL_DESTS="absent regular symlink dangling hardlink directory fifo device stdout"
MX_PRES=${MATRIX_PRES:-$MX_ALL_PRES}
MX_DESTS=${MATRIX_DESTS:-$MX_ALL_DESTS}

# The single-file sources: one content, five modes.
MX_MODES=(4755 755 2750 1755 644)
MX_SIZE=300007		# past a 256 KiB read_write buffer, odd
MX_OLD_SIZE=5000	# an old destination
MX_CUT=65536		# SIGINT once this much of a source was read
MX_EIO=100003		# EIO reading a source from here on
# the tree: name, type (f, d, p: a FIFO), size, mode
MX_TREE="a f 150007 4755
b f 70001 755
c f 9001 644
pipe p - 640
sub d - 1777
sub/d f 120001 2755"
MX_TREE_NAMES="a b c pipe sub sub/d"
MX_ENOSPC_FS=128k	# the destination's tmpfs: less than any copy needs

umask 022
need_root "mounts filesystems, makes device nodes, unshares /dev"
need_cmd jq unshare python3

MX_FAIL=$T/mx.fail
MX_XFAILED=$T/mx.xfail
: >"$MX_FAIL"
: >"$MX_XFAILED"
MX_CELLS=0
MX_RUNS=0

# ------------------------------------------------------------------ helper

# The scratch work of a cell (making the destination, snapshots, byte
# comparisons, a FIFO's reader) is done by one python3 process for the
# whole test, a coprocess that answers one line per request: this
# machine may take 10 ms to start a process, and a cell would need a
# dozen.  Requests are tab-separated words:
#   setup W DEST MAJOR MINOR OLD   $W as a cell starts (mx_dest_setup)
#   snap FILE PATH...              the snapshot of PATH... into FILE
#   same A B [N]                   "same" when A and B (their first N
#                                  bytes) are equal, else "differ"
#   reader FIFO OUT LIMIT          start reading FIFO into OUT (at most
#                                  LIMIT bytes, 0: all) in a thread
#   reader_stop FIFO               an EOF for a reader still waiting for
#                                  a writer (an O_RDWR open of a FIFO
#                                  never blocks; its close is the last
#                                  writer's), and wait for it to end
#   fakedev DIR                    the private /dev of the stdout cells
#   run DIR OUT w|rw ERR SECONDS ARGV...
#                                  run ARGV in DIR, stdout to OUT
#                                  (truncated or not), stderr to ERR:
#                                  its exit status as a shell says it
read -r -d '' MX_PY <<'PY' || true
import os, shutil, stat, subprocess, sys, threading

def kind(m):
    for t, f in (('f', stat.S_ISREG), ('d', stat.S_ISDIR), ('l', stat.S_ISLNK),
                 ('p', stat.S_ISFIFO), ('c', stat.S_ISCHR), ('b', stat.S_ISBLK)):
        if f(m):
            return t
    return 's'

def ns(t):
    return '%d.%09d' % divmod(t, 1000000000)

def walk(p, out):
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return
    t = kind(st.st_mode)
    perm = '%o' % stat.S_IMODE(st.st_mode)
    times = ns(st.st_mtime_ns) + '\t' + ns(st.st_ctime_ns)
    if t == 'd':
        out.append('\t'.join((p, 'd', perm, '-', str(st.st_ino), '-', times, '-')))
        for n in sorted(os.listdir(p)):
            walk(os.path.join(p, n), out)
    else:
        link = os.readlink(p) if t == 'l' else ''
        out.append('\t'.join((p, t, perm, str(st.st_size), str(st.st_ino),
                              str(st.st_nlink), times, link)))

def rm(p):
    if os.path.isdir(p) and not os.path.islink(p):
        shutil.rmtree(p)
    else:
        os.unlink(p)

def write(p, data, mode):
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    os.write(fd, data)
    os.close(fd)
    os.chmod(p, mode)

def setup(w, dest, major, minor, old, rules=''):
    os.umask(0o22)
    for d in (w, w + '/tgt'):
        # the last cell's faultfs rules go first: they refuse chmod
        if rules and os.path.isdir(d) and not os.path.islink(d):
            try:
                os.removexattr(d, 'user.fault')
            except OSError:
                pass
    for d in (w, w + '/tgt'):
        if os.path.islink(d) or (os.path.lexists(d) and not os.path.isdir(d)):
            os.unlink(d)
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o755)
    for n in os.listdir(w):
        if n != 'tgt':
            rm(w + '/' + n)
    for n in os.listdir(w + '/tgt'):
        if n != 'other' or rules:
            rm(w + '/tgt/' + n)
    write(w + '/tgt/other', b'other\n', 0o644)
    with open(old, 'rb') as f:
        data = f.read()
    dst = w + '/dst'
    if dest == 'regular':
        write(dst, data, 0o640)
    elif dest == 'symlink':
        write(w + '/tgt/target', data, 0o640)
        os.symlink('tgt/target', dst)
    elif dest == 'dangling':
        os.symlink('tgt/missing', dst)
    elif dest == 'hardlink':
        write(dst, data, 0o640)
        os.link(dst, w + '/tgt/alias')
    elif dest == 'directory':
        os.mkdir(dst, 0o755)
        write(dst + '/keep', b'keep\n', 0o644)
    elif dest == 'fifo':
        os.mkfifo(dst, 0o640)
        os.chmod(dst, 0o640)
    elif dest == 'device':
        os.mknod(dst, 0o640 | stat.S_IFCHR, os.makedev(int(major), int(minor)))
        os.chmod(dst, 0o640)
    elif dest == 'stdout':
        write(w + '/out', b'', 0o644)
    if rules:
        # faultfs: what is there refuses from now on, and what is made
        # in w or w/tgt will (regular files and directories only: the
        # kernel keeps user.* xattrs off FIFOs, devices and symlinks)
        for d, names, files in os.walk(w):
            for p in [d] + [os.path.join(d, n) for n in files]:
                if stat.S_ISREG(os.lstat(p).st_mode) or p == d:
                    os.setxattr(p, 'user.fault', rules.encode(),
                                follow_symlinks=False)

def same(a, b, n=None):
    try:
        with open(a, 'rb') as fa, open(b, 'rb') as fb:
            if n is None:
                return fa.read() == fb.read()
            n = int(n)
            return fa.read(n) == fb.read(n)
    except OSError:
        return False

def fakedev(d):
    if os.path.lexists(d):
        rm(d)
    os.mkdir(d, 0o755)
    for n, t in (('stdin', 0), ('stdout', 1), ('stderr', 2)):
        os.symlink('/proc/self/fd/%d' % t, d + '/' + n)
    os.symlink('/proc/self/fd', d + '/fd')
    for n, minor in (('null', 3), ('zero', 5), ('full', 7), ('random', 8), ('urandom', 9)):
        os.mknod(d + '/' + n, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        os.chmod(d + '/' + n, 0o666)

reader = None

def read_fifo(fifo, out, limit):
    with open(fifo, 'rb', buffering=0) as f, open(out, 'wb') as o:
        got = 0
        while limit == 0 or got < limit:
            b = f.read(min(65536, limit - got) if limit else 65536)
            if not b:
                break
            o.write(b)
            got += len(b)

def reader_stop(fifo):
    global reader
    for _ in range(1000):
        if not reader.is_alive():
            break
        try:
            if stat.S_ISFIFO(os.lstat(fifo).st_mode):
                os.close(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))
        except OSError:
            pass
        reader.join(0.01)
    alive = reader.is_alive()
    reader = None
    return 'stuck' if alive else 'ok'

def run(cwd, out, mode, err, limit, *argv):
    # as a shell runs a command: the status, or 128 + the signal; 124
    # when it runs past LIMIT seconds (then killed)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if mode == 'w' else 0)
    fo = os.open(out, flags, 0o644)
    fe = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                             stdout=fo, stderr=fe)
    finally:
        os.close(fo)
        os.close(fe)
    try:
        rc = p.wait(float(limit))
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return 124
    return 128 - rc if rc < 0 else rc

for line in sys.stdin:
    a = line.rstrip('\n').split('\t')
    try:
        if a[0] == 'setup':
            setup(*a[1:])
            r = 'ok'
        elif a[0] == 'snap':
            out = []
            for p in a[2:]:
                walk(p, out)
            with open(a[1], 'w') as f:
                f.write(''.join(l + '\n' for l in out))
            r = 'ok'
        elif a[0] == 'same':
            r = 'same' if same(*a[1:]) else 'differ'
        elif a[0] == 'reader':
            reader = threading.Thread(target=read_fifo, daemon=True,
                                      args=(a[1], a[2], int(a[3])))
            reader.start()
            r = 'ok'
        elif a[0] == 'reader_stop':
            r = reader_stop(a[1])
        elif a[0] == 'run':
            r = str(run(*a[1:]))
        elif a[0] == 'fakedev':
            fakedev(a[1])
            r = 'ok'
        else:
            r = 'error: no request ' + a[0]
    except Exception as e:
        r = 'error: %s: %r' % (line.strip(), e)
    print(r, flush=True)
PY

# mx_h WORD...: one request to the helper; its answer in $H.
mx_h() {
	local IFS=$'\t' req
	req="$*"
	# the usual IFS again: a failure from here runs the trap, whose
	# undo list is words separated by spaces
	IFS=$' \t\n'
	printf '%s\n' "$req" >&"${MXH[1]}"
	IFS= read -r H <&"${MXH[0]}" || fail "the matrix helper (python3) died"
	case $H in
	error*) fail "matrix helper: $H" ;;
	esac
}

# mx_same A B [N]: A and B (their first N bytes) are equal.
mx_same() {
	mx_h same "$@"
	[ "$H" = same ]
}

# ------------------------------------------------------------------ set-up

# mx_sources DIR: the sources (m4755 ... and stree/) in DIR.
mx_sources() {
	local d=$1 m name size mode
	mkdir -p "$d/stree"
	for m in "${MX_MODES[@]}"; do
		cp "$T/ref.src" "$d/m$m"
		chmod "$m" "$d/m$m"
	done
	while read -r name type size mode; do
		case $type in
		d) mkdir -p "$d/stree/$name" ;;
		p) mkfifo "$d/stree/$name" ;;
		f) head -c "$size" "$T/ref.src" >"$d/stree/$name" ;;
		esac
	done <<<"$MX_TREE"
	while read -r name type size mode; do
		chmod "$mode" "$d/stree/$name"
	done <<<"$MX_TREE"
}

# mx_init FAULT: sources, mounts, the helper and the fault's machinery.
mx_init() {
	MX_FAULT=$1
	head -c "$MX_SIZE" /dev/urandom >"$T/ref.src"
	head -c "$MX_OLD_SIZE" /dev/urandom >"$T/ref.old"
	mx_sources "$T/srcs"	# also the references the copies are compared with
	MX_REF=$T/srcs
	MX_SRCROOT=$T/srcs
	MX_WROOT=$T/work
	MX_DEVMAJMIN=(1 3)	# the device destination: /dev/null's numbers
	MX_ENV=()
	MX_RULES=
	MX_NO_DESTS=
	case $MX_FAULT in
	none) ;;
	enospc)
		# the destination on a tmpfs too small for any copy; the
		# device is /dev/full's numbers, a FIFO's reader stops
		# after 64 KiB (the writer gets EPIPE or SIGPIPE, which
		# kills as it kills a foreground job, whatever the caller
		# set)
		mount_tmpfs "$T/full" "$MX_ENOSPC_FS"
		MX_WROOT=$T/full
		MX_DEVMAJMIN=(1 7)
		MX_ENV=(env --default-signal=PIPE) ;;
	eio)
		# the sources on faultfs: EIO reading any of them at MX_EIO
		mount_faultfs "$T/ff"
		mx_sources "$T/ff/srcs"
		local f
		for f in "$T"/ff/srcs/m* "$T/ff/srcs/stree/a" "$T/ff/srcs/stree/sub/d"; do
			set_fault "$f" "eio_read@$MX_EIO"
		done
		MX_SRCROOT=$T/ff/srcs ;;
	setattr)
		# the destinations on faultfs, where chmod and chown fail
		# with ENOSYS (as fusefat's do) and ACLs are not supported:
		# every file and directory the run finds or makes there.
		# faultfs keeps no hard links nor devices: those
		# destinations are not met.
		mount_faultfs "$T/ffs"
		MX_WROOT=$T/ffs
		MX_RULES=setattr=ENOSYS
		MX_NO_DESTS="hardlink device" ;;
	sigint)
		# the fault shim's run action sends SIGINT to the copier
		# from inside the read that reaches MX_CUT bytes of a source:
		# no race, the same point every time.  SIGINT kills as it
		# kills a foreground job, whatever the caller set.
		need_shim
		# shellcheck disable=SC2016 # $PPID is the inner sh's
		MX_ENV=(env --default-signal=INT LD_PRELOAD="$SHIM"
			SMARTCP_FAULT="read=run@$MX_CUT,cfr=run@$MX_CUT,splice_read=run@$MX_CUT"
			SMARTCP_FAULT_MATCH_SRC="$MX_SRCROOT/"
			SMARTCP_FAULT_RUN='kill -INT $PPID') ;;
	*) fail "mx_init: no fault '$MX_FAULT'" ;;
	esac
	W=$MX_WROOT/w
	mkdir -p "$T/aux" "$T/logs"
	coproc MXH { exec python3 -u -c "$MX_PY"; }
	mx_h fakedev "$T/fakedev"
}

# mx_dest_setup: $W as a cell starts, with the cell's destination:
#   $W/dst          the destination (absent, or the kind of the cell)
#   $W/tgt/         a symlink's target directory, and the other name of
#                   a hard link; $W/tgt/other must never change
# For stdout, $W/out is the file standard output is redirected to.
mx_dest_setup() {
	cd "$T" || exit
	mx_h setup "$W" "$DEST" "${MX_DEVMAJMIN[@]}" "$T/ref.old" "$MX_RULES"
	[ -L "$T/fakedev/stdout" ] || mx_h fakedev "$T/fakedev"
}

# mx_reader_start: a reader for a FIFO destination (under ENOSPC one
# that stops after 64 KiB), its bytes in $T/aux/fifo.out.
mx_reader_start() {
	READER=
	[ "$DEST" = fifo ] || return 0
	: >"$T/aux/fifo.out"
	if [ "$MX_FAULT" = enospc ]; then
		mx_h reader "$W/dst" "$T/aux/fifo.out" 65536
	else
		mx_h reader "$W/dst" "$T/aux/fifo.out" 0
	fi
	READER=1
}

mx_reader_stop() {
	[ -n "$READER" ] || return 0
	mx_h reader_stop "$W/dst"
	[ "$H" = ok ] || fail "the FIFO's reader does not end"
}

# ------------------------------------------------------------------ runs

# mx_exec OUT ERR TOOL ARGS...: run TOOL in $W under the cell's fault,
# stdout to OUT, stderr to ERR; the exit status in $RC (124: it blocked,
# and was killed after $MX_TIMEOUT or 60 seconds).  The helper starts
# it: one process less than timeout(1) would make.
mx_exec() {
	local out=$1 err=$2 wrap=() mode=w
	shift 2
	if [ "$DEST" = stdout ]; then
		# shellcheck disable=SC2016 # for the inner sh
		wrap=(unshare --mount --propagation private -- sh -c \
			'mount --bind "$0" /dev && exec "$@"' "$T/fakedev")
	fi
	# stdout onto W/out is opened as 1<> opens it: the file's times
	# must not change before the run
	[ "$out" != "$W/out" ] || mode=rw
	mx_h run "$W" "$out" "$mode" "$err" "${MX_TIMEOUT:-60}" \
		${wrap[@]+"${wrap[@]}"} ${MX_ENV[@]+"${MX_ENV[@]}"} "$@"
	RC=$H
	MX_RUNS=$((MX_RUNS + 1))
}

# mx_args: the cell's options for smartcp (SC_ARGS) and for cp
# (CP_ARGS; CP is empty where cp is not asked), its source and its name.
# The single-file source is the cell's variant (a mode), else it rotates
# through the modes with the cell's position.
mx_args() {
	local p=() src
	case $PRES in
	p) p=(-p) ;;
	a) p=(-a) ;;
	esac
	TREE='' F_ATOMIC='' F_ATTR=''
	case $ROW in *j4-tree*) TREE=1 ;; esac
	case $ROW in *atomic*) F_ATOMIC=1 ;; esac
	case $ROW in *attributes-only*) F_ATTR=1 ;; esac
	if [ -n "$TREE" ]; then
		[ "$PRES" = a ] || p+=(-r)
		src=stree
		SRCMODE=
	elif [ "$VARIANT" != - ]; then
		SRCMODE=$VARIANT
		src=m$SRCMODE
	else
		SRCMODE=${MX_MODES[$(( (ROW_I + PRES_I + DEST_I) % ${#MX_MODES[@]} ))]}
		src=m$SRCMODE
	fi
	SRC=$MX_SRCROOT/$src
	SRCNAME=$src
	# GNU cp gets the options it has: -p, -a, -r, --attributes-only
	CP_ARGS=(${p[@]+"${p[@]}"})
	[ -z "$F_ATTR" ] || CP_ARGS+=(--attributes-only)
	CP=1
	case $ROW in
	plain) SC_ARGS=(${p[@]+"${p[@]}"}) ;;
	attributes-only) SC_ARGS=(--attributes-only ${p[@]+"${p[@]}"}) ;;
	j4-tree|j-file) SC_ARGS=(-j4 ${p[@]+"${p[@]}"}) ;;
	atomic+attributes-only) SC_ARGS=(--atomic --attributes-only ${p[@]+"${p[@]}"}) ;;
	atomic+remove-destination)
		SC_ARGS=(--atomic --remove-destination ${p[@]+"${p[@]}"})
		CP_ARGS+=(--remove-destination) ;;
	j4-tree+atomic) SC_ARGS=(-j4 --atomic ${p[@]+"${p[@]}"}) ;;
	*) SC_ARGS=("--$ROW" ${p[@]+"${p[@]}"}) ;;
	esac
	# --verify refuses a destination it cannot read back, as
	# documented: there it does not answer as cp.  Under a fault, where
	# every row must fail anyway, only the rows whose options cp has.
	case $ROW:$DEST in
	explain:*|verify:fifo|verify:device) CP= ;;
	esac
	case $MX_FAULT:$ROW in
	none:*|setattr:*|*:plain|*:attributes-only|*:j4-tree) ;;
	*) CP= ;;
	esac
	case $DEST in
	stdout) DST=/dev/stdout ;;
	*) DST=dst ;;
	esac
	case $ROW in
	plain) LABEL="no option" ;;
	j4-tree) LABEL="-j4 -r on a tree" ;;
	j-file) LABEL="-j4 on a file" ;;
	atomic+attributes-only) LABEL="--atomic --attributes-only" ;;
	atomic+remove-destination) LABEL="--atomic --remove-destination" ;;
	j4-tree+atomic) LABEL="-j4 -r --atomic on a tree" ;;
	*) LABEL=--$ROW ;;
	esac
	case $PRES in
	p) LABEL+=" -p" ;;
	a) LABEL+=" -a" ;;
	esac
	if [ -n "$TREE" ]; then
		LABEL+=" | destination $DEST | source a tree"
	else
		printf -v src '%04o' "$((8#$SRCMODE))"
		LABEL+=" | destination $DEST | source $src"
	fi
	LABEL+=" | fault $MX_FAULT"
}

# Expected failures: "FAULT ROW PRES DEST INVARIANT|WHY", each word a
# shell pattern.  A cell that breaks such an invariant is an expected
# failure, told but not failing the test; an entry whose cells all hold
# the invariant fails the test (an unexpected pass: take the entry out
# with the fix that made it pass).
MX_XFAIL=(
	# none today (issue 37, item 2's were taken out with its fix)
)

# mx_xfail INVARIANT: the index of the entry of MX_XFAIL the cell and
# INVARIANT meet, in $XI; false when none.
mx_xfail() {
	local e f r p d i
	for XI in "${!MX_XFAIL[@]}"; do
		e=${MX_XFAIL[$XI]%%|*}
		read -r f r p d i <<<"$e"
		# shellcheck disable=SC2053 # the entries are patterns
		[[ $MX_FAULT == $f && $ROW == $r && $PRES == $p && $DEST == $d &&
		   $1 == $i ]] && return 0
	done
	return 1
}

# mx_bad TEXT: the cell broke an invariant (TEXT starts with its name).
mx_bad() {
	if mx_xfail "${1%%:*}"; then
		printf '%s\t%05d\t%s\t%s\n' "$XI" "$CELL" "$LABEL" "$*" \
			>>"$MX_XFAILED"
		return
	fi
	printf '%05d\t%s\t%s\n' "$CELL" "$LABEL" "$*" >>"$MX_FAIL"
}

# ------------------------------------------------------------- snapshots

# mx_snap FILE: every object under $W, the sources and the fake /dev
# (and what a FIFO's reader got): path, type, mode, size, inode, links,
# mtime, ctime, link target; directories: type, mode, inode, mtime, ctime.
mx_snap() {
	mx_h snap "$1" "$W" "$MX_SRCROOT" "$T/fakedev" ${READER:+"$T/aux/fifo.out"}
}

# mx_load FILE P: the snapshot FILE into the associative arrays P (path ->
# the entry, directories without their times: adding a file to one is
# not a change of it), P_y (type: f d l p c), P_m (mode, octal), P_s
# (size), P_i (inode) and P_l (link target).
# shellcheck disable=SC2034 # BEF_s: filled through the nameref
declare -A BEF BEF_y BEF_m BEF_s BEF_i BEF_l AFT AFT_y AFT_m AFT_s AFT_i AFT_l
mx_load() {
	local -n _e=$2 _y=${2}_y _m=${2}_m _s=${2}_s _i=${2}_i _l=${2}_l
	local p y m s i n mt ct l
	_e=() _y=() _m=() _s=() _i=() _l=()
	while IFS=$'\t' read -r p y m s i n mt ct l; do
		[ "$y" != d ] || mt=- ct=-
		_e[$p]="$y $m $s $i $n $mt $ct ${l:--}"
		_y[$p]=$y _m[$p]=$m _s[$p]=$s _i[$p]=$i _l[$p]=$l
	done <"$1"
}

# mx_slurp FILE: the text of FILE in $SLURP, without a process.
mx_slurp() {
	SLURP=
	IFS= read -r -d '' SLURP <"$1" || true
}

# ------------------------------------------------------------ invariants

mx_kind() {
	case $1 in
	f) echo "regular file" ;;
	d) echo directory ;;
	l) echo symlink ;;
	p) echo FIFO ;;
	c) echo "character device" ;;
	b) echo "block device" ;;
	'') echo nothing ;;
	*) echo "'$1'" ;;
	esac
}

mx_o() { printf '%04o' "$((8#$1))"; }

# mx_mode PATH SRCMODE: the mode of PATH (after the run) against its
# source's, if the run made PATH or changed it.  A mode the run left as
# it was is not the run's (an existing destination keeps its mode
# without -p, as with cp).
mx_mode() {
	local p=$1 sm=$2 y m rel
	[ -n "${AFT[$p]:-}" ] || return 0
	[ "${BEF[$p]:-}" != "${AFT[$p]}" ] || return 0
	y=${AFT_y[$p]}
	m=${AFT_m[$p]}
	rel=${p#"$W"/}
	if [ -n "${BEF[$p]:-}" ] && [ "${BEF_m[$p]}" = "$m" ]; then
		:	# not the run's mode
	elif (( 8#$m & ~8#$sm & 07777 )); then
		mx_bad "mode: $rel is $(mx_o "$m"), wider than its source's $(mx_o "$sm")"
		return
	elif [ "$PRES" = none ] && (( 8#$m & 06000 )); then
		mx_bad "mode: $rel is $(mx_o "$m"): set-id bits without -p/-a"
		return
	elif [ "$PRES" = none ] && [ "$y" != d ] && (( 8#$m & 01000 )); then
		mx_bad "mode: $rel is $(mx_o "$m"): sticky bit without -p/-a"
		return
	fi
	if [ "$PRES" != none ] && [ "$RC" -eq 0 ] &&
	   { [ "$y" = f ] || [ "$y" = d ]; } &&
	   [ "$((8#$m))" -ne "$((8#$sm))" ]; then
		mx_bad "mode: $rel is $(mx_o "$m"), -$PRES asks for the source's $(mx_o "$sm")"
	fi
}

# mx_changed PATH: PATH was made, changed or removed by the run.
mx_changed() { [ "${BEF[$1]:-}" != "${AFT[$1]:-}" ]; }

# mx_data PATH REF REFSIZE OLD: the data invariant for a file the copy
# writes.  REF: the source's bytes; OLD: "old" (it held $T/ref.old),
# "none" (it did not exist) or "empty" (an empty file).
mx_data() {
	local p=$1 ref=$2 refsize=$3 old=$4 y s rel
	rel=${p#"$W"/}
	if [ -z "${AFT[$p]:-}" ]; then
		if [ "$RC" -eq 0 ]; then
			mx_bad "data: exit 0 but $rel does not exist"
		elif [ "$old" = old ] && [ -n "$F_ATOMIC" ]; then
			mx_bad "data: --atomic failed and $rel, which held the old file, is gone"
		elif [ "$old" = old ] && [ -n "$F_ATTR" ]; then
			mx_bad "data: --attributes-only removed $rel"
		fi
		return
	fi
	y=${AFT_y[$p]}
	s=${AFT_s[$p]}
	if [ "$y" != f ]; then
		mx_bad "data: $rel is now a $(mx_kind "$y"), not a regular file"
		return
	fi
	if [ -n "$F_ATTR" ]; then
		case $old in
		old) mx_same "$p" "$T/ref.old" ||
			mx_bad "data: --attributes-only changed the bytes of $rel ($s bytes, was $MX_OLD_SIZE)" ;;
		*) [ "$s" -eq 0 ] ||
			mx_bad "data: --attributes-only wrote $s bytes into $rel" ;;
		esac
		return
	fi
	if [ "$RC" -eq 0 ]; then
		mx_same "$p" "$ref" ||
			mx_bad "data: exit 0 but $rel ($s bytes) differs from the source ($refsize bytes)"
		return
	fi
	# the run failed
	if [ "$old" = old ] && [ "$s" -eq "$MX_OLD_SIZE" ] &&
	   mx_same "$p" "$T/ref.old"; then
		return
	fi
	if [ -n "$F_ATOMIC" ] && [ "$DEST" != stdout ]; then
		# the old file as it was; where there was none, nothing or
		# the whole new file (another file of a tree failed)
		if [ "$old" = old ]; then
			mx_bad "data: --atomic failed but $rel is not the old file ($s bytes)"
		elif [ "$s" -ne "$refsize" ] || ! mx_same "$p" "$ref"; then
			mx_bad "data: --atomic failed and a part of $rel was left ($s bytes)"
		fi
		return
	fi
	if [ "$s" -gt "$refsize" ]; then
		mx_bad "data: the run failed and $rel is $s bytes, longer than the source"
	elif [ "$s" -eq "$refsize" ]; then
		mx_same "$p" "$ref" ||
			mx_bad "data: the run failed and $rel has the source's size ($s bytes) but not its bytes: it looks complete"
	elif [ "$s" -gt 0 ] && ! mx_same "$p" "$ref" "$s"; then
		mx_bad "data: the run failed and $rel ($s bytes) is neither the old file nor a prefix of the source"
	fi
}

# mx_what PATH: which fields of PATH's entry the run changed.
mx_what() {
	local -a b a n=(type mode size inode links mtime ctime target)
	local i out=
	read -r -a b <<<"${BEF[$1]}"
	read -r -a a <<<"${AFT[$1]}"
	for i in 0 1 2 3 4 5 6 7; do
		[ "${b[$i]}" = "${a[$i]}" ] || out+="${out:+, }${n[$i]} ${b[$i]} -> ${a[$i]}"
	done
	printf '%s' "$out"
}

# mx_check_run: every invariant of the run just made, from BEF and AFT.
mx_check_run() {
	local p rel eff=() dst=$W/dst base='' seen=" " name type size mode
	local by ay

	if [ "$RC" -eq 124 ]; then
		mx_bad "exit: the run blocked (killed after 60 s)"
	fi
	# with --attributes-only no data moves: the fault cannot strike;
	# a refused chmod does not strike the data
	[ "$MX_FAULT" = none ] || [ "$MX_FAULT" = setattr ] ||
	[ -n "$F_ATTR" ] || [ "$RC" -ne 0 ] ||
		mx_bad "exit: 0, though the $MX_FAULT fault makes a whole copy impossible"

	# The destination itself.
	by=${BEF_y[$dst]:-}
	ay=${AFT_y[$dst]:-}
	case $DEST in
	symlink|dangling)
		if [ "$ay" != l ]; then
			mx_bad "link: the symlink destination dst is now $(mx_kind "$ay")"
		elif [ "${AFT_l[$dst]}" != "${BEF_l[$dst]}" ]; then
			mx_bad "link: dst now points to '${AFT_l[$dst]}', not '${BEF_l[$dst]}'"
		fi ;;
	regular|hardlink)
		[ -z "$ay" ] || [ "$ay" = f ] ||
			mx_bad "kind: the regular destination dst is now a $(mx_kind "$ay")" ;;
	directory|fifo|device)
		if [ -z "$ay" ]; then
			mx_bad "kind: the $(mx_kind "$by") dst was removed"
		elif [ "$ay" != "$by" ] || [ "${AFT_i[$dst]}" != "${BEF_i[$dst]}" ]; then
			mx_bad "kind: the $(mx_kind "$by") dst was replaced by a $(mx_kind "$ay")"
		elif [ "$DEST" = directory ] && [ "${AFT_m[$dst]}" != "${BEF_m[$dst]}" ]; then
			mx_bad "outside: the destination directory's mode changed from $(mx_o "${BEF_m[$dst]}") to $(mx_o "${AFT_m[$dst]}")"
		fi ;;
	esac
	p=$T/fakedev/stdout
	if [ "${AFT_y[$p]:-}" != l ]; then
		mx_bad "link: /dev/stdout is now $(mx_kind "${AFT_y[$p]:-}") (in the run's private /dev)"
	fi

	# What the copy writes (eff), or the tree it makes (base).
	if [ -n "$TREE" ]; then
		case $DEST in
		absent) base=$W/dst ;;
		directory) base=$W/dst/$SRCNAME ;;
		esac
	else
		case $DEST in
		absent|regular|hardlink) eff=("$dst") ;;
		symlink) eff=("$W/tgt/target") ;;
		dangling) eff=("$W/tgt/missing") ;;
		directory) eff=("$W/dst/$SRCNAME") ;;
		stdout) eff=("$W/out") ;;
		esac
	fi

	# what the copy writes, for the invariants checked after this one
	MX_WP=() MX_WR=() MX_WS=()
	for p in ${eff[@]+"${eff[@]}"}; do
		MX_WP+=("$p") MX_WR+=("$MX_REF/$SRCNAME") MX_WS+=("$MX_SIZE")
	done
	if [ -n "$base" ]; then
		while read -r name type size mode; do
			[ "$type" = f ] || continue
			MX_WP+=("$base/$name") MX_WR+=("$MX_REF/stree/$name")
			MX_WS+=("$size")
		done <<<"$MX_TREE"
	fi

	# Nothing else changes.
	for p in "${!BEF[@]}" "${!AFT[@]}"; do
		case $seen in *" $p "*) continue ;; esac
		seen+="$p "
		mx_changed "$p" || continue
		rel=${p#"$W"/}
		case $p in
		"$MX_SRCROOT"|"$MX_SRCROOT"/*)
			mx_bad "outside: the source ${p#"$T"/} changed ($(mx_what "$p"))"
			continue ;;
		"$T/fakedev/stdout"|"$dst"|"$T/aux/"*)
			continue ;;	# above, or the FIFO's reader's
		"$T/fakedev"|"$T/fakedev"/*)
			mx_bad "outside: /dev/${p#"$T"/fakedev/} (private /dev) changed"
			continue ;;
		esac
		if [ -n "$base" ]; then
			case $p in "$base"|"$base"/*) continue ;; esac
		fi
		case " ${eff[*]-} " in *" $p "*) continue ;; esac
		case $DEST:$p in
		hardlink:"$W/tgt/alias"|symlink:"$W/tgt/target") continue ;;
		esac
		if [ -z "${BEF[$p]:-}" ]; then
			mx_bad "outside: left behind: $rel ($(mx_kind "${AFT_y[$p]}"))"
		elif [ -z "${AFT[$p]:-}" ]; then
			mx_bad "outside: removed: $rel"
		else
			mx_bad "outside: changed: $rel ($(mx_what "$p"))"
		fi
	done

	# The data, and the modes of what the run made or changed.
	for p in "${eff[@]}"; do
		case $DEST in
		absent|dangling|directory) mx_data "$p" "$MX_REF/$SRCNAME" "$MX_SIZE" none ;;
		stdout) mx_data "$p" "$MX_REF/$SRCNAME" "$MX_SIZE" empty ;;
		*) mx_data "$p" "$MX_REF/$SRCNAME" "$MX_SIZE" old ;;
		esac
		! mx_changed "$p" || mx_mode "$p" "$SRCMODE"
	done
	if [ -z "$TREE" ]; then
		case $DEST in
		fifo|device) ! mx_changed "$dst" || mx_mode "$dst" "$SRCMODE" ;;
		esac
		[ "$DEST" != fifo ] || mx_fifo_data
		[ "$DEST" != hardlink ] || mx_alias
	fi
	if [ "$DEST" = symlink ] && [ "${AFT_y[$W/tgt/target]:-}" != f ]; then
		mx_bad "outside: the symlink's target tgt/target is now $(mx_kind "${AFT_y[$W/tgt/target]:-}")"
	fi
	if [ -n "$base" ]; then
		if [ -z "${AFT[$base]:-}" ]; then
			[ "$RC" -ne 0 ] ||
				mx_bad "data: exit 0 but the tree ${base#"$W"/} was not made"
			return 0
		fi
		mx_mode "$base" "${BEF_m[$MX_SRCROOT/stree]}"
		while read -r name type size mode; do
			p=$base/$name
			if [ "$type" = f ]; then
				mx_data "$p" "$MX_REF/stree/$name" "$size" none
			elif [ -z "${AFT[$p]:-}" ]; then
				[ "$RC" -ne 0 ] ||
					mx_bad "data: exit 0 but ${p#"$W"/} is missing"
			elif [ "${AFT_y[$p]}" != "$type" ]; then
				mx_bad "data: ${p#"$W"/} is a $(mx_kind "${AFT_y[$p]}"), its source a $(mx_kind "$type")"
			fi
			mx_mode "$p" "$mode"
		done <<<"$MX_TREE"
		# nothing in the copy that is not in the source
		for p in "${!AFT[@]}"; do
			case $p in "$base"/*) ;; *) continue ;; esac
			case " $MX_TREE_NAMES " in
			*" ${p#"$base"/} "*) ;;
			*) mx_bad "outside: left behind in the copy: ${p#"$W"/}" ;;
			esac
		done
	fi
}

# mx_complete: which files the run wrote whole (holding their source's
# bytes, MX_WP), with their modes: DONE_M (path -> mode).
declare -A DONE_M
mx_complete() {
	local i p
	DONE_M=()
	for i in "${!MX_WP[@]}"; do
		p=${MX_WP[$i]}
		[ "${AFT_y[$p]:-}" = f ] && [ "${AFT_s[$p]}" = "${MX_WS[$i]}" ] &&
			mx_same "$p" "${MX_WR[$i]}" && DONE_M[$p]=${AFT_m[$p]}
	done
	return 0
}

# mx_discard: under a fault that refuses attributes only (setattr), the
# data can always be whole.  A file the run did not leave whole after an
# attribute was refused (the old one kept, none made) is said to be so:
# a message names it (as the run's messages name it) and says it was not
# replaced or made (MX_KEPT_RE); never a bare "setting permissions for
# 'x'", after which the user cannot tell the copy was thrown away.
MX_KEPT_RE='not (replaced|created|made|copied)|(was|is|are) kept|left as (it|they) (was|were)|keeps? the old'
MX_ATTR_RE='(setting|preserving|clearing) permissions for|failed to preserve ownership|preserving times for'
mx_discard() {
	local i p named line said
	[ "$MX_FAULT" = setattr ] && [ -z "$F_ATTR" ] && [ "$RC" -ne 0 ] &&
		[[ $SLURP =~ $MX_ATTR_RE ]] || return 0
	for i in "${!MX_WP[@]}"; do
		p=${MX_WP[$i]}
		[ -z "${DONE_M[$p]:-}" ] || continue
		# the name the run's messages give it
		if [ -n "$TREE" ]; then
			named=${p#"$W"/}
		else
			case $DEST in
			directory) named=dst/$SRCNAME ;;
			stdout) named=/dev/stdout ;;
			*) named=dst ;;
			esac
		fi
		said=
		while IFS= read -r line; do
			[[ $line == *"'$named'"* ]] && [[ $line =~ $MX_KEPT_RE ]] &&
				said=1
		done <<<"$SLURP"
		[ -n "$said" ] ||
			mx_bad "discard: an attribute was refused and ${p#"$W"/} does not hold the copy, but no message says '$named' was not replaced ($(grep -E -m1 "$MX_ATTR_RE" <<<"$SLURP"))"
	done
}

# mx_gnu_mode: after GNU cp's run (without smartcp's own options) in the
# same set-up, RC its exit status: a file both runs wrote whole has the
# mode cp gave it, where cp was not killed.
# shellcheck disable=SC2034 # CPA, CPA_i, CPA_l: filled through the nameref
declare -A CPA CPA_y CPA_m CPA_s CPA_i CPA_l
mx_gnu_mode() {
	local i p
	[ ${#DONE_M[@]} -gt 0 ] || return 0
	[ "$RC" -le 128 ] || return 0	# cp was killed: not its last word
	mx_snap "$T/aux/snap.3"
	mx_load "$T/aux/snap.3" CPA
	for i in "${!MX_WP[@]}"; do
		p=${MX_WP[$i]}
		if [ -z "${DONE_M[$p]:-}" ] || [ "${CPA_y[$p]:-}" != f ] ||
		   [ "${CPA_s[$p]}" != "${MX_WS[$i]}" ] ||
		   [ "${CPA_m[$p]}" = "${DONE_M[$p]}" ]; then
			continue
		fi
		mx_same "$p" "${MX_WR[$i]}" || continue
		mx_bad "gnumode: ${p#"$W"/} is $(mx_o "${DONE_M[$p]}"), GNU cp${CP_ARGS[*]+ ${CP_ARGS[*]}} gives it $(mx_o "${CPA_m[$p]}")"
	done
}

# A FIFO's reader got the source (exit 0) or a prefix of it.
mx_fifo_data() {
	local f=$T/aux/fifo.out s ref=$MX_REF/$SRCNAME
	s=${AFT_s[$f]:-0}
	if [ -n "$F_ATTR" ]; then
		[ "$s" -eq 0 ] || mx_bad "data: --attributes-only wrote $s bytes into the FIFO"
	elif [ "$RC" -eq 0 ]; then
		mx_same "$f" "$ref" ||
			mx_bad "data: exit 0 but the FIFO's reader got $s bytes, not the source"
	elif [ "$s" -gt 0 ] && ! mx_same "$f" "$ref" "$s"; then
		mx_bad "data: the FIFO's reader got $s bytes that are not a prefix of the source"
	fi
}

# The other name of a hard-linked destination changes only as cp would:
# it is still there and shares the destination's inode (cp writes
# through); where a new file takes the name (--atomic renames one over
# it; -a, whose --preserve=links makes GNU cp unlink a destination with
# other names) it keeps the old bytes; when the run failed and removed
# its destination, what the inode holds passes the data invariant.
mx_alias() {
	local al=$W/tgt/alias d=$W/dst
	if [ -z "${AFT[$al]:-}" ]; then
		mx_bad "outside: the other hard link tgt/alias was removed"
		return
	fi
	if [ -n "${AFT[$d]:-}" ] && [ "${AFT_i[$al]}" = "${AFT_i[$d]}" ]; then
		return 0	# one file: dst's invariants are its
	fi
	if [ -n "$F_ATOMIC" ] || [ "$PRES" = a ]; then
		if [ "${AFT_s[$al]}" != "$MX_OLD_SIZE" ] ||
		   ! mx_same "$al" "$T/ref.old"; then
			mx_bad "outside: dst was replaced but its other hard link tgt/alias changed"
		fi
	elif [ -n "${AFT[$d]:-}" ] && [ "$RC" -eq 0 ] &&
	     [ -z "$F_ATTR" ]; then
		mx_bad "outside: dst is a new file, its other hard link tgt/alias $(mx_same "$al" "$T/ref.old" && echo keeps the old bytes || echo differs) (cp writes through the link)"
	else
		mx_data "$al" "$MX_REF/$SRCNAME" "$MX_SIZE" old
	fi
}

# ------------------------------------------------------------------ cells

# mx_explain: --explain with the cell's options: never blocks, changes
# nothing (the snapshots before and after are the same, times of
# directories included), never reads the data.  Its JSON goes to the
# batch checks.  Leaves the snapshot after it in $T/aux/snap.1.
mx_explain() {
	local args=("${SC_ARGS[@]}") out=$T/logs/$KEY.explain a b
	[ "$ROW" = explain ] || args=(--explain "${args[@]}")
	mx_snap "$T/aux/snap.0"
	if [ "$DEST" = stdout ]; then
		MX_TIMEOUT=10 mx_exec "$W/out" "$out.err" "$SMARTCP" --json \
			"${args[@]}" "$SRC" "$DST"
	else
		MX_TIMEOUT=10 mx_exec "$out.json" "$out.err" "$SMARTCP" --json \
			"${args[@]}" "$SRC" "$DST"
	fi
	printf '%s\texplain\t%s\n' "$KEY" "$RC" >>"$T/aux/rcs"
	if [ "$RC" -eq 124 ]; then
		mx_bad "explain: --explain ${args[*]:1} blocked (killed after 10 s)"
	fi
	mx_slurp "$out.err"
	case $MX_FAULT in
	sigint) [ "$RC" -ne 130 ] ||
		mx_bad "explain: --explain read the source's data (the SIGINT at byte $MX_CUT struck)" ;;
	eio) [[ $SLURP != *'Input/output error'* ]] ||
		mx_bad "explain: --explain read the source's data (EIO): ${SLURP%%$'\n'*}" ;;
	esac
	mx_snap "$T/aux/snap.1"
	mx_slurp "$T/aux/snap.0"
	a=$SLURP
	mx_slurp "$T/aux/snap.1"
	b=$SLURP
	if [ "$DEST" = stdout ]; then
		# W/out: its plan (and made empty again for the run)
		a=$(grep -v "^$W/out	" <<<"$a")
		b=$(grep -v "^$W/out	" <<<"$b")
	fi
	if [ "$a" != "$b" ]; then
		mx_bad "explain: --explain changed: $(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | sed -n 's/^[<>] \([^	]*\).*/\1/p' | sed "s|^$T/||" | sort -u | tr '\n' ' ')"
		mx_dest_setup
		mx_snap "$T/aux/snap.1"
	elif [ "$DEST" = stdout ]; then
		# its JSON went to W/out; the run starts with it empty
		mx_slurp "$W/out"
		printf '%s' "$SLURP" >"$out.json"
		: >"$W/out"
		mx_snap "$T/aux/snap.1"
	fi
}

# mx_cell: one cell.
mx_cell() {
	local out err rc eio nospc
	mx_args
	KEY=$MX_FAULT~$ROW~$PRES~$DEST~$VARIANT
	MX_CELLS=$((MX_CELLS + 1))
	CELL=$MX_CELLS
	out=$T/logs/$KEY.run
	err=$T/logs/$KEY.err

	# the other source modes of an absent destination: only the run
	FIRST=1
	[ "$VARIANT" = - ] || [ "$VARIANT" = "${MX_MODES[0]}" ] || FIRST=

	mx_dest_setup
	READER=
	if [ "$ROW" = explain ] || { [ "$MX_FAULT" = none ] && [ -n "$FIRST" ]; }; then
		mx_explain
		[ "$ROW" != explain ] || return 0
	else
		mx_snap "$T/aux/snap.1"
	fi

	mx_reader_start
	if [ "$DEST" = fifo ]; then
		mx_snap "$T/aux/snap.1"	# with the reader's file
	fi
	if [ "$DEST" = stdout ]; then
		mx_exec "$W/out" "$err" "$SMARTCP" "${SC_ARGS[@]}" "$SRC" "$DST"
	else
		mx_exec "$out.json" "$err" "$SMARTCP" --json "${SC_ARGS[@]}" "$SRC" "$DST"
	fi
	mx_reader_stop
	mx_snap "$T/aux/snap.2"
	mx_slurp "$err"
	eio=0 nospc=0
	[[ $SLURP != *'Input/output error'* ]] || eio=1
	[[ $SLURP != *'No space left on device'* && $SLURP != *'Broken pipe'* ]] || nospc=1
	printf '%s\trun\t%s\t%s\t%s\n' "$KEY" "$RC" "$eio" "$nospc" >>"$T/aux/rcs"
	mx_load "$T/aux/snap.1" BEF
	mx_load "$T/aux/snap.2" AFT
	mx_check_run
	mx_complete
	mx_discard
	rc=$RC

	if [ -n "$CP" ] && [ -n "$FIRST" ]; then
		mx_dest_setup
		mx_reader_start
		out=$T/aux/cp.out
		[ "$DEST" != stdout ] || out=$W/out
		mx_exec "$out" "$T/aux/cp.err" /bin/cp \
			${CP_ARGS[@]+"${CP_ARGS[@]}"} "$SRC" "$DST"
		mx_reader_stop
		mx_gnu_mode
		mx_slurp "$T/aux/cp.err"
		[ "$RC" -eq "$rc" ] ||
			mx_bad "cp: exit $rc, but GNU cp${CP_ARGS[*]+ ${CP_ARGS[*]}} exits $RC${SLURP:+ (${SLURP%%$'\n'*})}"
		RC=$rc
	fi
}

# -------------------------------------------------------- batch (JSON)

# mx_json: the --json and --explain checks over every cell's output, in
# one jq and one awk.
mx_json() {
	local files=()
	shopt -s nullglob
	files=("$T"/logs/*.json)
	shopt -u nullglob
	[ ${#files[@]} -gt 0 ] || return 0
	# one line per JSON line: file, kind, fields
	jq -rR '
		(input_filename | split("/") | last | rtrimstr(".json")) as $f
		| (try fromjson catch "\u0000bad") as $o
		| if $o == "\u0000bad" then [$f, "bad", .]
		  elif ($o | type) != "object" then [$f, "bad", .]
		  elif $o | has("summary") then [$f, "summary", ($o.summary.failures | tostring)]
		  elif $o | has("source") then
			[$f, "rec", ($o.destination | tostring), ($o.type // "-"),
			 ($o.status // "-"),
			 (($o.plan // []) | join(",")),
			 (if $o | has("tried") then (($o.tried // []) | map(.road + "=" + (.result | tostring)) | join(",")) else "-" end),
			 ($o.road // "-"),
			 (if $o | has("failed") then ($o.failed | tostring) else "-" end),
			 (if $o | has("error") then ($o.error | tostring) else "-" end),
			 (if $o.unchanged == true then "unchanged" else "-" end)]
		  else [$f, "other", .] end
		| map(if . == "" then "~" else . end) | @tsv' "${files[@]}" >"$T/aux/json.tsv" ||
		fail "jq could not read the JSON outputs"
	# cell numbers and labels, to name the cells
	awk -F'\t' -v fault="$MX_FAULT" '
		FILENAME ~ /cells$/ { num[$2] = $1; label[$2] = $3; next }
		FILENAME ~ /rcs$/ {
			if ($2 == "run") { rc[$1] = $3; eio[$1] = $4; nospc[$1] = $5 }
			else erc[$1] = $3
			next
		}
		{
			split($1, k, ".")
			key = k[1]; kind = k[2]
			if ($2 == "bad") { bad(key, kind, "a line of the " kind "'"'"'s --json output is not JSON: " $3); next }
			if ($2 == "summary") { summ[key, kind] = $3; has_summ[key, kind] = 1; next }
			if ($2 != "rec") next
			n = ++nrec[key, kind]
			dst[key, kind, n] = $3; typ[key, kind, n] = $4
			st[key, kind, n] = $5; plan[key, kind, n] = $6
			tried[key, kind, n] = $7; road[key, kind, n] = $8
			failed[key, kind, n] = $9; err[key, kind, n] = $10
			unch[key, kind, n] = $11
			keys[key] = 1
		}
		function bad(key, kind, msg) {
			printf "%05d\t%s\t%s\n", num[key], label[key], msg
		}
		function step(e) {
			return e == "EIO" && fault == "eio" ? "read" : \
			       (e == "ENOSPC" || e == "EPIPE") ? "write" : ""
		}
		END {
			for (key in rc) run_checks(key)
			for (key in erc) explain_checks(key)
		}
		function run_checks(key,   n, i, nf, t, last, want, hit) {
			if (!((key, "run") in nrec) && !has_summ[key, "run"]) return
			n = nrec[key, "run"]; nf = 0; hit = 0
			for (i = 1; i <= n; i++) {
				if (st[key, "run", i] != "failed") continue
				nf++
				if (failed[key, "run", i] == "-")
					bad(key, "run", "json: the failed record of " dst[key, "run", i] " has no \"failed\" key (error " err[key, "run", i] ")")
				want = step(err[key, "run", i])
				if (want != "" && failed[key, "run", i] != "-" && failed[key, "run", i] != want)
					bad(key, "run", "json: " err[key, "run", i] " is failed \"" failed[key, "run", i] "\", not \"" want "\"")
				if (want != "") hit = 1
				t = tried[key, "run", i]
				if (t != "-" && t != "~") {
					last = t; sub(/.*,/, "", last)
					if (last ~ /=ok$/ && failed[key, "run", i] ~ /^(read|write|copy)$/)
						bad(key, "run", "json: " dst[key, "run", i] " failed \"" failed[key, "run", i] "\" (" err[key, "run", i] ") but its last road says " last)
				}
			}
			if (rc[key] > 128) return	# killed: no summary to expect
			if (!has_summ[key, "run"]) {
				bad(key, "run", "json: no summary line")
				return
			}
			if (summ[key, "run"] + 0 != nf)
				bad(key, "run", "json: the summary counts " summ[key, "run"] " failures, the records " nf " failed")
			if (rc[key] != 0 && nf == 0)
				bad(key, "run", "json: exit " rc[key] " but no record has status \"failed\"")
			if (rc[key] == 0 && nf != 0)
				bad(key, "run", "json: exit 0 but " nf " record(s) failed")
			if ((eio[key] > 0 || nospc[key] > 0) && !hit)
				bad(key, "run", "json: stderr reports " (eio[key] > 0 ? "EIO" : "ENOSPC/EPIPE") " but no failed record says so")
		}
		function explain_checks(key,   rkey, r, e, n, i, p0, t0, rd, pl) {
			# compare with the run of the same options, no fault
			if (key !~ /^none~/) return
			rkey = key
			if (!(rkey in rc)) return
			if (erc[key] != rc[rkey])
				bad(key, "explain", "explain: --explain exits " erc[key] ", the run " rc[rkey])
			if (!((rkey, "run") in nrec) && !has_summ[rkey, "run"]) return
			if (nrec[key, "explain"] + 0 != nrec[rkey, "run"] + 0) {
				bad(key, "explain", "explain: --explain tells of " nrec[key, "explain"] + 0 " files, the run of " nrec[rkey, "run"] + 0)
				return
			}
			n = nrec[key, "explain"]
			for (i = 1; i <= n; i++) {
				e = key SUBSEP "explain" SUBSEP i; r = rkey SUBSEP "run" SUBSEP i
				if (dst[e] != dst[r] || typ[e] != typ[r]) {
					bad(key, "explain", "explain: file " i " is " typ[e] " " dst[e] ", in the run " typ[r] " " dst[r])
					continue
				}
				if (st[e] != st[r])
					bad(key, "explain", "explain: " dst[e] " is " st[e] " in --explain, " st[r] " in the run" (err[r] != "-" ? " (" err[r] ")" : ""))
				pl = plan[e]; p0 = pl; sub(/,.*/, "", p0)
				t0 = tried[r]; sub(/,.*/, "", t0); sub(/=.*/, "", t0)
				rd = road[r]
				if (tried[r] != "-" && tried[r] != "~" && t0 != "") {
					if (pl == "~")
						bad(key, "explain", "explain: no plan for " dst[e] ", the run tried " t0)
					else if (p0 != t0)
						bad(key, "explain", "explain: the plan for " dst[e] " starts with " p0 ", the run tried " t0 " first")
					if (rd != "-" && ("," pl ",") !~ ("," rd ","))
						bad(key, "explain", "explain: the run finished " dst[e] " with " rd ", not in the plan " pl)
				} else if (pl != "~" && st[r] == "ok" && unch[r] == "-" && typ[r] == "file") {
					bad(key, "explain", "explain: the plan for " dst[e] " is " pl ", the run copied no data")
				}
			}
		}' "$T/aux/cells" "$T/aux/rcs" "$T/aux/json.tsv" >>"$MX_FAIL"
}

# mx_xfail_report: the expected failures, told; an entry of MX_XFAIL for
# this fault and the rows run that no cell met fails (an unexpected
# pass), unless MATRIX_* chose a part of the matrix.
mx_xfail_report() {
	local i e f r n
	if [ -s "$MX_XFAILED" ]; then
		sort -t"$(printf '\t')" -k2,2n -s "$MX_XFAILED" |
			awk -F'\t' '{ printf "XFAIL cell %d [%s]: %s\n", $2, $3, $4 }'
	fi
	for i in "${!MX_XFAIL[@]}"; do
		e=${MX_XFAIL[$i]%%|*}
		read -r f r _ <<<"$e"
		# shellcheck disable=SC2053 # patterns
		[[ $MX_FAULT == $f ]] || continue
		case " ${MX_ROWS//$'\n'/ } " in
		*" $r "*) ;;
		*) continue ;;
		esac
		n=$(cut -f1 "$MX_XFAILED" | grep -cx "$i" || true)
		if [ "$n" -eq 0 ] && [ -z "${MATRIX_ROWS:-}${MATRIX_PRES:-}${MATRIX_DESTS:-}" ]; then
			printf '00000\t%s\t%s\n' "expected failure" \
				"unexpected pass: no cell breaks '$e' any more (${MX_XFAIL[$i]#*|}): take it out of MX_XFAIL" >>"$MX_FAIL"
		else
			printf '| expected failure (%d breaks): %s -- %s\n' "$n" "$e" "${MX_XFAIL[$i]#*|}"
		fi
	done
}

# mx_main FAULT ROWS: the matrix of one fault for the rows ROWS (all
# when empty), then the report.  Without a fault an absent destination
# is tried with every source mode (the mode of a file the run makes is
# the run's alone); with one, the mode rotates as for the others.
mx_main() {
	local n variants
	MX_ROWS=${MATRIX_ROWS:-${2:-$MX_ALL_ROWS}}
	mx_init "$1"
	: >"$T/aux/rcs"
	: >"$T/aux/cells"
	ROW_I=0
	for ROW in $MX_ROWS; do
		PRES_I=0
		for PRES in $MX_PRES; do
			DEST_I=0
			for DEST in $MX_DESTS; do
				case " $MX_NO_DESTS " in
				*" $DEST "*) continue ;;
				esac
				# --remove-destination replaces a symlink, FIFO or
				# device by a file, as cp does: not what the link
				# and kind invariants hold the other rows to
				case $ROW:$DEST in
				*remove-destination:absent | *remove-destination:regular | \
				*remove-destination:hardlink | *remove-destination:directory) ;;
				*remove-destination:*) continue ;;
				esac
				# a file the run makes has the mode the run
				# gives it: there every source mode
				variants=-
				if [ "$DEST" = absent ] && [ "$MX_FAULT" = none ] &&
				   [[ $ROW != *j4-tree* ]]; then
					variants=${MX_MODES[*]}
				fi
				for VARIANT in $variants; do
					mx_cell
					printf '%05d\t%s\t%s\n' "$CELL" "$KEY" "$LABEL" \
						>>"$T/aux/cells"
				done
				DEST_I=$((DEST_I + 1))
			done
			PRES_I=$((PRES_I + 1))
		done
		ROW_I=$((ROW_I + 1))
	done
	cd "$T" || exit
	# the helper ends (its runs' times count as the test's)
	local pid=$MXH_PID
	eval "exec ${MXH[1]}>&-"
	wait "$pid" || fail "the matrix helper (python3) failed"
	mx_json
	if [ -n "${MATRIX_LOGS:-}" ]; then
		mkdir -p "$MATRIX_LOGS"
		cp -r "$T/logs" "$T/aux/cells" "$T/aux/rcs" "$MATRIX_LOGS/"
	fi
	mx_xfail_report
	n=$(cut -f1 "$MX_FAIL" | sort -u | wc -l)
	if [ -s "$MX_FAIL" ]; then
		# row option, preservation, destination, fault: what broke
		sort -t"$(printf '\t')" -k1,1n -s "$MX_FAIL" |
			awk -F'\t' '{ printf "FAIL cell %d [%s]: %s\n", $1, $2, $3 }' >&2
	fi
	printf '| matrix, fault %s, rows %s: %d cells (%d runs of smartcp or cp), %d failing, %d broken invariants\n' \
		"$MX_FAULT" "${MX_ROWS//$'\n'/ }" "$MX_CELLS" "$MX_RUNS" "$n" "$(wc -l <"$MX_FAIL")"
	[ "$n" -eq 0 ] || exit 1
}
