"""The checker that learns from the team: refit from verdicts, refusals, versions, rollback.

Model-free: answers, claims, citations and verdicts are real store rows, but the feature rows
of the judged pairs are made up (a featuriser keyed by the claim text), so the fit and its
decisions are tested without MiniLM. One test at the end runs the real pipeline.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from graphrag.cli import main
from graphrag.errors import InputError
from graphrag.model import (
    Answer,
    AskSettings,
    Citation,
    Claim,
    ContextItem,
    Document,
    Route,
    Span,
    SupportLabel,
    Verdict,
    VerdictLabel,
)
from graphrag.store import Store
from graphrag.store.codec import sha256_text
from graphrag.store.documents import DocumentWrite, SentenceRow
from graphrag.verify.support import checker_for_store
from graphrag.verify.support.embedded import (
    DIRECTION,
    FEATURES,
    EmbeddedChecker,
    PairFeatures,
    params_from_raw,
    shipped_raw,
)
from graphrag.verify.support.learn import RefitRefused
from graphrag.verify.support.team import fit_from_verdicts
from helpers import ADMIN, VERDICT_BY_HAND, store_of_release

SHIPPED = params_from_raw(shipped_raw())
COV_CHUNK = FEATURES.index("cov_chunk_min")
QUALIFIERS = FEATURES.index("qualifiers_missing")


def feature_row(kind: str, rng: np.random.Generator) -> np.ndarray:
    """'good': close paraphrase; 'partial': as close overall but one chunk of the claim and a
    qualifier are missing (the shipped model still calls it supported); 'bad': unrelated."""
    level = {"good": 0.85, "partial": 0.85, "bad": 0.2}[kind]
    row = np.array([level + rng.normal(0, 0.04) if DIRECTION[f] > 0 else 0.0 for f in FEATURES])
    row[FEATURES.index("claim_words")] = 2.3 + rng.normal(0, 0.2)
    if kind == "bad":
        row[FEATURES.index("tok_low_share")] = 0.8
        row[FEATURES.index("term_missing_all")] = 1.0
    if kind == "partial":
        row[COV_CHUNK] = 0.4 + rng.normal(0, 0.04)
        row[QUALIFIERS] = 1.0
    return row


class TeamRecord:
    """A store with ``answers`` answers of ``per_answer`` claims each, every claim citing one
    sentence of one document, and a featuriser giving each claim its planted kind's row."""

    def __init__(self, store: Store, kinds: list[list[str]], seed: int = 0) -> None:
        self.store = store
        rng = np.random.default_rng(seed)
        sentences = [f"Sentence {i} of the policy says something specific." for i in range(len(kinds) * 10)]
        text = " ".join(sentences)
        rows, pos = [], 0
        for s in sentences:
            rows.append(SentenceRow(pos, pos + len(s), s))
            pos += len(s) + 1
        doc = Document("policy", "Policy", 1, text, sha256_text(text))
        store.write_document(DocumentWrite(doc, "test", "ok", rows, None, [], {}, [], []))
        self.rows: dict[str, np.ndarray] = {}
        self.kind: dict[str, str] = {}
        self.pairs: list[tuple[Answer, Claim]] = []
        for a, answer_kinds in enumerate(kinds):
            claims, items = [], []
            for k, kind in enumerate(answer_kinds):
                i = a * 10 + k
                span = Span("policy", 1, i, rows[i].start, rows[i].end, rows[i].text)
                item = ContextItem(k + 1, span, Route("policy"), 0.9, "similarity")
                items.append(item)
                claim_text = f"Claim {k} of answer {a} ({kind})."
                self.rows[claim_text] = feature_row(kind, rng)
                self.kind[claim_text] = kind
                claims.append(Claim(k, claim_text, 0, 1, (Citation(str(k + 1), True, item),)))
            answer = Answer(f"question {a}", AskSettings(), "text", (), (), tuple(items), tuple(claims))
            stored = store.answer(store.save_answer(answer))
            assert stored is not None
            self.pairs += [(stored, c) for c in stored.claims]

    def features(self, queries):
        return np.vstack([self.rows[q.claim] for q in queries])

    def judge(self, standard, reviewer: str = "ada", limit: int | None = None) -> None:
        for answer, claim in self.pairs[:limit]:
            cite = claim.citations[0]
            span = cite.item.span
            self.store.add_verdict(Verdict(answer.id, claim.index, standard(self.kind[claim.text]), reviewer,
                                           sha256_text(span.text), cite.marker, span.document_id, span.version,
                                           span.start, span.end), VERDICT_BY_HAND)


KINDS = ["good", "partial", "bad", "good", "partial"]


def strict(kind: str) -> VerdictLabel:
    """The planted team standard: partial support is judged partially supported (counts as not)."""
    return {"good": VerdictLabel.SUPPORTED, "partial": VerdictLabel.PARTIAL, "bad": VerdictLabel.UNSUPPORTED}[kind]


@pytest.mark.unit
def test_the_premise_the_shipped_model_calls_partial_rows_supported() -> None:
    rng = np.random.default_rng(1)
    for kind, supported in (("good", True), ("partial", True), ("bad", False)):
        scores = SHIPPED.predict(np.vstack([feature_row(kind, rng) for _ in range(20)]))
        assert ((scores >= 0.5) == supported).all(), (kind, scores)


@pytest.mark.slow  # model-free, but fits on hundreds of rows: seconds each
def test_a_planted_team_standard_is_learned_and_named_on_new_scores(store) -> None:
    record = TeamRecord(store, [KINDS] * 16)  # 80 pairs from 16 answers
    record.judge(strict)
    outcome = fit_from_verdicts(store, features=record.features, by=ADMIN)
    assert outcome.version == 1
    report = outcome.report
    assert report["n"] == 80 and report["n_supported"] == 32 and report["answers"] == 16
    # Out of fold, by answer: the shipped model misses the standard, the refit learns it.
    assert report["shipped"]["balanced_accuracy"] < 0.75
    assert report["refit"]["balanced_accuracy"] > 0.95
    assert report["gain_balanced_accuracy"]["mean"] > report["gain_balanced_accuracy"]["sd"]

    active = store.active_checker()
    assert active is not None and active.version == 1 and active.params["kind"] == "gbdt"
    assert active.params["fitted_on"]["team pairs"] == 80
    model = params_from_raw(active.params)
    rng = np.random.default_rng(7)  # fresh rows, not the fitted ones
    for kind, supported in (("good", True), ("partial", False), ("bad", False)):
        scores = model.predict(np.vstack([feature_row(kind, rng) for _ in range(20)]))
        assert ((scores >= 0.5) == supported).all(), (kind, scores)

    # Every new score names the version that made it; after a rollback, the shipped one.
    def score_one(checker: EmbeddedChecker):
        checker.featurise = lambda qs: [PairFeatures(dict(zip(FEATURES, feature_row("partial", rng))), [0], 1)
                                        for _ in qs]
        from graphrag.verify.support.base import SupportQuery

        return checker.check([SupportQuery("c", "e")])[0]

    s = score_one(checker_for_store("embedded", store))
    assert s.checker == "embedded@1" and s.label is not SupportLabel.SUPPORTED
    store.rollback_checker(by=ADMIN)
    s = score_one(checker_for_store("embedded", store))
    assert s.checker == "embedded@shipped" and s.label is SupportLabel.SUPPORTED


@pytest.mark.unit
def test_too_few_verdicts_or_one_class_are_refused_and_nothing_changes(store) -> None:
    record = TeamRecord(store, [KINDS] * 16)
    record.judge(strict, limit=40)
    with pytest.raises(RefitRefused, match=r"only 40 judged .* at least 50"):
        fit_from_verdicts(store, features=record.features, by=ADMIN)
    assert store.checker_versions() == [] and store.active_checker() is None

    one_class = TeamRecord(Store(store.path.with_name("b.db")), [["good"] * 5] * 12)
    one_class.judge(strict)
    with pytest.raises(RefitRefused, match=r"60 supported and 0 not supported"):
        fit_from_verdicts(one_class.store, features=one_class.features, by=ADMIN)
    assert one_class.store.checker_versions() == []
    one_class.store.close()


@pytest.mark.slow  # model-free, but fits on hundreds of rows: seconds each
def test_no_real_gain_is_refused_and_the_active_version_stays(store) -> None:
    """A team that judges as the shipped model already does gains nothing: refused, and the
    version adopted earlier stays active."""
    earlier = store.add_checker_version(shipped_raw(), "by hand", {}, by=ADMIN)
    record = TeamRecord(store, [KINDS] * 16)
    record.judge(lambda kind: VerdictLabel.UNSUPPORTED if kind == "bad" else VerdictLabel.SUPPORTED)
    with pytest.raises(RefitRefused, match="not clearly better") as err:
        fit_from_verdicts(store, features=record.features, by=ADMIN)
    assert err.value.report["shipped"]["balanced_accuracy"] == 1.0
    assert [v.version for v in store.checker_versions()] == [earlier]
    assert store.active_checker().version == earlier


@pytest.mark.unit
def test_the_cli_refuses_with_a_message_and_exit_code_2(tmp_path, capsys) -> None:
    path = tmp_path / "s.db"
    with Store(path) as s:
        TeamRecord(s, [KINDS] * 3).judge(strict)
    assert main(["checker", "fit", "--from-verdicts", "--store", str(path)]) == 2
    err = capsys.readouterr().err
    assert "not adopted: only 15 judged claim/citation pairs; a refit needs at least 50" in err
    assert main(["checker", "list", "--store", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.unit
def test_majority_of_reviewers_decides_and_ties_are_left_out(store) -> None:
    from graphrag.verify.support.team import judged_pairs

    record = TeamRecord(store, [["good", "good", "good"]])
    (a, c0), (_, c1), (_, c2) = record.pairs
    def judge(claim, label, who):
        cite = claim.citations[0]
        sp = cite.item.span
        store.add_verdict(Verdict(a.id, claim.index, label, who, sha256_text(sp.text), cite.marker, sp.document_id,
                                  sp.version, sp.start, sp.end), VERDICT_BY_HAND)
    judge(c0, VerdictLabel.SUPPORTED, "ada")
    judge(c0, VerdictLabel.UNSUPPORTED, "bob")
    judge(c0, VerdictLabel.UNSUPPORTED, "cy")
    judge(c1, VerdictLabel.SUPPORTED, "ada")
    judge(c1, VerdictLabel.PARTIAL, "bob")  # a tie: left out
    judge(c2, VerdictLabel.UNSUPPORTED, "ada")
    judge(c2, VerdictLabel.SUPPORTED, "ada")  # ada changed her mind: the latest counts
    pairs, skipped = judged_pairs(store)
    assert [(p.claim_index, p.supported) for p in pairs] == [(0, False), (2, True)]
    assert skipped == {"reviewers split evenly": 1}
    assert pairs[0].query.evidence == c0.citations[0].item.span.text
    assert pairs[0].query.neighbours == (record.pairs[1][1].citations[0].item.span.text,)


@pytest.mark.unit
def test_versions_rollback_and_history_on_both_backends(any_store) -> None:
    params = shipped_raw()
    assert any_store.active_checker() is None
    assert any_store.add_checker_version(params, "first", {"x": 1}, by=ADMIN) == 1
    assert any_store.add_checker_version(params, "second", {"x": 2}, by=ADMIN) == 2
    assert any_store.active_checker().version == 2
    assert any_store.rollback_checker(by=ADMIN) == 1
    assert EmbeddedChecker(store=any_store).name == "embedded@1"
    assert any_store.rollback_checker(by=ADMIN) == 0
    assert any_store.active_checker() is None and EmbeddedChecker(store=any_store).name == "embedded@shipped"
    with pytest.raises(InputError, match="already active"):
        any_store.rollback_checker(by=ADMIN)
    with pytest.raises(InputError, match=r"no checker version 9; known: 1, 2 \(0 = shipped\)"):
        any_store.rollback_checker(9, by=ADMIN)
    assert any_store.rollback_checker(2, by=ADMIN) == 2
    listed = any_store.checker_versions()
    assert [(v.version, v.source, v.metrics, v.active) for v in listed] == [(1, "first", {"x": 1}, False),
                                                                            (2, "second", {"x": 2}, True)]


@pytest.mark.unit
def test_the_cli_lists_and_rolls_back(tmp_path, capsys) -> None:
    path = tmp_path / "s.db"
    metrics = {"refit": {"balanced_accuracy": 0.8, "auroc": 0.9}, "shipped": {"balanced_accuracy": 0.7, "auroc": 0.8},
               "gain_balanced_accuracy": {"mean": 0.1, "sd": 0.02}}
    with Store(path) as s:
        s.add_checker_version({"kind": "x"}, "verdicts: 60 pairs", metrics, by=ADMIN)
    assert main(["checker", "list", "--store", str(path)]) == 0
    out = capsys.readouterr().out
    assert "verdicts: 60 pairs  (active)" in out and "balanced accuracy 0.800 vs shipped 0.700 (gain +0.100" in out
    assert main(["checker", "rollback", "--store", str(path)]) == 0
    assert "active support checker: embedded@shipped" in capsys.readouterr().out
    assert main(["checker", "rollback", "--store", str(path)]) == 2
    assert "already active" in capsys.readouterr().err


@pytest.mark.unit
def test_a_schema_3_store_migrates_to_the_checker_table(store_url: str, monkeypatch) -> None:
    """A store made before checker versions existed gains the table on open, its data kept."""
    from sqlalchemy import inspect, text

    from graphrag.store import schema

    with store_of_release(store_url, 3, monkeypatch) as old:
        assert not old._read(lambda c: inspect(c).has_table("checker_versions"))
    with Store(store_url) as s:
        version = s._read(lambda c: c.execute(text("SELECT value FROM meta WHERE key='schema_version'")).scalar())
        assert version == str(schema.SCHEMA_VERSION)
        assert len(s.verdicts()) == 1 and s.checker_versions() == []
        assert s.add_checker_version({"kind": "x"}, "after migration", {}, by=ADMIN) == 1


@pytest.mark.slow  # model-free, but fits on hundreds of rows: seconds each
def test_learning_curve_on_planted_rows_gains_on_the_target_and_keeps_the_other_set() -> None:
    from graphrag.verify.support.learn import TrainingRows
    from lab.evaluate.learning import draw_split, learning_curve

    rng = np.random.default_rng(3)
    kinds = np.array(["good", "partial", "bad"] * 100)
    x = np.vstack([feature_row(k, rng) for k in kinds])
    y = kinds == "good"
    groups = np.repeat(np.arange(60).astype(str), 5)
    other_kinds = np.array(["good", "bad"] * 100)
    other = TrainingRows(np.vstack([feature_row(k, rng) for k in other_kinds]), other_kinds == "good",
                         np.array(["other"] * 200))
    train, test = draw_split(groups, 52, np.random.default_rng(0))
    assert len(train) == 52 and not set(groups[test]) & set(groups[train])
    result = learning_curve(x, y, groups, other, np.arange(200).astype(str), [100, 400], draws=1)
    assert result["skipped"] == ["400 verdicts: the file has only 300 claims, none would be left to score"]
    (row,) = result["sizes"]
    assert row["gain_ba"]["mean"] > 0.2  # the start never saw partial support; the refit learns it
    assert row["other_gain_ba"]["mean"] >= -0.02 and row["n_scored"]["mean"] == 200


@pytest.mark.model
def test_answers_name_the_checker_version_that_scored_them(store, embedder, tmp_path) -> None:
    """The real pipeline: ask, adopt a version, ask again; each stored score names its version."""
    from graphrag.answer.ask import Asker
    from graphrag.answer.generate.extractive import ExtractiveGenerator
    from graphrag.ingest.pipeline import Ingestor
    from helpers import reference_corpus, reference_extractor

    Ingestor(store, reference_extractor(), embedder).ingest_paths([reference_corpus(tmp_path / "c")])
    question, settings = "How long do exports stay available?", AskSettings(k=5, hops=2)

    def checkers_named() -> set[str]:
        answer = store.answer(Asker(store, embedder=embedder, generator=ExtractiveGenerator()).ask(
            question, settings).answer.id)
        named = {c.support.checker for c in answer.claims if c.support}
        named |= {ct.support.checker for c in answer.claims for ct in c.citations if ct.support}
        return named - {"scripted-checker", "verbatim"}  # a verbatim quote is its own source: no checker scores it

    assert checkers_named() == {"embedded@shipped"}
    store.add_checker_version(shipped_raw(), "test", {}, by=ADMIN)
    assert checkers_named() == {"embedded@1"}


@pytest.mark.slow  # model-free, but fits on hundreds of rows: seconds each
def test_eval_learning_curve_command(tmp_path, monkeypatch, capsys) -> None:
    """`graphrag eval support --learn-from`: the start is fitted on the other file, the table
    prints per size; features come from a planted stand-in for the MiniLM cache."""
    import lab.evaluate.features as feats

    rng = np.random.default_rng(5)
    target = [{"claim": f"t{i}", "evidence": ["e"], "label": ["supported", "partially_supported",
                                                                 "not_supported"][i % 3]} for i in range(240)]
    other = [{"claim": f"o{i}", "evidence": ["e"], "label": ["supported", "not_supported"][i % 2]} for i in range(200)]
    kind = {"supported": "good", "partially_supported": "partial", "not_supported": "bad"}
    for name, rows in (("t.jsonl", target), ("o.jsonl", other)):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setattr(feats, "cached_features", lambda path, fmt, examples, cache=None: np.vstack(
        [feature_row(kind[e.label], rng) for e in examples]))
    assert main(["eval", "support", "--format", "jsonl", "--learn-from", str(tmp_path / "o.jsonl")]) == 2
    assert "--learn-from needs --start-from and --start-format" in capsys.readouterr().err
    assert main(["eval", "support", "--format", "jsonl", "--learn-from", str(tmp_path / "t.jsonl"), "--start-from",
                 str(tmp_path / "o.jsonl"), "--start-format", "jsonl", "--sizes", "60", "--draws", "1",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["verdicts"] for r in result["sizes"]] == [60]
    # The start never saw partial support (the other file has none), so it misses it; the refit learns it.
    assert all(r["gain_ba"]["mean"] > 0.1 for r in result["sizes"])
    assert all(r["n_scored"]["mean"] == 240 - r["verdicts"] for r in result["sizes"])
