"""Draw the risk-coverage curve of the reader's no-answer score from a panel, as an SVG for docs/.

    python -m lab.plot_risk_coverage PANEL.json --out docs/risk_coverage.svg

PANEL.json is the output of ``graphrag eval answers --json --detail``. Every set with abstention rows gets one
curve: its questions answered in order of the reader's probability, from the most probable; at each coverage (the
share answered) the risk is the share of the answered that are wrong (unanswerable, or answerable and not right).
The dot on each curve is the shipped threshold's operating point. A small SVG writer, so no plotting library is
needed.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from lab.evaluate.abstention import risk_coverage

WIDTH, HEIGHT = 560, 380
LEFT, RIGHT, TOP, BOTTOM = 60, 170, 20, 50
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")


def curves(panel: dict[str, Any]) -> dict[str, tuple[list[tuple[float, float]], tuple[float, float] | None]]:
    """Per set with abstention rows: its risk-coverage curve and its operating point (coverage, risk)."""
    out = {}
    for name, figures in panel.items():
        rows = (figures.get("abstention") or {}).get("detail") if isinstance(figures, dict) else None
        if not rows:
            continue
        answered = [r for r in rows if r["answered"]]
        point = ((len(answered) / len(rows),
                  sum(not (r["kind"] == "answerable" and r["right"]) for r in answered) / len(answered))
                 if answered else None)
        out[name] = (risk_coverage(rows), point)
    return out


def _x(coverage: float) -> float:
    return LEFT + coverage * (WIDTH - LEFT - RIGHT)


def _y(risk: float) -> float:
    return TOP + (1 - risk) * (HEIGHT - TOP - BOTTOM)


def svg(drawn: Mapping[str, tuple[Sequence[tuple[float, float]], tuple[float, float] | None]], title: str) -> str:
    """The curves as an SVG document: coverage on x, risk on y, both 0 to 1; a legend on the right."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'font-family="sans-serif" font-size="11">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
             f'<text x="{LEFT}" y="{TOP - 6}" font-size="12">{escape(title)}</text>']
    for i in range(6):
        v = i / 5
        parts.append(f'<line x1="{_x(0):.1f}" y1="{_y(v):.1f}" x2="{_x(1):.1f}" y2="{_y(v):.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{_y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
        parts.append(f'<line x1="{_x(v):.1f}" y1="{_y(0):.1f}" x2="{_x(v):.1f}" y2="{_y(1):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{_x(v):.1f}" y="{_y(0) + 16:.1f}" text-anchor="middle">{v:.1f}</text>')
    parts.append(f'<rect x="{_x(0):.1f}" y="{_y(1):.1f}" width="{_x(1) - _x(0):.1f}" height="{_y(0) - _y(1):.1f}" '
                 f'fill="none" stroke="#333"/>')
    parts.append(f'<text x="{(_x(0) + _x(1)) / 2:.1f}" y="{HEIGHT - 12}" text-anchor="middle">coverage (share of '
                 f'questions answered)</text>')
    parts.append(f'<text transform="translate(16 {(_y(0) + _y(1)) / 2:.1f}) rotate(-90)" text-anchor="middle">'
                 f'risk (share of answers wrong)</text>')
    for n, (name, (curve, point)) in enumerate(drawn.items()):
        colour = COLOURS[n % len(COLOURS)]
        points = " ".join(f"{_x(c):.1f},{_y(r):.1f}" for c, r in curve)
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="1.6"/>')
        if point is not None:
            parts.append(f'<circle cx="{_x(point[0]):.1f}" cy="{_y(point[1]):.1f}" r="4" fill="{colour}"/>')
        ly = TOP + 14 + 18 * n
        parts.append(f'<line x1="{WIDTH - RIGHT + 12}" y1="{ly}" x2="{WIDTH - RIGHT + 32}" y2="{ly}" '
                     f'stroke="{colour}" stroke-width="2"/>')
        parts.append(f'<text x="{WIDTH - RIGHT + 38}" y="{ly + 4}">{escape(name)}</text>')
    ly = TOP + 14 + 18 * len(drawn)
    parts.append(f'<circle cx="{WIDTH - RIGHT + 22}" cy="{ly}" r="4" fill="#555"/>')
    parts.append(f'<text x="{WIDTH - RIGHT + 38}" y="{ly + 4}">shipped threshold</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Read the panel, write the SVG."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("panel", help="the JSON of `graphrag eval answers --json --detail`")
    ap.add_argument("--out", default="docs/risk_coverage.svg")
    ap.add_argument("--title", default="Risk-coverage of the reader's no-answer score")
    args = ap.parse_args(argv)
    panel = json.loads(Path(args.panel).read_text(encoding="utf-8"))
    drawn = curves(panel)
    if not drawn:
        raise SystemExit(f"{args.panel} holds no abstention rows: run the panel with --json --detail")
    Path(args.out).write_text(svg(drawn, args.title), encoding="utf-8")
    print(f"wrote {args.out}: " + ", ".join(drawn))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
