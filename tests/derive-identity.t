#!/usr/bin/env bash
# Byte identity of td-derive, td-diff, td-info and td-branches: stdout, stderr, exit code (and the
# --svg chart) of every stat capture here and in ../shared, in every output
# format and mode (scripts/derive-identity.sh lists them), against the
# manifest of hashes tests/derive-identity.manifest holds. The manifest was
# made by the tools of the commit the derive engine was split out from, so
# a refactor of the engine or its reports that changes one byte fails here.
# The 100 MB capture of make bench is compared too when it was built
# ($BENCH_DIR/derive-IA.csv, or TD_BENCH_CAPTURE).
. "$(dirname "$0")/lib.sh"
manifest=$TD_ROOT/tests/derive-identity.manifest
shared=
if have_shared; then shared=$TD_SHARED; else skip "$TD_SHARED absent: the shared captures are not compared"; fi
"$TD_ROOT/scripts/derive-identity.sh" "$TD_BIN" $shared >"$T_TMP/now" 2>"$T_TMP/err"
ok $? "the identity script ran"
# one test per input: all its modes the same; the modes that differ named
python3 - "$manifest" "$T_TMP/now" >"$T_TMP/verdicts" <<'PY'
import sys
def load(p):
    d = {}
    for line in open(p):
        h, rc, st, mode, name = line.rstrip("\n").split(" ", 4)
        d[(st, name, mode)] = (h, rc)
    return d
want, now = load(sys.argv[1]), load(sys.argv[2])
sets = {k[0] for k in now}
if want.get(("bench", "derive-IA.csv", "capture")) != now.get(("bench", "derive-IA.csv", "capture")):
    sets.discard("bench")   # not built, or another file under that name
inputs = {}
for k in want:
    if k[0] in sets:
        inputs.setdefault((k[0], k[1]), []).append(k[2])
for st in ("repo", "shared", "bench"):
    if st not in sets:
        print("skip %s" % st)
n = 0
for (st, name), modes in sorted(inputs.items()):
    bad = [m for m in sorted(modes) if now.get((st, name, m)) != want[(st, name, m)]]
    n += len(modes)
    print("%s %s %s: %d modes the same%s" % ("ok" if not bad else "bad", st, name, len(modes),
          "" if not bad else "; differ: " + ", ".join(bad)))
print("count %d" % n)
PY
while read -r verdict rest; do
	case $verdict in
	ok) ok 0 "$rest" ;;
	bad) ok 1 "$rest" ;;
	skip) [ "$rest" = bench ] && skip "the make bench capture was not built (or is another file): not compared"
	      [ "$rest" = repo ] && ok 1 "the captures of the repository were compared" ;;
	count) diag "$rest input x mode outputs compared" ;;
	esac
done <"$T_TMP/verdicts"
done_testing
