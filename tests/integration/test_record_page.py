"""The Record page's empty states and charts (AppTest on stores written directly), and what picked a bad
citation (graphrag.verify.record.picked_by)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app_helpers import app, ok, page, texts
from graphrag.access import library_viewer
from graphrag.model import ClaimFlag
from graphrag.model import VerdictLabel as V
from graphrag.store import Store
from graphrag.verify.record import record_stats
from helpers import write_document_rows
from seeds import judge as _judge
from seeds import recorded_answer as _answer

S, U = V.SUPPORTED, V.UNSUPPORTED

POLICY = "Snapshot exports remain available for 30 days."


def _store(path: Path) -> Store:
    s = Store(path)
    write_document_rows(s, "policy", POLICY, ("public",), ["export"], [])
    return s


def charts(at) -> list:
    return at.get("vega_lite_chart")


@pytest.mark.model
@pytest.mark.slow
def test_no_verdicts_says_where_to_judge_and_draws_no_chart(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with _store(tmp_path / "s.db") as s:
        _answer(s, [0.9, 0.2])
    at = page(ok(app(monkeypatch, tmp_path / "s.db")), "record")
    assert any(t.startswith("No verdicts yet: judge claims on the Review page") for t in texts(at.info)), texts(at.info)
    assert not charts(at)
    assert [m.label for m in at.metric][:2] == ["Claims", "Unreviewed"]  # progress is still shown


@pytest.mark.model
@pytest.mark.slow
def test_an_empty_store_says_what_to_do_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = page(ok(app(monkeypatch, tmp_path / "empty.db")), "record")
    assert any("ask a question on the Ask page" in t and "Review page" in t for t in texts(at.info)), texts(at.info)
    assert not charts(at)


@pytest.mark.model
@pytest.mark.slow
def test_the_reliability_chart_has_bars_only_where_there_are_claims(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    with _store(tmp_path / "s.db") as s:
        answer = _answer(s, [0.9, 0.95, 0.1])  # two score bins of five hold claims
        _judge(s, answer, "ana", [S, S, U])
    at = page(ok(app(monkeypatch, tmp_path / "s.db")), "record")
    assert len(charts(at)) == 1
    bins = next(d.value for d in at.dataframe if "checker score" in d.value.columns)
    assert len(bins) == 2 and bins["judged backed"].notna().all(), bins  # claims in other words: "backed?"


@pytest.mark.model
@pytest.mark.slow
def test_counts_say_what_the_reviewed_claims_were_judged(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with _store(tmp_path / "s.db") as s:
        answer = _answer(s, [0.9, 0.2, 0.1, 0.8])
        _judge(s, answer, "ana", [S, U, U, None])  # one reviewer, policy of one verdict: three claims reviewed
    at = page(ok(app(monkeypatch, tmp_path / "s.db")), "record")
    labels = [m.label for m in at.metric]
    assert "Reviewed" in labels and "Verified" not in labels  # reviewed is not supported
    judged = next(d.value for d in at.dataframe if "not backed" in d.value.columns)
    assert list(judged["whose"]) == ["reviewed claims (settled verdict)", "by ana"]
    first = judged.iloc[0]
    assert first["judged"] == 3
    assert first["backed"].startswith("1 (33%, 95% CI 6%–79%)"), first["backed"]
    assert first["not backed"].startswith("2 (67%, 95% CI 21%–94%)"), first["not backed"]
    captions = texts(at.caption)
    assert any("by 1 reviewer on answers" in t for t in captions), captions  # not "1 reviewers"
    assert any("These figures rest on 3 claims" in t for t in captions), captions


@pytest.mark.unit
def test_bad_citations_are_put_down_to_what_picked_them(tmp_path: Path) -> None:
    with _store(tmp_path / "s.db") as s:
        answer = _answer(s, [0.2, 0.2, 0.9])
        quoted = replace(answer.claims[0], flags=(ClaimFlag.VERBATIM_QUOTE,))  # the generator added nothing
        old = replace(answer.claims[2], flags=(ClaimFlag.SUPERSEDED_SOURCE,))  # cited an outdated version
        answer = s.answer(s.save_answer(replace(answer, id=None, claims=(quoted, answer.claims[1], old))))
        assert answer is not None
        _judge(s, answer, "ana", [U, U, U])
        (source,) = record_stats(s, library_viewer(["public"])).sources
    # The first answer, saved before the flags were set, holds the same claims citing the same sentences: the two
    # "backs" verdicts carry over to it (docs/record.md), and with no flags there its claims are the generator's.
    # The quote's verdict judged whether it answers; the first answer's claim 1 is asked whether it is backed, so
    # that one does not carry.
    assert (source.unsupported, source.retrieval, source.generator, source.by_document) == (5, 1, 1 + 2, 1)


@pytest.mark.model
@pytest.mark.slow
def test_the_two_judgements_are_counted_apart(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with _store(tmp_path / "s.db") as s:
        answer = _answer(s, [0.9, 0.2, 0.8])
        quoted = replace(answer.claims[0], flags=(ClaimFlag.VERBATIM_QUOTE,))  # asked whether it answers
        answer = s.answer(s.save_answer(replace(answer, id=None, claims=(quoted, *answer.claims[1:]))))
        assert answer is not None
        _judge(s, answer, "ana", [U, S, None])  # the quote does not answer; a claim in other words is backed
    at = page(ok(app(monkeypatch, tmp_path / "s.db")), "record")
    tabs = [t.label for t in at.tabs]
    assert tabs == ["Does this answer the question? (1 verbatim quote)",
                    "Does the source back it? (5 claims in other words)"], tabs  # the first answer's three too
    tables = [d.value for d in at.dataframe if "whose" in d.value.columns]
    answers = next(t for t in tables if "does not answer" in t.columns)
    backs = next(t for t in tables if "not backed" in t.columns)
    assert answers.iloc[0]["does not answer"].startswith("1 (100%"), answers.iloc[0]
    # the backed claim's verdict carries to the first answer's same claim: two claims reviewed, both backed
    assert backs.iloc[0]["backed"].startswith("2 (100%"), backs.iloc[0]


def test_the_estimate_of_what_nobody_reviewed_is_drawn_with_its_interval(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    from graphrag.access import VIA_CLI, local_principal
    from graphrag.verify.review import record_verdict
    from graphrag.verify.sampling import draw_sample, record_estimate

    with _store(tmp_path / "s.db") as s:
        answer = _answer(s, [0.2, 0.8] * 15)
        draw_sample(s, local_principal(["public"], via=VIA_CLI), size=24, seed=5)
        for claim in answer.claims:  # reviewers judge the sample: the low-scored half unsupported
            record_verdict(s, answer, claim, claim.citations[0], U if claim.index % 2 == 0 else S, "ana")
        est = record_estimate(s, ["public"])
    assert est.unsupported_share is not None
    at = page(ok(app(monkeypatch, tmp_path / "s.db")), "record")
    assert any("What nobody reviewed" in h for h in texts(at.subheader))
    assert any(f"an estimated {est.unsupported_share:.0%} would be judged unsupported (95% interval" in t
               for t in (x.replace("\\", "") for x in texts(at.caption))), texts(at.caption)
    spec = [c for c in charts(at) if "share judged unsupported" in str(c.proto.spec)]
    assert len(spec) == 1  # the point with its interval
    strata = next(d.value for d in at.dataframe if "stratum" in d.value.columns)
    assert strata["settled"].sum() == 24


def test_a_local_pack_under_blind_review_holds_every_verdict_once_asked_and_the_sample_names_its_labels(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import io
    import json
    import zipfile

    from streamlit.testing.v1 import app_test

    from graphrag.access import VIA_CLI, local_principal
    from graphrag.verify.policy import ReviewPolicy
    from graphrag.verify.sampling import draw_sample
    from graphrag.verify.status import keep_review_policy

    managers: list[app_test.MediaFileManager] = []  # each run's, to fetch a deferred download as a click would

    class Recording(app_test.MediaFileManager):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            managers.append(self)

    monkeypatch.setattr(app_test, "MediaFileManager", Recording)
    with _store(tmp_path / "s.db") as s:
        keep_review_policy(s, ReviewPolicy(2), by=local_principal(["public"], via=VIA_CLI))
        answer = _answer(s, [0.9, 0.2, 0.5])
        _judge(s, answer, "ana", [S, U, None])
        _judge(s, answer, "bo", [None, S, None])  # claim 1 a live dispute, claim 0 still judged blind
        draw_sample(s, local_principal(["public", "internal"], via=VIA_CLI), size=1, seed=1)  # not the page's set
    at = page(ok(app(monkeypatch, tmp_path / "s.db")), "record")
    captions = [t.replace("\\", "") for t in texts(at.caption)]
    assert any(t.startswith("Sample for the labels public: it covers the claims these labels show") for t in captions)
    assert any(t.startswith("No estimate sample has been drawn for these labels yet: draw one with the button below")
               for t in captions), captions  # local mode: an admin, the button is on the page
    (button,) = [b for b in at.get("download_button") if b.proto.label == "Evidence pack (signed zip)"]
    assert button.proto.disabled  # no pack that quietly leaves out the blind verdicts and the dispute
    at = ok(at.checkbox(key="record_pack_whole").check())
    (button,) = [b for b in at.get("download_button") if b.proto.label == "Evidence pack (signed zip)"]
    assert not button.proto.disabled
    url = managers[-1].execute_deferred(button.proto.deferred_file_id)
    data = managers[-1]._storage.get_file(url.rsplit("/", 1)[-1]).content  # what the browser would download
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert len(json.loads(z.read("verdicts.json"))) == 3  # ana's two, bo's one: the dispute included
        assert json.loads(z.read("scope.json"))["blind_verdicts_included"] == 3
        assert json.loads(z.read("estimate.json"))["labels"] == ["public"]
    with Store(tmp_path / "s.db") as s:
        (export,) = [e for e in s.audit() if e.event == "export"]
    assert export.detail["what"] == "evidence pack"


def test_the_estimate_says_where_its_sample_is_reviewed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Issue 60: the estimate said "0 sampled claims settled, 20 needed" without saying where the sample is judged.
    A button opens the Review page on the sample's claims alone, each marked as the sample's."""
    from graphrag.access import VIA_CLI, local_principal
    from graphrag.verify.sampling import draw_sample

    with _store(tmp_path / "s.db") as s:
        _answer(s, [0.2, 0.8] * 4)
        drawn = draw_sample(s, local_principal(["public"], via=VIA_CLI), size=3, seed=5)  # a claim a stratum at least
    at = page(ok(app(monkeypatch, tmp_path / "s.db")), "record")
    assert any("too small to say" in t for t in texts(at.caption))
    assert at.button(key="record_to_sample").label == f"Review the sample: {drawn} claims to settle"
    at = ok(at.button(key="record_to_sample").click())
    assert at.toggle(key="review_sample").value  # the Review page, its sample filter on
    header = " ".join(str(m.value) for m in at.markdown if "in the queue" in str(m.value))
    assert f"Claim 1 of {drawn}** in the queue" in header and "in the estimate sample" in header, header


def _opened_tab(at) -> str:  # `at`: an AppTest
    """The label of the tab a set of tabs opens on (its container's default; the first when none is set)."""
    stack = [at._tree]
    while stack:
        node = stack.pop()
        proto = getattr(node, "proto", None)
        if proto is not None and proto.DESCRIPTOR.name == "Block" and proto.WhichOneof("type") == "tab_container":
            return at.tabs[proto.tab_container.default_tab_index].label
        stack.extend(getattr(node, "children", {}).values())
    raise AssertionError("no tabs")


def test_the_page_opens_on_the_judgement_that_has_verdicts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Issue 60: after one verdict on a claim in other words, the Record page opened on the verbatim quotes' tab and
    said "No verdicts yet" while the sidebar counted one verdict. It opens on the tab that has verdicts."""
    with _store(tmp_path / "s.db") as s:
        answer = _answer(s, [0.9, 0.2])
        quoted = replace(answer.claims[0], flags=(ClaimFlag.VERBATIM_QUOTE,))  # asked whether it answers
        answer = s.answer(s.save_answer(replace(answer, id=None, claims=(quoted, *answer.claims[1:]))))
        assert answer is not None
        _judge(s, answer, "ana", [None, S])  # one verdict, on the claim in other words
    at = page(ok(app(monkeypatch, tmp_path / "s.db")), "record")
    labels = [t.label for t in at.tabs]
    assert labels[0].startswith("Does this answer the question?"), labels  # the quotes' tab still comes first
    assert _opened_tab(at).startswith("Does the source back it?"), _opened_tab(at)
