#!/usr/bin/env bash
# td-explain has an entry of its own for every Top-down node perf 6.1 lists
# for Skylake-X, Ice Lake-X, Tiger Lake, Alder Lake (P- and E-cores) and
# Sapphire Rapids: the nodes are read from the installed perf
# (PERF_CPUID=ID perf list --details) when it knows the CPU, else from the
# listing saved in testdata/perf-list. Each entry has a path from Level 1 and
# a next step for every vendor.
. "$(dirname "$0")/lib.sh"

# nodes ID: where the listing came from, then the tma_* node names perf
# lists for ID (not tma_info_*), a line each
nodes() {
	local listing
	if command -v perf >/dev/null && PERF_CPUID=$1 perf list --details 2>/dev/null | grep -q '^  tma_'; then
		listing=$(PERF_CPUID=$1 perf list --details 2>/dev/null)
		echo "perf $(perf --version | cut -d' ' -f3)"
	elif [ -f "$TD_ROOT/testdata/perf-list/$1.txt.gz" ]; then
		listing=$(gzip -dc "$TD_ROOT/testdata/perf-list/$1.txt.gz")
		echo "testdata/perf-list (perf absent or without this CPU)"
	else
		return 1
	fi
	printf '%s\n' "$listing" | sed -n '/^Metric Groups:/,$p' | grep -oE '^  tma_[a-z0-9_]+$' | sed 's/^  //' |
		grep -v '^tma_info_' | sort -u
}

all=()
for id in GenuineIntel-6-55-4 GenuineIntel-6-6A-6 GenuineIntel-6-8C-1 GenuineIntel-6-97-2 GenuineIntel-6-8F-0; do
	if ! list=$(nodes "$id") || [ -z "$list" ]; then
		skip "$id: neither perf nor testdata/perf-list lists its nodes"
		continue
	fi
	src=$(head -1 <<<"$list")
	mapfile -t names < <(tail -n +2 <<<"$list")
	all+=("${names[@]}")
	"$TD_BIN/td-explain" --json "${names[@]}" >"$T_TMP/out" 2>"$T_TMP/err"
	python3 - "$T_TMP/out" "${names[@]}" >"$T_TMP/missing" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
found = {o["asked"] for o in a if o["explained_by"] is None and o["path"] and all(o["next"].values())
         and o["measures"] and o["causes"] and o["change"]}
print(" ".join(n for n in sys.argv[2:] if n not in found))
PY
	missing=$(cat "$T_TMP/missing")
	[ -z "$missing" ]; ok $? "$id: all ${#names[@]} tma_* nodes ($src) have an entry of their own${missing:+; missing: $missing}"
done
distinct=$(printf '%s\n' "${all[@]}" | sort -u | wc -l)
diag "$distinct distinct tma_* nodes over the five CPUs"
entries=$("$TD_BIN/td-explain" --list | wc -l)
[ "$entries" -ge 120 ]; ok $? "td-explain --list: $entries entries (at least 120)"

# a deep node's path follows perf's groups, and only Intel has a command for it
"$TD_BIN/td-explain" --json tma_load_stlb_miss >"$T_TMP/one"
python3 - "$T_TMP/one" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))[0]
assert o["node"] == "load_stlb_miss", o
assert o["path"] == "backend_bound > memory_bound > l1_bound > dtlb_load > load_stlb_miss", o["path"]
assert o["next"]["intel"].startswith("perf record -e mem_inst_retired.stlb_miss_loads"), o["next"]
assert "td-explain --vendor amd dtlb_load" in o["next"]["amd"], o["next"]
PY
ok $? "tma_load_stlb_miss: path from backend_bound (Level 1) to Level 5, an Intel command, AMD pointed at its ancestors"
done_testing
