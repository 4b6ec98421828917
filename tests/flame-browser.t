#!/usr/bin/env bash
# td-flame's SVG in a real browser: headless Chromium (Debian's chromium)
# renders it (not blank) and its script zooms into a frame and searches
# (?x=&y=&s= in the URL run zoom() and search() at load). Without Chromium,
# rsvg-convert renders it (no script) and the script tests are skipped.
. "$(dirname "$0")/lib.sh"
FLAME=$TD_BIN/td-flame
GZ=$TD_ROOT/testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.collapsed.txt
"$FLAME" "$GZ" >"$T_TMP/g.svg" 2>"$T_TMP/err" || { ok 1 "td-flame draws the graph"; done_testing; exit 1; }
# for the picture: an icicle graph, whose widest frames are at the top
"$FLAME" --inverted "$GZ" >"$T_TMP/i.svg" 2>"$T_TMP/err"

# nonblank PNG: decodes it (8-bit RGB/RGBA) and prints distinct colours and
# the share of pixels that differ from the most common one
cat >"$T_TMP/png.py" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
counts = {}
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        k = bytes(line[x:x + 3])
        counts[k] = counts.get(k, 0) + 1
    prev = line
top = max(counts.values())
print(len(counts), "%.3f" % (1 - top / (w * h)))
PY

CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -n "${TD_SANITIZED:-}" ] && [ "$TD_SANITIZED" != 0 ]; then
	# the page and its script are the same bytes as in the plain run
	skip "browser rendering runs in the plain test run, not again under the sanitizer build"
	done_testing
	exit 0
fi
chrome() {
	timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$T_TMP/chrome" "$@" 2>>"$T_TMP/chrome.err"
}
if [ -n "$CHROME" ]; then
	diag "renderer: headless Chromium ($("$CHROME" --version 2>/dev/null | head -1))"
	chrome --window-size=800,400 --screenshot="$T_TMP/g.png" "file://$T_TMP/i.svg" >/dev/null
elif command -v rsvg-convert >/dev/null; then
	diag "renderer: rsvg-convert (Chromium absent: the page's script is not run)"
	rsvg-convert -w 800 -o "$T_TMP/g.png" "$T_TMP/i.svg"
else
	skip "neither chromium nor rsvg-convert installed"
	done_testing
	exit 0
fi
read -r colours share <<<"$(python3 "$T_TMP/png.py" "$T_TMP/g.png" 2>&1)"
diag "rendered: $colours colours, $share of pixels off the background"
ok $(( ${colours:-0} < 50 )) "the rendered graph is not blank ($colours colours)"
awk -v s="${share:-0}" 'BEGIN { exit !(s > 0.3) }'; ok $? "frames cover the picture ($share of pixels)"

if [ -z "$CHROME" ]; then
	skip "search and zoom need Chromium (absent)"
	done_testing
	exit 0
fi
# zoom into gzip's frame, then search; the page's DOM afterwards
read -r zx zy zw <<<"$(grep -o '<title>gzip ([^<]*</title><rect x="[^"]*" y="[^"]*" width="[^"]*"' "$T_TMP/g.svg" |
	sed 's/.*x="\([^"]*\)" y="\([^"]*\)" width="\([^"]*\)"/\1 \2 \3/' | head -1)"
re='^(read|ksys_read|vfs_read)$'
chrome --dump-dom "file://$T_TMP/g.svg?x=$zx&y=$zy&s=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$re")" >"$T_TMP/dom.svg"
grep -q '<text id="unzoom" [^>]*>Reset Zoom' "$T_TMP/dom.svg" && ! grep -q '<text id="unzoom"[^>]*class="hide"' "$T_TMP/dom.svg"
ok $? "zoom: the Reset Zoom button shows"
grep -q "<title>gzip (.*<rect x=\"10.0\" y=\"$zy\" width=\"1180.0\"" "$T_TMP/dom.svg"; ok $? "zoom: gzip's frame spans the width"
hidden=$(grep -c '<g class="hide"' "$T_TMP/dom.svg")
ok $(( hidden < 10 )) "zoom: frames outside gzip's are hidden ($hidden)"
grep -A1 '<g class="parent">' "$T_TMP/dom.svg" | grep -q '^<title>all ('; ok $? "zoom: the root is shown as a parent"
# expected share: frames under gzip's whose name matches, as the union of
# their spans, over gzip's width (from the SVG as drawn, before zooming)
want=$(perl -e '
	my ($re, $zx, $zy, $zw) = @ARGV; local $/; my $s = <STDIN>; my @sp;
	while ($s =~ m{<title>(.*?) \([^<]*</title><rect x="([^"]*)" y="([^"]*)" width="([^"]*)"}g) {
		my ($n, $x, $y, $w) = ($1, $2, $3, $4);
		next unless $y < $zy && $x >= $zx - 1e-4 && $x + $w <= $zx + $zw + 1e-4 && $n =~ /$re/;
		push @sp, [$x, $x + $w];
	}
	my ($cov, $reach) = (0, -1e9);
	for (sort { $a->[0] <=> $b->[0] || $b->[1] <=> $a->[1] } @sp) {
		my $lo = $_->[0] > $reach ? $_->[0] : $reach;
		if ($_->[1] > $lo) { $cov += $_->[1] - $lo; $reach = $_->[1]; }
	}
	printf "%.1f %d\n", 100 * $cov / $zw, scalar @sp;' "$re" "$zx" "$zy" "$zw" <"$T_TMP/g.svg")
got=$(grep -o 'Matched: [0-9.]*%' "$T_TMP/dom.svg" | grep -o '[0-9.]*')
diag "search $re after zooming into gzip: page says ${got:-nothing}%, frames say ${want% *}% (${want#* } frames)"
awk -v a="${got:--1}" -v b="${want% *}" 'BEGIN { d = a - b; exit !(a >= 0 && d < 0.25 && d > -0.25) }'
ok $? "search: the matched share equals the frames' (${got:-none}% vs ${want% *}%)"
marked=$(grep -o 'fill="rgb(230,0,230)"' "$T_TMP/dom.svg" | wc -l)
ok $(( marked != ${want#* } )) "search: the ${want#* } matching frames are highlighted ($marked)"
grep -q '<text id="search"[^>]*class="show"[^>]*>Reset Search' "$T_TMP/dom.svg"; ok $? "search: the button offers Reset Search"
done_testing
