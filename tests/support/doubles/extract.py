"""A scripted extractor for tests: replays given entities and relations.

Entities and relations name the sentence they belong to by a substring of its text (``in_``),
or by index, so a test reads like the document it describes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphrag.language.sentences import Sentence
from graphrag.model import ExtractedEntity, ExtractedRelation, ExtractionResult, ExtractionStatus


@dataclass(frozen=True)
class ScriptEntity:
    """An entity the script puts in the sentence that contains ``in_`` (or has that index)."""

    name: str
    in_: str | int  # a substring of the sentence, or its index
    type: str = "concept"
    description: str = ""


@dataclass(frozen=True)
class ScriptRelation:
    """A relation the script puts in the sentence that contains ``in_`` (or has that index)."""

    source: str
    type: str
    target: str
    in_: str | int
    description: str = ""


def _find(sentences: Sequence[Sentence], where: str | int) -> int | None:
    if isinstance(where, int):
        return where if 0 <= where < len(sentences) else None
    for s in sentences:
        if where in s.text:
            return s.index
    return None


class ScriptedExtractor:
    """Replays a script. ``fail`` makes it report an outcome instead (model_unavailable...)."""

    name = "scripted"

    def __init__(
        self,
        entities: Sequence[ScriptEntity] = (),
        relations: Sequence[ScriptRelation] = (),
        fail: ExtractionStatus | None = None,
        error: str = "scripted failure",
        on_extract: Callable[[Sequence[Sentence]], None] | None = None,
    ) -> None:
        self.entities = tuple(entities)
        self.relations = tuple(relations)
        self.fail = fail
        self.error = error
        self.on_extract = on_extract
        self.calls = 0

    def extract(self, sentences: Sequence[Sentence]) -> ExtractionResult:
        """Apply the script to the sentences, or fail as configured; counts its calls."""
        self.calls += 1
        if self.on_extract:
            self.on_extract(sentences)
        if self.fail is not None:
            return ExtractionResult(self.fail, self.name, error=self.error)
        ents = []
        for e in self.entities:
            i = _find(sentences, e.in_)
            if i is not None:
                ents.append(ExtractedEntity(e.name, e.type, e.description or sentences[i].text, i))
        rels = []
        for r in self.relations:
            i = _find(sentences, r.in_)
            if i is not None:
                rels.append(ExtractedRelation(r.source, r.target, r.type, r.description or sentences[i].text, i))
        status = ExtractionStatus.OK if ents or rels else ExtractionStatus.NOTHING_FOUND
        return ExtractionResult(status, self.name, tuple(ents), tuple(rels))
