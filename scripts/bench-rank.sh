#!/usr/bin/env bash
# Whole-program timings of ringside's ranking (docs/performance.md, "Ranking"):
#
#   1. ringside rank --battles FILE on 1,000,000 battles among 150 models
#      (scripts/genbattles), with 0, 100 and 1000 bootstrap rounds;
#   2. the scikit-learn reference (scripts/bench_rank_sklearn.py) on the same
#      file, when /usr/bin/python3 has scikit-learn and pandas;
#   3. ringside import battles of the same file into a new database, then
#      ringside rank --db on its million votes.
#
# Usage: scripts/bench-rank.sh            (from the repository root)
# Environment: BENCH_DIR (default /tmp/ringside-bench), REPEAT (runs per
# figure, default 3; the table shows each run), SKLEARN_ROUNDS (bootstrap
# rounds the reference actually runs, default 3; the rest is extrapolated),
# SKIP_SKLEARN=1, SKIP_DB=1.
set -euo pipefail

cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/ringside-bench}
REPEAT=${REPEAT:-3}
SKLEARN_ROUNDS=${SKLEARN_ROUNDS:-3}
FILE=$BENCH_DIR/battles-1m.jsonl
BIN=$BENCH_DIR/ringside
mkdir -p "$BENCH_DIR"

echo "building ringside"
go build -o "$BIN" ./cmd/ringside
if [[ ! -s $FILE ]]; then
	echo "generating $FILE"
	go run ./scripts/genbattles -n 1000000 -models 150 -seed 1 -o "$FILE"
fi

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(go version | cut -d' ' -f3)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# timed LABEL CMD...: runs CMD, prints "LABEL  wall-seconds  max-RSS-MB".
timed() {
	local label=$1
	shift
	local tf
	tf=$(mktemp)
	/usr/bin/time -f '%e %M' -o "$tf" "$@" >/dev/null
	read -r wall rss <"$tf"
	rm -f "$tf"
	printf '%-34s %8.2f s %7.0f MB\n' "$label" "$wall" "$((rss / 1024))"
}

echo
echo "== ringside rank --battles (1M battles, 150 models)"
for rounds in 0 100 1000; do
	for ((i = 1; i <= REPEAT; i++)); do
		timed "rank --battles --bootstrap $rounds" "$BIN" rank --battles "$FILE" --bootstrap "$rounds" --seed 1 \
			--format json -o "$BENCH_DIR/rank-$rounds.json"
	done
done

if [[ -z ${SKIP_SKLEARN:-} ]] && /usr/bin/python3 -c 'import sklearn, pandas' 2>/dev/null; then
	echo
	echo "== scikit-learn reference ($SKLEARN_ROUNDS bootstrap rounds run, the rest extrapolated)"
	/usr/bin/time -f 'sklearn whole run: %e s, %M KB max RSS' /usr/bin/python3 scripts/bench_rank_sklearn.py "$FILE" \
		--rounds "$SKLEARN_ROUNDS" --compare "$BENCH_DIR/rank-0.json" 2>&1 | grep -v '^round '
elif [[ -z ${SKIP_SKLEARN:-} ]]; then
	echo "(scikit-learn not installed for /usr/bin/python3: apt-get install python3-sklearn python3-pandas)"
fi

if [[ -z ${SKIP_DB:-} ]]; then
	echo
	echo "== ringside import battles, then rank --db (1M votes)"
	DB=$BENCH_DIR/bench-$$.db
	rm -f "$DB" "$DB-wal" "$DB-shm"
	timed "import battles (1M lines)" "$BIN" import battles "$FILE" --db "$DB"
	ls -l "$DB" | awk '{printf "database: %.0f MB\n", $5 / 1048576}'
	for rounds in 0 100; do
		for ((i = 1; i <= REPEAT; i++)); do
			timed "rank --db --bootstrap $rounds" "$BIN" rank --db "$DB" --bootstrap "$rounds" --seed 1 \
				--format json -o "$BENCH_DIR/rank-db-$rounds.json"
		done
	done
	# The two leaderboards are the same numbers (the battles are the same).
	if cmp -s "$BENCH_DIR/rank-100.json" "$BENCH_DIR/rank-db-100.json"; then
		echo "rank --db and rank --battles agree byte for byte"
	else
		echo "WARNING: rank --db and rank --battles differ"
	fi
	rm -f "$DB" "$DB-wal" "$DB-shm"
fi
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
