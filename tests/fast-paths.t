#!/usr/bin/env bash
# Every fast path of the stat path (the CSV row shapes, the stat pipe's
# string slots, the model's row ids, recent strings and metric plans) gives
# the bytes of the slow path: td-derive runs on every stat input, in every
# output mode, as is and with TD_PLAIN=1 (common/plain.h), and stdout,
# stderr and the exit code must be the same. Inputs: the repository's stat
# and toplev captures, the shared captures, the fuzz seeds, all of them in
# one run, and a few MB of real -a -A -I rows repeated (so the caches fill,
# overflow and are reused).
. "$(dirname "$0")/lib.sh"
D=$TD_BIN/td-derive
[ -x "$D" ] || { skip "td-derive not built"; done_testing; exit; }
inputs=()
for dir in "$TD_ROOT"/testdata/stat "$TD_ROOT"/testdata/toplev "$TD_ROOT"/tests/fuzz/seeds/stat \
	"$TD_ROOT"/tests/fuzz/seeds/toplev; do
	for f in "$dir"/*; do [ -f "$f" ] && inputs+=("$f"); done
done
if have_shared; then
	for f in "$TD_SHARED"/testdata/stat*/*; do [ -f "$f" ] && inputs+=("$f"); done
else
	skip "shared captures absent ($TD_SHARED/testdata)"
fi
# the bench's input in small: the -a -A -I capture, every copy a new interval
awk -F, 'BEGIN { OFS = "," } /^ *[0-9]+\./ { rows[n++] = $0 }
	END { for (i = 0; bytes < 3000000; i++) for (r = 0; r < n; r++) {
		split(rows[r], f, ","); f[1] = sprintf("%16.9f", f[1] + i); line = f[1]
		for (k = 2; k in f; k++) line = line "," f[k]
		print line; bytes += length(line) + 1 } }' \
	"$TD_ROOT"/testdata/stat/local-kvm_swevents_csv_-a-A-I250.csv >"$T_TMP/big-IA.csv"
modes=("" --csv --json --markdown --intervals --counters)

compare() { same_as_plain "$1" "$D" "${@:2}"; }   # compare DESCRIPTION ARGS...
for mode in "${modes[@]}"; do
	fails=0 n=0
	for f in "${inputs[@]}"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		compare "$(basename "$f") $mode" $mode "$f" >>"$T_TMP/fails" || fails=$((fails + 1))
	done
	# shellcheck disable=SC2086
	compare "all files in one run $mode" $mode "${inputs[@]}" >>"$T_TMP/fails" || fails=$((fails + 1))
	# shellcheck disable=SC2086
	compare "big-IA.csv $mode" $mode "$T_TMP/big-IA.csv" >>"$T_TMP/fails" || fails=$((fails + 1))
	ok $fails "td-derive ${mode:-(text)}: $n inputs, all of them at once and 3 MB of -a -A -I rows give the same bytes with TD_PLAIN=1"
	[ $fails -eq 0 ] || sed 's/^/# /' "$T_TMP/fails"
	: >"$T_TMP/fails"
done
done_testing
