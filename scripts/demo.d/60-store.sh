#!/bin/sh
# td-store: the bundled captures (and ../shared's, when there) kept with
# labels in a temporary SQLite database, then listed and queried.
db=$(mktemp -d /tmp/td-demo-store.XXXXXX)/runs.db
echo "== td-store: keep the bundled captures with labels, list them, rank the bottlenecks"
"$BIN/td-store" add --db "$db" --label source=bundled testdata/stat/*.csv testdata/stat/*.txt >/dev/null 2>&1
for f in "$SHARED"/testdata/stat_text/*.txt "$SHARED"/testdata/stat/*.txt; do
	[ -f "$f" ] && "$BIN/td-store" add --db "$db" --label source=shared "$f" >/dev/null 2>&1
done
echo "\$ td-store list --limit 6"
"$BIN/td-store" list --db "$db" --limit 6
echo
echo "\$ td-store query --bottlenecks --top 6 --label source=shared"
"$BIN/td-store" query --db "$db" --bottlenecks --top 6 --label source=shared
rm -rf "$(dirname "$db")"
exit 0
