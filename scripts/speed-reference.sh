#!/usr/bin/env bash
# The README's speed headline with its reference, measured in one run on one machine: the CPU,
# `engine bench`'s plain MCTS on 5x5 Dots and Boxes (one thread), and OpenSpiel's C++ MCTS with
# random rollouts (pyspiel.MCTSBot, from PyPI) on the same board and positions, one thread.
# Absolute speeds move with the machine; the ratio says what the figure means elsewhere.
#
# Usage: bash scripts/speed-reference.sh
# (installs open_spiel into target/openspiel-venv the first time; needs python3 and its venv)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/openspiel-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import pyspiel" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q open_spiel
fi
field() { grep -m1 "^$1" /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'; }
# Virtual machines often name the CPU only "Intel(R) Xeon(R) Processor": family, model and clock
# tell the generation.
echo "CPU: $(field 'model name') (family $(field 'cpu family') model $(field 'model'), $(field 'cpu MHz') MHz), $(nproc) cores"
ours=$(cargo run --release -q -p engine --bin engine -- bench --json --threads 1)
theirs=$("$venv/bin/python" scripts/openspiel_mcts_speed.py 100000 3)
python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours, theirs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for key, label in [("empty", "empty board  "), ("edges40", "40-edge state")]:
    a, b = ours[f"{key}_1t"], theirs[f"openspiel_{key}_1t"]
    print(f"{label}, 1 thread: engine bench {a / 1e6:.2f}M iterations/s, "
          f"OpenSpiel's MCTS {b / 1e3:.1f}k: {a / b:.0f} times as many")
PY
