#!/usr/bin/env python3
"""Draws docs/gomoku-curve.svg from docs/gomoku-curve.csv: a net's score against the data it
was trained on (training positions on a log scale), one line per architecture and axis.

    python3 scripts/gomoku_curve_plot.py [CSV] [SVG]

The CSV has a header and the columns series,positions,score,low,high (low and high: the 95%
interval, drawn as a bar). No third-party package: the SVG is written by hand.
"""
import csv
import math
import sys

CSV = sys.argv[1] if len(sys.argv) > 1 else "docs/gomoku-curve.csv"
SVG = sys.argv[2] if len(sys.argv) > 2 else "docs/gomoku-curve.svg"
W, H = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 70, 200, 30, 60
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]


def main():
    rows = list(csv.DictReader(open(CSV)))
    series = {}
    for r in rows:
        series.setdefault(r["series"], []).append(
            (float(r["positions"]), float(r["score"]), float(r["low"]), float(r["high"]))
        )
    xs = [p for pts in series.values() for p, *_ in pts]
    x_lo, x_hi = math.log2(min(xs)) - 0.3, math.log2(max(xs)) + 0.3
    y_lo, y_hi = 0.3, 1.0

    def px(x):
        return LEFT + (math.log2(x) - x_lo) / (x_hi - x_lo) * (W - LEFT - RIGHT)

    def py(y):
        return TOP + (y_hi - y) / (y_hi - y_lo) * (H - TOP - BOTTOM)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
    ]
    for y in [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]:
        dash = ' stroke-dasharray="4 3"' if y == 0.5 else ""
        out.append(
            f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{py(y):.1f}" y2="{py(y):.1f}" '
            f'stroke="#ccc"{dash}/>'
        )
        out.append(f'<text x="{LEFT - 8}" y="{py(y) + 4:.1f}" text-anchor="end">{y:.1f}</text>')
    k = math.ceil(x_lo)
    while k <= x_hi:
        x = 2**k
        label = f"{x / 1000:.0f}k" if x < 1e6 else f"{x / 1e6:.1f}M"
        out.append(
            f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{TOP}" y2="{H - BOTTOM}" stroke="#eee"/>'
        )
        out.append(f'<text x="{px(x):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{label}</text>')
        k += 1
    out.append(
        f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 15}" text-anchor="middle">'
        "training positions (log scale)</text>"
    )
    out.append(
        f'<text x="18" y="{(TOP + H - BOTTOM) / 2}" text-anchor="middle" '
        f'transform="rotate(-90 18 {(TOP + H - BOTTOM) / 2})">score</text>'
    )
    for i, (name, pts) in enumerate(series.items()):
        colour = COLOURS[i % len(COLOURS)]
        pts.sort()
        path = " ".join(f"{px(x):.1f},{py(s):.1f}" for x, s, _, _ in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, s, lo, hi in pts:
            out.append(
                f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{py(lo):.1f}" y2="{py(hi):.1f}" '
                f'stroke="{colour}"/>'
            )
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(s):.1f}" r="3.5" fill="{colour}"/>')
        y = TOP + 14 + 18 * i
        out.append(
            f'<line x1="{W - RIGHT + 12}" x2="{W - RIGHT + 32}" y1="{y - 4}" y2="{y - 4}" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        out.append(f'<text x="{W - RIGHT + 38}" y="{y}">{name}</text>')
    out.append("</svg>")
    open(SVG, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
