"""The reader: the one place that decides which retrieved sentence answers the question, takes its typed short
answer, and decides whether the documents answer at all.

Retrieval (fused candidates) stays as it is; the reader reads the context items and returns one ``Reading``
(``read``: ``Reader``, all of it loaded once with the encoder), which the generators only compose the answer
from. Its parts: ``scorer`` (a model trained here from packaged weights, shipped as int8 ONNX: ``AnswerScorer``;
None while no weights ship), ``check`` and ``second_view`` (when they ship), ``features`` (what the reader knows
about a question and its sentences), ``abstain`` (a calibrated probability that the documents answer, fitted by
``lab/fit_abstain.py``, with its threshold), ``rank`` (the learned sentence ranker and ``rank.kinds``, the one
detector of which lines may be quoted), ``quotes`` (each statement's quote score and the quotes' order) and
``short_answer`` (the typed short answer, and the one ``AnswerType``).
"""
