"""The language floor: what every domain reads text with, below them all.

Sentences and their spans (``sentences``), the shared sentence encoding (``encoding``: the model's name, size and
the encoder protocols; ``embed``: MiniLM through torch; ``embed_onnx``: the same through ONNX Runtime), word stems and
lexical measures (``lexical``), numbers, dates and amounts read by value (``quantities``) and names folded for
comparison (``names``). It imports no domain package; ``answer``, ``verify``, ``ingest`` and ``store`` stand on it.
Import from the modules themselves.
"""
