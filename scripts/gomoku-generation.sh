#!/usr/bin/env bash
# One generation of the Gomoku loop (issue 62): self-play of `pvs` with the current net, a
# pattern net trained on every generation's games so far, and the deciding match of the new
# net against the current one. Each generation's net card (MODEL.md) ends with its match.
#
# Usage: scripts/gomoku-generation.sh GEN CURRENT_MODEL [GAMES] [MS] [MATCH_GAMES]
#   GEN            the generation's number: its folder is runs/gomoku-gen-GEN
#   CURRENT_MODEL  the net self-play plays with and the new net meets (a model.safetensors),
#                  or none for the fitted evaluation
#   GAMES          self-play games (default 600; seats swapped on each opening)
#   MS             milliseconds a move, self-play and match (default 200 and 100)
#   MATCH_GAMES    games of the deciding match (default 200, at most 290: the balanced
#                  openings of configs/gomoku-balanced-openings.txt, each played twice)
#
# Earlier generations' games (runs/gomoku-gen-*/selfplay) and the shipped datasets named in
# GOMOKU_DATA (space-separated folders) are trained on too; TRAIN_ARGS are added to `train
# pattern` (say "--epochs 15 --patience 3"). Run from the repository root after
# `cargo build --release -p engine -p train`. Nothing is overwritten: a generation whose folder
# exists is refused.
set -euo pipefail

gen=${1:?usage: scripts/gomoku-generation.sh GEN CURRENT_MODEL [GAMES] [MS] [MATCH_GAMES]}
current=${2:?the current net (a model.safetensors) or none}
games=${3:-600}
ms=${4:-200}
match_games=${5:-200}
dir=runs/gomoku-gen-$gen
engine=target/release/engine
train=target/release/train

if [ -e "$dir" ]; then
  echo "gomoku-generation: $dir exists; choose another generation number" >&2
  exit 2
fi
if [ "$current" != none ] && [ ! -f "$current" ]; then
  echo "gomoku-generation: no model at $current" >&2
  exit 2
fi
mkdir -p "$dir"
player="pvs:time_ms=$ms,model=$current"

# Openings: seeded by the generation, so each one's games start elsewhere.
python3 scripts/gomoku_openings.py $(( (games + 1) / 2 )) $(( 1000 + gen )) > "$dir/openings.txt"

echo "== generation $gen: $games self-play games of $player"
"$engine" match --game gomoku --p1 "$player" --p2 "$player" \
  --positions "$dir/openings.txt" --games "$games" --seed "$gen" --records "$dir/selfplay"

data=()
for d in runs/gomoku-gen-*/selfplay ${GOMOKU_DATA:-}; do
  data+=(--data "$d")
done
echo "== training on ${data[*]}"
"$train" pattern "${data[@]}" --out "$dir/net" ${TRAIN_ARGS:-}

echo "== deciding match: the new net against $current, $match_games games at 100 ms a move"
# Balanced openings: from random ones, most seat-swapped pairs split one-one whatever the nets.
"$engine" match --game gomoku --p1 "pvs:time_ms=100,model=$dir/net/model.safetensors" \
  --p2 "pvs:time_ms=100,model=$current" --positions configs/gomoku-balanced-openings.txt \
  --games "$match_games" --seed "$gen" --json "$dir/match.json" | tee "$dir/match.txt"

{
  echo
  echo "## Generation $gen's deciding match"
  echo
  echo "Self-play: $games games of \`$player\`. The new net (A) against \`$current\` (B), both"
  echo "\`pvs\` at 100 ms a move, $match_games games from configs/gomoku-balanced-openings.txt, seats swapped:"
  echo
  echo '```'
  cat "$dir/match.txt"
  echo '```'
} >> "$dir/net/MODEL.md"
echo "== $dir/net/MODEL.md"
