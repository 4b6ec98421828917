#!/usr/bin/env bash
# td-flame: flamegraph.pl's frames (compared with its own SVGs), differential
# colours, speedscope's format, hostile names and bad input.
. "$(dirname "$0")/lib.sh"
FLAME=$TD_BIN/td-flame
FOLD=$TD_ROOT/testdata/fold
DIFFD=$TD_ROOT/testdata/diff
GZ=$FOLD/local-kvm_cpu-clock-g_gzip-perl_perf6.1.collapsed.txt

# frames NAME.svg: one line per frame, title|x|y|width|height|fill|text x|text y|text
cat >"$T_TMP/frames.pl" <<'PERL'
local $/; my $s = <>;
while ($s =~ m{<title>(.*?)</title><rect x="([^"]*)" y="([^"]*)" width="([^"]*)" height="([^"]*)" fill="([^"]*)"[^>]*/>\s*<text\s+x="([^"]*)" y="([^"]*)"\s*>(.*?)</text>}sg) {
	print "$1|$2|$3|$4|$5|$6|$7|$8|$9\n";
}
PERL
frames() { perl "$T_TMP/frames.pl" "$1" | sort; }

# 1. flamegraph.pl 41fee1f's SVGs of FlameGraph's own folded test files:
# every frame (title, x, y, width, height, fill, text) equal, as sorted lists.
CMP=$TD_SHARED/compat/flamegraph
if [ -d "$CMP/expected-svg" ]; then
	files=0 same=0 nframes=0 first_bad=""
	for svg in "$CMP"/expected-svg/*.svg; do
		b=$(basename "$svg" .svg)
		name=${b%%.hash*}
		case $b in
		*.hash-inverted-titleT) set -- --hash --inverted --title T ;;
		*.hash) set -- --hash ;;
		*) continue ;;
		esac
		files=$((files + 1))
		"$FLAME" "$@" "$CMP/expected-current/$name.txt" >"$T_TMP/g.svg" 2>/dev/null
		frames "$T_TMP/g.svg" >"$T_TMP/ours"
		frames "$svg" >"$T_TMP/theirs"
		if [ -s "$T_TMP/theirs" ] && cmp -s "$T_TMP/theirs" "$T_TMP/ours"; then
			same=$((same + 1))
			nframes=$((nframes + $(wc -l <"$T_TMP/theirs")))
		elif [ -z "$first_bad" ]; then
			first_bad=$b
			diff "$T_TMP/theirs" "$T_TMP/ours" | head -6 | sed 's/^/# /'
		fi
	done
	diag "flamegraph.pl SVGs compared: $files files, $nframes frames"
	ok $(( files < 102 || same != files )) "frames equal flamegraph.pl's in $same/$files SVGs, with and without --inverted ($nframes frames)${first_bad:+; first difference: $first_bad}"
else
	skip "no $CMP/expected-svg (../shared absent)"
fi

# 2. output is byte-reproducible; gz and zst inputs draw the same
run_tool "$T_TMP/a.svg" "$T_TMP/err" "$FLAME" "$GZ"
ok $RC "draws td-fold's output of a real capture"
"$FLAME" "$GZ" >"$T_TMP/b.svg" 2>/dev/null
same "$T_TMP/a.svg" "$T_TMP/b.svg" "two runs give the same bytes"
gzip -c "$GZ" >"$T_TMP/in.gz"
"$FLAME" <"$T_TMP/in.gz" >"$T_TMP/c.svg" 2>/dev/null
same "$T_TMP/a.svg" "$T_TMP/c.svg" "gzip input (stdin) draws the same"
if command -v zstd >/dev/null; then
	zstd -q -c "$GZ" >"$T_TMP/in.zst"
	"$FLAME" "$T_TMP/in.zst" >"$T_TMP/c.svg" 2>/dev/null
	same "$T_TMP/a.svg" "$T_TMP/c.svg" "zstd input draws the same"
else
	skip "zstd not installed"
fi
sort -r "$GZ" >"$T_TMP/rev.folded"
"$FLAME" "$T_TMP/rev.folded" >"$T_TMP/c.svg" 2>/dev/null
frames "$T_TMP/a.svg" >"$T_TMP/fa"; frames "$T_TMP/c.svg" >"$T_TMP/fc"
same "$T_TMP/fa" "$T_TMP/fc" "input order does not change the frames"
"$FLAME" --random --seed 7 "$GZ" >"$T_TMP/r1.svg" 2>/dev/null
"$FLAME" --random --seed 7 "$GZ" >"$T_TMP/r2.svg" 2>/dev/null
"$FLAME" --random --seed 8 "$GZ" >"$T_TMP/r3.svg" 2>/dev/null
same "$T_TMP/r1.svg" "$T_TMP/r2.svg" "--random --seed N is reproducible"
! cmp -s "$T_TMP/r1.svg" "$T_TMP/r3.svg"; ok $? "--random with another seed changes colours"

# 3. legend, title, options
grep -q '<text id="legend" x="1190.00" y="[0-9]*" style="font-size:9.6px">Total: 3,102,204,384 samples</text>' "$T_TMP/a.svg"; ok $? "legend: the total and the unit"
grep -q '<title>all (3,102,204,384 samples, 100%)</title>' "$T_TMP/a.svg"; ok $? "root frame: all, with the total"
"$FLAME" --title 'T <1>' --subtitle S --countname bytes --width 800 --height 20 --fontsize 10 --inverted "$GZ" >"$T_TMP/o.svg" 2>/dev/null
grep -q '<text id="title" x="400.00" y="20" >T &lt;1&gt;</text>' "$T_TMP/o.svg" &&
grep -q '<text id="subtitle" x="400.00" y="40" >S</text>' "$T_TMP/o.svg" &&
grep -q '<svg version="1.1" width="800"' "$T_TMP/o.svg" &&
grep -q 'Total: 3,102,204,384 bytes' "$T_TMP/o.svg" &&
grep -q '<rect x="10.0" y="30" width="780.0" height="19.0"' "$T_TMP/o.svg"
ok $? "--title, --subtitle, --countname, --width, --height, --fontsize, --inverted"
( cd "$T_TMP" && "$FLAME" --cp --palette pal.map --colors mem "$GZ" >p1.svg 2>/dev/null &&
  grep -q '^gzip->rgb(0,' pal.map && sed -i 's/^gzip->.*/gzip->rgb(1,2,3)/' pal.map &&
  "$FLAME" --cp --palette pal.map "$GZ" >p2.svg 2>/dev/null && grep -q '<title>gzip (.*fill="rgb(1,2,3)"' p2.svg )
ok $? "--cp writes the palette file and reuses its colours"

# 4. differential graphs from td-diff --folded: red grew, blue shrank,
# saturation |delta| / max |delta|
A=$DIFFD/local-kvm_gzip-1_cpu-clock-g.folded
B=$DIFFD/local-kvm_gzip-9_cpu-clock-g.folded
"$TD_BIN/td-diff" --folded "$A" "$B" >"$T_TMP/d.folded" 2>/dev/null
run_tool "$T_TMP/d.svg" "$T_TMP/err" "$FLAME" "$T_TMP/d.folded"
ok $RC "draws td-diff --folded output"
frames "$T_TMP/d.svg" >"$T_TMP/df"
# the stack with the largest |delta| is fully saturated
read -r stack c1 c2 <<<"$(awk '{d = $NF - $(NF-1); if (d < 0) d = -d; if (d > m) { m = d; l = $0 } } END { print l }' "$T_TMP/d.folded")"
leaf=${stack##*;}
if [ "$c2" -gt "$c1" ]; then want="rgb(255,0,0)"; else want="rgb(0,0,255)"; fi
grep -F "$leaf (" "$T_TMP/df" | grep -qF "|$want|"; ok $? "the largest change ($leaf, $c1 -> $c2) is $want"
grep -q '; +[0-9.]*%)|[^|]*|[^|]*|[^|]*|[^|]*|rgb(255,[0-9]*,[0-9]*)|' "$T_TMP/df" &&
grep -q '; -[0-9.]*%)|[^|]*|[^|]*|[^|]*|[^|]*|rgb([0-9]*,[0-9]*,255)|' "$T_TMP/df"
ok $? "growth red with +pct, shrinkage blue with -pct"
"$FLAME" --negate "$T_TMP/d.folded" >"$T_TMP/n.svg" 2>/dev/null
frames "$T_TMP/n.svg" | grep -F "$leaf (" | grep -qF "|$( [ "$want" = "rgb(255,0,0)" ] && echo 'rgb(0,0,255)' || echo 'rgb(255,0,0)')|"; ok $? "--negate swaps the hues"
grep -q 'widths: the second count' "$T_TMP/d.svg"; ok $? "differential legend says what widths and colours mean"

# 5. speedscope: the fields speedscope's schema requires
# (https://www.speedscope.app/file-format-schema.json, generated from
# jlfwong/speedscope src/lib/file-format-spec.ts, MIT), and the same totals
run_tool "$T_TMP/s.json" "$T_TMP/err" "$FLAME" --format speedscope "$GZ"
ok $RC "--format speedscope"
cat >"$T_TMP/check.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
total = float(sys.argv[2])
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
assert set(d) <= {"$schema", "shared", "profiles", "name", "activeProfileIndex", "exporter"}
frames = d["shared"]["frames"]
assert isinstance(frames, list) and all(isinstance(f["name"], str) for f in frames)
for f in frames:
    assert set(f) <= {"name", "file", "line", "col"}
assert isinstance(d["profiles"], list) and d["profiles"]
for p in d["profiles"]:
    assert p["type"] == "sampled"
    for k in ("name", "unit", "startValue", "endValue", "samples", "weights"):
        assert k in p, k
    assert isinstance(p["name"], str)
    assert p["unit"] in ("none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes")
    assert isinstance(p["startValue"], (int, float)) and isinstance(p["endValue"], (int, float))
    assert len(p["samples"]) == len(p["weights"])
    for s in p["samples"]:
        assert isinstance(s, list) and all(isinstance(i, int) and 0 <= i < len(frames) for i in s)
    assert all(isinstance(w, (int, float)) and w >= 0 for w in p["weights"])
    assert abs(sum(p["weights"]) - total) < 1e-6 * total, (sum(p["weights"]), total)
    assert p["endValue"] == total
if "activeProfileIndex" in d:
    assert 0 <= d["activeProfileIndex"] < len(d["profiles"])
PY
total=$(awk '{ s += $NF } END { printf "%.0f", s }' "$GZ")
python3 "$T_TMP/check.py" "$T_TMP/s.json" "$total" 2>&1 | sed 's/^/# /'
ok "${PIPESTATUS[0]}" "speedscope output has the schema's required fields and the input's total ($total)"
stacks=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["profiles"][0]["samples"]))' "$T_TMP/s.json")
ok $(( stacks != $(wc -l <"$GZ") )) "one speedscope sample per distinct stack ($stacks)"

# 6. hostile frame names: the SVG is still XML, the JSON still JSON
{
	printf 'main;<script>alert(1)</script>;x&y 5\n'
	printf 'main;say "hi" & '"'"'bye'"'"';f]]>g 3\n'
	printf 'main;bad\xff\xfeutf8;\xc3\x28 2\n'
	printf 'main;ctl\x01\x1b[31m;tab\there 2\n'
	printf 'main;ünïcödé_名前_[k] 4\n'
	printf 'main;--;- 1\n'
} >"$T_TMP/hostile.synthetic.folded"
run_tool "$T_TMP/h.svg" "$T_TMP/err" "$FLAME" --title '<&"x">' --nametype 'F"n\</script>' --subtitle ']]>' "$T_TMP/hostile.synthetic.folded"
ok $RC "hostile names: exit 0"
python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$T_TMP/h.svg" 2>&1 | sed 's/^/# /'
ok "${PIPESTATUS[0]}" "hostile names: the SVG parses as XML"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$T_TMP/h.svg" && ! grep -q '<script>alert' "$T_TMP/h.svg"
ok $? "hostile names: markup in names is escaped"
grep -q 'say &quot;hi&quot; &amp;' "$T_TMP/h.svg"; ok $? "hostile names: quotes and & escaped in titles"
grep -q "bad$(printf '\xef\xbf\xbd\xef\xbf\xbd')utf8" "$T_TMP/h.svg"; ok $? "hostile names: invalid UTF-8 shown as U+FFFD"
grep -q '<title>ünïcödé_名前 (4 samples' "$T_TMP/h.svg"; ok $? "hostile names: UTF-8 kept, annotation stripped"
"$FLAME" --format speedscope "$T_TMP/hostile.synthetic.folded" >"$T_TMP/h.json" 2>/dev/null
python3 "$T_TMP/check.py" "$T_TMP/h.json" 17 2>&1 | sed 's/^/# /'
ok "${PIPESTATUS[0]}" "hostile names: speedscope JSON parses and validates"

# 7. bad input: reported with file:line, exit 2, the valid lines still drawn
printf 'perf script output, not folded:\nmain;a 3\nmain;b 2\nTotal: 5 samples\n' >"$T_TMP/prose.synthetic"
run_tool "$T_TMP/p.svg" "$T_TMP/err" "$FLAME" "$T_TMP/prose.synthetic"
ok $(( RC != 2 )) "prose around the data: exit 2"
grep -q "^td-flame: $T_TMP/prose.synthetic:1: not a folded stack" "$T_TMP/err" &&
grep -q "^td-flame: $T_TMP/prose.synthetic:4: not a folded stack" "$T_TMP/err"
ok $? "prose lines named by file and line"
grep -q '<title>all (5 samples, 100%)</title>' "$T_TMP/p.svg"; ok $? "prose: the valid stacks are still drawn"
printf 'main;a 3\r\nmain;b 2\r\n' >"$T_TMP/crlf.synthetic"
run_tool "$T_TMP/c.svg" "$T_TMP/err" "$FLAME" "$T_TMP/crlf.synthetic"
ok $RC "CRLF input: exit 0"
grep -q '<title>b (2 samples' "$T_TMP/c.svg" && ! grep -q "$(printf '\r')" "$T_TMP/c.svg"; ok $? "CRLF input: names without CR"
printf 'main;a 3\nmain;b 2' >"$T_TMP/trunc.synthetic"
run_tool "$T_TMP/t.svg" "$T_TMP/err" "$FLAME" "$T_TMP/trunc.synthetic"
grep -q '<title>all (5 samples, 100%)</title>' "$T_TMP/t.svg"; ok $? "no final newline: the last line counts"
printf 'main;a 3\nmain;b 2\nmain;c' >"$T_TMP/cut.synthetic"
run_tool "$T_TMP/t.svg" "$T_TMP/err" "$FLAME" "$T_TMP/cut.synthetic"
ok $(( RC != 2 )) "line cut before its count: exit 2"
grep -q "cut.synthetic:3:" "$T_TMP/err"; ok $? "line cut before its count: reported at its line"
: >"$T_TMP/empty.synthetic"
run_tool "$T_TMP/e.svg" "$T_TMP/err" "$FLAME" "$T_TMP/empty.synthetic"
ok $(( RC != 2 )) "empty input: exit 2"
grep -q "^td-flame: no stack counts found" "$T_TMP/err" && grep -q 'ERROR: No valid input' "$T_TMP/e.svg"
ok $? "empty input: said on stderr, and an SVG that says so"
awk 'BEGIN { s = "main"; for (i = 0; i < 20000; i++) s = s ";frame_" i; print s " 7"; print "main;x 1" }' >"$T_TMP/huge.synthetic"
run_tool "$T_TMP/u.svg" "$T_TMP/err" "$FLAME" "$T_TMP/huge.synthetic"
ok $RC "a 20,000-frame stack (a 230 KB line): exit 0"
grep -q '<title>frame_19999 (7 samples' "$T_TMP/u.svg"; ok $? "huge line: its deepest frame is drawn"
printf 'main;a 3\nbin\0ary 2\n' >"$T_TMP/bin.synthetic"
run_tool "$T_TMP/b.svg" "$T_TMP/err" "$FLAME" "$T_TMP/bin.synthetic"
ok $(( RC != 2 )) "binary input: exit 2"
grep -q "bin.synthetic:2: binary data" "$T_TMP/err"; ok $? "binary input: reported at its line"
zcat "$FOLD/local-kvm_cpu-clock-g_gzip-perl_perf6.1.script.txt.gz" | head -200 >"$T_TMP/script.txt"
run_tool "$T_TMP/w.svg" "$T_TMP/err" "$FLAME" "$T_TMP/script.txt"
ok $(( RC != 2 )) "perf script text instead of folded stacks: exit 2"
grep -q "lines in all were not folded stacks" "$T_TMP/err"; ok $? "wrong format: the count of skipped lines is given"
run_tool "$T_TMP/w.svg" "$T_TMP/err" "$FLAME" --colors chartreuse "$GZ"
ok $(( RC != 2 )) "unknown palette: usage error"
run_tool "$T_TMP/w.svg" "$T_TMP/err" "$FLAME" --minwidth 5px "$GZ"
ok $(( RC != 2 )) "bad --minwidth: usage error"
done_testing
