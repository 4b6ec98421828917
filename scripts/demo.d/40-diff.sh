#!/bin/sh
# td-diff on an A/B pair recorded for this project (gzip -1 vs gzip -9).
D=testdata/diff
echo "== td-diff --folded --top 4: what moved between gzip -1 and gzip -9"
"$BIN/td-diff" --folded --top 4 "$D/local-kvm_gzip-1_cpu-clock-g.folded" "$D/local-kvm_gzip-9_cpu-clock-g.folded"
exit 0
