#!/usr/bin/env bash
# td-branches on real branch stacks (LBR of five Intel generations, AMD
# LbrExtV2, ARM ETM-injected, SPE) and perf.data rendered by perf at test
# time; totals cross-checked with perf report -b; the bad-input matrix.
. "$(dirname "$0")/lib.sh"
BR=$TD_BIN/td-branches
S=$TD_SHARED/testdata

totals() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["totals"]; print(d["samples"], d["entries"], d["mispredicted"], d["empty"])' "$1"; }

if have_shared; then
	for f in "$S"/brstack/* "$S"/spe/*; do
		b=$(basename "$f")
		run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --json "$f"
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T_TMP/out"
		ok $(( RC > 2 || $? )) "$b: read, valid JSON (exit $RC)"
	done
	W=$S/brstack/intel-westmere-x5660_lbr.brstack.txt
	"$BR" --json "$W" >"$T_TMP/w.json"
	[ "$(totals "$T_TMP/w.json")" = "9232 147712 9319 0" ]; ok $? "Westmere LBR: 9232 samples, 147712 entries, 9319 mispredicted"
	"$BR" --csv --top 1 "$W" >"$T_TMP/w.csv"
	sed -n 2p "$T_TMP/w.csv" | grep -q '^1,0x401731,0x401700,18021,1789,0.0993,0,,,,'; ok $? "Westmere: top site 0x401731 -> 0x401700, 1789 of 18021 mispredicted"
	"$BR" --json "$S/brstack/intel-skl-m7-6Y75_lbr.brstack.txt" >"$T_TMP/k.json"
	[ "$(totals "$T_TMP/k.json")" = "13 416 21 29" ]; ok $? "Skylake LBR: 29 unused 0x0 slots counted as entries, not ranked"
	"$BR" --csv --by site --top 0 "$S/brstack/intel-skl-m7-6Y75_lbr.brstack.txt" | awk -F, 'NR>1 {c+=$4} END {exit c != 387}'
	ok $? "--by site: counts add up to the ranked entries (416 - 29)"
	"$BR" --csv "$S/brstack/intel-skx-8173M_lbr_cycles.brstack.txt" | sed -n 2p | grep -q ',10.0,10.0,'
	ok $? "Skylake-X: cycles mean and median from the CYCLES field"
	"$BR" --csv --by func --top 0 "$S/brstack/x86-arm64-amd_brstack-format-evolution_type-spec_lkml.snippet.txt" | grep -q '^[0-9]*,check_match,,2,0,'
	ok $? "brstacksym: --by func groups sym+0xoff by function; TYPE and SPEC fields read"
	"$BR" --csv "$S/spe/arm64-spe_perf-script-F-pid,brstack--itrace=bl_branch-flags_llvm-bolt-pr129231.snippet.txt" 2>/dev/null | grep -q ',RET,11.0,11.0,return stack overflow'
	ok $? "SPE --itrace=bl: MN/PN flags, a mispredicted RET explained"
	"$BR" --json "$S/spe/arm64-spe_perf-script-synthesized-events_lkml-snippets.txt" 2>/dev/null >"$T_TMP/s.json"
	grep -q '"mispredicted": 1' "$T_TMP/s.json" && "$BR" "$S/spe/arm64-spe_perf-script-synthesized-events_lkml-snippets.txt" 2>/dev/null | grep -q 'SPE samples of other events skipped'
	ok $? "SPE synthesized events: branch-miss counted, other events skipped and said"
	"$BR" "$S/spe/arm64-spe-first-support-2018_perf-report--dump-raw-trace_kimphillips.snippet.txt" | grep -q '1 SPE records'
	ok $? "SPE perf report -D dump (2018 spelling): records decoded"
	# perf report -b counts every entry: the totals must match it
	if command -v perf >/dev/null; then
		for g in "$S"/perfdata/*lbr* "$S"/perfdata/*brstack*; do
			b=$(basename "$g")
			if ! perf script -i "$g" -F ip,brstack >"$T_TMP/p.txt" 2>/dev/null || [ ! -s "$T_TMP/p.txt" ]; then
				skip "$b: perf script cannot read it here"; continue
			fi
			read -r n y < <(perf report -i "$g" -b --stdio -n --sort mispredict 2>/dev/null |
				awk '$3 == "N" {n = $2} $3 == "Y" {y = $2} END {print n + 0, y + 0}')
			"$BR" --json "$T_TMP/p.txt" >"$T_TMP/p.json"
			read -r _ entries misp _ < <(totals "$T_TMP/p.json")
			ok $(( entries != n + y || misp != y )) "$b: entries $entries, mispredicted $misp = perf report -b ($((n + y)), $y)"
		done
	else
		skip "perf not installed: no cross-check with perf report -b"
	fi
else
	skip "../shared absent: the branch captures are all there"
fi

# the bad-input matrix, on a synthetic entry written for this test
E='0x4005e4/0x4005c0/P/-/-/4/'
{
	echo " 4005d0 $E  $E"
	echo " 4005d0 $E  0x4005e4/0x4005c0/P/-/-"
	echo " 4005d0 $E  0x14005e40000000000/0x4005c0/P/-/-/4/"
	echo " 4005d0 $E  0x4005e4/0x4005c0/Q/-/-/4/"
	echo " 4005d0 $E  0x4005e4/0x4005c0/P/-/-/x4/"
	echo "this is not perf script output"
	printf ' 4005d0 %s' "$E"
} >"$T_TMP/bad.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --json "$T_TMP/bad.txt"
ok $(( RC != 2 )) "bad entries: exit 2"
grep -q "bad.txt:2: .*truncated branch entry" "$T_TMP/err"; ok $? "truncated entry: file:line"
grep -q "bad.txt:3: .*longer than 64 bits" "$T_TMP/err"; ok $? "hex overflow: file:line"
grep -q "bad.txt:4: .*not P, M, -, PN or MN" "$T_TMP/err"; ok $? "garbage PRED letter: file:line"
grep -q "bad.txt:5: .*cycles" "$T_TMP/err"; ok $? "bad cycles field: file:line"
grep -q "bad.txt:6: not perf script" "$T_TMP/err"; ok $? "foreign line: file:line"
[ "$(totals "$T_TMP/out")" = "6 7 0 0" ]; ok $? "every valid entry kept (7), the unterminated last line too"
: >"$T_TMP/empty"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" "$T_TMP/empty"
grep -q 'no branch entries' "$T_TMP/out"; ok $(( RC || $? )) "empty input: says so, exit 0"
sed 's/$/\r/' "$T_TMP/bad.txt" | head -1 >"$T_TMP/crlf.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --json "$T_TMP/crlf.txt"
grep -q '"entries": 2' "$T_TMP/out"; ok $(( RC || $? )) "CRLF line: read"
{ printf ' 4005d0 '; for i in $(seq 20000); do printf '%s  ' "$E"; done; echo; } >"$T_TMP/huge.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --json "$T_TMP/huge.txt"
grep -q '"entries": 20000' "$T_TMP/out"; ok $(( RC || $? )) "a 1 MB line of 20000 entries"
printf 'ab\0cd\n' >"$T_TMP/bin.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" "$T_TMP/bin.txt"
grep -q 'binary data' "$T_TMP/err"; ok $(( RC != 2 || $? )) "binary input: file:line, exit 2"
gzip -c "$T_TMP/huge.txt" >"$T_TMP/huge.txt.gz"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --json "$T_TMP/huge.txt.gz"
grep -q '"entries": 20000' "$T_TMP/out"; ok $? "gzip input"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --by nothing "$T_TMP/huge.txt"
ok $(( RC != 2 )) "--by nothing: usage error"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --markdown "$T_TMP/huge.txt"
grep -q '^| Rank | From → To | Mispredict Rate | Type | Likely Cause |' "$T_TMP/out"; ok $? "--markdown: the Branch Trace Hotspots table"
done_testing
