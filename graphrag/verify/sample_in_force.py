"""The estimate sample in force: the latest ``estimate-sample`` audit row, which names the claims drawn for the
estimate of what nobody reviewed (graphrag.verify.sampling draws it; the review queue puts its claims first). Read
here, below both, so that neither imports the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphrag.store import Store
from graphrag.store.audit import AuditKind

Key = tuple[int, int]  # (answer id, claim index)


def sample_row(store: Store, labels: Iterable[str]) -> dict[str, Any] | None:
    """The sample in force, if the viewer holding ``labels`` may read it (they hold every label it was drawn with)."""
    row = store.latest_audit(AuditKind.ESTIMATE_SAMPLE)
    if row is None or not set(row.detail.get("labels", ())) <= set(labels):
        return None
    return {**row.detail, "at": row.at}


def sample_keys(store: Store, labels: Iterable[str]) -> frozenset[Key]:
    """The claims of the estimate sample in force that a viewer holding ``labels`` may read of."""
    row = sample_row(store, labels)
    if row is None:
        return frozenset()
    return frozenset((int(a), int(i)) for s in row["strata"] for a, i in s["claims"])
