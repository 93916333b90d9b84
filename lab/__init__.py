"""The lab: benchmarks, evaluations and fitting scripts that measure the product; the product never imports it.

``graphrag bench`` and ``graphrag eval`` run ``lab.bench``, ``lab.bench_scale``, ``lab.bench_million`` and ``lab.evaluate`` (each
command imports them when it runs); ``python -m lab.fit_support`` refits the embedded checker's shipped
parameters and ``python -m lab.eval_real_pdfs`` scores citations on real PDFs. The contract that keeps the
product free of it is ``[tool.importlinter]`` in pyproject.toml (``lint-imports``).
"""

from __future__ import annotations

import functools

from graphrag.config import Config


@functools.cache
def lab_config() -> Config:
    """The product's settings as this lab run reads them from the environment, once: a lab script is an entry point
    like the command line, and hands them to what it builds (the embedder, the ingestors, the askers)."""
    return Config.from_env()
