"""Streamlit helpers shared by the pages (UI only; the core lives in graphrag/).

One job per module, each importing only the ones below it (the ``dashboard-layers`` contract in pyproject.toml):
``sidebar``, ``first_start`` (the sample corpus on an empty store), ``signin`` (the gate before any page),
``reconnect`` (a tab that comes back to a restarted dashboard),
``removal`` and ``cited_pages`` (page sections); ``jobs`` (background ingests); ``actor`` (who acts: principal,
labels, reviewer name, role checks); ``session`` (session_state keys, widgets kept across pages);
``resources`` (configuration, deployment, the cached store, embedder, asker and Ollama status); ``render`` and
``evidence`` (plain text, tables, quotes).
"""
