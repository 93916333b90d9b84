"""The estimate samples in force: one per set of access labels, the latest ``estimate-sample`` audit row drawn with
exactly that set, which names the claims drawn for the estimate of what nobody reviewed (graphrag.verify.sampling
draws it; the review queue puts its claims first). Read here, below both, so that neither imports the other.

A sample describes the claims its drawer's labels showed, so it is the estimate of that label set only: an admin
holding ``public`` and ``internal`` never reads the estimate of a sample a ``public`` admin drew (it would describe
the public claims alone), and a ``public`` admin never reads theirs (it names claims they may not see).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphrag.store import Store
from graphrag.store.audit import AuditKind

Key = tuple[int, int]  # (answer id, claim index)
LabelSet = tuple[str, ...]  # sorted, each label once


def label_set(labels: Iterable[str]) -> LabelSet:
    """``labels`` as a sample names them: sorted, each once."""
    return tuple(sorted(set(labels)))


def samples_in_force(store: Store) -> dict[LabelSet, dict[str, Any]]:
    """The sample in force of each label set a sample was drawn with: its audit row's detail and time."""
    out: dict[LabelSet, dict[str, Any]] = {}
    for row in store.audit_of(AuditKind.ESTIMATE_SAMPLE):  # oldest first: a later draw replaces an earlier one
        labels = label_set(str(x) for x in row.detail.get("labels", ()))
        out[labels] = {**row.detail, "labels": list(labels), "at": row.at}
    return out


def sample_row(store: Store, labels: Iterable[str]) -> dict[str, Any] | None:
    """The sample in force for exactly the label set ``labels`` (None when none was drawn with it)."""
    return samples_in_force(store).get(label_set(labels))


def sample_keys(store: Store, labels: Iterable[str]) -> frozenset[Key]:
    """The claims a reviewer holding ``labels`` is asked to judge first: those of every sample in force drawn with
    labels they all hold (their own set's, and a narrower set's, whose claims they can see too)."""
    held = set(labels)
    return frozenset((int(a), int(i)) for drawn, row in samples_in_force(store).items() if set(drawn) <= held
                     for s in row["strata"] for a, i in s["claims"])
