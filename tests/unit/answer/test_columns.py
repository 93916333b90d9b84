"""Key positions found by hash (``KeyIndex``) agree with a dict's."""

import numpy as np
import pytest

from graphrag.answer.retrieval.columns import KeyIndex


@pytest.mark.unit
def test_key_index_finds_what_a_dict_finds_and_names_a_missing_key() -> None:
    keys = sorted({f"entity {i * 7919 % 1000}" for i in range(1000)})
    index = KeyIndex(keys)
    wanted = [keys[i] for i in np.random.default_rng(0).integers(0, len(keys), 5000)]
    assert index.distinct and index.of(wanted, np.int32).tolist() == [keys.index(k) for k in wanted]
    assert index.of(wanted, np.int32).dtype == np.int32 and len(index.of([], np.int64)) == 0
    with pytest.raises(KeyError, match="nobody"):
        index.of([keys[0], "nobody"], np.int64)
    with pytest.raises(KeyError):
        KeyIndex([]).of(["nobody"], np.int64)


@pytest.mark.unit
def test_key_index_falls_back_to_the_dict_when_two_keys_share_a_hash() -> None:
    index = KeyIndex([-1, -2, 5])  # hash(-1) == hash(-2) in CPython
    assert not index.distinct and index.of([5, -2, -1], np.int64).tolist() == [2, 1, 0]
    with pytest.raises(KeyError):
        index.of([7], np.int64)
