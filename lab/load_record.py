"""The record check of ``graphrag bench load --browser``: what the pages confirmed against what the store holds.

A page confirms a verdict with its "Recorded …" banner and an undo with its "… undone" notice; the benchmark
notes each one. The store must then hold every confirmed verdict exactly once, every undo as one correction row,
nothing else for those reviewers, and for each of those rows exactly one ``verdict`` audit row that names it and
agrees with it (claim, label, reviewer). Pure logic on plain records, so it is tested without a browser.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from graphrag.model import AuditEvent, Verdict


@dataclass(frozen=True)
class Confirmed:
    """One action a page confirmed: a verdict (``label`` its value, e.g. "supported") or an undo (``label`` None)."""

    reviewer: str
    answer_id: int
    claim_index: int
    label: str | None


@dataclass
class RecordCheck:
    """What the check found; ``ok`` when nothing is missing, doubled, unconfirmed or disagreeing."""

    verdicts_confirmed: int = 0
    undos_confirmed: int = 0
    verdict_rows: int = 0
    correction_rows: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the record holds exactly what the pages confirmed."""
        return not self.problems


def _diff(what: str, confirmed: Counter[tuple[object, ...]], stored: Counter[tuple[object, ...]]) -> list[str]:
    missing, extra = confirmed - stored, stored - confirmed
    return ([f"{what} confirmed but not stored (or stored fewer times): {sorted(missing.items())[:5]}"]
            if missing else []) + ([f"{what} stored more often than confirmed: {sorted(extra.items())[:5]}"]
                                   if extra else [])


def check_record(confirmed: Iterable[Confirmed], verdicts: Iterable[Verdict], audit: Iterable[AuditEvent],
                 reviewers: Iterable[str]) -> RecordCheck:
    """Compare the confirmed actions of ``reviewers`` with the store's verdict rows and audit log."""
    names = set(reviewers)
    acts = list(confirmed)
    rows = {int(v.id or -1): v for v in verdicts if v.reviewer in names}
    by_row: dict[int, list[AuditEvent]] = {}
    for e in audit:
        if e.event == "verdict" and e.detail.get("reviewer") in names:
            by_row.setdefault(int(e.detail.get("verdict_id", -1)), []).append(e)
    check = RecordCheck(verdicts_confirmed=sum(a.label is not None for a in acts),
                        undos_confirmed=sum(a.label is None for a in acts))
    for vid in sorted(set(by_row) - set(rows)):
        check.problems.append(f"audit row(s) for verdict #{vid}, which the store does not hold")
    stored_verdicts: Counter[tuple[object, ...]] = Counter()
    stored_undos: Counter[tuple[object, ...]] = Counter()
    for vid, v in rows.items():
        events = by_row.get(vid, [])
        if len(events) != 1:
            check.problems.append(f"verdict #{vid} has {len(events)} audit rows, not one")
            continue
        d = events[0].detail
        if (d.get("answer_id"), d.get("claim_index"), d.get("verdict"), d.get("reviewer")) != (
                v.answer_id, v.claim_index, v.verdict.value, v.reviewer):
            check.problems.append(f"verdict #{vid} disagrees with its audit row: {d}")
        if "corrects" in d:  # an undo's row: the verdict before it again, or a retraction
            stored_undos[(v.reviewer, v.answer_id, v.claim_index)] += 1
        else:
            stored_verdicts[(v.reviewer, v.answer_id, v.claim_index, v.verdict.value)] += 1
    check.verdict_rows, check.correction_rows = sum(stored_verdicts.values()), sum(stored_undos.values())
    check.problems += _diff("verdict", Counter((a.reviewer, a.answer_id, a.claim_index, a.label)
                                               for a in acts if a.label is not None), stored_verdicts)
    check.problems += _diff("undo", Counter((a.reviewer, a.answer_id, a.claim_index)
                                            for a in acts if a.label is None), stored_undos)
    return check
