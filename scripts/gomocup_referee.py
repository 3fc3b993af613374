#!/usr/bin/env python3
"""A second brain as referee of our Gomoku moves (issue 60's "find why it loses").

Positions are taken from `engine match --json` records of games against a brain (the side to
move ours); each is given to our brain and to the referee, both Gomocup brains driven by the
pbrain protocol (RESTART, BOARD ... DONE), 15x15 freestyle, one turn's time each
(`--turn-ms`). The referee's `MESSAGE ... ev E` (PentaZen's format: a number for the side to
move, `+vN` / `-vN` a win or loss in N plies, `ev 0` at one node for a forced move, which is
played and the value read after it) rates the position before our move (its best) and after
it (from the opponent's side); the loss of our move is the sum. Its verdicts are cached in a
JSON file, so a second player over the same positions asks it only about new moves.

  gomocup_referee.py positions --from 7 --to 27 --count 400 MATCH.json ... > candidates.json
  gomocup_referee.py quiet --referee PZ --count 150 candidates.json > positions.json
  gomocup_referee.py judge --referee PZ --brain "target/release/pbrain-engine --player best" \
      positions.json

`quiet` keeps the positions whose value by the referee is undecided and within +-400.
`judge` prints, over the positions where neither value is decided, the mean loss (a gain
counted as 0) with its 95% interval and how many moves lost more than 50; and how many moves
the referee answered with a forced win of its own (`walked into a loss`), and how often the
two brains chose the same move. Nothing here is a brain of ours: the referee is any Gomocup
brain, built outside the repository.
"""

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys

SIZE = 15
DECIDED = 2000


class Brain:
    """A Gomocup brain asked for one position at a time."""

    def __init__(self, command, turn_ms):
        try:
            self.proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as e:
            sys.exit(f"brain {' '.join(command)}: cannot start: {e.strerror}")
        self.send(f"START {SIZE}")
        self.read_until(r"^OK$")
        for line in (f"INFO timeout_turn {turn_ms}", "INFO timeout_match 100000000",
                     "INFO time_left 100000000", "INFO rule 0"):
            self.send(line)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, pattern):
        """The first line matching `pattern`, and the last MESSAGE with an `ev` before it."""
        message = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit(f"brain {self.proc.args[0]} stopped answering")
            line = line.strip()
            if line.startswith("ERROR"):
                sys.exit(f"brain {self.proc.args[0]}: {line}")
            if line.startswith("MESSAGE") and " ev " in line:
                message = line
            if re.match(pattern, line):
                return line, message

    def think(self, moves):
        """The brain's move (an id, as the match records number points) and its ev text for
        the position after `moves` (black first)."""
        self.send("RESTART")
        self.read_until(r"^OK$")
        self.send("BOARD")
        for i, m in enumerate(moves):
            own = (len(moves) - i) % 2 == 0
            self.send(f"{m % SIZE},{m // SIZE},{1 if own else 2}")
        self.send("DONE")
        answer, message = self.read_until(r"^\d+,\d+$")
        x, y = map(int, answer.split(","))
        found = re.search(r" ev (\S+)", message) if message else None
        return y * SIZE + x, found.group(1) if found else None

    def close(self):
        try:
            self.send("END")
            self.proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def value(ev):
    """An ev as a number for the side to move: +vN (a win in N plies) as 3000 - N."""
    if ev is None:
        return None
    if ev.startswith("+v"):
        return 3000 - int(ev[2:])
    if ev.startswith("-v"):
        return -3000 + int(ev[2:])
    return int(ev)


class Referee:
    def __init__(self, command, turn_ms, cache_path):
        self.command, self.turn_ms, self.cache_path = command, turn_ms, cache_path
        self.brain = None
        self.cache = {}
        if os.path.exists(cache_path):
            with open(cache_path) as f:
                self.cache = json.load(f)

    def raw(self, moves):
        key = " ".join(map(str, moves))
        if key not in self.cache:
            if self.brain is None:
                self.brain = Brain(self.command, self.turn_ms)
            self.cache[key] = list(self.brain.think(moves))
        return self.cache[key]

    def judge(self, moves, chain=0):
        """The referee's move and value (side to move's view); a forced move (its ev 0 at one
        node) is played and the value read after it."""
        move, ev = self.raw(moves)
        if ev == "0" and chain < 12 and move not in moves:
            _, after = self.judge(moves + [move], chain + 1)
            return move, None if after is None else -after
        return move, value(ev)

    def save(self):
        with open(self.cache_path, "w") as f:
            json.dump(self.cache, f)
        if self.brain:
            self.brain.close()


def positions(args):
    out = []
    for path in args.matches:
        with open(path) as f:
            match = json.load(f)
        for game in match["games"]:
            ours_black = game["a_seat"] == "P1"
            moves = game["report"]["moves"]
            for k in range(args.first, min(args.last, len(moves) - 1)):
                if (k % 2 == 0) == ours_black:
                    out.append(moves[:k])
    random.Random(args.seed).shuffle(out)
    json.dump(out[: args.count], sys.stdout)


def quiet(args):
    referee = Referee(args.referee.split(), args.turn_ms, args.cache)
    kept = []
    with open(args.candidates) as f:
        for moves in json.load(f):
            _, ev = referee.raw(moves)
            v = value(ev)
            if ev != "0" and v is not None and abs(v) <= 400:
                kept.append(moves)
                if len(kept) >= args.count:
                    break
    referee.save()
    json.dump(kept, sys.stdout)


def judge(args):
    referee = Referee(args.referee.split(), args.turn_ms, args.cache)
    ours = Brain(args.brain.split(), args.turn_ms)
    with open(args.positions) as f:
        todo = json.load(f)
    losses, walked, same = [], 0, 0
    for moves in todo:
        move, _ = ours.think(moves)
        best, before = referee.judge(moves)
        _, after = referee.judge(moves + [move])
        same += move == best
        if before is None or after is None:
            continue
        if abs(before) > DECIDED or abs(after) > DECIDED:
            walked += before > -DECIDED and after > DECIDED
            continue
        losses.append(max(0, before + after))
    ours.close()
    referee.save()
    half = 1.96 * statistics.stdev(losses) / len(losses) ** 0.5
    print(f"{args.brain}: {len(todo)} positions; undecided {len(losses)}: mean loss "
          f"{statistics.mean(losses):.1f} +-{half:.1f}, over 50: {sum(x > 50 for x in losses)}; "
          f"walked into a loss {walked}; the referee's move {same} ({100 * same / len(todo):.0f}%)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("positions", help="positions from match records, ours to move")
    p.add_argument("--from", dest="first", type=int, default=7, help="fewest stones (default 7)")
    p.add_argument("--to", dest="last", type=int, default=27, help="stones below this (default 27)")
    p.add_argument("--count", type=int, default=400, help="positions drawn (default 400)")
    p.add_argument("--seed", type=int, default=5, help="the draw's seed (default 5)")
    p.add_argument("matches", nargs="+", help="engine match --json files")
    for name, help_text in (("quiet", "keep the positions the referee finds undecided"),
                            ("judge", "rate a brain's moves by the referee")):
        q = sub.add_parser(name, help=help_text)
        q.add_argument("--referee", required=True, help="the referee brain's command line")
        q.add_argument("--turn-ms", type=int, default=1000, help="each brain's turn (default 1000)")
        q.add_argument("--cache", default="referee-cache.json",
                       help="the referee's verdicts, read and added to (default referee-cache.json)")
        if name == "quiet":
            q.add_argument("--count", type=int, default=150, help="positions kept (default 150)")
            q.add_argument("candidates", help="a positions file")
        else:
            q.add_argument("--brain", required=True, help="our brain's command line")
            q.add_argument("positions", help="a positions file")
    args = parser.parse_args()
    try:
        run = {"positions": positions, "quiet": quiet, "judge": judge}[args.command]
        run(args)
    except (OSError, json.JSONDecodeError, KeyError) as e:
        sys.exit(f"gomocup_referee.py {args.command}: {e}")


if __name__ == "__main__":
    main()
