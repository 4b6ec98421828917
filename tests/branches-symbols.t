#!/usr/bin/env bash
# td-branches --by symbol / --by func on perf.data: the ranking equals the
# one built from perf script -F ip,brstacksym of the same file, on every
# shared recording with branch stacks (Intel LBR of four generations, AMD
# LbrExtV2, ARM ETM-injected), with perf's own kernel symbols (this
# machine's kallsyms, or none when the recording's kernel had a build id)
# and with the committed kallsyms given to both (--kallsyms: kernel
# addresses named on every file that has them). perf runs live (skip when
# absent). Unused 0x0/0x0 slots, which perf.data tells apart, stay out of
# the ranking (as with --by pair); brstacksym prints them [unknown]/[unknown]:
# that row is compared with them added. The text's ranking is also checked
# against pair counts taken from perf's text by python, so equality does
# not rest on td-branches' own text reader. The names' lookup on recordings made here: unit test
# test_branch_names.
. "$(dirname "$0")/lib.sh"
BR=$TD_BIN/td-branches
S=$TD_SHARED/testdata/perfdata

# perf script -F brstacksym text -> "from<TAB>to<TAB>count<TAB>mispredicted" per pair, sorted
pairs_of_text() {
	python3 -c '
import sys, collections, re
flags = re.compile(r"^(P|M|-|PN|MN)/[X-]/[A-]/[0-9]+(/|$)")
c = collections.Counter(); m = collections.Counter()
for line in open(sys.argv[1], errors="replace"):
    for tok in line.split():
        f = tok.split("/")
        # FROM/TO/PRED/INTX/ABORT/CYCLES[/TYPE/SPEC], names without "/"
        if len(f) >= 6 and flags.match("/".join(f[2:])):
            c[(f[0], f[1])] += 1
            m[(f[0], f[1])] += f[2].startswith("M")
for (fr, to), n in sorted(c.items()):
    print("%s\t%s\t%d\t%d" % (fr, to, n, m[(fr, to)]))
' "$1"
}
pairs_of_json() {
	python3 -c '
import sys, json
for r in sorted(json.load(open(sys.argv[1]))["rows"], key=lambda r: (r["from"], r["to"])):
    print("%s\t%s\t%d\t%d" % (r["from"], r["to"], r["count"], r["mispredicted"]))
' "$1"
}

# compare_rankings DIRECT.json TEXT.json: the same ranking, but for the unused
# 0x0/0x0 slots perf.data tells apart (not ranked, counted in totals.empty)
# and brstacksym's text prints as [unknown]/[unknown] entries. Prints
# "same" or the first difference.
compare_rankings() {
	python3 -c '
import json, sys
d, t = (json.load(open(f)) for f in sys.argv[1:3])
empty = d["totals"]["empty"]
def key(r): return (r["from"], r["to"] or "")
unk = [k for k in (("[unknown]", "[unknown]"), ("[unknown]", "")) if k in {key(r) for r in t["rows"]}]
dt, tt = dict(d["totals"]), dict(t["totals"])
dt["empty"] = tt["empty"] = 0
if dt != tt: print("totals differ:", d["totals"], t["totals"]); sys.exit()
dr, tr = {key(r): r for r in d["rows"]}, {key(r): r for r in t["rows"]}
for k in set(dr) | set(tr):
    a, b = dr.get(k), tr.get(k)
    if k in unk and empty:
        n = (a["count"] if a else 0) + empty
        if n != b["count"] or (a and a["mispredicted"] != b["mispredicted"]):
            print("unused slots: %s has %s + %d, perf text %d" % (k, a and a["count"], empty, b["count"])); sys.exit()
    elif a != b:
        print("row differs:", a, b); sys.exit()
order = lambda rows: [key(r) for r in rows if not (empty and key(r) in unk)]
print("same" if order(d["rows"]) == order(t["rows"]) else "row order differs")
' "$1" "$2"
}

if ! have_shared; then
	skip "../shared absent: no branch-stack perf.data to compare"
elif ! command -v perf >/dev/null; then
	skip "perf absent: td-branches --by symbol is not compared with perf script -F ip,brstacksym"
else
	zstd -dcq "$TD_ROOT/testdata/perfdata/local-kvm_cpu-clock-g-a_find-gzip_perf6.1.kallsyms.zst" >"$T_TMP/kallsyms"
	for f in "$S"/*lbr* "$S"/*brstack*; do
		b=$(basename "$f")
		for k in host committed; do
			ks=(); [ $k = committed ] && ks=(--kallsyms "$T_TMP/kallsyms")
			perf script "${ks[@]}" -i "$f" -F ip,brstacksym >"$T_TMP/p.txt" 2>/dev/null
			perf script "${ks[@]}" -i "$f" -F brstacksym >"$T_TMP/q.txt" 2>/dev/null
			if [ ! -s "$T_TMP/p.txt" ]; then
				skip "$b: perf script cannot read it here"; continue
			fi
			"$BR" "${ks[@]}" --by symbol --json --top 0 "$f" >"$T_TMP/direct.json"
			"$BR" --by symbol --json --top 0 "$T_TMP/p.txt" >"$T_TMP/text.json"
			read -r rows named empty < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["rows"]
print(len(r), sum(1 for x in r if x["from"] != "[unknown]" or x["to"] != "[unknown]"), d["totals"]["empty"])' "$T_TMP/direct.json")
			res=$(compare_rankings "$T_TMP/direct.json" "$T_TMP/text.json")
			ok $([ "$res" = same ]; echo $?) "$b ($k kallsyms): --by symbol FILE = perf script -F ip,brstacksym | td-branches --by symbol: $res ($rows pairs, $named named, $empty unused slots)"
			pairs_of_text "$T_TMP/q.txt" >"$T_TMP/perf.pairs"
			pairs_of_json "$T_TMP/text.json" >"$T_TMP/td.pairs"
			same "$T_TMP/perf.pairs" "$T_TMP/td.pairs" \
				"$b ($k kallsyms): every symbol pair's count and mispredictions = perf's brstacksym text ($(wc -l <"$T_TMP/perf.pairs") pairs)"
			"$BR" "${ks[@]}" --by func --json --top 0 "$f" >"$T_TMP/direct.json"
			"$BR" --by func --json --top 0 "$T_TMP/p.txt" >"$T_TMP/text.json"
			res=$(compare_rankings "$T_TMP/direct.json" "$T_TMP/text.json")
			ok $([ "$res" = same ]; echo $?) "$b ($k kallsyms): --by func FILE = the same from perf script: $res ($(grep -c '"from"' "$T_TMP/direct.json") functions)"
		done
	done
	# the ip glued to a name that starts with hex letters: ffffffff9dd022bd + do_arch_prctl_64+0xb4
	A=$S/amd-zen4-engsample_lbrv2_rc4-b_perf5.19.perf.data
	perf script --kallsyms "$T_TMP/kallsyms" -i "$A" -F ip,brstacksym 2>/dev/null | "$BR" --by func --csv --top 0 >"$T_TMP/a.csv"
	grep -q '^[0-9]*,do_arch_prctl_64,' "$T_TMP/a.csv" && ! grep -q ',o_arch_prctl_64,' "$T_TMP/a.csv"
	ok $? "-F ip,brstacksym: the 16-column ip is split from a name starting with hex letters (do_arch_prctl_64)"
	# pairs and sites keep brstack's addresses, as before
	"$BR" --json --top 0 "$A" >"$T_TMP/pair.json"
	grep -q '"from": "0x' "$T_TMP/pair.json"; ok $? "--by pair on perf.data still ranks brstack's 0x addresses"
fi

# options: --symfs/--kallsyms reach the reader; a missing kallsyms file leaves kernel names unknown
if have_shared; then
	K=$S/intel-skl-m7-6Y75_lbr-b_perf4.14.perf.data
	run_tool "$T_TMP/o" "$T_TMP/e" "$BR" --by func --kallsyms /nonexistent --symfs /nonexistent --csv "$K"
	ok $(( RC != 0 )) "--kallsyms and --symfs with missing files: exit 0, names unknown ($(sed -n 2p "$T_TMP/o" | cut -d, -f2))"
	# a cut recording: what came before the cut is ranked, the cut said, exit 2
	head -c 500000 "$S/intel-snb-i5-2467M_callgraph+lbr_-a-g-b_perf3.8.perf.data" >"$T_TMP/cut.data"
	run_tool "$T_TMP/o" "$T_TMP/e" "$BR" --by symbol "$T_TMP/cut.data"
	grep -q '^579 samples' "$T_TMP/o" && grep -q 'truncated' "$T_TMP/e"
	ok $(( $? || RC != 2 )) "--by symbol on a cut perf.data: the 579 samples before the cut ranked, the cut said, exit 2"
else
	skip "../shared absent"
fi
run_tool "$T_TMP/o" "$T_TMP/e" "$BR" --by bogus /dev/null
ok $(( RC != 2 )) "--by bogus: usage error, exit 2"
done_testing
