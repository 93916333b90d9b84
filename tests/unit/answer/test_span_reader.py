"""The answer-span reader's runtime: the span lies in the candidate sentence only, bad input is bounded, and weights
that do not match their digest are refused with a message that says what to do (the reader goes on without them)."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import numpy as np
import pytest

from graphrag.answer.reader.scorer import ScorerUnavailable
from graphrag.answer.reader.span import (
    SPAN_CONFIG,
    SPAN_ONNX,
    Candidate,
    OnnxSpanReader,
    SpanConfig,
    best_token_span,
    load_span_reader,
    passage_text,
)

pytestmark = pytest.mark.unit


def tiny_model(path: Path) -> None:
    """An ONNX graph with the span reader's inputs and outputs: the answer logit is the mean token id / 1000 - 5,
    start and end logits are the token ids themselves (so the best span is the highest id among allowed tokens)."""
    import onnx
    from onnx import TensorProto, helper

    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "t"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "t"])
    types = helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["b", "t"])
    out = [helper.make_tensor_value_info("answer", TensorProto.FLOAT, ["b"]),
           helper.make_tensor_value_info("start", TensorProto.FLOAT, ["b", "t"]),
           helper.make_tensor_value_info("end", TensorProto.FLOAT, ["b", "t"])]
    nodes = [helper.make_node("Cast", ["input_ids"], ["f"], to=TensorProto.FLOAT),
             helper.make_node("Identity", ["f"], ["start"]),
             helper.make_node("Identity", ["f"], ["end"]),
             helper.make_node("ReduceMean", ["f"], ["m"], axes=[1], keepdims=0),
             helper.make_node("Div", ["m", "k"], ["d"]),
             helper.make_node("Sub", ["d", "five"], ["answer"])]
    init = [helper.make_tensor("k", TensorProto.FLOAT, [], [1000.0]),
            helper.make_tensor("five", TensorProto.FLOAT, [], [5.0])]
    graph = helper.make_graph(nodes, "tiny", [ids, mask, types], out, init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))


@pytest.fixture()
def weights(tmp_path: Path) -> Path:
    tiny_model(tmp_path / SPAN_ONNX)
    digest = hashlib.sha256((tmp_path / SPAN_ONNX).read_bytes()).hexdigest()
    SpanConfig(64, 8, 6, 1.0, 0.0, 0.5, digest).write(tmp_path / SPAN_CONFIG, {})
    return tmp_path


def test_best_span_respects_the_allowed_tokens_and_the_longest_answer():
    start = np.array([9.0, 1.0, 5.0, 0.0, 0.0])
    end = np.array([9.0, 0.0, 1.0, 0.0, 7.0])
    allowed = np.array([False, True, True, True, True])
    assert best_token_span(start, end, allowed, longest=10) == (2, 4)
    assert best_token_span(start, end, allowed, longest=2) == (3, 4)  # (2, 4) is three tokens
    assert best_token_span(start, end, np.zeros(5, dtype=bool), longest=10) is None


def test_the_sentence_starts_where_the_passage_says():
    text, at = passage_text("Retention policy", "Exports are kept for a long time and then", "They expire.", 3)
    assert text[at:] == "They expire."
    assert text.startswith("Retention policy. time and then [SEP] ")
    text, at = passage_text("", "", "  Alone   here. ", 8)
    assert text[at:] == "Alone here."


def test_the_span_is_a_phrase_of_the_candidate_sentence(weights):
    reader = OnnxSpanReader.load(weights)
    got = reader.read("zygote xylophone?", [Candidate("Exports stay available for thirty days.", "Before this.",
                                                      "Policy")])
    assert len(got) == 1
    reading = got[0]
    sentence = "Exports stay available for thirty days."
    assert reading.span and reading.span == sentence[reading.start:reading.end]
    assert 0.0 <= reading.probability <= 1.0


def test_bad_input_is_bounded(weights):
    reader = OnnxSpanReader.load(weights)
    assert reader.read("anything", []) == []
    long_question = "why " * 25_000  # 100,000 characters
    long_sentence = " ".join(f"word{i}" for i in range(3000))
    got = reader.read(long_question, [Candidate(long_sentence), Candidate("Short one.")])
    assert len(got) == 2
    for reading, sentence in zip(got, (long_sentence, "Short one.")):
        assert reading.span == sentence[reading.start:reading.end]  # within the sentence, even when it was cut


def test_weights_that_do_not_match_their_digest_are_refused(weights, caplog):
    (weights / SPAN_ONNX).write_bytes((weights / SPAN_ONNX).read_bytes() + b"\0")
    with pytest.raises(ScorerUnavailable, match=r"do not match the sha256.*lab\.fit_span_reader"):
        OnnxSpanReader.load(weights)
    load_span_reader.cache_clear()
    with caplog.at_level(logging.WARNING):
        assert load_span_reader(weights) is None
    assert "decides without the span reader" in caplog.text
    load_span_reader.cache_clear()


def test_no_weights_means_no_span_reader(tmp_path):
    load_span_reader.cache_clear()
    assert load_span_reader(tmp_path) is None
    load_span_reader.cache_clear()
