"""The one error a reader raises: the file cannot be read as its type, with the reason to show."""

from __future__ import annotations

from graphrag.errors import InputError


class ReadError(InputError):
    """The document is rejected; ``str(error)`` says why and what to do."""
