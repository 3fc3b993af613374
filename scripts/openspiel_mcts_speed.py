"""OpenSpiel's C++ MCTS (pyspiel.MCTSBot with random rollouts) on 5x5 Dots and Boxes: iterations
a second from the empty board and from the 40-edge position `engine bench` uses, on one thread.

The reference beside `engine bench`'s figures (scripts/speed-reference.sh runs both): absolute
speeds move with the machine, their ratio much less.

Usage: python3 openspiel_mcts_speed.py [SIMULATIONS] [REPEATS]   (default 100000 3)
Prints one JSON object.
"""

import json
import math
import platform
import sys
import time

import pyspiel

# The 40 edges of `engine bench`'s position (EDGES40_MOVES in engine/src/games/dots_and_boxes/bench.rs), as
# OpenSpiel's action ids.
EDGES40 = [11, 35, 1, 51, 39, 30, 19, 16, 58, 57, 3, 24, 56, 15, 37, 14, 36, 50, 7, 31,
           2, 26, 4, 42, 40, 54, 20, 18, 45, 38, 6, 59, 29, 32, 12, 33, 53, 52, 23, 28]


def speed(game, moves, simulations, repeats, seed):
    """Iterations a second over `repeats` searches of `simulations` each, a fresh bot each."""
    total, seconds = 0, 0.0
    for r in range(repeats):
        state = game.new_initial_state()
        for m in moves:
            state.apply_action(m)
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed + r)
        bot = pyspiel.MCTSBot(game, evaluator, math.sqrt(2), simulations,
                              4096, False, seed + r, False)
        started = time.perf_counter()
        bot.step(state)
        seconds += time.perf_counter() - started
        total += simulations
    return total / seconds


def main():
    simulations = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    game = pyspiel.load_game("dots_and_boxes(num_rows=5,num_cols=5)")
    print(json.dumps({
        "openspiel_empty_1t": round(speed(game, [], simulations, repeats, 1), 1),
        "openspiel_edges40_1t": round(speed(game, EDGES40, simulations, repeats, 1), 1),
        "simulations": simulations,
        "repeats": repeats,
        "python": platform.python_version(),
    }))


if __name__ == "__main__":
    main()
