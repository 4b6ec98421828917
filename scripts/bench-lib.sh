# Helpers the parts of make bench share (sourced from scripts/bench.d/*.sh,
# which bench.sh runs from the repository's top).

# timed LOG CMD...: runs CMD once, with the caller's redirections, and adds
# a line "wall-seconds cpu-seconds max-rss-kib" to LOG (CPU = user + system,
# children included: the machine may be shared).
timed() {
	log=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$log.run" "$@"
	awk '{ print $1, $2 + $3, $4 }' "$log.run" >>"$log"
	rm -f "$log.run"
}

# logged_median LOG FIELD: the median of a column of a timed LOG (1 wall,
# 2 CPU, 3 max RSS), 0 when the log is empty.
logged_median() {
	cut -d' ' -f"$2" "$1" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print 0 }'
}
