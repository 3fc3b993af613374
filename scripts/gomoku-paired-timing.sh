#!/usr/bin/env bash
# Paired timing of two engine builds on one fixed-depth Gomoku search.
#
#   scripts/gomoku-paired-timing.sh PAIRS ENGINE_A ENGINE_B [PLAYER]
#
# Runs `engine analyse` on the searcher's middle game (the position of `engine bench --game
# gomoku`) with each build back to back, alternating which goes first, PAIRS times, and prints
# the median of B's user time over A's. On a shared machine single timings drift by a third
# within minutes; a pair's two runs see the same machine. A fixed-depth search does the same
# work in both builds when the search is unchanged: the script checks that both searched the
# same number of nodes.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 PAIRS ENGINE_A ENGINE_B [PLAYER]" >&2
  echo "  PLAYER defaults to pvs:depth=10,time_ms=100000 (the fitted evaluation)" >&2
  exit 2
fi
pairs=$1 a=$2 b=$3
player=${4:-pvs:depth=10,time_ms=100000}
moves="h8 h9 i7 g9 i9 g7 i8 i10 g8 j8 i6 i5 h7 j5 f8 e8 h5 h6 f5 g6 g4 j7"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # ENGINE -> "seconds nodes"
  /usr/bin/time -o "$tmp/t" -f "%U" "$1" analyse --game gomoku --moves "$moves" --player "$player" >"$tmp/out" 2>/dev/null
  echo "$(cat "$tmp/t") $(grep -o '[0-9]* nodes searched' "$tmp/out" | head -1 | cut -d' ' -f1)"
}
for i in $(seq "$pairs"); do
  if [ $((i % 2)) = 0 ]; then ra=$(run "$a"); rb=$(run "$b"); else rb=$(run "$b"); ra=$(run "$a"); fi
  echo "$ra $rb"
done | python3 -c '
import statistics, sys
rows = [line.split() for line in sys.stdin]
ratios = sorted(float(b) / float(a) for a, _, b, _ in rows)
nodes = {(na, nb) for _, na, _, nb in rows}
print("median B/A user time %.3f (min %.3f, max %.3f) over %d pairs; A %.2f s, B %.2f s on average"
      % (statistics.median(ratios), ratios[0], ratios[-1], len(rows),
         statistics.mean(float(r[0]) for r in rows), statistics.mean(float(r[2]) for r in rows)))
for na, nb in sorted(nodes):
    print("nodes: A %s, B %s%s" % (na, nb, "" if na == nb else "  (the searches differ: the ratio is not per node)"))
'
