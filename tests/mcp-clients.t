#!/usr/bin/env bash
# td-mcp under the official MCP clients from npm: @modelcontextprotocol/inspector-cli
# over stdio (tools/list, then tools/call on every tool) and
# @modelcontextprotocol/conformance against the Streamable HTTP transport (the
# scenarios that test what td-mcp offers; the others test reference tools td-mcp
# does not have). The packages are installed once under $TD_NPM_DIR (default
# ~/.cache/tdkit/npm; .ci/run fills it); without npm or the network the tests skip.
. "$(dirname "$0")/lib.sh"
NPM_DIR=${TD_NPM_DIR:-$HOME/.cache/tdkit/npm}
MCP=$TD_BIN/td-mcp
DB=$T_TMP/runs.db

if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
	skip "node and npm not installed (Debian: apt-get install nodejs npm)"
	done_testing
	exit
fi
mkdir -p "$NPM_DIR"
if [ ! -x "$NPM_DIR/node_modules/.bin/conformance" ] || [ ! -x "$NPM_DIR/node_modules/.bin/mcp-inspector-cli" ]; then
	timeout 300 npm install --no-audit --no-fund --prefix "$NPM_DIR" @modelcontextprotocol/inspector-cli \
		@modelcontextprotocol/conformance >"$T_TMP/npm.log" 2>&1
fi
if [ ! -x "$NPM_DIR/node_modules/.bin/mcp-inspector-cli" ]; then
	skip "npm could not install the MCP clients: $(tail -n 1 "$T_TMP/npm.log" 2>/dev/null)"
	done_testing
	exit
fi

# conformance needs Node 22 or newer (fs.globSync), inspector-cli's commander
# Node 20: this machine's node is used when it is 22 or newer, else node@22
# from npm under the same prefix (Debian 12's own nodejs is 18)
NODE=node
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
	if [ ! -x "$NPM_DIR/node22/node_modules/.bin/node" ]; then
		timeout 300 npm install --no-audit --no-fund --prefix "$NPM_DIR/node22" node@22 >"$T_TMP/npm22.log" 2>&1
	fi
	NODE=$NPM_DIR/node22/node_modules/.bin/node
fi
if ! "$NODE" --version >/dev/null 2>&1; then
	skip "the MCP clients need Node 22 or newer; node@22 from npm did not install: $(tail -n 1 "$T_TMP/npm22.log")"
	done_testing
	exit
fi
# the store: the two awk histories and the toplev outputs, as in mcp.t
H=$TD_ROOT/testdata/store
"$TD_BIN/td-store" add --db "$DB" --label build=release "$H"/*_nochange_run0*.csv >/dev/null 2>&1
"$TD_BIN/td-store" add --db "$DB" --label build=debug "$H"/*_cost2x_run*.csv >/dev/null 2>&1
"$TD_BIN/td-store" add --db "$DB" --label bench=toplev "$TD_ROOT"/testdata/toplev/pmu-tools-516_*.txt >/dev/null 2>&1
run=$("$TD_BIN/td-store" list --db "$DB" --label bench=toplev --csv | sed -n 2p | cut -d, -f1)
rel=$("$TD_BIN/td-store" list --db "$DB" --label build=release --csv | sed -n 2p | cut -d, -f1)
dbg=$("$TD_BIN/td-store" list --db "$DB" --label build=debug --csv | sed -n 2p | cut -d, -f1)

# inspector-cli 1.0.3 finds its own package.json relative to the working
# directory (it checks ../package.json, then imports it relative to itself):
# it is run from a folder under the npm prefix, whose package.json is there
mkdir -p "$NPM_DIR/run"
inspector() {
	(cd "$NPM_DIR/run" && timeout 60 "$NODE" ../node_modules/@modelcontextprotocol/inspector-cli/build/index.js \
		"$MCP" --db "$DB" --allow-dir "$TD_ROOT/testdata" "$@")
}
inspector --method tools/list >"$T_TMP/list.json" 2>"$T_TMP/err"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tools"]))' "$T_TMP/list.json" 2>/dev/null)
ok $(( n != 11 )) "inspector-cli tools/list over stdio: 11 tools (got ${n:-none}: $(head -c 200 "$T_TMP/err"))"

FOLDED=$TD_ROOT/testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.collapsed.txt
STAT=$(cat "$TD_ROOT/testdata/stat/local-kvm_swevents_csv.csv")
calls=(
	"list_runs|--tool-arg labels=build=debug --tool-arg limit=3|runs"
	"get_run|--tool-arg id=$run|funnel"
	"query_bottlenecks|--tool-arg labels=bench=toplev --tool-arg top=3|nodes"
	"query_by_node|--tool-arg node=backend_bound --tool-arg min_pct=30|runs"
	"compare_runs|--tool-arg run_a=$rel --tool-arg run_b=$dbg|comparison"
	"compare_by_labels|--tool-arg label_a=build=release --tool-arg label_b=build=debug|comparison"
	"trend|--tool-arg metric=task-clock --tool-arg labels=build=release|points"
	"explain_node|--tool-arg node=DRAM_Bound --tool-arg vendor=intel|measures"
	"fold_top|--tool-arg path=$FOLDED --tool-arg top=3|self"
	"branches_top|--tool-arg path=$FOLDED|-"
)
for c in "${calls[@]}"; do
	IFS='|' read -r tool args key <<<"$c"
	# shellcheck disable=SC2086
	inspector --method tools/call --tool-name "$tool" $args >"$T_TMP/call.json" 2>"$T_TMP/err"
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
key = sys.argv[2]
if key == "-":       # a folded file is no branch input: a tool error, said clearly
    assert r.get("isError") is True, r
else:
    assert not r.get("isError"), r
    assert key in r["structuredContent"], r
    assert r["content"][0]["text"]' "$T_TMP/call.json" "$key" 2>"$T_TMP/why"
	ok $? "inspector-cli tools/call $tool ($(head -c 120 "$T_TMP/why")$(head -c 120 "$T_TMP/err"))"
done
inspector --method tools/call --tool-name derive --tool-arg "text=$STAT" >"$T_TMP/call.json" 2>"$T_TMP/err"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["structuredContent"]["runs"][0]["metrics"], r' "$T_TMP/call.json" 2>"$T_TMP/why"
ok $? "inspector-cli tools/call derive on a perf stat capture ($(head -c 120 "$T_TMP/why"))"
inspector --method resources/read --uri tdkit://methodology >"$T_TMP/res.json" 2>"$T_TMP/err"
grep -q "bottleneck path" "$T_TMP/res.json"; ok $? "inspector-cli resources/read tdkit://methodology"

"$MCP" --new-token "$T_TMP/token"
"$MCP" --db "$DB" --http 127.0.0.1:0 --token-file "$T_TMP/token" 2>"$T_TMP/srv.log" &
srv=$!
for _ in $(seq 50); do grep -q listening "$T_TMP/srv.log" && break; sleep 0.1; done
port=$(sed -n 's/.*:\([0-9]*\)\/mcp$/\1/p' "$T_TMP/srv.log" | head -1)
python3 "$TD_ROOT/tests/mcp-auth-proxy.py" 0 "$port" "$T_TMP/token" >"$T_TMP/proxy.port" 2>/dev/null &
proxy=$!
trap 'kill $srv $proxy 2>/dev/null; rm -rf "$T_TMP"' EXIT
for _ in $(seq 50); do [ -s "$T_TMP/proxy.port" ] && break; sleep 0.1; done
pport=$(head -1 "$T_TMP/proxy.port")
for s in server-initialize ping tools-list resources-list dns-rebinding-protection; do
	(cd "$NPM_DIR/run" && timeout 120 "$NODE" ../node_modules/@modelcontextprotocol/conformance/dist/index.js server \
		--url "http://127.0.0.1:$pport/mcp" --scenario "$s") >"$T_TMP/conf.log" 2>&1
	rc=$?
	grep -q "0 failed" "$T_TMP/conf.log"
	ok $(( rc != 0 || $? != 0 )) "conformance $s over Streamable HTTP: $(grep -o 'Passed: [0-9/]*, [0-9]* failed' "$T_TMP/conf.log")"
	[ $rc -eq 0 ] || tail -n 15 "$T_TMP/conf.log" | sed 's/^/# /'
done
done_testing
