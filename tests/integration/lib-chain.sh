# The road chain as strace saw it, to hold smartcp's (--json "tried", and
# libsmartcp's attempt[]) against.  Sourced after lib.sh, never run:
#
#	. "$(dirname "$0")/lib.sh"
#	. "$(dirname "$0")/lib-chain.sh"
#
# Both sides are written one attempt a line, "ROAD RESULT BYTES": RESULT
# is "ok" or the errno name that ended the road, BYTES what it delivered
# to the destination.

# The system calls that make up the roads.
CHAIN_CALLS=copy_file_range,splice,ioctl,read,pread64,write,pwrite64

# trace_chain LOG CMD...: run CMD under strace into LOG, descriptors
# shown with their files (-y), so that strace_chain can tell the source
# and destination from anything else; returns CMD's exit status.
trace_chain() {
	local log=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -y -e trace=$CHAIN_CALLS -e signal=none -o "$log" "$@"
}

# strace_chain LOG SRC DST: the chain in LOG.  SRC and DST are the files
# as strace -y prints them: a canonical path, or pipe:[INODE].  Calls are
# given to roads by what they are and which file they touch:
#   copy_file_range from SRC                      copy_file_range
#   splice from SRC, or into DST                  splice
#   read, pread64 of SRC; write, pwrite64 of DST  read_write
# Consecutive calls of one road are one attempt; an error (EINTR aside)
# ends it.  The one-byte pread64 after a failed copy_file_range is no
# road: it tells which end failed (road_range.c).  BYTES is the sum of
# what the calls into DST returned.  A road that moved nothing and failed
# nothing is left out (the read that finds the end after a kernel road),
# unless it is the only one (an empty file).
strace_chain() {
	awk -v src="<$2>" -v dst="<$3>" '
	/<unfinished|resumed>/ {
		print "strace_chain: split call: " $0 > "/dev/stderr"
		exit 2
	}
	{
		open = index($0, "(")
		if (!open)
			next
		call = substr($0, 1, open - 1)
		sub(/^[0-9]+ +/, "", call)
		args = substr($0, open + 1)
		first = substr(args, 1, index(args, ", ") - 1)
		ret = $0
		sub(/.*\) += /, "", ret)
		err = ""
		if (ret ~ /^-1 /) {
			split(ret, w, " ")
			err = w[2]
			if (err == "EINTR")
				next
		}
		n = err == "" ? ret + 0 : 0
		probe = prev_cfr_failed
		prev_cfr_failed = 0
		road = ""; into = 0
		if (call == "copy_file_range" && index(first, src)) {
			road = "copy_file_range"; into = 1
			prev_cfr_failed = err != ""
		} else if (probe && call == "pread64" && index(first, src) &&
			   args ~ /, 1, [0-9]+\) +=/) {
			next	# the read that tells which end failed
		} else if (call == "splice" && index(first, src)) {
			road = "splice"
		} else if (call == "splice" && index(args, dst)) {
			road = "splice"; into = 1
		} else if ((call == "read" || call == "pread64") &&
			   index(first, src)) {
			road = "read_write"
		} else if ((call == "write" || call == "pwrite64") &&
			   index(first, dst)) {
			road = "read_write"; into = 1
		} else if (call == "ioctl" && index($0, "FICLONE") &&
			   index(first, dst)) {
			print "strace_chain: no clone here" > "/dev/stderr"
			exit 2
		}
		if (road == "")
			next
		if (k == 0 || road != r[k] || e[k] != "") {
			k++
			r[k] = road; e[k] = ""; b[k] = 0
		}
		if (err != "")
			e[k] = err
		else if (into)
			b[k] += n
	}
	END {
		for (i = 1; i <= k; i++)
			if (b[i] || e[i] != "" || k == 1)
				printf "%s %s %d\n", r[i],
				       e[i] == "" ? "ok" : e[i], b[i]
	}' "$1"
}

# json_chain FILE: the "tried" list of the per-file object in FILE
# (smartcp --json output), in the same form.
json_chain() {
	jq -r 'select(has("source")) | .tried[] |
		"\(.road) \(.result) \(.bytes)"' "$1" ||
		fail "$1 is not valid JSON Lines"
}

# assert_chains_equal WHAT GOT WANT: two chains, one attempt a line.
assert_chains_equal() {
	[ "$2" = "$3" ] || {
		printf -- '--- smartcp says:\n%s\n--- strace saw:\n%s\n' "$2" "$3" >&2
		fail "$1: the road chain is not what strace saw"
	}
}
