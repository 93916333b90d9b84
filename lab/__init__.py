"""The lab: benchmarks, evaluations and fitting scripts that measure the product; the product never imports it.

``graphrag bench`` and ``graphrag eval`` run ``lab.bench``, ``lab.bench_scale``, ``lab.bench_million`` and ``lab.evaluate`` (each
command imports them when it runs); ``python -m lab.fit_support`` refits the embedded checker's shipped
parameters and ``python -m lab.eval_real_pdfs`` scores citations on real PDFs. The contract that keeps the
product free of it is ``[tool.importlinter]`` in pyproject.toml (``lint-imports``).
"""
