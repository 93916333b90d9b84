"""Local GraphRAG with source attribution: the core package (no UI code)."""

__version__ = "0.1.0"
