#!/usr/bin/env bash
# td-fold's memo of sample bodies (fold_text: frame lines seen before fold
# from what they gave) gives the bytes of the plain path: every perf script
# text in the repository, the shared captures and the fuzz seeds, each as is
# and three times over (so the memo is hit, and hit across files and events
# the default filter skips), with -j1 and -j2 and the options that change
# names, as is and with TD_PLAIN=1 (common/plain.h): stdout, stderr and the
# exit code must be the same.
. "$(dirname "$0")/lib.sh"
F=$TD_BIN/td-fold
[ -x "$F" ] || { skip "td-fold not built"; done_testing; exit; }
inputs=()
for f in "$TD_ROOT"/testdata/fold/*.script.txt.gz "$TD_ROOT"/tests/fuzz/seeds/script/*; do
	[ -f "$f" ] && inputs+=("$f")
done
if have_shared; then
	for f in "$TD_SHARED"/testdata/script_callchain/* "$TD_SHARED"/compat/flamegraph/*perf*; do
		[ -f "$f" ] && inputs+=("$f")
	done
else
	skip "shared captures absent ($TD_SHARED/testdata)"
fi
# three copies of everything in one stream: bodies repeat, events mix
for f in "${inputs[@]}"; do zcat -f "$f"; echo; done >"$T_TMP/all.txt"
cat "$T_TMP/all.txt" "$T_TMP/all.txt" "$T_TMP/all.txt" >"$T_TMP/all3.txt"
# the same with CRLF line ends
sed 's/$/\r/' "$T_TMP/all.txt" >"$T_TMP/all-crlf.txt"

compare() { same_as_plain "$1" "$F" "${@:2}"; }   # compare DESCRIPTION ARGS...
fails=0
for f in "${inputs[@]}"; do
	compare "$(basename "$f")" "$f" >>"$T_TMP/fails" || fails=$((fails + 1))
done
ok "$fails" "memo equals TD_PLAIN=1 on each of ${#inputs[@]} inputs"
for j in 1 2; do
	for opts in "" "--pid --kernel" "--tid --all --addrs" "--perl-compat" "--exact-comm --skip-after main"; do
		fails=0
		for f in all3 all-crlf; do
			# shellcheck disable=SC2086
			compare "$f -j$j $opts" -j$j $opts "$T_TMP/$f.txt" >>"$T_TMP/fails" || fails=$((fails + 1))
		done
		ok "$fails" "memo equals TD_PLAIN=1 on all inputs three times over and in CRLF, -j$j ${opts:-(no options)}"
	done
done
[ -s "$T_TMP/fails" ] && sed 's/^/# /' "$T_TMP/fails" | head -20
# the memo is a fast path, not a second answer: -j1 and -j2 agree on the mixed stream
run_to "$T_TMP/j1" "$F" -j1 "$T_TMP/all3.txt"
run_to "$T_TMP/j2" "$F" -j2 "$T_TMP/all3.txt"
same "$T_TMP/j1.out" "$T_TMP/j2.out" "-j1 and -j2 fold the mixed stream to the same bytes"
done_testing
