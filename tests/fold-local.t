#!/usr/bin/env bash
# td-fold on the capture recorded for this project (no ../shared needed),
# its options, and the bad-input matrix.
. "$(dirname "$0")/lib.sh"
D=$TD_ROOT/testdata/fold
N=$D/local-kvm_cpu-clock-g_gzip-perl_perf6.1
FOLD=$TD_BIN/td-fold

for opt in "" pid kernel; do
	run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" ${opt:+--$opt} "$N.script.txt.gz"
	same "$N.collapsed${opt:+-$opt}.txt" "$T_TMP/out" "own capture ${opt:+--$opt} equals stackcollapse-perf.pl"
	ok $RC "own capture ${opt:+--$opt}: exit 0"
done

zcat "$N.script.txt.gz" >"$T_TMP/plain.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" - <"$T_TMP/plain.txt"
same "$N.collapsed.txt" "$T_TMP/out" "stdin '-' equals the gzip file"
zstd -q -c "$T_TMP/plain.txt" >"$T_TMP/plain.zst" 2>/dev/null &&
	{ run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/plain.zst"; same "$N.collapsed.txt" "$T_TMP/out" "zstd input read by magic"; } ||
	skip "zstd command absent"

for threads in 1 2 3; do
	run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" -j "$threads" "$T_TMP/plain.txt"
	same "$N.collapsed.txt" "$T_TMP/out" "-j $threads gives the same bytes"
	# a small input is folded on one thread; TD_PLAIN=1 starts the workers at once
	TD_PLAIN=1 run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" -j "$threads" "$T_TMP/plain.txt"
	same "$N.collapsed.txt" "$T_TMP/out" "-j $threads with workers from the first byte gives the same bytes"
done

# past the part folded on the reading thread alone (16 MiB) the workers
# take over mid-input: the capture 40 times over (19.7 MB; the hand-over
# lands inside a sample, which the reading thread ends), the same bytes for
# any -j, counts 40 times the capture's
for i in $(seq 40); do cat "$T_TMP/plain.txt"; done >"$T_TMP/big.txt"
awk '{ $NF = sprintf("%.0f", $NF * 40); print }' "$N.collapsed.txt" >"$T_TMP/big.expected"
for threads in 1 2 3; do
	run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" -j "$threads" "$T_TMP/big.txt"
	same "$T_TMP/big.expected" "$T_TMP/out" "19.7 MB: -j $threads gives 40 times the capture's counts"
done

# two files in a row equal their concatenation
head -c 200000 "$T_TMP/plain.txt" | awk 'BEGIN{RS="";ORS="\n\n"} {print}' >"$T_TMP/a.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/plain.txt" "$T_TMP/plain.txt"
awk '{ $NF = sprintf("%.0f", $NF * 2); print }' "$N.collapsed.txt" >"$T_TMP/double.txt"
same "$T_TMP/double.txt" "$T_TMP/out" "two files: counts add up"

# CRLF equals LF
sed 's/$/\r/' "$T_TMP/plain.txt" >"$T_TMP/crlf.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/crlf.txt"
same "$N.collapsed.txt" "$T_TMP/out" "CRLF input folds like LF"

# empty input: no output, exit 0
: >"$T_TMP/empty.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/empty.txt"
ok $(( RC != 0 || $(wc -c <"$T_TMP/out") != 0 )) "empty input: empty output, exit 0"

# no blank line after the last sample: kept (as inferno does), said, exit 0;
# --perl-compat drops it as stackcollapse-perf.pl does
head -n 1000 "$T_TMP/plain.txt" >"$T_TMP/trunc.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/trunc.txt"
grep -q "^td-fold: $T_TMP/trunc.txt:1000: input ends without the blank line after its last sample; kept" "$T_TMP/err"
ok $? "unterminated last sample: file:line note"
ok $(( RC != 0 )) "unterminated last sample: kept, exit 0"
{ cat "$T_TMP/trunc.txt"; echo; } | "$FOLD" >"$T_TMP/closed.out" 2>/dev/null
same "$T_TMP/closed.out" "$T_TMP/out" "unterminated last sample folds as if the blank line were there"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" --perl-compat "$T_TMP/trunc.txt"
grep -q "trunc.txt:1000: .*dropped, as stackcollapse-perf.pl drops it" "$T_TMP/err"; ok $? "--perl-compat: the last sample dropped, and said"
last_blank=$(grep -n '^$' "$T_TMP/trunc.txt" | tail -1 | cut -d: -f1)
head -n "$last_blank" "$T_TMP/trunc.txt" | "$FOLD" 2>/dev/null | cmp -s - "$T_TMP/out"
ok $(( $? || RC != 0 )) "--perl-compat: the samples before the last, exit 0"
# binary data: lines before it are folded, then file:line and exit 2
{ head -n 2000 "$T_TMP/plain.txt"; printf 'garbage\0bytes\n'; } >"$T_TMP/bin.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/bin.txt"
grep -q "^td-fold: $T_TMP/bin.txt:2001: binary data" "$T_TMP/err"; ok $? "binary: file:line message"
ok $(( RC != 2 )) "binary: exit 2"
ok $(( $(wc -l <"$T_TMP/out") == 0 )) "binary: samples before the fault still folded"

# a huge frame line (20 MB symbol) works
{ printf 'big 1 1.0: 1 cpu-clock:\n\t 1234 '; head -c 20000000 /dev/zero | tr '\0' x; printf ' (/bin/big)\n\n'; } >"$T_TMP/huge.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/huge.txt"
ok $(( RC != 0 || $(wc -c <"$T_TMP/out") < 20000000 )) "20 MB line folded"

# wrong format: a perf stat CSV
printf '1234,,cycles,100.00,,\n5678,,instructions,100.00,0.5,insn per cycle\n' >"$T_TMP/stat.csv"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/stat.csv"
ok $(( RC != 2 )) "perf stat CSV: exit 2"
grep -q "^td-fold: this is perf stat output, not perf script output; use td-derive" "$T_TMP/err"; ok $? "perf stat CSV: says what it is and which tool reads it"
grep -q "^td-fold: $T_TMP/stat.csv:1: unrecognized line" "$T_TMP/err"; ok $? "perf stat CSV: names file and line"

# options perl has but td-fold cannot honour without the recording host
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" --inline "$N.script.txt.gz"
ok $(( RC != 2 )) "--inline: clear error, exit 2"
grep -q "addr2line" "$T_TMP/err"; ok $? "--inline: says why"

# -q silences notes but not errors; -o writes a file
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" -q -o "$T_TMP/o.txt" "$T_TMP/trunc.txt"
ok $(( $(wc -c <"$T_TMP/err") != 0 )) "-q silences the unterminated-sample note"
ok $(( $(wc -c <"$T_TMP/o.txt") == 0 )) "-o FILE holds the output"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" -q "$T_TMP/bin.txt"
ok $(( $(grep -c . "$T_TMP/err") != 1 )) "-q keeps the one error line"

# perf script --show-task-events (own capture): the PERF_RECORD_* lines are
# not samples, not even the trailing PERF_RECORD_EXIT
TE=$D/local-kvm_cpu-clock-g_show-task-events_sh-ls_perf6.1
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$TE.script.txt.gz"
same "$TE.collapsed-perl.txt" "$T_TMP/out" "task events: equals stackcollapse-perf.pl, no extra stack for the trailing PERF_RECORD_EXIT"
ok $(( RC != 0 || $(grep -c 'input ends' "$T_TMP/err") )) "task events: exit 0, no unterminated-sample note"
{ zcat "$TE.script.txt.gz"; echo; } >"$T_TMP/te.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/te.txt"
same "$TE.collapsed-perl.txt" "$T_TMP/out" "task events and a final blank line: the record line is still no stack ('sh 1')"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" -j 3 "$TE.script.txt.gz"
same "$TE.collapsed-perl.txt" "$T_TMP/out" "task events: -j 3 gives the same bytes"

# a one-character comm (own capture of a script named w, pid 10197): perl's
# header regex wants two characters, so it folds every sample as its own root
W=$D/local-kvm_cpu-clock-g_one-char-comm-w_perf6.1
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$W.script.txt.gz"
ok $(( RC != 0 || $(cut -d';' -f1 "$T_TMP/out" | sort -u | tr '\n' ' ' | grep -cx 'w ') != 1 )) "one-character comm: one root 'w'"
ok $(( $(awk '{s+=$NF} END {print s}' "$T_TMP/out") != $(awk '{s+=$NF} END {print s}' "$W.collapsed-perl.txt") )) \
	"one-character comm: the same 228 samples' periods as the perl output"
ok $(( $(wc -l <"$T_TMP/out") >= $(wc -l <"$W.collapsed-perl.txt") )) "one-character comm: fewer stacks than perl's one per sample ($(wc -l <"$T_TMP/out") < $(wc -l <"$W.collapsed-perl.txt"))"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" --perl-compat "$W.script.txt.gz"
same "$W.collapsed-perl.txt" "$T_TMP/out" "--perl-compat: byte-identical to stackcollapse-perf.pl, bug included"

# --skip-after drops callers of the named function
K=entry_SYSCALL_64_after_hwframe
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" --skip-after $K --skip-after asm_exc_page_fault "$N.script.txt.gz"
ok $(( $(grep -c ";read;$K;" "$T_TMP/out") )) "--skip-after: no callers above the function"
grep -q "^cat;$K;do_syscall_64;" "$T_TMP/out"; ok $? "--skip-after: comm;FUNC;callees"
grep -q "^cat;asm_exc_page_fault;" "$T_TMP/out"; ok $? "--skip-after is repeatable"

# --exact-comm keeps a comm with spaces whole (synthetic edge case)
printf 'worker 1 12345/12346 [000] 1.000000: 1 cpu-clock:\n\t 1234 f+0x1 (/bin/x)\n\n' >"$T_TMP/sp.synthetic.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" --tid "$T_TMP/sp.synthetic.txt"
grep -qx 'worker-?/1;f 1' "$T_TMP/out"; ok $? "default parses a spaced comm as the perl script does"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" --tid --exact-comm "$T_TMP/sp.synthetic.txt"
grep -qx 'worker_1-12345/12346;f 1' "$T_TMP/out"; ok $? "--exact-comm keeps 'worker 1'"

# traps users of the peers reported (USER-REPORTS.md 2.1), synthetic lines
printf 'perf 12 [000] 1.000: 1 sched:sched_switch: prev_comm=a prev_pid=1 ==> next_comm=b\n\t 1234 __schedule+0x1 ([kernel.kallsyms])\n\n' >"$T_TMP/tp.synthetic.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/tp.synthetic.txt"
grep -qx 'perf;__schedule 1' "$T_TMP/out"; ok $? "tracepoint with arguments after the event: sample kept"
printf 'go 5/5 1.000: 1 probe_x:runtime:newobject:\n\t 1234 runtime.newobject+0x1 (/bin/x)\n\ngo 5/5 2.000: 1 probe_x:runtime:newobject:\n\t 1234 main.f (/bin/x)\n\n' >"$T_TMP/uprobe.synthetic.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/uprobe.synthetic.txt"
ok $(( $(grep -c . "$T_TMP/out") != 2 )) "uprobe event name with ':' is one event, both samples kept"
printf 'app\t77/78\t1.000:\t1 cpu-clock:\n\t 1234 jitted_fn ([JIT app cache])\n\n' >"$T_TMP/simpleperf.synthetic.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$FOLD" "$T_TMP/simpleperf.synthetic.txt"
grep -qx 'app;jitted_fn 1' "$T_TMP/out"; ok $? "TAB-separated header and a dso with spaces"
# ---- the output is in LC_ALL=C sort order of the whole line, as the perl
# script's is: prefixes, "a b" / "a:c" / "a;a" / "ab" and UTF-8 (synthetic stacks)
python3 - >"$T_TMP/sort-synthetic.txt" <<'EOF'
stacks = [["main", "ab"], ["main", "a"], ["main", "a", "b"], ["main", "a;c"], ["main", "\u00e9t\u00e9"],
          ["main", "a", "a"], ["mai", "n"], ["main"], ["main", "a b"], ["main", "a", "b", "c"]]
for i, s in enumerate(stacks * 2):
    print(f"prog 1{i} [000] {i}.000: 1 cpu-clock:")
    for fr in reversed(s):
        print(f"\t    400{i:03x} {fr}+0x1 (/bin/prog)")
    print()
EOF
"$TD_BIN/td-fold" "$T_TMP/sort-synthetic.txt" >"$T_TMP/sort.out" 2>"$T_TMP/sort.err"
LC_ALL=C sort -c "$T_TMP/sort.out" && [ "$(wc -l <"$T_TMP/sort.out")" -eq 10 ] && ! grep -qv ' 2$' "$T_TMP/sort.out"
ok $? "output in byte order of the whole stack text (prefixes, blanks, ':', ';', UTF-8), 10 stacks of 2"

done_testing
