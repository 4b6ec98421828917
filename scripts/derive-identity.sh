#!/usr/bin/env bash
# The byte-identity manifest of td-derive, td-diff, td-info and td-branches: one line per input x
# mode, "HASH RC SET MODE INPUT": HASH joins the sha256 (first 20 digits
# each) of stderr, stdout and the chart --svg wrote, RC is the exit code. SET is "repo" (paths from the repository
# root) or "shared" (paths from $TD_SHARED); inputs are named relative to
# their root and the tools run from there, so the names they print are the
# same on every machine.
#
#   scripts/derive-identity.sh BIN [SHARED]   the manifest of BIN's tools
#
# tests/derive-identity.manifest holds the manifest of the commit the derive
# engine was split from (b12aaf6); tests/derive-identity.t compares the tools
# built now against it. Regenerate it only when an output change is meant:
#   scripts/derive-identity.sh bin /work/shared >tests/derive-identity.manifest
set -u
export LC_ALL=C
bin=$(cd "$1" && pwd)
shared=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/td-identity.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# td-derive's modes: its output formats, views and options (one line each,
# the arguments the name stands for after the colon)
derive_modes=(
	"text:"
	"csv:--csv"
	"json:--json"
	"markdown:--markdown"
	"intervals:--intervals"
	"explain:--explain"
	"level1:--level 1"
	"level2-csv:--level 2 --csv"
	"level3-json:--level 3 --json"
	"level2-markdown:--level 2 --markdown"
	"counters:--counters"
	"counters-csv:--counters --csv"
	"counters-json:--counters --json"
	"quiet-csv:-q --csv"
	"format-csv:--format csv"
	"cpu-zen4:--cpu amd-zen4"
	"cpu-preicl-json:--cpu intel-pre-icl --json"
	"svg:--svg @SVG@"
	"svg-level2:--level 2 --svg @SVG@"
)
diff_modes=(
	"text:"
	"csv:--csv"
	"json:--json"
	"markdown:--markdown"
	"per-scope:--per-scope"
)

# hash DIR SET MODE INPUT-NAME TOOL ARGS...: runs one case; its outputs are
# hashed together at the end (one sha256sum for all)
n=0
hash() {
	local dir=$1 set=$2 mode=$3 name=$4
	shift 4
	n=$((n + 1))
	local rc=0
	(cd "$dir" && exec "$@") >"$tmp/$n.out" 2>"$tmp/$n.err" </dev/null || rc=$?
	if [ -f "$tmp/out.svg" ]; then
		mv "$tmp/out.svg" "$tmp/$n.svg"
	else
		: >"$tmp/$n.svg"
	fi
	echo "$n $rc $set $mode $name" >>"$tmp/cases"
}

# derive_all DIR SET FILE...: every mode of td-derive on each file, then the
# files of one directory two at a time (several runs in one report), stdin
derive_all() {
	local dir=$1 set=$2
	shift 2
	local f m args prev=
	for f in "$@"; do
		for m in "${derive_modes[@]}"; do
			args=${m#*:}
			args=${args//@SVG@/$tmp/out.svg}
			# shellcheck disable=SC2086
			hash "$dir" "$set" "derive-${m%%:*}" "$f" "$bin/td-derive" $args "$f"
		done
		hash "$dir" "$set" derive-stdin-csv "$f" sh -c '"$0" --csv - <"$1"' "$bin/td-derive" "$f"
		if [ -n "$prev" ] && [ "$(dirname "$prev")" = "$(dirname "$f")" ]; then
			hash "$dir" "$set" derive-pair "$prev+$f" "$bin/td-derive" "$prev" "$f"
			hash "$dir" "$set" derive-pair-json "$prev+$f" "$bin/td-derive" --json "$prev" "$f"
			for m in "${diff_modes[@]}"; do
				# shellcheck disable=SC2086
				hash "$dir" "$set" "diff-${m%%:*}" "$prev+$f" "$bin/td-diff" ${m#*:} "$prev" "$f"
			done
		fi
		prev=$f
	done
}

# info_all DIR SET FILE...: td-info's views of perf.data files
info_all() {
	local dir=$1 set=$2 f
	shift 2
	for f in "$@"; do
		hash "$dir" "$set" info-text "$f" "$bin/td-info" "$f"
		hash "$dir" "$set" info-json "$f" "$bin/td-info" --json "$f"
		hash "$dir" "$set" info-dump "$f" "$bin/td-info" --dump "$f"
	done
}

# branches_all DIR SET FILE...: td-branches' views of branch stacks
branches_all() {
	local dir=$1 set=$2 f m
	shift 2
	for f in "$@"; do
		for m in text: csv:--csv json:--json markdown:--markdown by-func:"--by func --sort rate" \
			 min-count:"--min-count 1000 --top 3"; do
			# shellcheck disable=SC2086
			hash "$dir" "$set" "branches-${m%%:*}" "$f" "$bin/td-branches" ${m#*:} "$f"
		done
	done
}

stat_files() {
	local d
	for d in "$@"; do
		[ -d "$d" ] || continue
		find "$d" -type f ! -name PROVENANCE.md ! -name '*.folded' ! -name '*difffolded*' | sort
	done
}

cd "$root" || exit 2
mapfile -t repo < <(stat_files testdata/stat testdata/toplev testdata/diff testdata/store)
derive_all "$root" repo "${repo[@]}"
mapfile -t pd < <(find testdata/perfdata -name '*.perf.data' | sort)
info_all "$root" repo "${pd[@]}"
# several runs on each side of a diff, as td-diff's docs show it
hash "$root" repo diff-runs testdata/diff/run1-3 "$bin/td-diff" \
	testdata/diff/local-kvm_gzip-1_stat-run{1,2,3}.txt -- testdata/diff/local-kvm_gzip-9_stat-run{1,2,3}.txt
# the 100 MB capture of make bench (scripts/bench.d/20-derive.sh), when it
# was built: its own hash first, so that another file is not taken for it
bench=${TD_BENCH_CAPTURE:-${BENCH_DIR:-/tmp/tdkit-bench}/derive-IA.csv}
if [ -s "$bench" ]; then
	bdir=$(cd "$(dirname "$bench")" && pwd) bname=$(basename "$bench")
	hash "$bdir" bench capture "$bname" cat "$bname"
	for m in text:--intervals csv:--csv quiet-csv:"-q --csv" json:--json markdown:--markdown counters-csv:"--counters --csv"; do
		# shellcheck disable=SC2086
		hash "$bdir" bench "derive-${m%%:*}" "$bname" "$bin/td-derive" ${m#*:} "$bname"
	done
fi
if [ -n "$shared" ] && [ -d "$shared/testdata" ]; then
	cd "$shared" || exit 2
	mapfile -t sh_files < <(stat_files testdata/stat testdata/stat_csv testdata/stat_json testdata/stat_text)
	derive_all "$shared" shared "${sh_files[@]}"
	mapfile -t pd < <(find testdata/perfdata -name '*.perf.data' | sort)
	info_all "$shared" shared "${pd[@]}"
	mapfile -t br < <(find testdata/brstack testdata/spe -type f ! -name PROVENANCE.md | sort)
	branches_all "$shared" shared "${br[@]}"
fi
cd "$tmp" || exit 2
# the line of case N: the hash of its stdout, stderr and chart, its exit code
ls | grep -E '^[0-9]+[.](out|err|svg)$' | sort -t. -k1,1n -k2,2 | xargs sha256sum | awk '
	NR == FNR { split($2, p, "."); h[p[1]] = h[p[1]] substr($1, 1, 20); next }
	{ printf "%s %s", h[$1], $2; for (i = 3; i <= NF; i++) printf " %s", $i; printf "\n" }' - cases
