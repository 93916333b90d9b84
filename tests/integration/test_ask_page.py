"""The Ask page as a reader meets it (AppTest on the small handbook): each claim's cited sentences under it
without a click, markers numbered in reading order, one status for the answer in words, and the retrieval
settings folded away."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app_helpers import app, copy_store, ok, texts
from graphrag.store import Store
from graphrag.verify.review import record_verdict

pytestmark = [pytest.mark.model, pytest.mark.slow]

# The rules extractor's graph ranks this question's sources so that the answer cites items 3, 4 and 6.
QUESTION = "What do exports use?"


@pytest.fixture
def store_path(tiny_store: Path, tmp_path: Path) -> Path:
    return copy_store(tiny_store, tmp_path / "store.db")


def ask(at, question: str = QUESTION):
    at.text_area(key="_w_question").set_value(question)
    return ok(at.button(key="FormSubmitter:ask_form-Ask").click())


def bodies(at) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def badges(at) -> list[str]:
    return [m for m in texts(at.markdown) if "-badge[" in m]


def test_each_claim_shows_its_cited_sentences_without_a_click(monkeypatch: pytest.MonkeyPatch,
                                                              store_path: Path) -> None:
    at = ask(ok(app(monkeypatch, store_path)))
    with Store(store_path) as s:
        answer = s.answer(s.answer_ids()[0]["id"])
    assert answer is not None and len(answer.claims) >= 2
    html = bodies(at)
    for claim in answer.claims:
        for c in claim.citations:
            assert c.item is not None
            title = {"exports": "Data exports", "faq": "Old FAQ"}[c.item.span.document_id]
            # the document's title above the sentence, the words the claim takes from it marked
            assert any(f"<b>{title}</b>" in h and "<mark>" in h and c.item.span.text.split()[-1].rstrip(".") in h
                       for h in html), (claim.text, c.item.span.text)
    assert not any("Click a marker" in t for t in texts(at.caption))


def test_markers_are_numbered_in_reading_order(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = ask(ok(app(monkeypatch, store_path)))
    with Store(store_path) as s:
        answer = s.answer(s.answer_ids()[0]["id"])
    assert answer is not None
    # the numbers are decided as the answer is composed (issue 60): stored as the page shows them
    stored = list(dict.fromkeys(int(n) for n in re.findall(r"\[(\d+)\]", answer.text)))
    assert len(stored) >= 2 and stored == list(range(1, len(stored) + 1)), answer.text
    shown = next(h for h in bodies(at) if "Question:" in h)
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", shown.split('class="gr-box">', 1)[1])]
    firsts = list(dict.fromkeys(numbers))
    assert firsts == stored, shown
    # the sources under the claims carry the same numbers
    sources = [int(m) for h in bodies(at) for m in re.findall(r'gr-meta">\[(\d+)\] <b>', h)]
    assert sorted(set(sources)) == firsts


def test_one_status_for_the_answer_in_words(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = ask(ok(app(monkeypatch, store_path)))
    shown = badges(at)
    assert len(shown) == 1, shown
    assert "checked automatically; not yet reviewed" in shown[0], shown
    assert not any("auto-checked" in b or "needs a reader" in b for b in shown)
    with Store(store_path) as s:
        answer = s.answer(s.answer_ids()[0]["id"])
        assert answer is not None
        for claim in answer.claims:
            record_verdict(s, answer, claim, claim.citations[0], "supported", "ada")
        record_verdict(s, answer, answer.claims[-1], answer.claims[-1].citations[0], "unsupported", "bo")
    at = ok(at)
    status = [b for b in badges(at) if "checked automatically" in b]
    # one reviewer for, one against, a verdict each required: the answer's standing says the claim is disputed
    assert len(status) == 1 and f"disputed: reviewers disagree on claim {len(answer.claims)}" in status[0].replace(
        "\\", ""), status
    # the claim's own line says who judged what, in the words of the question the claim is asked
    assert any(re.search("judged not (answering|backed) by bo", b) and re.search("judged (answering|backed) by ada", b)
               for b in badges(at))


def test_retrieval_settings_are_folded_away(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = ok(app(monkeypatch, store_path))
    folded = next(e for e in at.expander if e.label == "Retrieval settings")
    assert not folded.proto.expanded
    inside = {w.key for kind in ("number_input", "selectbox", "text_input", "checkbox") for w in folded.get(kind)}
    assert {"ask_k", "ask_hops", "ask_direction", "_w_generator", "_w_generate_model"} <= inside, inside


def test_settings_changed_in_the_fold_are_named_beside_it(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = ok(app(monkeypatch, store_path))
    assert not any("retrieval settings:" in t for t in texts(at.caption))
    at.number_input(key="ask_hops").set_value(3)
    at = ask(at)
    assert any("retrieval settings: hops 3" in t for t in texts(at.caption)), texts(at.caption)


def test_routes_carry_the_numbers_of_their_claims_on_the_ask_and_review_pages(
        monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = ask(ok(app(monkeypatch, store_path)))
    with Store(store_path) as s:
        answer = s.answer(s.answer_ids()[0]["id"])
    assert answer is not None and len(answer.claims) >= 2
    # reading order: the n-th item first cited is shown as [n]
    order = list(dict.fromkeys(c.item.n for cl in answer.claims for c in cl.citations if c.item is not None))
    shown = {n: i + 1 for i, n in enumerate(order)}
    assert len(shown) >= 2 and shown == {n: n for n in order}  # stored as shown: decided as composed (issue 60)
    # Ask page: each claim is numbered, and the context table names the claims citing each item beside its route.
    assert sum(f'gr-meta">Claim {c.index + 1}</div>' in h for c in answer.claims for h in bodies(at)) == len(
        answer.claims)
    table = next(e for e in at.expander if e.label == "Context items and seeds").dataframe[0].value
    first = answer.claims[0].citations[0].item
    assert first is not None
    assert "1" in table.loc[table["n"] == shown[first.n], "claims"].iloc[0].split(", ")

    at = ok(at.button(key="to_review").click())
    for claim in answer.claims[:2]:
        at.session_state["review_current"] = (answer.id, claim.index)
        at = ok(at)
        item = claim.citations[0].item
        assert item is not None
        tag = f"claim {claim.index + 1} · [{shown[item.n]}]"
        drawing = at.get("iframe")[0].proto.srcdoc
        assert f'"legend": "{tag[0].upper()}{tag[1:]}:' in drawing and f'"label": "{tag} ' in drawing
        route_list = next(h.proto.body for h in at.get("html") if 'class="gr-route"' in h.proto.body)
        assert f"Cited <b>{tag}</b>" in route_list
        # the answer beside it writes the same marker: its highlighted claim ends with [shown]
        answer_box = next(h.proto.body for h in at.get("html") if "<mark>" in h.proto.body and "Q: " in h.proto.body)
        assert f"[{shown[item.n]}]" in answer_box.split("<mark>", 1)[1].split("</mark>", 1)[0], answer_box
        assert any(f"Claim {claim.index + 1} in its answer" in t for t in texts(at.markdown))


def test_themes_choice_answers_theme_by_theme(monkeypatch: pytest.MonkeyPatch, store_path: Path) -> None:
    at = ok(app(monkeypatch, store_path))
    at.radio(key="ask_mode").set_value("themes")
    at = ask(at, "What are these documents about?")
    with Store(store_path) as s:
        answer = s.answer(s.answer_ids()[0]["id"])
    assert answer is not None and answer.settings.mode == "themes" and answer.claims
    assert all(cl.text.startswith("“") and len(cl.citations) == 1 for cl in answer.claims)
    assert {c.item.span.document_id for cl in answer.claims for c in cl.citations if c.item} == {"exports", "faq"}
    assert any("best represent it" in t for t in texts(at.caption))
    assert not any(b.proto.label.startswith("Ask only in") for b in at.button)  # themes span documents
    # drawn as blocks: each theme's name above its quotes, a list, not one paragraph of markers
    box = next(h for h in bodies(at) if "Question: What are these documents about?" in h)
    assert box.count("<ul") == len(answer.text.split("\n\n")) and box.count("<li") == len(answer.claims)


def test_a_global_question_in_the_default_mode_is_answered_by_themes(monkeypatch: pytest.MonkeyPatch,
                                                                     store_path: Path) -> None:
    at = ask(ok(app(monkeypatch, store_path)), "What are these documents about?")
    with Store(store_path) as s:
        answer = s.answer(s.answer_ids()[0]["id"])
    assert answer is not None and answer.settings.mode == "themes" and answer.claims
    box = next(h for h in bodies(at) if "Question: What are these documents about?" in h)
    assert "Answered by themes" in box and "<li" in box


def test_a_question_that_may_be_global_offers_themes_in_one_click(monkeypatch: pytest.MonkeyPatch,
                                                                  store_path: Path) -> None:
    at = ask(ok(app(monkeypatch, store_path)), "What topics about exports do these documents cover?")
    with Store(store_path) as s:
        first = s.answer(s.answer_ids()[0]["id"])
    assert first is not None and first.settings.mode == "local"
    at = ok(at.button(key="ask_by_themes").click())
    with Store(store_path) as s:
        ids = s.answer_ids()
        again = s.answer(max(i["id"] for i in ids))
    assert len(ids) == 2 and again is not None and again.settings.mode == "themes"
    assert again.question == first.question
    assert not any(b.proto.label == "Answer by themes" for b in at.button)  # answered: no offer under it
