"""Specific errors with messages a user can act on. Pages and the CLI show ``str(error)``."""

from __future__ import annotations


class GraphRAGError(Exception):
    """Base class: anything the product reports to a user."""


class ModelUnavailable(GraphRAGError):
    """A model server is down, or the model is not pulled. The message says what to run."""

    def __init__(self, message: str, *, backend: str = "", model: str | None = None) -> None:
        super().__init__(message)
        self.backend = backend
        self.model = model


class BackendFailed(GraphRAGError):
    """A backend was reached but failed: timeout, malformed reply, server error."""


class UnknownBackend(GraphRAGError):
    """A backend name that no registry knows."""


class StoreError(GraphRAGError):
    """The store cannot be opened or written (read-only, disk full, newer schema)."""


class InputError(GraphRAGError):
    """A document, manifest or question that cannot be used as given."""
