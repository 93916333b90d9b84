"""How many of a store's entity names are fragments a reader would not call a name:
``python -m lab.evaluate.entity_quality --store PATH [--json] [--limit N] [--examples N]``.

A lab script, not a ``graphrag`` command: it measures the extractor for whoever changes it (before and after,
on the sample corpus and MuSiQue), as the other measurements here do; a reader of the graph has no use for it.

Each entity is read against the sentences it was found in (spaCy's parse of them, independent of the extractor
that made the entity, so one store of any extractor and the same store before and after a change are measured
alike). A name is a fragment when it

- **ends in a cut word**: its last word is the beginning of a word its sentence writes, yet neither that word,
  its singular nor a word the lexicon knows ("Larkspur notifie" from "Larkspur notifies");
- **holds a verb**: one of its words is a finite verb in the sentence ("Larkspur supports SAML");
- **spans a clause**: it holds a subject together with the word the subject belongs to.

A name of one word is never a verb or a clause here, and titles (works, events, laws: "I Heard You Paint
Houses") may hold both.

The figures: entities read, fragments (each kind, and any), the entity types, and examples of each kind.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from graphrag.language.sentences import singularise
from graphrag.store import Store

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

KINDS = ("cut word", "verb", "clause")
TITLE_TYPES = frozenset({"work_of_art", "event", "law"})  # names that may hold a clause: titles
_FINITE_VERB_TAGS = frozenset({"VBZ", "VBP", "VBD"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})


def _words(text: str) -> list[str]:
    return [w for w in "".join(c.lower() if c.isalnum() else " " for c in text).split() if w]


def _known_words() -> frozenset[str]:
    """Every word the pipeline's lemmatizer tables list (nouns, verbs, adjectives, adverbs)."""
    from graphrag.ingest.extract.rules import load_spacy

    lookups = load_spacy().get_pipe("lemmatizer").lookups  # type: ignore[attr-defined]
    words: set[str] = set()
    for table in ("lemma_index", "lemma_exc"):
        if lookups.has_table(table):
            for entries in lookups.get_table(table).values():
                words.update(entries)
    return frozenset(words)


def _window(name: str, doc: Doc) -> list[Token] | None:
    """The sentence's tokens the name was taken from: its words in a row, the last one possibly shortened
    (a singular, or a cut word)."""
    words = _words(name)
    toks = [t for t in doc if not t.is_space and not t.is_punct]
    if not words:
        return None
    starts = range(len(toks) - len(words) + 1)
    for exact in (True, False):  # the name as written first; else with its last word shortened
        for i in starts:
            here = toks[i:i + len(words)]
            if all(t.lower_ == w for t, w in zip(here[:-1], words[:-1])) and (
                    here[-1].lower_ == words[-1] if exact else here[-1].lower_.startswith(words[-1][:3])):
                return here
    return None


def fragment_kinds(name: str, doc: Doc, known: frozenset[str], title: bool = False) -> set[str]:
    """Which of ``KINDS`` the entity ``name`` is, read in the parse ``doc`` of a sentence it was found in. A
    ``title`` (a work, an event, a law: "I Heard You Paint Houses") may hold a verb and a clause."""
    kinds: set[str] = set()
    words = _words(name)
    sentence_words = set(_words(doc.text))
    last = words[-1] if words else ""
    if last.isalpha() and len(last) >= 3 and last not in sentence_words and last not in known:
        longer = [w for w in sentence_words if w.startswith(last) and w != last]
        if longer and all(singularise(w) != last for w in longer):
            kinds.add("cut word")
    # One word is no clause (a verb used as a name is another fault), and a title may hold one.
    window = _window(name, doc) if len(words) > 1 and not title else None
    if window:
        inside = {t.i for t in window}
        if any(t.tag_ in _FINITE_VERB_TAGS and t.pos_ in ("VERB", "AUX") and t.dep_ != "amod" for t in window):
            kinds.add("verb")
        if any(t.dep_ in _SUBJECTS and t.head.i in inside and t.head.i != t.i for t in window):
            kinds.add("clause")
    return kinds


@dataclass
class Quality:
    """The figures of one store."""

    entities: int = 0
    fragments: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    types: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def json(self) -> dict[str, object]:
        """The figures as JSON (``--json``)."""
        return {"entities": self.entities, "fragments": self.fragments,
                "fragment_share": round(self.fragments / self.entities, 4) if self.entities else 0.0,
                "kinds": {k: self.kinds[k] for k in KINDS}, "types": dict(self.types.most_common()),
                "examples": self.examples}


def measure(named_sentences: Iterable[tuple[str, str, Sequence[str]]], examples: int = 5) -> Quality:
    """The figures for (name, type, the sentences it was found in) triples; each name is read in every sentence
    and is a fragment of a kind when any of its sentences shows it."""
    from graphrag.ingest.extract.rules import load_spacy

    items = list(named_sentences)
    nlp = load_spacy()
    texts = sorted({" ".join(s.split()) for _, _, sents in items for s in sents})
    docs = dict(zip(texts, nlp.pipe(texts, batch_size=256), strict=True))
    known = _known_words()
    q = Quality()
    for name, etype, sents in items:
        q.entities += 1
        q.types[etype] += 1
        title = etype in TITLE_TYPES
        kinds = set().union(*(fragment_kinds(name, docs[" ".join(s.split())], known, title) for s in sents))
        if kinds:
            q.fragments += 1
        for k in kinds:
            q.kinds[k] += 1
            shown = q.examples.setdefault(k, [])
            if len(shown) < examples:
                shown.append(name)
    return q


def store_entities(store: Store, limit: int | None = None) -> list[tuple[str, str, list[str]]]:
    """(name, type, the sentences of its mentions) for the store's entities (the first ``limit`` by key)."""
    from graphrag.answer import load_graph

    keys = sorted(load_graph(store).keys)[:limit]
    out = []
    for key in keys:
        e = store.entity(key)
        if e is not None and e.mentions:
            out.append((e.name, e.type, list(dict.fromkeys(m.span.text for m in e.mentions))))
    return out


def report(store: Store, as_json: bool = False, limit: int | None = None, examples: int = 5,
           out: TextIO = sys.stdout) -> Quality:
    """Print the fragment figures of a store (or JSON) and return them."""
    q = measure(store_entities(store, limit), examples)
    if as_json:
        print(json.dumps(q.json(), indent=2), file=out)
        return q
    share = f" ({q.fragments / q.entities:.1%})" if q.entities else ""
    print(f"entities: {q.entities}\nfragments: {q.fragments}{share}", file=out)
    for k in KINDS:
        print(f"  {k}: {q.kinds[k]}" + (f"  e.g. {', '.join(q.examples.get(k, []))}" if q.kinds[k] else ""),
              file=out)
    print("types: " + ", ".join(f"{t} {n}" for t, n in q.types.most_common()), file=out)
    return q


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: the figures of one store; 2 when the store file does not exist."""
    p = argparse.ArgumentParser(prog="python -m lab.evaluate.entity_quality", description=__doc__.split("\n")[0])
    p.add_argument("--store", required=True, help="the store: a SQLite file, or a store URL")
    p.add_argument("--limit", type=int, help="read only the first N entities (by key)")
    p.add_argument("--examples", type=int, default=5, help="names shown per kind of fragment (default 5)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the readable report")
    args = p.parse_args(argv)
    if "://" not in args.store and not Path(args.store).is_file():
        print(f"error: no store at {args.store}: ingest a corpus into it first", file=sys.stderr)
        return 2
    with Store(args.store) as store:
        report(store, args.json, args.limit, args.examples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
