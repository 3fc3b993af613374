"""Balanced Gomoku openings for matches between evaluations: random 4-stone openings of the
central 9x9 (scripts/gomoku_openings.py N SEED) kept where `best` (pvs with the fitted
evaluation), searching 150 ms, scores the side to move within +-120 (a chance to win of about
0.43 to 0.57) and finds no forced win. Random openings give black (to move) most games, so
most seat-swapped pairs split one-one whatever the players and a match measures little; these
leave the evaluations something to decide. The search is timed, so a rerun keeps a slightly
different set: the shipped file is configs/gomoku-balanced-openings.txt.

Usage (after cargo build --release -p engine):
  python3 scripts/gomoku_balanced_openings.py [KEEP] [CANDIDATES] [SEED] > configs/gomoku-balanced-openings.txt
(the shipped file: KEEP 150 of CANDIDATES 1500, SEED 8001; 145 were found)
"""

import json
import subprocess
import sys


def main():
    keep = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    candidates = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 8001
    lines = subprocess.run(
        ["python3", "scripts/gomoku_openings.py", str(candidates), str(seed)],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()[1:]
    kept = []
    for moves in lines:
        out = subprocess.run(
            ["target/release/engine", "analyse", "--game", "gomoku", "--moves", moves,
             "--time-ms", "150", "--json"],
            capture_output=True, text=True,
        )
        try:
            note = json.loads(out.stdout).get("note") or ""
        except json.JSONDecodeError:
            continue
        if not note.startswith("search"):
            continue  # a five, a block or a proven win: not balanced
        score = int(note.split(" ev ")[1].split()[0])
        if abs(score) <= 120:
            kept.append(moves)
            if len(kept) >= keep:
                break
    print(f"# {len(kept)} balanced 4-stone openings (|pvs score| <= 120 at 150 ms) of "
          f"{candidates} candidates: python3 scripts/gomoku_balanced_openings.py {keep} {candidates} {seed}")
    print("\n".join(kept))


if __name__ == "__main__":
    main()
