#!/usr/bin/env bash
# The machine's peaks in td-collect's header: --peaks FILE (checked with
# td-derive's reader), --measure-peaks and --print-peaks; td-derive (and
# td-store show, the same engine) takes them from the header when no --peaks
# is given, and says which it used; a malformed peaks fact is named with its
# line, exit 2, the rest of the capture still derived.
. "$(dirname "$0")/lib.sh"
C=$TD_BIN/td-collect
D=$TD_BIN/td-derive
R=$TD_ROOT/testdata/roofline
INTEL=$R/roofline-synthetic-intel-imc.csv
PEAKS=$R/peaks-synthetic.txt
REC=$TD_ROOT/testdata/collect/local-kvm_measure-peaks_swevents_perf6.1.csv

# --- the recorded capture (td-collect --measure-peaks on this VM) -----------
run_tool "$T_TMP/o" "$T_TMP/e" "$D" "$REC"
[ $RC -eq 0 ] && grep -qx 'peaks: 17 GFLOP/s, 2.8 GB/s, from the capture header (measured 2026-11-26T03:06:57Z by td-collect --measure-peaks)' "$T_TMP/o"
ok $? "recorded capture: td-derive says the header's measured peaks (17 GFLOP/s, 2.8 GB/s) and where they come from"
grep -q 'cpus_utilized  *0.312' "$T_TMP/o"; ok $? "recorded capture: its counters derived as before (0.312 CPUs)"
"$D" -q --json "$REC" | grep -q '"peaks": {"gflops": 17, "gbs": 2.8, "from": "from the capture header (measured 2026-11-26T03:06:57Z by td-collect --measure-peaks)"}'
ok $? "recorded capture: --json has the peaks object"
"$D" -q --markdown "$REC" | grep -q '^- Peaks: 17 GFLOP/s, 2.8 GB/s, from the capture header'; ok $? "recorded capture: --markdown says the peaks"
"$D" -q --peaks "$PEAKS" "$REC" | grep -qx "peaks: 100 GFLOP/s, 10 GB/s, from $PEAKS (--peaks, over the capture header's)"
ok $? "--peaks overrides the header's and says so"
"$D" -q "$TD_ROOT"/testdata/stat/local-kvm_swevents_*.csv | grep -q '^peaks:'; ok $(( ! $? )) "a capture without peaks: no peaks line (output as before)"

# --- the header's peaks drive the roofline ------------------------------------
# A synthetic capture: the recorded header's peaks lines, then with the
# made-up machine's (peaks-synthetic.txt) values, before the synthetic Intel
# FP/IMC counts of derive-roofline.t (10 GFLOP/s, 1.573 GB/s, 6.358 FLOP/B).
hdr() { printf '# tdkit-collect: peak_gflops=%s\n# tdkit-collect: peak_gbs=%s\n# tdkit-collect: peak_gbs_l3=40\n# tdkit-collect: peaks_source=td-collect --peaks peaks-synthetic.txt\n' "$1" "$2"; }
{ hdr 100 10; cat "$INTEL"; } >"$T_TMP/intel-synthetic-header.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$D" --csv "$T_TMP/intel-synthetic-header.csv"
[ $RC -eq 0 ] && grep -q '^,all,,roof_attainable_gflops,63.578,GFLOP/s,' "$T_TMP/o" && grep -q '^,all,,roof_share,15.729,%,memory-bound,' "$T_TMP/o"
ok $? "header peaks 100 GFLOP/s, 10 GB/s: 63.578 attainable, 15.729 % of the roof, memory-bound (as --peaks gives)"
"$D" -q --csv --peaks "$PEAKS" "$INTEL" | grep ',roof_' >"$T_TMP/file-roof"
grep ',roof_' "$T_TMP/o" >"$T_TMP/header-roof"
same "$T_TMP/file-roof" "$T_TMP/header-roof" "the header's peaks give the same roof rows as the same peaks given with --peaks"
printf 'peak_gflops 20\npeak_gbs 100\n' >"$T_TMP/fast-memory"
"$D" -q --csv --peaks "$T_TMP/fast-memory" "$T_TMP/intel-synthetic-header.csv" | grep -q '^,all,,roof_share,50.000,%,compute-bound,'
ok $? "--peaks over the header's: compute-bound, 50 % of 20 GFLOP/s"
"$D" -q --svg "$T_TMP/r.svg" "$T_TMP/intel-synthetic-header.csv" >"$T_TMP/o"
grep -q 'peak 100 GFLOP/s' "$T_TMP/r.svg" && grep -q 'DRAM 10 GB/s' "$T_TMP/r.svg" && grep -q 'l3 40 GB/s' "$T_TMP/r.svg"
ok $? "--svg draws the header's roofs"
sed 's/$/\r/' "$T_TMP/intel-synthetic-header.csv" >"$T_TMP/crlf-synthetic.csv"
"$D" -q --csv "$T_TMP/crlf-synthetic.csv" | grep -q '^,all,,roof_share,15.729,'; ok $? "CRLF header: the same peaks"
# an agent's capture: a header (with the same peaks) before every run
{ hdr 100 10; cat "$INTEL"; hdr 100 10; cat "$INTEL"; } >"$T_TMP/agent-synthetic.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$D" --csv --svg "$T_TMP/agent.svg" "$T_TMP/agent-synthetic.csv"
[ $RC -eq 0 ] && [ ! -s "$T_TMP/e" ] && [ "$(grep -c ',roof_share,15.729,%,memory-bound,' "$T_TMP/o")" = 2 ] &&
	[ "$(grep -c 'l3 40 GB/s' "$T_TMP/agent.svg")" = 1 ]
ok $? "a header before each run (an agent's capture): the peaks for both runs, one l3 roof"
# two inputs: the same peaks in both are used; other peaks in one: none, said
"$D" -q --csv "$T_TMP/intel-synthetic-header.csv" "$T_TMP/intel-synthetic-header.csv" | grep -q ',roof_share,'
ok $? "two inputs with the same peaks: used"
{ hdr 50 10; cat "$INTEL"; } >"$T_TMP/other-synthetic.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$D" --csv "$T_TMP/intel-synthetic-header.csv" "$T_TMP/other-synthetic.csv"
[ $RC -eq 0 ] && ! grep -q ',roof_' "$T_TMP/o" && grep -q "other-synthetic.csv:1: td-collect header: other peaks than the capture's first file: none used" "$T_TMP/e"
ok $? "two inputs with other peaks: none used, a note names the second (exit 0)"

# --- bad peaks in a header: named with the line, exit 2, the rest derived -----
for kind in word negative zero inf unknown half empty huge; do
	case $kind in
	word) { hdr 100 fast; cat "$INTEL"; } ;;
	negative) { hdr -100 10; cat "$INTEL"; } ;;
	zero) { hdr 0 10; cat "$INTEL"; } ;;
	inf) { hdr inf 10; cat "$INTEL"; } ;;
	unknown) { hdr 100 10; echo '# tdkit-collect: peak_watts=200'; cat "$INTEL"; } ;;
	half) { hdr 100 10 | grep -v peak_gflops; cat "$INTEL"; } ;;
	empty) { hdr '' 10; cat "$INTEL"; } ;;
	huge) { hdr "1$(head -c 3000 /dev/zero | tr '\0' 0)" 10; cat "$INTEL"; } ;;
	esac >"$T_TMP/bad-$kind-synthetic.csv"
	run_tool "$T_TMP/o" "$T_TMP/e" "$D" --csv "$T_TMP/bad-$kind-synthetic.csv"
	[ $RC -eq 2 ] && grep -q "^td-derive: $T_TMP/bad-$kind-synthetic.csv:[0-9]*: td-collect header: " "$T_TMP/e" &&
		grep -q '^,all,,gflops,10.000,' "$T_TMP/o" && ! grep -q ',roof_' "$T_TMP/o"
	ok $? "header with $kind peaks: tool: file:line:, exit 2, the point still derived, no roof invented"
done
# a peaks value over 4096 bytes is no header fact at all (as any long value): the peaks are incomplete
{ hdr 100 "1$(head -c 5000 /dev/zero | tr '\0' 0)"; cat "$INTEL"; } >"$T_TMP/long-synthetic.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$D" --csv "$T_TMP/long-synthetic.csv"
[ $RC -eq 2 ] && grep -q "long-synthetic.csv:1: td-collect header: peaks need both" "$T_TMP/e" && ! grep -q ',roof_' "$T_TMP/o"
ok $? "a peak_gbs value too long to be a header fact: needs both, exit 2, no roof"

# --- td-diff: the two roofline points side by side --------------------------
# B: the synthetic Intel capture with scalar_double doubled (4e9 -> 8e9): 24e9
# FLOPs in 2 s = 12 GFLOP/s over the same DRAM bytes, 7.629 FLOP/B.
sed 's/^4000000000,,fp_arith_inst_retired.scalar_double/8000000000,,fp_arith_inst_retired.scalar_double/' \
	"$T_TMP/intel-synthetic-header.csv" >"$T_TMP/b-synthetic.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$TD_BIN/td-diff" --csv "$T_TMP/intel-synthetic-header.csv" "$T_TMP/b-synthetic.csv"
grep -q '^gflops,metric,GFLOP/s,10,12,2,20\(\.0*\)\?,higher,' "$T_TMP/o" && grep -q '^arithmetic_intensity,metric,FLOP/B,6.35783[0-9]*,7.62939[0-9]*,' "$T_TMP/o" &&
	grep -q '^dram_gbs,metric,GB/s,1.57286[0-9]*,1.57286[0-9]*,0,' "$T_TMP/o"
ok $? "td-diff: both roofline points, GFLOP/s 10 -> 12 (+20 %, higher is better), FLOP/B 6.358 -> 7.629, DRAM GB/s unchanged"
"$TD_BIN/td-diff" --csv "$TD_ROOT"/testdata/diff/local-kvm_gzip-1_stat-run1.txt "$TD_ROOT"/testdata/diff/local-kvm_gzip-9_stat-run1.txt | grep -q 'gflops\|intensity'
ok $(( ! $? )) "td-diff without FP events: no roofline rows"

# --- td-collect --peaks FILE, --measure-peaks, --print-peaks ----------------
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --peaks "$T_TMP/none" -- true
[ $RC -eq 2 ] && grep -q "^td-collect: $T_TMP/none" "$T_TMP/e" && [ ! -s "$T_TMP/o" ]; ok $? "--peaks missing file: exit 2, no capture"
printf 'peak_gflops 100\npeak_gbs ten\n' >"$T_TMP/bad-peaks"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --peaks "$T_TMP/bad-peaks" -- true
[ $RC -eq 2 ] && grep -q "^td-collect: $T_TMP/bad-peaks:2: 'ten' is not a positive number" "$T_TMP/e" && [ ! -s "$T_TMP/o" ]
ok $? "--peaks bad file: td-derive's reader's message with the line, exit 2, no capture"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --peaks "$PEAKS" --measure-peaks -- true
[ $RC -eq 2 ] && grep -q "not both" "$T_TMP/e"; ok $? "--peaks with --measure-peaks: usage error"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --print-peaks -a
[ $RC -eq 2 ] && grep -q "print-peaks measures and prints the peaks alone" "$T_TMP/e"; ok $? "--print-peaks with a target: usage error"

# The measurement may be impossible here (no threads, or no room for its
# arrays): that is a skip, said by the tool. Any other failure (a crash, a
# sanitizer's report) is a failure.
run_tool "$T_TMP/pp" "$T_TMP/e" "$C" --print-peaks
if [ $RC -ne 0 ] && ! grep -qE '^td-collect: --measure-peaks: cannot (start [0-9]+ threads|map 3 arrays)' "$T_TMP/e"; then
	ok 1 "--print-peaks: exit 0, or a reason it cannot measure here (exit $RC)"
	sed 's/^/# /' "$T_TMP/e" | head -20
fi
if [ $RC -eq 0 ]; then
	g=$(awk '$1 == "peak_gflops" { print $2 }' "$T_TMP/pp")
	b=$(awk '$1 == "peak_gbs" { print $2 }' "$T_TMP/pp")
	awk -v g="$g" -v b="$b" 'BEGIN { exit !(g + 0 > 0 && b + 0 > 0 && g + 0 < 1e7 && b + 0 < 1e6) }'
	ok $? "--print-peaks: positive finite figures ($g GFLOP/s, $b GB/s)"
	diag "--print-peaks on this machine:"; sed "s/^/#   /" "$T_TMP/pp"
	run_tool "$T_TMP/o" "$T_TMP/e" "$D" --csv --peaks "$T_TMP/pp" "$INTEL"
	[ $RC -eq 0 ] && grep -q ',roof_share,' "$T_TMP/o"; ok $? "--print-peaks output is a --peaks file td-derive reads"
	grep -q '^# measured .* by td-collect --measure-peaks: achieved on this machine, not vendor peaks' "$T_TMP/pp" &&
		grep -q 'chains of .* doubles wide, [0-9]* threads' "$T_TMP/pp" && grep -q 'triad a=b+s\*c over 3 arrays of [0-9]* MiB' "$T_TMP/pp"
	ok $? "--print-peaks says how: kernel, vector width, threads, array size"
else
	skip "--print-peaks cannot measure here ($(head -1 "$T_TMP/e"))"
	skip "--print-peaks as a --peaks file"
	skip "--print-peaks says how"
fi

if ! command -v perf >/dev/null 2>&1; then
	for i in 1 2 3 4; do skip "perf is not installed (Debian: linux-perf)"; done
else
	run_tool "$T_TMP/cap.csv" "$T_TMP/e" "$C" --no-git-labels --peaks "$PEAKS" -- true
	[ $RC -eq 0 ] && grep -qx '# tdkit-collect: peak_gflops=100' "$T_TMP/cap.csv" && grep -qx '# tdkit-collect: peak_gbs=10' "$T_TMP/cap.csv" &&
		grep -qx '# tdkit-collect: peak_gbs_l3=40' "$T_TMP/cap.csv" && grep -qx "# tdkit-collect: peaks_source=td-collect --peaks $PEAKS" "$T_TMP/cap.csv"
	ok $? "td-collect --peaks FILE: the peaks and their source in the header"
	"$D" -q "$T_TMP/cap.csv" | grep -qx "peaks: 100 GFLOP/s, 10 GB/s, from the capture header (td-collect --peaks $PEAKS)"
	ok $? "collect -> derive round trip: td-derive reads them back and says where they come from"
	run_tool "$T_TMP/m.csv" "$T_TMP/e" "$C" --no-git-labels --measure-peaks -- true
	g=$(sed -n 's/^# tdkit-collect: peak_gflops=//p' "$T_TMP/m.csv")
	b=$(sed -n 's/^# tdkit-collect: peak_gbs=//p' "$T_TMP/m.csv")
	[ $RC -eq 0 ] && awk -v g="$g" -v b="$b" 'BEGIN { exit !(g + 0 > 0 && b + 0 > 0) }' &&
		grep -q '^# tdkit-collect: peaks_method=GFLOP/s: 12 chains of ' "$T_TMP/m.csv" &&
		grep -q '^# tdkit-collect: peaks_source=measured 20[0-9-]*T[0-9:]*Z by td-collect --measure-peaks$' "$T_TMP/m.csv"
	ok $? "td-collect --measure-peaks: positive figures ($g GFLOP/s, $b GB/s), how and when, in the header"
	"$D" -q "$T_TMP/m.csv" | grep -q "^peaks: $g GFLOP/s, $b GB/s, from the capture header (measured "
	ok $? "--measure-peaks capture read back by td-derive"
fi
done_testing
