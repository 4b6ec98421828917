#!/usr/bin/env python3
# td-mcp through a scripted MCP client: every method, every tool and every
# error, in both protocol eras, over stdio and Streamable HTTP, on a store
# seeded with the repository's real captures (testdata/store histories and
# the published toplev outputs in testdata/toplev). Numbers are checked
# against what td-store, td-fold and td-explain print for the same data.
import glob, http.client, json, os, re, shutil, stat, subprocess, sys, tempfile, time

ROOT = os.environ.get("TD_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("TD_BIN") or os.path.join(ROOT, "bin")
SHARED = os.environ.get("TD_SHARED") or os.path.join(ROOT, "..", "shared")
SANITIZED = os.environ.get("TD_SANITIZED", "") not in ("", "0")
MCP, STORE = os.path.join(BIN, "td-mcp"), os.path.join(BIN, "td-store")
TMP = tempfile.mkdtemp(prefix="td-mcp-test.")
DB = os.path.join(TMP, "runs.db")
MODERN = "2026-07-28"
n_tests = failed = 0


def ok(cond, name, why=""):
    global n_tests, failed
    n_tests += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n_tests, name))
    if not cond:
        failed += 1
        for line in str(why).splitlines()[:20]:
            print("# " + line)
    sys.stdout.flush()
    return cond


def skip(why):
    global n_tests
    n_tests += 1
    print("ok %d # skip %s" % (n_tests, why))


def diag(s):
    print("# " + s)


def store(*args):
    return subprocess.run([STORE, args[0], "--db", DB] + list(args[1:]), capture_output=True, text=True)


# ---- the store: real histories and real toplev outputs ----
H = os.path.join(ROOT, "testdata", "store")
ids = {}
for label, pattern in (("build=release", "*_nochange_run*.csv"), ("build=debug", "*_cost2x_run*.csv"),
                       ("h=step", "*_step_run*.csv")):
    r = store("add", "--label", "bench=awk", "--label", label, *sorted(glob.glob(os.path.join(H, pattern))))
    ids[label] = r.stdout.split()
toplev = {}
for name in ("pmu-tools-370_skx-gold6140_toplev4.1_l1-v-no-desc-global.txt",
             "pmu-tools-516_skx-i9-7980XE_toplev5.01_all-l2-C0-no-mux.txt",
             "perf-ninja-116_bdx-e5-2680v4_toplev5.01_l1-core-S0-C0-v-no-desc.txt"):
    r = store("add", "--label", "bench=toplev", "--label", "src=" + name.split("_")[0],
              os.path.join(ROOT, "testdata", "toplev", name))
    toplev[name.split("_")[0]] = r.stdout.split()[0]
ok(len(ids["build=release"]) == 30 and len(ids["build=debug"]) == 8 and len(toplev) == 3,
   "store seeded: 30 + 8 + 30 runs of awk histories, 3 toplev outputs")


class Stdio:
    """A client over stdio: one line per message, stdout must hold only messages."""

    def __init__(self, *extra, exe=MCP):
        self.p = subprocess.Popen([exe, "--db", DB] + list(extra), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.next_id = 0
        self.junk = []

    def send(self, obj):
        data = obj if isinstance(obj, (bytes, bytearray)) else json.dumps(obj).encode()
        self.p.stdin.write(data + b"\n")
        self.p.stdin.flush()

    def read(self):
        line = self.p.stdout.readline()
        try:
            return json.loads(line)
        except ValueError:
            self.junk.append(line)
            return None

    def request(self, method, params=None, meta=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None or meta is not None:
            msg["params"] = dict(params or {})
            if meta is not None:
                msg["params"]["_meta"] = meta
        self.send(msg)
        return self.read()

    def call(self, tool, meta=None, **args):
        r = self.request("tools/call", {"name": tool, "arguments": args}, meta)
        return r.get("result") if r else None

    def rss_kb(self):
        for line in open("/proc/%d/status" % self.p.pid):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(timeout=30)
        return rc, self.p.stderr.read().decode(errors="replace")


def modern_meta(version=MODERN, caps=True):
    m = {"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientInfo": {"name": "tap", "version": "1"}}
    if caps:
        m["io.modelcontextprotocol/clientCapabilities"] = {}
    return m


def text(result):
    return "".join(c.get("text", "") for c in (result or {}).get("content", []))


def structured(result):
    return (result or {}).get("structuredContent") or {}


# ---- legacy lifecycle ----
c = Stdio("--allow-dir", os.path.join(ROOT, "testdata"))
for asked, want in (("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"), ("1999-01-01", "2025-11-25")):
    r = c.request("initialize", {"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "tap", "version": "1"}})
    res = r.get("result", {})
    ok(res.get("protocolVersion") == want and res.get("serverInfo", {}).get("name") == "td-mcp"
       and "tools" in res.get("capabilities", {}) and "resources" in res.get("capabilities", {}),
       "initialize %s: negotiated %s, capabilities tools and resources" % (asked, want), r)
c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
r = c.request("ping")
ok(r == {"jsonrpc": "2.0", "id": c.next_id, "result": {}}, "ping answers {} (and notifications/initialized got no reply)", r)
r = c.request("initialize", {})
ok(r["error"]["code"] == -32602, "initialize without protocolVersion: -32602", r)

# ---- tools/list ----
r = c.request("tools/list")
tools = {t["name"]: t for t in r["result"]["tools"]}
want_tools = ["list_runs", "get_run", "query_bottlenecks", "query_by_node", "compare_runs", "compare_by_labels", "trend",
              "explain_node", "derive", "fold_top", "branches_top"]
ok(sorted(tools) == sorted(want_tools), "tools/list: the 11 tools, collect absent without --allow-collect", sorted(tools))
ok(all(t["inputSchema"].get("type") == "object" and "properties" in t["inputSchema"] for t in tools.values()),
   "every tool has an object inputSchema")
ok(all("outputSchema" in t for t in tools.values()), "every structured tool has an outputSchema")
ok(tools["query_by_node"]["inputSchema"]["required"] == ["node"] and "min_pct" in tools["query_by_node"]["inputSchema"]["properties"]
   and "labels" in tools["query_by_node"]["inputSchema"]["properties"], "query_by_node takes node, min_pct, labels")

# ---- each tool, against the command-line tools' own answers ----
res = c.call("list_runs", labels="build=debug", limit=100)
cli = json.loads(store("list", "--json", "--label", "build=debug").stdout)
ok(not res["isError"] and [x["id"] for x in structured(res)["runs"]] == [x["id"] for x in cli] and len(cli) == 8,
   "list_runs labels=build=debug: the 8 runs td-store list gives, same order", res)
res = c.call("list_runs", limit="2")
ok(len(structured(res).get("runs", [])) == 2, "list_runs limit given as text \"2\" (a command-line client): 2 runs")

r516 = toplev["pmu-tools-516"]
res = c.call("get_run", id=r516, counters=True)
s = structured(res)
funnel = {f["node"]: f for f in s.get("funnel", [])}
ok(funnel.get("retiring", {}).get("value_pct") == 39.7 and funnel["retiring"]["kind"] == "useful"
   and funnel.get("backend_bound", {}).get("kind") == "waste" and "heavy_operations" in funnel,
   "get_run (toplev 5.01 on an i9-7980XE): funnel retiring 39.7 % useful, backend_bound waste, Level 2 rows", s.get("funnel"))
m = {x["metric"]: x for x in s.get("metrics", [])}
ok(m.get("backend_bound", {}).get("value") == 33.5 and m["backend_bound"].get("bottleneck") == "yes",
   "get_run: backend_bound 33.5 % on the bottleneck path, as toplev printed it")
ok(isinstance(s.get("counters"), list) and isinstance(s.get("tree"), str), "get_run: counters and tree when asked")
res = c.call("get_run", id="20000101-000000-000000")
ok(res["isError"] and "no such run" in text(res), "get_run of an unknown id: isError, 'no such run'", res)

res = c.call("query_bottlenecks", labels="bench=toplev", top=3)
cli = json.loads(store("query", "--bottlenecks", "--json", "--top", "3", "--label", "bench=toplev").stdout)
ok(structured(res).get("nodes") == cli and cli[0]["node"] == "retiring" and cli[0]["mean_pct"] == 36.8,
   "query_bottlenecks bench=toplev: td-store's ranking, retiring first at 36.8 %", res)

res = c.call("query_by_node", node="Backend_Bound", min_pct=30, labels="bench=toplev")
runs = structured(res).get("runs", [])
ok([(x["id"], x["value"]) for x in runs] == [(toplev["pmu-tools-370"], 53.8), (toplev["pmu-tools-516"], 33.5)]
   and structured(res).get("node") == "backend_bound",
   "query_by_node Backend_Bound >= 30 %: the Gold 6140 run (53.8) and the i9 run (33.5), toplev's name read", runs)
res = c.call("query_by_node", node="not_a_node")
ok(res["isError"] and "no Top-down node" in text(res), "query_by_node of an unknown node: isError", res)

a, b = ids["build=release"][0], ids["build=debug"][0]
res = c.call("compare_runs", run_a=a, run_b=b)
rc = store("compare", a, b).returncode
ok(structured(res).get("regression") == (rc == 1) and "task-clock" in text(res), "compare_runs: regression %s as td-store compare's exit %d" % (rc == 1, rc), res)

res = c.call("compare_by_labels", label_a="build=release", label_b="build=debug")
rows = {x["name"]: x for x in structured(res).get("comparison", {}).get("rows", [])}
ok(structured(res).get("regression") is True and rows.get("task-clock", {}).get("verdict") == "regression"
   and abs(rows["task-clock"]["delta_pct"] - 139.5) < 0.01,
   "compare_by_labels release vs debug: task-clock +139.50 %, a regression (30 vs 8 runs)", rows.get("task-clock"))

res = c.call("trend", metric="page-faults", labels="h=step")
s = structured(res)
ok(len(s.get("points", [])) == 30 and len(s.get("changes", [])) == 1 and s["changes"][0]["id"] == ids["h=step"][20]
   and s.get("flagged") is False,
   "trend page-faults over the step history: 30 points, one step at run 21, not flagged (10 runs old)", s.get("changes"))
res = c.call("trend", metric="page-faults", labels="h=nothing")
ok(res["isError"] and "needs at least" in text(res), "trend with too few runs: isError with td-store's reason", res)

res = c.call("explain_node", node="DRAM_Bound", vendor="intel")
cli = json.loads(subprocess.run([os.path.join(BIN, "td-explain"), "--json", "dram_bound"], capture_output=True, text=True).stdout)
cli = cli[0] if isinstance(cli, list) else cli
s = structured(res)
ok(s.get("node") == "dram_bound" and s.get("measures") == cli.get("measures") and list(s.get("next", {})) == ["intel"],
   "explain_node DRAM_Bound (intel): td-explain's entry, only Intel's next command", s)
res = c.call("explain_node", node="Backend_Bound.Memory_Bound.DRAM_Bound")
ok(structured(res).get("node") == "dram_bound", "explain_node takes toplev's dotted path")

capture = os.path.join(ROOT, "testdata", "stat", "local-kvm_swevents_csv.csv")
res = c.call("derive", text=open(capture).read())
s = structured(res)
cli = json.loads(store("list", "--json", "--limit", "1").stdout) if False else None
store("add", "--label", "derive=check", capture)
stored = json.loads(store("list", "--json", "--label", "derive=check").stdout)
ok(len(s.get("runs", [])) == 1 and s["runs"][0]["summary"] == stored[0]["summary"] and s["runs"][0]["metrics"],
   "derive (perf stat -x, on this machine): the summary td-store keeps for the same capture (%s)" % stored[0]["summary"], s)
res = c.call("derive", text="hello\nworld\n")
ok(res["isError"], "derive of text that is no perf stat output: isError", text(res))

folded = os.path.join(ROOT, "testdata", "fold", "local-kvm_cpu-clock-g_gzip-perl_perf6.1.collapsed.txt")
res = c.call("fold_top", path=folded, top=5)
s = structured(res)
total, selfc = 0, {}
for line in open(folded):
    stack, _, n = line.rstrip("\n").rpartition(" ")
    total += int(n)
    leaf = stack.split(";")[-1]
    selfc[leaf] = selfc.get(leaf, 0) + int(n)
best = sorted(selfc.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
ok(s.get("samples") == total and [(x["function"], x["count"]) for x in s.get("self", [])] == best,
   "fold_top on a folded file: %d samples, the 5 leaf functions with most samples (%s %d)" % (total, best[0][0], best[0][1]), s.get("self"))
pdata = os.path.join(ROOT, "testdata", "fold", "local-kvm_cpu-clock-g_gzip-perl_perf6.1.perf.data")
res = c.call("fold_top", path=pdata)
fold_out = subprocess.run([os.path.join(BIN, "td-fold"), pdata], capture_output=True, text=True).stdout
want = sum(int(l.rpartition(" ")[2]) for l in fold_out.splitlines() if l)
ok(structured(res).get("samples") == want and want > 0, "fold_top on perf.data: td-fold's %d samples" % want, text(res)[:300])
res = c.call("fold_top", path="/etc/passwd")
ok(res["isError"] and "outside" in text(res), "fold_top outside --allow-dir: refused", text(res))
res = c.call("fold_top", path=os.path.join(ROOT, "testdata", "..", "..", "etc", "passwd"))
ok(res["isError"], "fold_top with ../ out of the allowed directory: refused", text(res))
empty = os.path.join(TMP, "allowed", "empty.folded")
os.makedirs(os.path.dirname(empty))
open(empty, "w").close()
c3 = Stdio("--allow-dir", os.path.dirname(empty))
res = c3.call("fold_top", path=empty)
s = structured(res)
ok(res and not res["isError"] and s.get("samples") == 0 and s.get("self") == [] and s.get("stacks") == [],
   "fold_top on an empty file: 0 samples and no rows (nothing sorted: clean under UBSan)", text(res))
c3.close()

brs = glob.glob(os.path.join(SHARED, "testdata", "brstack", "amd-zen4_lbrv2_rc4.brstack.txt"))
if brs:
    c2 = Stdio("--allow-dir", os.path.join(SHARED, "testdata"))
    res = c2.call("branches_top", path=brs[0], top=3)
    cli = json.loads(subprocess.run([os.path.join(BIN, "td-branches"), "--json", "--top", "3", brs[0]], capture_output=True, text=True).stdout)
    ok(structured(res) == cli and cli["rows"], "branches_top (AMD Zen 4 LbrExtV2): td-branches' ranking and totals", text(res))
    c2.close()
else:
    skip("branches_top: ../shared/testdata/brstack not present")
wsm = os.path.join(SHARED, "testdata", "perfdata", "intel-westmere-x5660_lbr_br_inst_exec_perf3.3.perf.data")
if os.path.exists(wsm):
    c2 = Stdio("--allow-dir", os.path.join(SHARED, "testdata"))
    res = c2.call("branches_top", path=wsm, top=3, by="symbol")
    cli = json.loads(subprocess.run([os.path.join(BIN, "td-branches"), "--json", "--top", "3", "--by", "symbol", wsm],
                                    capture_output=True, text=True).stdout)
    ok(res and not res["isError"] and structured(res) == cli and cli["rows"],
       "branches_top by=symbol (Westmere perf.data): td-branches --by symbol's ranking", text(res))
    c2.close()
else:
    skip("branches_top by=symbol: the Westmere perf.data is not present")
res = c.call("branches_top", path=folded, by="nowhere")
ok(res["isError"] and "must be one of" in text(res), "branches_top by=nowhere: isError naming the choices", text(res))

# ---- argument errors: tool execution errors (isError), per 2025-11-25 ----
for args, what in (({"id": 5}, "a number for a string"), ({}, "a required argument missing"),
                   ({"id": "x", "colour": "red"}, "an unknown argument"), ({"id": "../../etc"}, "an id of the wrong form")):
    res = c.call("get_run", **args)
    ok(res and res["isError"], "get_run with %s: isError (%s)" % (what, text(res)[:80]))
res = c.call("list_runs", limit=0)
ok(res["isError"] and "between 1 and 1000" in text(res), "list_runs limit=0: out of range", text(res))

# ---- protocol errors ----
r = c.request("tools/call", {"name": "no_such_tool", "arguments": {}})
ok(r["error"]["code"] == -32602 and "Unknown tool" in r["error"]["message"], "unknown tool: -32602", r)
r = c.request("tools/call", {"name": "collect", "arguments": {"process": "x"}})
ok(r["error"]["code"] == -32602 and "--allow-collect" in r["error"]["message"], "collect without --allow-collect: -32602, says why", r)
r = c.request("no/such/method")
ok(r["error"]["code"] == -32601, "unknown method: -32601", r)
for raw, code, what in ((b"{not json", -32700, "parse error"), (b'{"jsonrpc":"1.0","id":1,"method":"ping"}', -32600, "jsonrpc 1.0"),
                        (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600, "a batch"),
                        (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, "a fractional id"),
                        (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}', -32600, "params an array"),
                        (b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', -32700, "a duplicated key"),
                        (b'\x00\xff\xfe binary', -32700, "binary bytes"), (b'"just a string"', -32600, "not an object")):
    c.send(raw)
    r = c.read()
    ok(r and r.get("error", {}).get("code") == code and r.get("id") in (None, 1), "%s: %d, and the server goes on" % (what, code), r)
c.send(b'{"jsonrpc":"2.0","id":77,"method":"ping"}\r')
r = c.read()
ok(r and r.get("id") == 77, "a CRLF-terminated message is read", r)
c.send(b"")
c.send(b"   ")
r = c.request("ping")
ok(r and r.get("id") == c.next_id, "blank lines are no messages")

# ---- resources ----
r = c.request("resources/list")
uris = [x["uri"] for x in r["result"]["resources"]]
ok("tdkit://nodes" in uris and "tdkit://methodology" in uris and "tdkit://runs/%s/tree" % r516 in uris,
   "resources/list: nodes, methodology and the runs' trees", uris[:4])
r = c.request("resources/templates/list")
ok(r["result"]["resourceTemplates"][0]["uriTemplate"] == "tdkit://runs/{id}/tree", "resources/templates/list: tdkit://runs/{id}/tree")
r = c.request("resources/read", {"uri": "tdkit://nodes"})
nodes = json.loads(r["result"]["contents"][0]["text"])
listed = subprocess.run([os.path.join(BIN, "td-explain"), "--list"], capture_output=True, text=True).stdout
ok(len(nodes) >= 10 and all(n["node"] in listed for n in nodes), "resources/read tdkit://nodes: %d nodes, each one td-explain lists" % len(nodes))
r = c.request("resources/read", {"uri": "tdkit://methodology"})
ok("bottleneck path" in r["result"]["contents"][0]["text"], "resources/read tdkit://methodology")
r = c.request("resources/read", {"uri": "tdkit://runs/%s/tree" % r516})
tree = store("show", "--tree", r516).stdout
ok(r["result"]["contents"][0]["text"] == tree, "resources/read a run's tree: td-store show --tree's text")
r = c.request("resources/read", {"uri": "tdkit://runs/20000101-000000-000000/tree"})
ok(r["error"]["code"] == -32002, "resources/read of an unknown run (legacy): -32002", r)
r = c.request("resources/read", {"uri": "tdkit://runs/20000101-000000-000000/tree"}, modern_meta())
ok(r["error"]["code"] == -32602, "resources/read of an unknown run (2026-07-28): -32602", r)
for bad in ("a b", "x" * 65, "r/1", "r\u00e9"):
    r = c.request("resources/read", {"uri": "tdkit://runs/%s/tree" % bad})
    ok("not a run id" in r["error"]["message"], "resources/read with a malformed run id %r: not a run id" % bad[:8], r)
for good in ("x" * 64, "a.b:c-d_0"):
    r = c.request("resources/read", {"uri": "tdkit://runs/%s/tree" % good})
    ok("no such run" in r["error"]["message"], "resources/read with a well-formed unknown id %r: no such run" % good[:8], r)

# ---- the 2026-07-28 revision: no handshake, _meta on every request ----
m = Stdio()
r = m.request("server/discover", None, modern_meta())
res = r.get("result", {})
ok(res.get("supportedVersions") == [MODERN, "2025-11-25", "2025-06-18"] and res.get("resultType") == "complete"
   and res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "td-mcp" and "ttlMs" in res and res.get("cacheScope"),
   "server/discover (first message, no initialize): versions, resultType, serverInfo, ttlMs, cacheScope", r)
r = m.request("tools/list", None, modern_meta())
ok(r["result"].get("resultType") == "complete" and r["result"].get("ttlMs") is not None and len(r["result"]["tools"]) == 11,
   "tools/list (2026-07-28): resultType, ttlMs, cacheScope", r["result"].keys())
res = m.call("explain_node", modern_meta(), node="frontend_bound")
ok(res.get("resultType") == "complete" and structured(res).get("node") == "frontend_bound", "tools/call (2026-07-28)")
r = m.request("tools/list", None, modern_meta("1900-01-01"))
ok(r["error"]["code"] == -32022 and r["error"]["data"]["supported"][0] == MODERN and r["error"]["data"]["requested"] == "1900-01-01",
   "an unsupported version in _meta: -32022 with the supported list", r)
r = m.request("tools/list", None, modern_meta(caps=False))
ok(r["error"]["code"] == -32602, "_meta without clientCapabilities: -32602", r)
r = m.request("ping", None, modern_meta())
ok(r["error"]["code"] == -32601, "ping is not part of 2026-07-28: -32601", r)
rc, err = m.close()
ok(rc == 0 and not m.junk, "stdio: exit 0 at the end of input; nothing but messages on stdout", m.junk[:3])

# ---- cancellation, and collect exec'd without a shell ----
fake = os.path.join(TMP, "bin")
os.makedirs(fake)
shutil.copy(MCP, fake)
argv_file = os.path.join(TMP, "collect.argv")
with open(os.path.join(fake, "td-collect"), "w") as f:
    f.write("#!/bin/sh\nprintf '%%s\\n' \"$@\" \"TD_DB=$TD_DB\" > %s\necho \"$$\" > %s.pid\nexec sleep 30\n" % (argv_file, argv_file))
os.chmod(os.path.join(fake, "td-collect"), 0o755)
k = Stdio("--allow-collect", exe=os.path.join(fake, "td-mcp"))
r = k.request("tools/list")
ok("collect" in [t["name"] for t in r["result"]["tools"]], "tools/list with --allow-collect: collect listed")
for args, what in (({"process": "x; rm -rf /"}, "a shell command as process"), ({"process": "-a"}, "an option as process"),
                   ({"process": "x", "duration": "9999m"}, "a duration over an hour"), ({}, "no target"),
                   ({"process": "x", "pid": 3}, "two targets"), ({"process": "x", "labels": "k=v,=x"}, "a bad label")):
    res = k.call("collect", **args)
    ok(res["isError"] and not os.path.exists(argv_file), "collect with %s: isError, nothing run (%s)" % (what, text(res)[:70]))
t0 = time.time()
k.send({"jsonrpc": "2.0", "id": "slow", "method": "tools/call",
        "params": {"name": "collect", "arguments": {"process": "redis-server", "duration": "5s", "labels": "branch=unstable,build=release"}}})
for _ in range(250):
    if os.path.exists(argv_file + ".pid") and open(argv_file + ".pid").read().strip():
        break
    time.sleep(0.02)
k.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow", "reason": "test"}})
r = k.request("ping")
took = time.time() - t0
ok(r and r.get("id") == k.next_id and took < 10, "notifications/cancelled stops a running tool: the next answer is the ping's, after %.2f s" % took, r)
argv = open(argv_file).read().split("\n")[:-1] if os.path.exists(argv_file) else []
ok(argv == ["--duration", "5s", "--label", "branch=unstable", "--label", "build=release", "--store", "--process", "redis-server",
           "TD_DB=" + DB],
   "collect runs td-collect with exactly the checked arguments (no shell), the store in $TD_DB, not on its command line", argv)
pid = int(open(argv_file + ".pid").read().strip() or 0) if os.path.exists(argv_file + ".pid") else 0
ok(pid and not os.path.exists("/proc/%d" % pid) or open("/proc/%d/stat" % pid).read().split()[2] == "Z",
   "the cancelled td-collect is gone")
k.close()
os.remove(os.path.join(fake, "td-collect"))
k = Stdio("--allow-collect", exe=os.path.join(fake, "td-mcp"))
res = k.call("collect", process="sleep", duration="1s")
ok(res["isError"] and "not installed" in text(res), "collect with td-collect absent: isError, says where it looked", text(res))
k.close()

# ---- 1,000 requests in one session: memory stays flat ----
c3 = Stdio()
c3.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "tap", "version": "1"}})
# one request in ten runs a store verb in a worker (a fork each); the others are answered in the server itself
calls = [("explain_node", {"node": "dram_bound"})] * 4 + [("list_runs", {"limit": 5})] + [("explain_node", {"node": "retiring"})] * 4 + [("query_bottlenecks", {"top": 3})]
rss, answered = {}, 0
t0 = time.time()
for i in range(1000):
    name, args = calls[i % len(calls)]
    res = c3.call(name, **args)
    answered += bool(res and not res.get("isError"))
    if i + 1 in (100, 1000):
        rss[i + 1] = c3.rss_kb()
took = time.time() - t0
diag("1000 requests in %.1f s (%.1f ms each); VmRSS %d kB after 100, %d kB after 1000" % (took, 1000 * took / 1000, rss[100], rss[1000]))
ok(answered == 1000, "1000 requests answered in one session (%d)" % answered)
ok(SANITIZED or rss[1000] - rss[100] < 1024, "memory flat over 900 more requests: %+d kB" % (rss[1000] - rss[100]))

# ---- a 10 MB message is refused cleanly ----
before = c3.rss_kb()
c3.send(b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"derive","arguments":{"text":"' + b"x" * (10 << 20) + b'"}}}')
r = c3.read()
ok(r and r["error"]["code"] == -32600 and "longer than 4194304" in r["error"]["message"], "a 10 MB message: -32600, refused by size", r)
after = c3.rss_kb()
r = c3.request("ping")
ok(r and r.get("result") == {}, "the server goes on after it")
ok(SANITIZED or after - before < 8 * 1024, "the 10 MB message was never held whole: VmRSS %+d kB" % (after - before))
rc, err = c3.close()
ok(rc == 0 and "longer than" in err and not c3.junk, "a note on stderr, nothing but messages on stdout")

# ---- Streamable HTTP ----
tok = os.path.join(TMP, "token")
r = subprocess.run([MCP, "--new-token", tok])
mode = stat.S_IMODE(os.stat(tok).st_mode) if os.path.exists(tok) else 0
token = open(tok).read().strip() if os.path.exists(tok) else ""
ok(r.returncode == 0 and mode == 0o600 and re.fullmatch(r"[0-9a-f]{64}", token), "--new-token: 64 hex characters, mode 0600")
r = subprocess.run([MCP, "--new-token", tok], capture_output=True, text=True)
ok(r.returncode == 2 and "never overwritten" in r.stderr, "--new-token never overwrites a token", r.stderr)
r = subprocess.run([MCP, "--http", "0.0.0.0:0", "--token-file", tok], capture_output=True, text=True, timeout=10)
ok(r.returncode == 2 and "--allow-remote" in r.stderr, "--http 0.0.0.0 without --allow-remote: refused, exit 2", r.stderr)
r = subprocess.run([MCP, "--http", "127.0.0.1:0"], capture_output=True, text=True, timeout=10)
ok(r.returncode == 2 and "--token-file" in r.stderr, "--http without a token file: exit 2", r.stderr)

srv = subprocess.Popen([MCP, "--db", DB, "--http", "127.0.0.1:0", "--token-file", tok], stderr=subprocess.PIPE, text=True)
try:
    line = srv.stderr.readline()
    port = int(re.search(r":(\d+)/mcp", line).group(1))

    def post(body, headers=None, path="/mcp", method="POST", auth=True):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if auth:
            h["Authorization"] = "Bearer " + token
        h.update(headers or {})
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        conn.request(method, path, data, h)
        resp = conn.getresponse()
        raw = resp.read()
        conn.close()
        return resp.status, dict((k.lower(), v) for k, v in resp.getheaders()), raw

    req = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_runs", "arguments": {"limit": 3}}}
    st, hd, raw = post(req, auth=False)
    ok(st == 401 and hd.get("www-authenticate", "").startswith("Bearer") and b"runs" not in raw and len(raw) == 0,
       "HTTP without a token: 401, WWW-Authenticate, no data", (st, hd, raw[:100]))
    st, hd, raw = post(req, {"Authorization": "Bearer " + "0" * 64}, auth=False)
    ok(st == 401 and hd.get("www-authenticate") and len(raw) == 0, "HTTP with a wrong token: 401, no data", (st, raw[:100]))
    st, hd, raw = post(req, {"Authorization": "Bearer " + token[:-1]}, auth=False)
    ok(st == 401 and len(raw) == 0, "HTTP with the token less its last character: 401")
    st, hd, raw = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    ok(st == 200 and json.loads(raw)["result"]["protocolVersion"] == "2025-06-18" and "mcp-session-id" not in hd,
       "HTTP initialize: 200, the version, no session id minted", (st, raw[:200]))
    st, hd, raw = post({"jsonrpc": "2.0", "method": "notifications/initialized"}, {"MCP-Protocol-Version": "2025-06-18"})
    ok(st == 202 and not raw, "HTTP notification: 202, no body", st)
    st, hd, raw = post(req, {"MCP-Protocol-Version": "2025-06-18"})
    ok(st == 200 and len(json.loads(raw)["result"]["structuredContent"]["runs"]) == 3, "HTTP tools/call (legacy): 3 runs", raw[:200])
    mreq = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "explain_node", "arguments": {"node": "l3_bound"}, "_meta": modern_meta()}}
    st, hd, raw = post(mreq, {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "explain_node"})
    ok(st == 200 and json.loads(raw)["result"]["structuredContent"]["node"] == "l3_bound", "HTTP tools/call (2026-07-28) with its headers", raw[:200])
    st, hd, raw = post(mreq, {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "=?base64?ZXhwbGFpbl9ub2Rl?="})
    ok(st == 200, "Mcp-Name in its base64 form is decoded", raw[:200])
    st, hd, raw = post(mreq, {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "derive"})
    ok(st == 400 and json.loads(raw)["error"]["code"] == -32020, "Mcp-Name not the body's tool: 400, -32020", raw[:200])
    st, hd, raw = post(mreq, {"Mcp-Method": "tools/call", "Mcp-Name": "explain_node"})
    ok(st == 400 and json.loads(raw)["error"]["code"] == -32020, "no MCP-Protocol-Version on a 2026-07-28 request: 400, -32020")
    st, hd, raw = post(req, {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "list_runs"})
    ok(st == 400 and json.loads(raw)["error"]["code"] == -32020, "MCP-Protocol-Version 2026-07-28 on a request without _meta: 400, -32020")
    st, hd, raw = post(req, {"MCP-Protocol-Version": "1999-01-01"})
    ok(st == 400 and json.loads(raw)["error"]["code"] == -32600, "an unknown MCP-Protocol-Version (legacy): 400", raw[:200])
    st, hd, raw = post({"jsonrpc": "2.0", "id": 3, "method": "nope", "params": {"_meta": modern_meta()}},
                       {"MCP-Protocol-Version": MODERN, "Mcp-Method": "nope"})
    ok(st == 404 and json.loads(raw)["error"]["code"] == -32601, "HTTP unknown method (2026-07-28): 404, -32601", (st, raw))
    st, hd, raw = post(None, method="GET")
    ok(st == 405 and hd.get("allow") == "POST", "HTTP GET: 405, Allow: POST", st)
    st, hd, raw = post(req, path="/other")
    ok(st == 404, "HTTP another path: 404", st)
    st, hd, raw = post(req, {"Origin": "http://evil.example"})
    ok(st == 403, "HTTP with a foreign Origin: 403", st)
    st, hd, raw = post(req, {"Origin": "http://localhost:6274", "MCP-Protocol-Version": "2025-06-18"})
    ok(st == 200, "HTTP with a localhost Origin: served", st)
    st, hd, raw = post(b"{broken")
    ok(st == 400 and json.loads(raw)["error"]["code"] == -32700, "HTTP parse error: 400, -32700", raw)
    st, hd, raw = post(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"y" * (10 << 20) + b'"}}')
    ok(st == 413 and json.loads(raw)["error"]["code"] == -32600, "HTTP 10 MB body: 413, refused by size", (st, raw[:200]))
    st, hd, raw = post(req, {"MCP-Protocol-Version": "2025-06-18"})
    ok(st == 200, "HTTP goes on serving after all of it", st)
finally:
    srv.terminate()
    try:
        rc = srv.wait(timeout=10)
    except subprocess.TimeoutExpired:
        srv.kill()
        rc = -1
ok(rc == 0, "HTTP server exits 0 on SIGTERM (%s)" % rc)

# an HTTP client that hangs up cancels its request: the tool's process is killed
import socket
with open(os.path.join(fake, "td-collect"), "w") as f:
    f.write("#!/bin/sh\necho \"$$\" > %s.pid\nexec sleep 30\n" % argv_file)
os.chmod(os.path.join(fake, "td-collect"), 0o755)
if os.path.exists(argv_file + ".pid"):
    os.remove(argv_file + ".pid")
srv = subprocess.Popen([os.path.join(fake, "td-mcp"), "--db", DB, "--allow-collect", "--http", "0", "--token-file", tok],
                       stderr=subprocess.PIPE, text=True)
try:
    port = int(re.search(r"127\.0\.0\.1:(\d+)/mcp", srv.stderr.readline()).group(1))
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "collect", "arguments": {"process": "redis-server", "duration": "20s"}}}).encode()
    sk = socket.create_connection(("127.0.0.1", port))
    sk.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token.encode() +
               b"\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: " +
               str(len(body)).encode() + b"\r\n\r\n" + body)
    for _ in range(250):
        if os.path.exists(argv_file + ".pid") and open(argv_file + ".pid").read().strip():
            break
        time.sleep(0.02)
    pid = int(open(argv_file + ".pid").read())
    sk.close()
    t0 = time.time()
    while time.time() - t0 < 3 and os.path.exists("/proc/%d" % pid) and open("/proc/%d/stat" % pid).read().split()[2] != "Z":
        time.sleep(0.02)
    gone = not os.path.exists("/proc/%d" % pid) or open("/proc/%d/stat" % pid).read().split()[2] == "Z"
    ok(gone, "HTTP (--http PORT on 127.0.0.1): a client that hangs up cancels its request, td-collect killed after %.2f s" % (time.time() - t0))
finally:
    srv.terminate()
    srv.wait(timeout=10)

shutil.rmtree(TMP, ignore_errors=True)
print("1..%d" % n_tests)
sys.exit(1 if failed else 0)
