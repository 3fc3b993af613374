"""Random Gomoku openings for self-play: N lines of 4 stones (black, white, black, white) on
distinct points of the central 9x9 of the 15x15 board (columns d-l, rows 4-12), no two lines
with the same stones of each colour, in `engine match --positions` notation.

Usage: python3 scripts/gomoku_openings.py [N] [SEED] > configs/gomoku-selfplay-openings.txt
(the shipped file: N = 600, SEED = 62)
"""

import random
import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 62
    rng = random.Random(seed)
    seen, lines = set(), []
    while len(lines) < n:
        order = []  # a list, not a set: a set of strings iterates in a per-process order
        while len(order) < 4:
            point = (rng.choice("defghijkl"), rng.randint(4, 12))
            if point not in order:
                order.append(point)
        key = (frozenset(order[0::2]), frozenset(order[1::2]))
        if key in seen:
            continue
        seen.add(key)
        lines.append(" ".join(f"{c}{r}" for c, r in order))
    print(f"# {n} random 4-stone openings of the central 9x9: "
          f"python3 scripts/gomoku_openings.py {n} {seed}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
