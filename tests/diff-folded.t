#!/usr/bin/env bash
# td-diff --folded: difffolded.pl's output (sorted), -n, -s, --top, bad input.
. "$(dirname "$0")/lib.sh"
D=$TD_ROOT/testdata/diff
A=$D/local-kvm_gzip-1_cpu-clock-g.folded
B=$D/local-kvm_gzip-9_cpu-clock-g.folded
DIFF=$TD_BIN/td-diff
for o in "" n s ns; do
	run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded ${o:+-$o} "$A" "$B"
	same "$D/gzip-1_vs_gzip-9.difffolded${o:+-$o}.txt" "$T_TMP/out" "equals difffolded.pl ${o:+-$o}"
	ok $RC "exit 0 ${o:+-$o}"
done

# decimals and -n follow perl's int(c1 * total2 / total1)
printf 'a;b 1.5\na;c 2\n' >"$T_TMP/f1.synthetic"
printf 'a;b 3\n' >"$T_TMP/f2.synthetic"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded -n "$T_TMP/f1.synthetic" "$T_TMP/f2.synthetic"
printf 'a;b 1 3\na;c 1 0\n' >"$T_TMP/exp"
same "$T_TMP/exp" "$T_TMP/out" "decimal counts and -n as difffolded.pl computes them"

# stacks that vanish or appear are listed with a zero on the other side
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded "$A" "$B"
only_a=$(awk '$(NF)==0' "$T_TMP/out" | wc -l)
only_b=$(awk '$(NF-1)==0' "$T_TMP/out" | wc -l)
ok $(( only_a == 0 || only_b == 0 )) "stacks present on one side only are kept ($only_a gone, $only_b new)"

# --top: base and candidate named, significance judged
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded --top 3 "$A" "$B"
grep -q "^base: $A" "$T_TMP/out" && grep -q "^cand: $B" "$T_TMP/out"; ok $? "--top names base and candidate"
grep -q '^self   \[gzip\] .* yes .*grew' "$T_TMP/out"; ok $? "--top: gzip's own code grew, significantly"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded --top 3 --json "$A" "$B"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["moved"][0]["function"]=="[gzip]"' "$T_TMP/out" 2>/dev/null
ok $? "--top --json is valid JSON with the moved functions"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded --top 3 --csv "$A" "$B"
head -1 "$T_TMP/out" | grep -q '^kind,function,base_share,cand_share,delta_pts,z,significant,status$'; ok $? "--top --csv header"

# a change from 0 to 1 sample is not significant
printf 'app;main;work 500\napp;main;idle 500\n' >"$T_TMP/base.synthetic"
printf 'app;main;work 500\napp;main;idle 499\napp;main;rare 1\n' >"$T_TMP/cand.synthetic"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded --top 5 "$T_TMP/base.synthetic" "$T_TMP/cand.synthetic"
grep -q '^self   rare .* no  .*new' "$T_TMP/out"; ok $? "0 -> 1 sample: new, not significant"

# bad input: a line that is not "stack count", valid lines kept, exit 2
printf 'a;b 10\nthis is not folded\na;c 5\n' >"$T_TMP/bad.synthetic"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded "$T_TMP/bad.synthetic" "$T_TMP/f2.synthetic"
ok $(( RC != 2 )) "malformed line: exit 2"
grep -q "^td-diff: $T_TMP/bad.synthetic:2: not a folded stack line" "$T_TMP/err"; ok $? "malformed line: file:line"
grep -q '^a;c 5 0$' "$T_TMP/out"; ok $? "malformed line: valid lines still compared"
: >"$T_TMP/empty"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded "$T_TMP/empty" "$A"
ok $RC "empty base: everything is new, exit 0"
printf 'a;b 1\r\na;c 2\r\n' >"$T_TMP/crlf.synthetic"
printf 'a;b 1\na;c 2\n' >"$T_TMP/lf.synthetic"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded "$T_TMP/crlf.synthetic" "$T_TMP/lf.synthetic"
printf 'a;b 1 1\na;c 2 2\n' >"$T_TMP/exp"
same "$T_TMP/exp" "$T_TMP/out" "CRLF input reads like LF"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded "$A"
ok $(( RC != 2 )) "one input: usage error, exit 2"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$T_TMP/x.csv" "$T_TMP/y.csv"
ok $(( RC != 2 )) "counter files: clear 'not implemented yet', exit 2"
done_testing
