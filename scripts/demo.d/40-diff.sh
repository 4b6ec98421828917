#!/bin/sh
# td-diff on A/B pairs recorded for this project (gzip -1 vs gzip -9).
D=testdata/diff
echo "== td-diff: perf stat -r 5 of gzip -1 (base) vs gzip -9 (cand); exit 1 means regression"
"$BIN/td-diff" "$D/local-kvm_gzip-1_stat-r5.csv" "$D/local-kvm_gzip-9_stat-r5.csv"
echo "(exit status $?)"
echo
echo "== td-diff --folded --top 4: what moved between gzip -1 and gzip -9"
"$BIN/td-diff" --folded --top 4 "$D/local-kvm_gzip-1_cpu-clock-g.folded" "$D/local-kvm_gzip-9_cpu-clock-g.folded"
exit 0
