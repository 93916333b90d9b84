"""Shared Ollama plumbing: host resolution, server status, and the one place that chats.

Every Ollama backend (extractor, generator, judge) goes through ``OllamaChat.ask`` so that
timeouts, bounded retries and the mapping of client errors to ``ModelUnavailable`` /
``BackendFailed`` are decided once. Options always set ``num_ctx`` (Ollama's default of
2048 tokens silently truncates long prompts) and ``temperature: 0`` (reproducible runs).
"""

from __future__ import annotations

import functools
import json
import logging
import re
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, overload

import httpx
import ollama

if TYPE_CHECKING:
    import ssl

from graphrag.errors import BackendFailed, ModelUnavailable

log = logging.getLogger(__name__)

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_PORT = 11434
DEFAULT_EXTRACT_MODEL = "llama3.1:8b"
DEFAULT_GENERATE_MODEL = "llama3.1:8b"
DEFAULT_JUDGE_MODEL = "bespoke-minicheck"

RETRY_BACKOFF = 0.5  # seconds before the first retry; doubles each time, capped below
_MAX_BACKOFF = 4.0
_CONNECT_TIMEOUT = 5.0  # a local server accepts at once; no need to wait the full timeout


@functools.cache
def _tls() -> ssl.SSLContext:
    """httpx's default TLS context, built once: each client otherwise reads the CA bundle again (50 ms), and the
    sidebar's status check makes one per look."""
    return httpx.create_ssl_context()

# Bind-all addresses are valid for `ollama serve` but not as a destination on every OS.
_WILDCARD_HOSTS = {"0.0.0.0", "::", "[::]", ""}

T = TypeVar("T")


# --- host and status --------------------------------------------------------------------


def resolve_host(host: str | None = None) -> str:
    """The server URL for ``host`` (the callers pass their configuration's ``ollama_host``, OLLAMA_HOST), else the
    default.

    ``OLLAMA_HOST`` is often written as the server's bind address ("0.0.0.0:11434",
    "myhost:11434", ":11434"); scheme and port are filled in and a wildcard becomes loopback.
    """
    raw = (host or "").strip()
    if not raw:
        return DEFAULT_HOST
    has_scheme = "://" in raw
    split = urllib.parse.urlsplit(raw if has_scheme else f"http://{raw}")
    scheme = split.scheme or "http"
    hostname = split.hostname or ""
    if hostname in _WILDCARD_HOSTS:
        hostname = "127.0.0.1"
    elif ":" in hostname:  # IPv6 literal
        hostname = f"[{hostname}]"
    port = split.port or (DEFAULT_PORT if not has_scheme else {"https": 443}.get(scheme, 80))
    path = split.path.rstrip("/")
    return f"{scheme}://{hostname}:{port}{path}"


def _base_name(model: str) -> str:
    """"llama3.1" and "llama3.1:latest" are the same pulled model."""
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"


def is_pulled(model: str, pulled: Sequence[str]) -> bool:
    """True when ``model`` is among the ``pulled`` names (":latest" is implied by no tag)."""
    want = _base_name(model)
    return any(_base_name(p) == want for p in pulled)


def pull_hint(model: str) -> str:
    """The command that downloads ``model``."""
    return f"ollama pull {model}"


@dataclass(frozen=True)
class OllamaStatus:
    """What the sidebar shows about the Ollama server: reachable or not, and its pulled models."""

    host: str
    reachable: bool
    models: tuple[str, ...]
    error: str | None

    def has(self, model: str) -> bool:
        """Whether ``model`` is pulled (a bare name matches its ``:latest`` tag)."""
        return is_pulled(model, self.models)


def ollama_status(host: str | None = None, timeout: float = 2.0) -> OllamaStatus:
    """Is the server reachable, and which models are pulled? Never raises (for the sidebar)."""
    url = resolve_host(host)
    try:
        listing = ollama.Client(host=url, timeout=timeout, verify=_tls()).list()
    except (ConnectionError, httpx.HTTPError, ollama.ResponseError, ValueError) as e:
        return OllamaStatus(url, False, (), _unreachable_message(url, e))
    names = tuple(sorted(m.model for m in listing.models if m.model))
    return OllamaStatus(url, True, names, None)


def _unreachable_message(host: str, error: BaseException | None = None) -> str:
    detail = f" ({type(error).__name__})" if error is not None else ""
    return f"Ollama server at {host} is not reachable{detail}; start it with `ollama serve`"


# --- chatting ---------------------------------------------------------------------------


class MalformedReply(ValueError):
    """Raised by a reply parser when the model's text is not the shape asked for."""


class _Retryable(Exception):
    """Internal: an attempt failed in a way worth trying again."""


def strip_thinking(text: str) -> str:
    """Drop <think>...</think> blocks that reasoning models put before their answer."""
    return re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL).strip()


class OllamaChat:
    """One model on one server, with timeout, bounded retries and error mapping.

    ``calls`` counts HTTP requests actually sent (retries included), so callers can report
    real model calls even when an attempt failed.
    """

    def __init__(
        self,
        model: str,
        host: str | None = None,
        timeout: float = 120.0,
        retries: int = 2,
        num_ctx: int = 8192,
        backoff: float = RETRY_BACKOFF,
        backend: str = "ollama",
    ) -> None:
        if retries < 0:
            raise ValueError("retries must be >= 0")
        self.model = model
        self.host = resolve_host(host)
        self.timeout = timeout
        self.retries = retries
        self.num_ctx = num_ctx
        self.backoff = backoff
        self.backend = backend
        self.calls = 0
        http_timeout = httpx.Timeout(timeout, connect=min(timeout, _CONNECT_TIMEOUT))
        self._client = ollama.Client(host=self.host, timeout=http_timeout, verify=_tls())

    @property
    def options(self) -> dict[str, Any]:
        """Ollama options sent with every chat: the context size and temperature 0."""
        return {"num_ctx": self.num_ctx, "temperature": 0}

    @overload
    def ask(self, messages: Sequence[Mapping[str, str]], *, format: str | Mapping[str, Any] | None = None,
            parse: Callable[[ollama.ChatResponse], T], **extra: Any) -> T: ...

    @overload
    def ask(self, messages: Sequence[Mapping[str, str]], *, format: str | Mapping[str, Any] | None = None,
            parse: None = None, **extra: Any) -> ollama.ChatResponse: ...

    def ask(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        format: str | Mapping[str, Any] | None = None,
        parse: Callable[[ollama.ChatResponse], T] | None = None,
        **extra: Any,
    ) -> T | ollama.ChatResponse:
        """Send one chat request; retry transient failures; return ``parse(reply)``.

        ``parse`` raising ``MalformedReply`` counts as a failed attempt and is retried, so a
        model that sometimes returns junk gets the same bounded number of tries as a timeout.
        Raises ``ModelUnavailable`` (server down, model not pulled) or ``BackendFailed``.
        """
        attempts = self.retries + 1
        last = ""
        for attempt in range(1, attempts + 1):
            try:
                reply = self._send(messages, format, extra)
                return parse(reply) if parse else reply
            except MalformedReply as e:
                last = f"malformed reply: {e}"
            except _Retryable as e:
                last = str(e)
            if attempt < attempts:
                log.warning("%s attempt %d/%d failed: %s; retrying", self.model, attempt, attempts, last)
                time.sleep(min(self.backoff * 2 ** (attempt - 1), _MAX_BACKOFF))
        raise BackendFailed(f"Ollama model {self.model} at {self.host} failed after {attempts} tries: {last}")

    def _send(
        self, messages: Sequence[Mapping[str, str]], format: Any, extra: Mapping[str, Any]
    ) -> ollama.ChatResponse:
        self.calls += 1
        try:
            return self._client.chat(
                model=self.model,
                messages=list(messages),
                format=format,
                options=self.options,
                stream=False,
                **extra,
            )
        except ollama.ResponseError as e:
            raise self._response_error(e) from e
        except httpx.ConnectTimeout as e:
            raise self._unavailable(e) from e
        except httpx.TimeoutException as e:
            raise _Retryable(f"no reply within {self.timeout:g}s ({type(e).__name__})") from e
        except (httpx.NetworkError, httpx.RemoteProtocolError, ConnectionResetError, BrokenPipeError) as e:
            raise _Retryable(f"connection lost ({type(e).__name__}: {e})") from e
        except ConnectionError as e:  # the client's wrapper for httpx.ConnectError
            raise self._unavailable(e) from e
        except httpx.HTTPError as e:
            raise BackendFailed(f"Ollama request to {self.host} failed: {type(e).__name__}: {e}") from e
        except ValueError as e:  # the HTTP body was not JSON, or not a chat response
            raise _Retryable(f"malformed JSON from server ({type(e).__name__})") from e

    def _response_error(self, e: ollama.ResponseError) -> Exception:
        text = str(e.error)
        if _is_model_missing(text):
            return ModelUnavailable(
                f"Ollama model {self.model!r} is not pulled on {self.host}; run `{pull_hint(self.model)}`",
                backend=self.backend,
                model=self.model,
            )
        if e.status_code >= 500 or e.status_code == 429:
            return _Retryable(f"server error {e.status_code}: {text}")
        return BackendFailed(f"Ollama at {self.host} rejected the request ({e.status_code}): {text}")

    def _unavailable(self, e: BaseException) -> ModelUnavailable:
        return ModelUnavailable(_unreachable_message(self.host, e), backend=self.backend, model=self.model)


def _is_model_missing(text: str) -> bool:
    # Ollama answers 404 with 'model "x" not found, try pulling it first'; a bare 404 from a
    # wrong URL path ("404 page not found") is a configuration error, not a missing model.
    lowered = text.lower()
    return "model" in lowered and "not found" in lowered


def reply_text(reply: ollama.ChatResponse) -> str:
    """The assistant's text, with any reasoning block removed."""
    return strip_thinking(reply.message.content or "")


def parse_json_object(text: str) -> dict[str, Any]:
    """Parse a JSON object from a model reply, or raise MalformedReply."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise MalformedReply(f"not JSON ({e.msg} at char {e.pos}): {text[:80]!r}") from None
    if not isinstance(data, dict):
        raise MalformedReply(f"expected a JSON object, got {type(data).__name__}")
    return data


__all__ = [
    "DEFAULT_EXTRACT_MODEL",
    "DEFAULT_GENERATE_MODEL",
    "DEFAULT_HOST",
    "DEFAULT_JUDGE_MODEL",
    "MalformedReply",
    "OllamaChat",
    "OllamaStatus",
    "is_pulled",
    "ollama_status",
    "parse_json_object",
    "pull_hint",
    "reply_text",
    "resolve_host",
    "strip_thinking",
]
