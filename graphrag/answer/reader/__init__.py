"""The reader: judges whether a retrieved sentence answers the question, takes a typed short answer
from it, and decides whether the documents answer at all.

Retrieval (fused candidates) stays as it is; the reader re-scores the context items. Its parts:
``scorer`` (a model trained here from packaged weights, shipped as int8 ONNX: ``AnswerScorer``; None
while no weights ship, and the quotes keep their order), ``features`` (what the reader knows about
a question and its sentences), ``abstain`` (a calibrated probability that the documents answer,
fitted by ``lab/fit_abstain.py``, with its threshold) and ``read`` (``Reader``: all of it, loaded
once with the encoder). The typed short answer itself is ``short_answer``, the learned sentence ranker
``rank`` and the quotes' score ``quotes``.
"""
