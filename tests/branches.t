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
	"$BR" --csv "$S/spe/arm64-spe_perf-script-F-pid,brstack--itrace=bl_branch-flags_llvm-bolt-pr129231.snippet.txt" 2>/dev/null | grep -q ',RET,11.0,11.0,too few branches to judge'
	ok $? "SPE --itrace=bl: MN/PN flags, a mispredicted RET read; one branch is too few for a cause"
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
			"$BR" --json --top 0 "$g" >"$T_TMP/direct.json" 2>/dev/null
			"$BR" --json --top 0 "$T_TMP/p.txt" | cmp -s - "$T_TMP/direct.json"
			ok $? "$b: td-branches FILE equals perf script -F ip,brstack | td-branches (every row)"
			# and the same totals counted straight from the perf script text
			read -r te tm < <(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^0x[0-9a-f]+\/0x[0-9a-f]+\/(P|M|-|PN|MN)\//) {
				e++; split($i, f, "/"); if (f[3] ~ /^M/) m++ } } END { print e + 0, m + 0 }' "$T_TMP/p.txt")
			ok $(( entries != te || misp != tm )) "$b: = the entries ($te) and M flags ($tm) in the perf script text"
			# per (from, to, mispredicted): perf prints map-relative addresses, so
			# the rows are compared as the multiset of their counts
			perf report -i "$g" -b --stdio -n --sort addr_from,addr_to,mispredict 2>/dev/null | grep -v '^#' |
				awk 'NF >= 6 { k = $3 " " $4 " " $5 " " $6 " " $7; c[k] += $2 } END { for (k in c) { split(k, f, " "); print f[5], c[k] } }' |
				sort >"$T_TMP/pr.rows"
			if [ ! -s "$T_TMP/pr.rows" ]; then
				skip "$b: this perf report has no addr_from/addr_to sort keys"; continue
			fi
			read -r _ _ _ empty < <(totals "$T_TMP/p.json")
			"$BR" --csv --by pair --top 0 "$T_TMP/p.txt" |
				awk -F, -v e="$empty" 'NR > 1 { if ($5 > 0) print "Y", $5; if ($4 - $5 > 0) print "N", $4 - $5 } END { if (e > 0) print "N", e }' |
				sort >"$T_TMP/td.rows"
			if cmp -s "$T_TMP/td.rows" "$T_TMP/pr.rows"; then
				ok 0 "$b: every (from, to, mispredicted) count = perf report -b --sort addr_from,addr_to,mispredict ($(wc -l <"$T_TMP/pr.rows") rows)"
			else
				# system-wide captures: perf keys a pair by (dso, offset), so one library
				# mapped at different addresses in several processes is one perf row and
				# several of ours; ours must then be the finer split (more rows)
				ok $(( $(wc -l <"$T_TMP/td.rows") <= $(wc -l <"$T_TMP/pr.rows") )) \
					"$b: per-pair rows differ only by perf's (dso, offset) merge across processes ($(wc -l <"$T_TMP/td.rows") ours, $(wc -l <"$T_TMP/pr.rows") perf's)"
			fi
		done
	else
		skip "perf not installed: no cross-check with perf report -b"
	fi
else
	skip "../shared absent: the branch captures are all there"
fi

# synthetic inputs written for this test: ranking, medians, formats
{
	echo ' 4005d0 0x401010/0x401000/P/-/-/3/  0x401010/0x401000/M/-/-/65535/  0x401010/0x401000/P/-/-/0/'
	echo ' 4005d0 0x402020/0x402000/M/-/-/1/  0x402020/0x402000/P/-/-/5/  0x402020/0x402000/M/-/-/9/  0x402020/0x402000/P/-/-/2/'
	echo ' 4005d0 0x403030/0x403000/-/-/-/0/  0x403030/0x403000/-/-/-/0/  0x404040/0x404000/P/-/-/0/  0x404040/0x404000/M/-/-/0/'
	echo ' 4005d0 0x405050/0x405000/M/-/-/0/IND_CALL/-  0x405050/0x405100/M/-/-/0/IND_CALL/-  0x405050/0x405000/P/-/-/0/IND_CALL/-'
} >"$T_TMP/syn.txt"
"$BR" --csv --top 0 "$T_TMP/syn.txt" >"$T_TMP/syn.csv"
head -1 "$T_TMP/syn.csv" | grep -q '^rank,from,to,count,mispredicted,rate,no_info,type,cycles_mean,cycles_median,likely_cause$'
ok $? "--csv: header names from,to,count,mispredicted,rate,type,cycles_mean"
grep -q '^[0-9],0x401010,0x401000,3,1,0.3333,0,,32769.0,32769.0,too few branches to judge' "$T_TMP/syn.csv"
ok $? "CYCLES 0 left out of mean and median; even count: median is the mean of the middle two"
grep -q '^[0-9],0x402020,0x402000,4,2,0.5000,0,,4.2,3.5,' "$T_TMP/syn.csv"
ok $? "exact median of 1 5 9 2 is 3.5 (no bucketing)"
grep -q '^[0-9],0x403030,0x403000,2,0,,2,,,,no prediction information' "$T_TMP/syn.csv"
ok $? "PRED '-': no_info, never predicted, no rate"
sed 1d "$T_TMP/syn.csv" | cut -d, -f2,3 | tr '\n' ' ' |
	grep -q '^0x402020,0x402000 0x401010,0x401000 0x404040,0x404000 0x405050,0x405000 0x405050,0x405100 0x403030,0x403000 $'
ok $? "default order: mispredicted, ties by count, then address"
"$BR" --csv --by site --top 0 "$T_TMP/syn.txt" | grep -q '^2,0x405050,,3,2,0.6667,0,IND_CALL,,,too few branches to judge'
ok $? "--by site: targets merged per source"
"$BR" --csv --sort rate --top 1 "$T_TMP/syn.txt" | cut -d, -f2,3,6 | tr '\n' ' ' | grep -q 'from,to,rate 0x405050,0x405100,1.0000 $' &&
	"$BR" --csv --sort rate --min-count 2 --by site --top 3 "$T_TMP/syn.txt" | cut -d, -f2,6 | tr '\n' ' ' |
	grep -q 'from,rate 0x405050,0.6667 0x402020,0.5000 0x404040,0.5000 $'
ok $? "--sort rate: a single branch tops it; --min-count 2 leaves it out (ties: mispredicted, address)"
tac "$T_TMP/syn.txt" | "$BR" --csv --top 0 >"$T_TMP/syn-rev.csv"
same "$T_TMP/syn.csv" "$T_TMP/syn-rev.csv" "byte-stable: input order does not change the output (stdin)"
"$BR" --json "$T_TMP/syn.txt" | jq -e '.totals == {samples: 4, entries: 14, mispredicted: 6, no_info: 2, empty: 0, spe_records: 0, spe_bad_packets: 0} and (.rows | length) == 6' >/dev/null
ok $? "--json: valid for jq, totals {samples, entries, mispredicted}"
if command -v zstd >/dev/null; then
	zstd -q -c "$T_TMP/syn.txt" >"$T_TMP/syn.txt.zst"
	"$BR" --csv --top 0 "$T_TMP/syn.txt.zst" | cmp -s - "$T_TMP/syn.csv"; ok $? "zstd input"
else
	skip "zstd not installed"
fi
{
	echo 'app 9 5.0: cycles:  401000 main+0x10(/opt/ab/app)/work+0x0(/opt/ab/app)/P/-/-/2/CALL/-  work+0x33(/opt/ab/app)/work+0x10(/opt/ab/app)/M/-/-/7/COND/-'
	echo 'app 9 5.1: cycles:  401000 work+0x40(/opt/ab/app)/main+0x14(/opt/ab/app)/M/-/-/3/RET/-  [unknown](/opt/ab/app)/[unknown](/opt/ab/app)/P/-/-/0/'
} >"$T_TMP/sym.txt"
"$BR" --csv --by func --top 0 "$T_TMP/sym.txt" | grep -q '^1,work,,2,2,1.0000,0,mixed,5.0,5.0,'
ok $? "--by func: sym+0xoff(dso) grouped per function, types 'mixed'"
"$BR" --markdown "$T_TMP/sym.txt" >"$T_TMP/sym.md"
grep -q '^## Branch Trace Hotspots' "$T_TMP/sym.md" && grep -q '^| 1 | `work+0x33(/opt/ab/app)` → `work+0x10(/opt/ab/app)` | 100.00% | COND |' "$T_TMP/sym.md"
ok $? "--markdown: rank, from → to, rate, type"
{
	echo '.  00000000:  b0 10 f0 00 00 00 aa aa 00                       PC 0xaaaa0000f010 el0 ns=1'
	echo '.  00000009:  4a 01                                            B IND'
	echo '.  0000000b:  52 82 00                                         EV RETIRED MISPRED'
	echo '.  0000000e:  99 07 00                                         LAT 4 ISSUE'
	echo '.  00000011:  98 07 00                                         LAT 7 TOT'
	echo '.  00000014:  b1 40 f0 00 00 00 aa aa 00                       TGT 0xaaaa0000f040 el0 ns=1'
	echo '.  0000001d:  71 00 10 00 00 00 00 00 00                       TS 4096'
	echo '.  00000026:  b0 80 f0 00 00 00 aa aa 00                       PC 0xaaaa0000f080 el0 ns=1'
	echo '.  0000002f:  4a 00                                            B COND'
	echo '.  00000031:  42 06                                            EV RETIRED NOT-TAKEN'
	echo '.  00000033:  ee ee                                            Bad packet!'
} >"$T_TMP/spe.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --csv "$T_TMP/spe.txt"
grep -q '^1,0xaaaa0000f010,0xaaaa0000f040,1,1,1.0000,0,IND,7.0,7.0,too few' "$T_TMP/out" &&
	grep -q '^2,0xaaaa0000f080,\[unknown\],1,0,0.0000,0,COND,' "$T_TMP/out" && grep -q '1 SPE packets' "$T_TMP/err"
ok $(( RC || $? )) "SPE -D dump: B IND with MISPRED, LAT TOT as cycles, a record without TS at the end, bad packet said (exit 0)"
{
	echo '   app  901 [002]    7.000100:          1           branch-miss:      aaaa0000f00c walk+0x4c (/opt/app/bin/app)'
	echo '   app  901 [002]    7.000200:          1           branch-miss:  ffff800034123970 aaaa0000f00c walk+0x4c (/opt/app/bin/app)   153d19970'
	echo '   app  901 [002]    7.000300:          1           branch-miss:  ffff800034123970 aaaa0000f0a0 [unknown] (/opt/app/bin/app)'
	echo '   app  901 [002]    7.000400:          1            l1d-access:  aaaa0000f010 walk+0x50 (/opt/app/bin/app)'
	echo ' branch-miss:      12 aaaa0000f0b0'
} >"$T_TMP/spes.txt"
"$BR" --csv "$T_TMP/spes.txt" | cut -d, -f2-6 | tr '\n' ' ' | grep -q '^from,to,count,mispredicted,rate walk+0x4c,\[unknown\],2,2, aaaa0000f0a0,\[unknown\],1,1, aaaa0000f0b0,\[unknown\],1,1, $'
ok $? "SPE branch-miss samples: the PC past -F addr and weight, no rate invented"

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
printf 'cafe menu of the day\n' >"$T_TMP/prose.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" "$T_TMP/prose.txt"
grep -q "prose.txt:1: not perf script" "$T_TMP/err"; ok $(( RC != 2 || $? )) "a line starting with a hex-looking word is not a sample's ip"
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
# perf script prints brstacksym's first entry glued to the field before it;
# rendered here from the shared LBR recordings: the rows must be those of the
# layouts where nothing is glued, and samples with an empty branch stack
# (Skylake-X: 8 of 3740) are samples, not foreign lines
if have_shared && command -v perf >/dev/null; then
	for g in intel-skl-m7-6Y75_lbr-b_perf4.14 intel-skx-8173M_lbr_cycles-b_perf4.13 amd-zen4-engsample_lbrv2_rc4-b_perf5.19; do
		d=$S/perfdata/$g.perf.data
		if ! perf script -i "$d" -F ip,brstack >"$T_TMP/ref.txt" 2>/dev/null || [ ! -s "$T_TMP/ref.txt" ]; then
			skip "$g: perf script cannot read it here"; continue
		fi
		"$BR" --json "$T_TMP/ref.txt" >"$T_TMP/ref.json"
		want=$(totals "$T_TMP/ref.json" | cut -d' ' -f1-3)
		for pair in ip,sym,dso,brstacksym:sym,dso,brstacksym ip,dso,brstacksym:sym,dso,brstacksym \
			ip,sym,brstacksym:brstacksym ip,sym,symoff,brstacksym:brstacksym comm,tid,ip,sym,brstacksym:brstacksym \
			comm,tid,ip,sym,dso,brstack:dso,brstack; do
			F=${pair%%:*} R=${pair#*:}
			perf script -i "$d" -F "$F" >"$T_TMP/g.txt" 2>/dev/null
			perf script -i "$d" -F "$R" >"$T_TMP/r.txt" 2>/dev/null
			run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --json --top 0 "$T_TMP/g.txt"
			[ "$(totals "$T_TMP/out" | cut -d' ' -f1-3)" = "$want" ] && [ ! -s "$T_TMP/err" ]
			ok $(( RC || $? )) "$g -F $F: $want samples, entries, mispredicted as -F ip,brstack; exit 0, nothing on stderr"
			"$BR" --csv --top 0 "$T_TMP/g.txt" | cut -d, -f2- | sort >"$T_TMP/g.rows"
			"$BR" --csv --top 0 "$T_TMP/r.txt" 2>/dev/null | cut -d, -f2- | sort >"$T_TMP/r.rows"
			same "$T_TMP/r.rows" "$T_TMP/g.rows" "$g -F $F: the rows of -F $R, no glued field in a source ($(wc -l <"$T_TMP/g.rows") rows)"
		done
	done
	K=$S/perfdata/intel-skl-m7-6Y75_lbr-b_perf4.14.perf.data
	perf script -i "$K" -F ip,sym,dso,brstacksym 2>/dev/null | "$BR" --csv --top 0 | grep -c '^[0-9]*,(' | grep -qx 0
	ok $? "Skylake -F ip,sym,dso,brstacksym: no '([kernel.kallsyms])[unknown]([kernel.kallsyms])' row"
else
	skip "../shared or perf absent: glued brstacksym layouts not rendered"
fi
# a sample's symbol glued to the first entry, symbols resolved (synthetic:
# the recordings above have no binaries, so every symbol is [unknown])
{
	echo '           401010 workmain+0x10/work+0x0/P/-/-/2/ work+0x33/work+0x10/M/-/-/7/'
	echo '           401010 work+0x10main+0x10/work+0x0/M/-/-/2/ work+0x33/work+0x10/P/-/-/7/'
	echo '           401010 work+0x10[unknown]/work+0x0/P/-/-/2/'
	echo '     7f0a1b2c3d4e [unknown]main+0x10/work+0x0/P/-/-/2/'
} >"$T_TMP/glued.synthetic.txt"
"$BR" --csv --top 0 "$T_TMP/glued.synthetic.txt" | cut -d, -f2-5 | sort | tr '\n' ' ' |
	grep -qx '\[unknown\],work+0x0,1,0 from,to,count,mispredicted main+0x10,work+0x0,3,1 work+0x33,work+0x10,2,1 '
ok $? "glued sample symbol (with or without symoff, or [unknown]) split off the first entry's source"

# a likely cause needs 30 branches with a P or M flag (synthetic counts)
{
	printf ' 4005d0'; for i in $(seq 15); do printf ' 0x406000/0x406100/M/-/-/1/COND/- 0x406000/0x406100/P/-/-/1/COND/-'; done; echo
	printf ' 4005d0'; for i in $(seq 20); do printf ' 0x407000/0x407100/M/-/-/1/IND_CALL/-'; done
	for i in $(seq 10); do printf ' 0x407000/0x407200/P/-/-/1/IND_CALL/-'; done; echo
	printf ' 4005d0'; for i in $(seq 29); do printf ' 0x408000/0x408100/M/-/-/1/COND/-'; done; echo
} >"$T_TMP/cause.synthetic.txt"
"$BR" --csv --by site --top 0 "$T_TMP/cause.synthetic.txt" >"$T_TMP/cause.csv"
grep -q '^[0-9],0x406000,,30,15,0.5000,0,COND,1.0,1.0,data-dependent' "$T_TMP/cause.csv" &&
	grep -q '^[0-9],0x407000,,30,20,0.6667,0,IND_CALL,1.0,1.0,indirect target varies' "$T_TMP/cause.csv" &&
	grep -q '^[0-9],0x408000,,29,29,1.0000,0,COND,1.0,1.0,too few branches to judge' "$T_TMP/cause.csv"
ok $? "likely cause from 30 judged branches on; 29 (all mispredicted) are too few"
"$BR" --top 0 "$T_TMP/cause.synthetic.txt" | tail -1 | grep -q '^likely cause: named for rows of 30 or more branches'
ok $? "text: the minimum is said below the table"
"$BR" --markdown --top 0 "$T_TMP/cause.synthetic.txt" | grep -q '^likely cause: named for rows of 30'
ok $? "markdown: the minimum is said below the table"
"$BR" --json "$T_TMP/cause.synthetic.txt" | jq -e '.cause_min_judged == 30' >/dev/null
ok $? "json: cause_min_judged 30"

# --min-count that leaves no row says so (not "no branch entries")
if have_shared; then
	run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --min-count 100000 "$S/brstack/intel-westmere-x5660_lbr.brstack.txt"
	grep -q '^no row has --min-count 100000 branches or more (447 rows; the largest has 21790)$' "$T_TMP/out" &&
		! grep -q 'no branch entries' "$T_TMP/out" && grep -q 'min-count 100000 leaves none of the 447 rows' "$T_TMP/err"
	ok $(( RC || $? )) "Westmere --min-count 100000: 'no row has ...' (447 rows, largest 21790), exit 0"
	"$BR" --json --min-count 100000 "$S/brstack/intel-westmere-x5660_lbr.brstack.txt" 2>/dev/null |
		jq -e '.rows_total == 0 and .rows_before_min_count == 447' >/dev/null
	ok $? "Westmere --min-count 100000 --json: rows_total 0 of rows_before_min_count 447"
else
	skip "../shared absent: --min-count on a real capture"
fi

# --binary: no LBR recording can be made on this VM, so the entries are
# synthetic, built from the libc mapping and two frames perf printed for the
# recording in testdata/fold (and checked only where this machine's libc is
# that recording's build).
L=/usr/lib/x86_64-linux-gnu/libc.so.6
IDS=$TD_ROOT/testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.buildids.txt
id=$(readelf -n "$L" 2>/dev/null | awk '/Build ID/ {print $3}')
if [ -n "$id" ] && grep -q "^$id " "$IDS"; then
	m=0x7f7551850000
	a=$(printf '0x%x' $((m - 0x26000 + 0x16a65e))); c=$(printf '0x%x' $((m - 0x26000 + 0xd4353)))
	{ printf 'gzip PERF_RECORD_MMAP2 6841/6841: [0x7f7551850000(0x156000) @ 0x26000 fe:00 332835 0]: r-xp %s\n' "$L"
	  printf ' %s %s/%s/M/-/-/0/  %s/%s/P/-/-/0/\n' "${a#0x}" "$a" "$c" "$c" "$a"; } >"$T_TMP/synthetic-libc.txt"
	run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --csv --binary "$L" "$T_TMP/synthetic-libc.txt"
	grep -q '^1,__strrchr_evex+0x1e,_Fork+0x23,1,1,' "$T_TMP/out"; ok $? "--binary with an MMAP2 line: libc addresses named as perf named them"
	printf ' %s %s/%s/M/-/-/0/\n' "${a#0x}" "$a" "$c" >"$T_TMP/synthetic-libc-base.txt"
	run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --csv --by func --binary "$L" --base "$(printf '%x' $((m - 0x26000)))" "$T_TMP/synthetic-libc-base.txt"
	grep -q '^1,__strrchr_evex,,1,1,' "$T_TMP/out"; ok $? "--binary --base (no mmap events), --by func"
else
	skip "this machine's libc is not the build recorded in testdata/fold"
	skip "this machine's libc is not the build recorded in testdata/fold"
fi
# --binary names of any length: the committed C++ binary's two hot
# templates demangle to 5.8 and 1.4 KiB (synthetic entry: one branch from
# spin<level6>+0x10 to spin<level4>+0x8, the binary placed by --base); they
# were cut at 511 bytes, so two long names sharing a prefix would merge
L=$TD_ROOT/testdata/perfdata/local-kvm_cpu-clock-g_cxx-long-names_perf6.1.symfs/tmp/tdkit-longnames/long-names
base=0x555555554000
a=$(printf '0x%x' $((base + 0x1225 + 0x10))); c=$(printf '0x%x' $((base + 0x1277 + 0x8)))
printf ' %s %s/%s/M/-/-/0/\n' "${a#0x}" "$a" "$c" >"$T_TMP/synthetic-long-names.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --csv --binary "$L" --base "${base#0x}" "$T_TMP/synthetic-long-names.txt"
lens=$(python3 -c 'import csv, sys; r = list(csv.reader(open(sys.argv[1])))[1]; print(len(r[1]), r[1][-5:], len(r[2]), r[2][-4:])' "$T_TMP/out" 2>/dev/null)
[ "$lens" = "5824 +0x10 1455 +0x8" ]; ok $? "--binary: a 5.8 KiB and a 1.4 KiB C++ name kept whole ($lens)"
run_tool "$T_TMP/out" "$T_TMP/err" "$BR" --binary /nonexistent "$T_TMP/huge.txt"
grep -q '^td-branches: /nonexistent: cannot open' "$T_TMP/err"; ok $(( RC != 2 || $? )) "--binary of a missing file: named, exit 2"
done_testing
