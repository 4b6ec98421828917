# TAP helpers for the shell tests (sourced by tests/*.t).
# Environment from the Makefile: TD_BIN (tools), TD_ROOT (repository),
# TD_SHARED (../shared captures; may be absent), TD_BUILD, TD_FUZZ_DIR.
set -u
: "${TD_ROOT:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TD_BIN:=$TD_ROOT/bin}"
: "${TD_SHARED:=$TD_ROOT/../shared}"
export LC_ALL=C
T_N=0
T_FAIL=0
T_TMP=$(mktemp -d /tmp/td-test.XXXXXX)
trap 'rm -rf "$T_TMP"' EXIT
# td-derive caches perf's metric listings there (a td-collect header's cpuid)
export XDG_CACHE_HOME=$T_TMP/cache

# ok STATUS DESCRIPTION: STATUS 0 passes.
ok() {
	T_N=$((T_N + 1))
	if [ "$1" -eq 0 ]; then echo "ok $T_N - $2"; else echo "not ok $T_N - $2"; T_FAIL=$((T_FAIL + 1)); fi
}
skip() { T_N=$((T_N + 1)); echo "ok $T_N # skip $1"; }
diag() { printf '# %s\n' "$@"; }

# same EXPECTED ACTUAL DESCRIPTION: byte comparison, a diff excerpt on failure.
same() {
	if cmp -s "$1" "$2"; then ok 0 "$3"; else ok 1 "$3"; diff -u "$1" "$2" | head -20 | sed 's/^/# /'; fi
}

# run_tool OUT ERR TOOL ARGS...: runs a tool, sets RC.
run_tool() {
	local out=$1 err=$2
	shift 2
	RC=0
	"$@" >"$out" 2>"$err" || RC=$?
}

have_shared() { [ -d "$TD_SHARED/testdata" ]; }

done_testing() {
	echo "1..$T_N"
	[ "$T_FAIL" -eq 0 ]
}

# run_to OUT TOOL ARGS...: OUT.out, OUT.err and OUT.rc of one run.
run_to() {
	local out=$1
	shift
	"$@" >"$out.out" 2>"$out.err"
	echo $? >"$out.rc"
}

# same_as_plain DESCRIPTION TOOL ARGS...: the tool's stdout, stderr and exit
# code with its fast paths equal those under TD_PLAIN=1 (common/plain.h);
# prints which differs, with the start of the diff on stderr, and fails.
same_as_plain() {
	local what=$1
	shift
	run_to "$T_TMP/fast" "$@"
	TD_PLAIN=1 run_to "$T_TMP/plain" "$@"
	for k in out err rc; do
		if ! cmp -s "$T_TMP/fast.$k" "$T_TMP/plain.$k"; then
			echo "$what: std$k differs"
			diff -u "$T_TMP/plain.$k" "$T_TMP/fast.$k" | head -12 | sed 's/^/# /' >&2
			return 1
		fi
	done
}
