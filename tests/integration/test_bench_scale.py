"""bench scale's corpus copies: distinct ids, new text, copy 0 unchanged."""

from __future__ import annotations

from graphrag.ingest.documents import Source
from lab.bench_scale import copies, edited, vm_hwm_mb


def test_copies_are_new_documents_with_light_edits() -> None:
    base = [Source("00000:Oslo", "Oslo", "Oslo hosted the Olympics in 1952. It is the capital of Norway."),
            Source("00001:Bergen", "Bergen", "Bergen lies on the west coast.")]
    out = list(copies(base, 0, 3))
    assert [s.id for s in out[:2]] == ["00000:Oslo", "00001:Bergen"] and out[0] == base[0]
    assert len({s.id for s in out}) == 6
    assert len({s.sha256 for s in out if s.title.startswith("Oslo")}) == 3, "every copy is new text"
    assert edited(base[0].text, 1) == "It is the capital of Norway. Oslo hosted the Olympics in 1953."
    assert list(copies(base, 1, 2))[1].text == "Bergen lies on the west coast."  # one sentence: rotation is a no-op


def test_peak_memory_is_read_from_proc() -> None:
    assert vm_hwm_mb() > 1
