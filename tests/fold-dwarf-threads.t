#!/usr/bin/env bash
# td-fold unwinds --call-graph dwarf stacks on -j worker threads
# (analysis/unwind_pool.c): the output, the messages and the exit code are
# the same for any -j, on every dwarf recording of testdata/ (with its
# committed binaries, and with this machine's own, where the unwinding
# runs through the system's libraries) and of ../shared, on a cut one, and
# on a bigger one given as TD_DWARF_BIG=FILE (e.g. a perf record
# --call-graph dwarf of a build: skipped when unset).
. "$(dirname "$0")/lib.sh"
FOLD=$TD_BIN/td-fold

# same_for_j WHAT ARGS...: td-fold ARGS with -j1, -j2 and -j4 alike
same_for_j() {
	local what=$1 j k diff=
	shift
	run_to "$T_TMP/j1" "$FOLD" -j1 "$@"
	for j in 2 4; do
		run_to "$T_TMP/j$j" "$FOLD" -j$j "$@"
		for k in out err rc; do
			cmp -s "$T_TMP/j1.$k" "$T_TMP/j$j.$k" || diff="$diff -j$j:$k"
		done
	done
	[ -z "$diff" ]; ok $? "$what: -j1, -j2 and -j4 give the same bytes${diff:+ (differs:$diff)}"
	[ -z "$diff" ] || diff -u "$T_TMP/j1.out" "$T_TMP/j4.out" | head -10 | sed 's/^/# /'
}

files=("$TD_ROOT"/testdata/perfdata/*dwarf*.perf.data)
for f in "${files[@]}"; do
	name=$(basename "$f")
	if [ -d "${f%.perf.data}.symfs" ]; then
		PERF_BUILDID_DIR=/nonexistent same_for_j "$name (committed binaries)" --symfs "${f%.perf.data}.symfs" --kallsyms /dev/null "$f"
		# the binding rendering, at each -j
		gzip -dc "${f%.perf.data}.symfs-script.txt.gz" | "$FOLD" >"$T_TMP/ref" 2>/dev/null
		same "$T_TMP/ref" "$T_TMP/j4.out" "$name: td-fold -j4 equals td-fold of perf script's rendering"
	fi
	same_for_j "$name (this machine's binaries)" "$f"
done
n=$(grep -c ';' "$T_TMP/j1.out")
[ "$n" -gt 0 ]; ok $? "the last one folded to stacks ($n)"

if have_shared; then
	for f in "$TD_SHARED"/testdata/perfdata/*dwarf*.perf.data; do
		same_for_j "shared $(basename "$f")" "$f"
	done
else
	skip "../shared absent: its dwarf recordings are not compared"
fi

# a cut recording: the samples before the cut, the same message and exit 2 at any -j
f=$TD_ROOT/testdata/perfdata/local-kvm_cpu-clock-dwarf_sh-xz-gzip-loop_perf6.1.perf.data
head -c 700000 "$f" >"$T_TMP/cut.data"
same_for_j "a cut dwarf recording" "$T_TMP/cut.data"
grep -q offset "$T_TMP/j4.err" && [ "$(cat "$T_TMP/j4.rc")" = 2 ] && [ -s "$T_TMP/j4.out" ]
ok $? "a cut dwarf recording at -j4: what came before folded, the offset named, exit 2"

if [ -n "${TD_DWARF_BIG:-}" ] && [ -s "$TD_DWARF_BIG" ]; then
	same_for_j "TD_DWARF_BIG $(basename "$TD_DWARF_BIG")" "$TD_DWARF_BIG"
else
	skip "TD_DWARF_BIG unset: no big dwarf recording compared"
fi
done_testing
