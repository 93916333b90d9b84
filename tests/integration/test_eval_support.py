"""Support evaluation: metrics with hand-computed values, loaders on tiny fixture files."""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest

from graphrag.errors import InputError
from graphrag.model import Support, SupportLabel
from lab.evaluate import support as ev

Y = [True, True, True, False, False]
SCORES = [0.9, 0.6, 0.4, 0.5, 0.1]


@pytest.mark.unit
def test_triage_value() -> None:
    y = [False, False, True, True, True, True, False, True, True, False]
    scores = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    # the lowest 20% (2 claims) holds 2 of the 4 not-supported claims
    assert ev.triage_value(y, scores) == pytest.approx(0.5)


@pytest.mark.unit
def test_calibration_table() -> None:
    rows = ev.calibration_table([False, True, True], [0.1, 0.15, 1.0], bins=5)
    assert [r["count"] for r in rows] == [2, 0, 0, 0, 1]
    assert rows[0]["mean_score"] == pytest.approx(0.125)
    assert rows[0]["supported_share"] == pytest.approx(0.5)
    assert rows[4]["supported_share"] == 1.0


@pytest.mark.unit
def test_support_metrics_keys() -> None:
    m = ev.support_metrics(Y, SCORES, 0.5)
    for key in ("n", "balanced_accuracy", "auroc", "precision", "recall", "f1", "triage_top20", "calibration"):
        assert key in m
    assert m["n"] == 5


# --- loaders ----------------------------------------------------------------------------


def _write(path, rows) -> str:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.unit
def test_load_wice(tmp_path) -> None:
    path = _write(tmp_path / "w.jsonl", [
        {"claim": "A is B.", "evidence": ["A is B.", "C is D."], "label": "supported", "supporting_sentences": [[0]]},
        {"claim": "A is C.", "evidence": ["A is B."], "label": "partially_supported"},
    ])
    exs = ev.load_examples(path, "wice")
    assert [e.label for e in exs] == ["supported", "partially_supported"]
    assert exs[0].evidence == ("A is B.", "C is D.") and exs[0].supported and not exs[1].supported
    assert exs[0].query().evidence == "A is B.\n\nC is D."


@pytest.mark.unit
def test_load_expertqa_strips_markers_and_headers_and_skips(tmp_path) -> None:
    def claim(text, support, evidence):
        return {"claim_string": text, "support": support, "evidence": evidence}

    ev_text = ["[1] https://example.org/a\n\nExports stay for 30 days. They are kept."]
    row = {"question": "q", "answers": {"sys": {"claims": [
        claim("Exports stay for 30 days [1].", "Complete", ev_text),
        claim("They are deleted [1][2].", "Partial", ev_text),
        claim("Kept forever [1].", "Incomplete", ev_text),
        claim("No evidence here.", "Missing", []),
        claim("Not applicable [1].", "N/A", ev_text),
        claim("Only a link [2].", "Complete", ["[2] https://example.org/b"]),
        claim("Only a link and blank lines [2].", "Incomplete", ["[2] https://example.org/b\n\n  \n"]),
    ]}}}
    skipped = Counter()
    exs = ev.load_examples(_write(tmp_path / "e.jsonl", [row]), "expertqa", skipped=skipped)
    assert [(e.claim, e.label) for e in exs] == [
        ("Exports stay for 30 days.", "supported"),
        ("They are deleted.", "partially_supported"),
        ("Kept forever.", "not_supported"),
    ]
    assert exs[0].evidence == ("Exports stay for 30 days. They are kept.",)
    # A URL is not evidence: the checker would be scored on text it was never given.
    assert skipped == {"no support label (N/A or none)": 1, "no evidence": 1,
                       "evidence is only a URL, no passage text": 2}


@pytest.mark.unit
def test_load_generic_jsonl(tmp_path) -> None:
    path = _write(tmp_path / "g.jsonl", [
        {"claim": "a", "evidence": "text", "label": True},
        {"claim": "b", "evidence": ["s1", "s2"], "label": "false"},
        {"claim": "c", "evidence": "text", "label": "partially_supported"},
    ])
    exs = ev.load_examples(path, "jsonl", limit=2)
    assert [(e.evidence, e.label) for e in exs] == [(("text",), "supported"), (("s1", "s2"), "not_supported")]


@pytest.mark.unit
def test_loader_errors_are_clear(tmp_path) -> None:
    with pytest.raises(InputError, match="not found"):
        ev.load_examples(tmp_path / "missing.jsonl", "wice")
    with pytest.raises(InputError, match="unknown format"):
        ev.load_examples(tmp_path / "missing.jsonl", "csv")
    path = _write(tmp_path / "w.jsonl", [{"question": "q", "answers": {}}])
    with pytest.raises(InputError, match="'wice' format"):
        ev.load_examples(path, "wice")
    bad = _write(tmp_path / "b.jsonl", [{"claim": "a", "evidence": "e", "label": "maybe"}])
    with pytest.raises(InputError, match="unknown label"):
        ev.load_examples(bad, "jsonl")


# --- CLI functions, with a stub checker (no model) -----------------------------------------


class StubChecker:
    name = "stub"
    threshold = 0.5

    def check(self, queries):
        return [Support(0.9 if "yes" in q.claim else 0.1, SupportLabel.SUPPORTED, "stub", "") for q in queries]


@pytest.mark.unit
def test_cli_eval_support_json_and_errors(tmp_path, monkeypatch, capsys) -> None:
    import graphrag.verify.support as support_pkg

    monkeypatch.setattr(support_pkg, "make_checker", lambda name, **options: StubChecker())
    path = _write(tmp_path / "g.jsonl", [
        {"claim": "yes", "evidence": "e", "label": True},
        {"claim": "no", "evidence": "e", "label": False},
    ])
    out = io.StringIO()
    assert ev.cli_eval_support(path, "jsonl", as_json=True, out=out) == 0
    result = json.loads(out.getvalue())
    assert result["n"] == 2 and result["balanced_accuracy"] == 1.0 and result["auroc"] == 1.0
    text = io.StringIO()
    assert ev.cli_eval_support(path, "jsonl", out=text) == 0
    assert "balanced_accuracy" in text.getvalue()
    assert ev.cli_eval_support(str(tmp_path / "none.jsonl"), "jsonl", out=io.StringIO()) != 0
    assert ev.cli_eval_support(path, "nope", out=io.StringIO()) != 0
    assert "error:" in capsys.readouterr().err


@pytest.mark.unit
def test_cli_eval_support_says_what_it_left_out(tmp_path, monkeypatch) -> None:
    import graphrag.verify.support as support_pkg

    monkeypatch.setattr(support_pkg, "make_checker", lambda name, **options: StubChecker())
    row = {"question": "q", "answers": {"sys": {"claims": [
        {"claim_string": "yes [1]", "support": "Complete", "evidence": ["[1] https://e.org\n\nText."]},
        {"claim_string": "no [1]", "support": "Incomplete", "evidence": ["[1] https://e.org\n\nText."]},
        {"claim_string": "no [2]", "support": "Complete", "evidence": ["[2] https://e.org/only-a-link"]},
    ]}}}
    path = _write(tmp_path / "e.jsonl", [row])
    out = io.StringIO()
    assert ev.cli_eval_support(path, "expertqa", as_json=True, out=out) == 0
    result = json.loads(out.getvalue())
    assert result["n"] == 2 and result["skipped"] == {"evidence is only a URL, no passage text": 1}
    text = io.StringIO()
    assert ev.cli_eval_support(path, "expertqa", out=text) == 0
    assert "left out of the data: 1 (evidence is only a URL, no passage text)" in text.getvalue()


@pytest.mark.unit
def test_bench_queries_have_few_sentence_evidence() -> None:
    qs = ev.bench_queries(10)
    assert len(qs) == 10 and len({q.claim for q in qs}) == 10


@pytest.mark.model
def test_cli_bench_support_prints_latency_json() -> None:
    out = io.StringIO()
    assert ev.cli_bench_support(out=out, batch=8, rounds=2) == 0
    result = json.loads(out.getvalue())
    assert result["p50_ms_per_pair"] > 0 and result["pairs_per_s"] > 0 and "p95_ms_per_pair" in result
