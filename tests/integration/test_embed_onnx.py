"""The ONNX Runtime encoder gives torch's vectors and token embeddings, exports once, and reuses the export.

The export goes to a temporary folder (from the weights of the installed package, offline), so the test needs
neither a cache nor a network."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphrag.config import Config
from graphrag.language import embed_onnx
from graphrag.language.embed import MiniLMEmbedder, get_embedder
from graphrag.language.embed_onnx import OnnxMiniLMEmbedder
from graphrag.language.encoding import DIM

pytestmark = pytest.mark.model

LONG = " ".join(["The committee reviewed the proposal, amended two clauses and sent it back to the council,"
                 " which approved it after a short debate."] * 20)  # over 256 word pieces: truncated
SENTENCES = [
    "x", "OK", "Yes.", "", "   ", "?!", "...", "42", "3.14159", "1 January 1960",
    "Paris is the capital of France.",
    "The Journal of Mathematical Physics is a peer-reviewed journal published monthly by the American Institute "
    "of Physics.",
    "Who wrote the novel that the 1962 film was based on?",
    "He said: \"It's not over -- not yet!\" (and left).",
    "Person - centered therapy seeks to facilitate a client's self - actualizing tendency, ``an inbuilt "
    "proclivity toward growth and fulfillment ''.",
    "Population (excluding the administrative center): 42,859 (2002 Census); .",
    "The average annual temperature of the sea is above 19 °C (66 °F).",
    "6998150000000000000 ♠ 1.5 × 10 -- 23.2 GWh",
    "[citation needed]",
    "e-mail: someone@example.org, web: https://example.org/a?b=c&d=e",
    "C++ and C# are programming languages; so is F#.",
    "I Mean It!)",
    "Café, naïve, façade, jalapeño and Zürich.",
    "Ångström, Øresund, Łódź, Şanlıurfa.",
    "Москва — столица России.",
    "東京は日本の首都です。",
    "北京是中国的首都。",
    "서울은 한국의 수도입니다.",
    "القاهرة هي عاصمة مصر.",
    "Αθήνα είναι η πρωτεύουσα της Ελλάδας.",
    "עברית נכתבת מימין לשמאל.",
    "हिन्दी भारत की एक भाषा है।",
    "Emoji 🙂 and symbols ✓ ★ → ∑ ∞.",
    "“Curly quotes” and ‘single ones’ — with an em dash – and an en dash.",
    "Tabs\tand\nnew lines\r\nin one text.",
    "ALL CAPITALS SHOULD MATCH LOWER CASE AFTER NORMALISATION.",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "A" * 300,
    "The Treaty of Westphalia (1648) ended the Thirty Years' War.",
    "Water boils at 100 degrees Celsius at sea level.",
    "She was born in 1887 and died in 1964, aged 76.",
    "The company's revenue grew 12% year over year to $4.2 billion.",
    "Is the Eiffel Tower taller than the Statue of Liberty?",
    "Mitochondria are the powerhouse of the cell.",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z",
    "Don't, won't, can't, shouldn't've.",
    "(((nested (parentheses))))",
    "Line one.\n\nLine two after a blank line.",
    LONG,
    LONG[:600],
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def onnx(cache: Path) -> OnnxMiniLMEmbedder:
    return OnnxMiniLMEmbedder(cache_dir=cache)


@pytest.fixture(scope="module")
def reference() -> MiniLMEmbedder:
    shared = get_embedder(Config())  # the shared model, when it is torch's (the default encoder is ONNX)
    return shared if isinstance(shared, MiniLMEmbedder) else MiniLMEmbedder()


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    cos: np.ndarray = np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return cos


def test_vectors_match_torch(onnx: OnnxMiniLMEmbedder, reference: MiniLMEmbedder) -> None:
    assert len(SENTENCES) >= 50
    got = onnx.encode(SENTENCES, batch_size=16)  # several batches, each padded to its own length
    want = reference.encode(SENTENCES)
    assert got.shape == (len(SENTENCES), DIM) and got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert _cosines(got, want).min() >= 0.999


def test_token_embeddings_match_torch(onnx: OnnxMiniLMEmbedder, reference: MiniLMEmbedder) -> None:
    vecs, tokens = onnx.encode_with_tokens(SENTENCES)
    want_vecs, want_tokens = reference.encode_with_tokens(SENTENCES)
    assert _cosines(vecs, want_vecs).min() >= 0.999
    assert tokens.keys() == want_tokens.keys()
    for text, (ids, pieces, token_vecs) in tokens.items():
        want_ids, want_pieces, want_token_vecs = want_tokens[text]
        assert pieces == want_pieces, text
        assert ids.dtype == want_ids.dtype and np.array_equal(ids, want_ids), text
        assert token_vecs.shape == want_token_vecs.shape == (len(pieces), DIM)
        assert pieces[0] == "[CLS]" and pieces[-1] == "[SEP]"
        assert _cosines(token_vecs, want_token_vecs).min() >= 0.99, text
    assert len(tokens[LONG][1]) == 256  # truncated where sentence-transformers truncates


def test_a_second_embedder_reuses_the_export(onnx: OnnxMiniLMEmbedder, cache: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def no_export(model_dir: Path, dest: Path) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(embed_onnx, "_export_transformer", no_export)
    again = OnnxMiniLMEmbedder(cache_dir=cache)
    assert again.onnx_path == onnx.onnx_path
    assert [p.name for p in cache.iterdir()] == [onnx.onnx_path.name]  # no temporary file left behind
    np.testing.assert_allclose(again.encode(SENTENCES[:5]), onnx.encode(SENTENCES[:5]), atol=1e-6)


def test_empty_input(onnx: OnnxMiniLMEmbedder) -> None:
    out = onnx.encode([])
    assert out.shape == (0, DIM) and out.dtype == np.float32
    vecs, tokens = onnx.encode_with_tokens([])
    assert vecs.shape == (0, DIM) and tokens == {}
    assert onnx.encode_tokens([]) == {}


def test_an_ingest_can_encode_on_two_threads_while_other_threads_keep_one(onnx: OnnxMiniLMEmbedder) -> None:
    """The ingest asks for two threads when a core is free (``encode_threads``); a session's thread count is fixed
    when it is made, so the block runs another session, and only in the thread that asked."""
    import threading

    from graphrag.language.embed import encode_threads

    one = onnx.encode(SENTENCES[10:20])
    elsewhere: list[object] = []
    with encode_threads(onnx, 2):
        two = onnx.encode(SENTENCES[10:20])
        inside = onnx._session
        worker = threading.Thread(target=lambda: elsewhere.append(onnx._session))
        worker.start()
        worker.join()
    assert inside is onnx._sessions[2] and inside is not onnx._sessions[1]
    assert elsewhere == [onnx._sessions[1]] and onnx._session is onnx._sessions[1]
    np.testing.assert_allclose(two, one, atol=1e-5)
