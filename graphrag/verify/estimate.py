"""How much of what nobody reviewed is likely unsupported: a stratified random sample, judged by reviewers.

The method is textbook survey sampling (Cochran, *Sampling Techniques*, 3rd ed., 1977, ch. 5): the claims with
no verdict are split into strata (the cited document, by the automatic check's band), a simple random sample is
drawn without replacement in each stratum (proportional allocation, at least two per stratum), reviewers judge the
sampled claims in their ordinary queue, and the share judged unsupported is the stratified proportion
``p = sum_h W_h p_h`` with ``W_h = N_h / N``. Its 95% interval is Wilson's score interval on the design's effective
sample size ``n_eff = p (1 - p) / Var(p)`` (Korn and Graubard, "Confidence intervals for proportions with small
expected number of positive counts estimated from survey data", *Survey Methodology* 24, 1998), with
``Var(p) = sum_h W_h^2 (1 - n_h/N_h) p_h (1 - p_h) / (n_h - 1)`` and ``n_eff`` capped at the number judged.

The estimate describes the claims that had no verdict when the sample was drawn; "too small to say" until at
least ``MIN_JUDGED`` sampled claims are settled and every stratum has one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

MIN_JUDGED = 20  # settled sample claims below which the estimate says it is too small to say
DEFAULT_SAMPLE = 60  # claims drawn when no size is asked for
MIN_PER_STRATUM = 2  # the least a stratum gets (its variance needs two)
Z95 = 1.959963984540054
K = TypeVar("K")


def band(score: float | None) -> str:
    """The automatic check's band for a claim's support score."""
    if score is None:
        return "not checked"
    return "check below 0.5" if score < 0.5 else "check 0.5 or above"


def allocate(populations: Mapping[str, int], n: int) -> dict[str, int]:
    """How many to draw from each stratum: proportional to its size (largest remainders), at least
    ``MIN_PER_STRATUM`` (or all of a smaller stratum), never more than it holds."""
    total = sum(populations.values())
    if total <= n:
        return dict(populations)
    out = {h: min(N, MIN_PER_STRATUM) for h, N in populations.items()}
    left = n - sum(out.values())
    if left <= 0:
        return out
    room = {h: N - out[h] for h, N in populations.items()}
    spare = sum(room.values())
    shares = {h: left * r / spare for h, r in room.items()} if spare else {}
    for h, s in shares.items():
        out[h] += int(s)
    rest = n - sum(out.values())
    for h in sorted(shares, key=lambda h: (-(shares[h] - int(shares[h])), h))[:max(rest, 0)]:
        out[h] += 1
    return {h: min(k, populations[h]) for h, k in out.items()}


def draw(units: Mapping[str, Sequence[K]], n: int, rng: random.Random) -> dict[str, list[K]]:
    """A stratified simple random sample of about ``n`` of ``units`` (stratum -> its units), without replacement."""
    sizes = allocate({h: len(u) for h, u in units.items()}, n)
    return {h: rng.sample(list(units[h]), sizes[h]) for h in sorted(units)}


@dataclass(frozen=True)
class StratumCount:
    """One stratum: how many claims it held when drawn, how many were sampled, settled and judged unsupported."""

    name: str
    population: int
    sampled: int
    judged: int = 0
    unsupported: int = 0


@dataclass(frozen=True)
class Estimate:
    """The estimated share of claims without a verdict a reviewer would judge unsupported, with its 95% interval
    (None, with ``reason``, when the sample is too small to say)."""

    unsupported_share: float | None
    ci_low: float | None
    ci_high: float | None
    population: int
    sampled: int
    judged: int
    strata: tuple[StratumCount, ...]
    reason: str = ""  # why there is no estimate
    drawn_at: str | None = None
    labels: tuple[str, ...] = ()  # the access labels whose claims the sample covers (one sample per label set)

    @property
    def too_small(self) -> bool:
        """Whether the sample is too small to say anything."""
        return self.unsupported_share is None

    def to_json(self) -> dict[str, Any]:
        """The estimate as JSON-ready data."""
        def num(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {"unsupported_share": num(self.unsupported_share), "ci_low": num(self.ci_low),
                "ci_high": num(self.ci_high), "confidence": 0.95, "population": self.population,
                "sampled": self.sampled, "judged": self.judged, "too_small": self.too_small, "reason": self.reason,
                "drawn_at": self.drawn_at, "labels": list(self.labels), "method": "stratified proportion, Wilson interval on the effective sample "
                                                    "size (Korn and Graubard 1998)",
                "strata": [{"stratum": s.name, "population": s.population, "sampled": s.sampled, "judged": s.judged,
                            "unsupported": s.unsupported} for s in self.strata]}


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``p`` observed on (an effective) ``n``."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def stratified(strata: Sequence[StratumCount], drawn_at: str | None = None) -> Estimate:
    """The stratified proportion judged unsupported and its interval, from each stratum's settled sample claims."""
    population = sum(s.population for s in strata)
    sampled = sum(s.sampled for s in strata)
    judged = sum(s.judged for s in strata)

    def unsaid(reason: str) -> Estimate:
        return Estimate(None, None, None, population, sampled, judged, tuple(strata), reason, drawn_at)

    if population == 0:
        return unsaid("no claim was without a verdict when the sample was drawn")
    if judged < MIN_JUDGED:
        return unsaid(f"too small to say: {judged} sampled claims settled, {MIN_JUDGED} needed")
    empty = [s.name for s in strata if s.population and not s.judged]
    if empty:
        return unsaid("too small to say: no sampled claim settled yet in " + ", ".join(empty))
    p = sum(s.population / population * s.unsupported / s.judged for s in strata if s.population)
    var = 0.0
    for s in strata:
        if not s.population:
            continue
        w, ph = s.population / population, s.unsupported / s.judged
        fpc = 1 - s.judged / s.population
        # one settled claim gives no within-stratum variance: the pooled share stands in for it
        var += w * w * fpc * (ph * (1 - ph) / (s.judged - 1) if s.judged > 1 else p * (1 - p))
    # capped at what simple random sampling of ``judged`` from this population would give (finite population)
    cap = judged / (1 - judged / population) if judged < population else float(judged)
    n_eff = min(cap, p * (1 - p) / var) if var > 0 else float(judged)
    low, high = wilson(p, n_eff)
    return Estimate(p, low, high, population, sampled, judged, tuple(strata), drawn_at=drawn_at)
