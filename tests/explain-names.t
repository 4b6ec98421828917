#!/usr/bin/env bash
# td-explain finds a node by any of its names: toplev's dotted paths (as in
# the toplev captures of testdata/toplev), Arm's metric and event names;
# --json gives the same entries as one array.
. "$(dirname "$0")/lib.sh"

# node_of NAME: the entry td-explain prints for NAME
node_of() { "$TD_BIN/td-explain" "$1" 2>/dev/null | grep -v '^.*: no entry of its own' | head -1 | cut -d' ' -f1; }

while read -r name want; do
	got=$(node_of "$name")
	[ "$got" = "$want" ]; ok $? "td-explain $name -> $want (got '$got')"
done <<'X'
Backend_Bound.Memory_Bound.DRAM_Bound dram_bound
Backend_Bound.Memory_Bound memory_bound
Frontend_Bound.Fetch_Latency fetch_latency
Backend_Bound.Core_Bound.Ports_Utilization ports_utilization
Frontend_Bound: frontend_bound
Memory_Bound^ memory_bound
Frontend_Bound.Frontend_Latency fetch_latency
backend_memory_bound memory_bound
stall_backend_mem memory_bound
backend_mem_bound memory_bound
stall_frontend frontend_bound
tma_core_bound core_bound
X

# toplev's deeper nodes (SNB-EP capture) have entries of their own
[ "$(node_of Frontend_Bound.Fetch_Latency.ITLB_Misses)" = itlb_misses ]
ok $? "toplev's Frontend_Bound.Fetch_Latency.ITLB_Misses -> itlb_misses"
# a node without an entry (a later TMA version's): said, and its nearest ancestor's entry shown
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-explain" Backend_Bound.Memory_Bound.DRAM_Bound.Future_Node
[ $RC -eq 0 ] && grep -q '^Backend_Bound.Memory_Bound.DRAM_Bound.Future_Node: no entry of its own; its nearest ancestor with one is dram_bound$' "$T_TMP/out"
ok $? "an unknown node under DRAM_Bound is explained by its ancestor dram_bound, saying so"

run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-explain" --json Backend_Bound.Memory_Bound.DRAM_Bound stall_backend_mem no_such_node
python3 - "$T_TMP/out" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
assert [o["node"] for o in a] == ["dram_bound", "memory_bound"], a
assert a[0]["asked"] == "Backend_Bound.Memory_Bound.DRAM_Bound" and a[0]["explained_by"] is None
assert set(a[1]["next"]) == {"intel", "amd", "arm"} and "stall_backend_mem" in a[1]["aliases"]
PY
ok $? "--json: one array, an object per node found, next command per vendor"
[ $RC -eq 2 ] && grep -q "no node named 'no_such_node'" "$T_TMP/err"; ok $? "--json: an unknown name is still exit 2, named on stderr"
"$TD_BIN/td-explain" --list --json | python3 -c 'import json,sys; a=json.load(sys.stdin); assert len(a) == sum(1 for _ in open(sys.argv[1])) ' <("$TD_BIN/td-explain" --list)
ok $? "--list --json lists what --list lists"
done_testing
