#!/bin/sh
# td-mcp: the bundled histories and toplev outputs kept in a temporary store,
# then three questions an assistant asks, sent as MCP tools/call messages on
# stdio; the text of each answer is printed as the assistant would read it.
dir=$(mktemp -d /tmp/td-demo-mcp.XXXXXX)
db=$dir/runs.db
H=testdata/store
"$BIN/td-store" add --db "$db" --label bench=awk --label build=release $H/*_nochange_run*.csv >/dev/null 2>&1
"$BIN/td-store" add --db "$db" --label bench=awk --label build=debug $H/*_cost2x_run*.csv >/dev/null 2>&1
for f in testdata/toplev/pmu-tools-370_*global.txt testdata/toplev/pmu-tools-516_*.txt testdata/toplev/perf-ninja-116_*.txt; do
	"$BIN/td-store" add --db "$db" --label bench=toplev --label machine="$(basename "$f" | cut -d_ -f2)" "$f" >/dev/null 2>&1
done
echo "== td-mcp: three questions over MCP (stdio), on the bundled captures"
call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3"
}
{
	printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}'
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	call 1 query_bottlenecks '{"labels":"bench=toplev","top":4}'
	call 2 query_by_node '{"node":"Backend_Bound","min_pct":30}'
	call 3 compare_by_labels '{"label_a":"build=release","label_b":"build=debug"}'
} | "$BIN/td-mcp" --db "$db" >"$dir/answers.jsonl"
if command -v python3 >/dev/null; then
	python3 -c '
import json, sys
asked = {1: "What are the top bottlenecks of the toplev runs?", 2: "Which runs are backend-bound above 30 %?",
         3: "Compare release and debug."}
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("id") in asked:
        print("> " + asked[m["id"]])
        text = m["result"]["content"][0]["text"]
        print("\n".join(text.splitlines()[:14]))
        print()' "$dir/answers.jsonl"
else
	cat "$dir/answers.jsonl"
fi
rm -rf "$dir"
exit 0
