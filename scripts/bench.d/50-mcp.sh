#!/bin/sh
# td-mcp: requests per second over stdio on a store of the bundled histories,
# for a tool answered in the server (explain_node) and for tools that run a
# store verb in a worker process (list_runs, query_bottlenecks), and the
# server's memory after them.
set -u
T_TMP=$BENCH_DIR/mcp
rm -rf "$T_TMP"
mkdir -p "$T_TMP"
echo "== td-mcp bench"
command -v python3 >/dev/null || { echo "td-mcp bench: needs python3: skipped"; exit 0; }
"$BIN/td-store" add --db "$T_TMP/runs.db" --label build=release testdata/store/*.csv >/dev/null 2>&1
python3 - "$BIN/td-mcp" "$T_TMP/runs.db" <<'PY'
import json, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "--db", sys.argv[2]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def run(name, args, n):
    t0 = time.time()
    for i in range(n):
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                   "params": {"name": name, "arguments": args}}) + "\n").encode())
        p.stdin.flush()
        json.loads(p.stdout.readline())
    s = time.time() - t0
    print("%-18s %5d requests in %.2f s = %6.0f requests/s (%.2f ms each)" % (name, n, s, n / s, 1000 * s / n))
run("explain_node", {"node": "dram_bound"}, 2000)
run("list_runs", {"limit": 10}, 200)
run("query_bottlenecks", {"top": 5}, 200)
rss = [l for l in open("/proc/%d/status" % p.pid) if l.startswith("VmRSS")][0].split()[1]
print("VmRSS after 2400 requests: %s kB" % rss)
p.stdin.close()
p.wait()
PY
