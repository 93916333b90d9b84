"""The store's signing key: an Ed25519 key pair that signs evidence packs (``graphrag.verify.pack``).

One key pair per store, made on first use (``graphrag pack key`` or the first pack export). The private half never
leaves the machine that exports: it is a file readable by its owner only (0600), beside a SQLite store
(``<store>.signing-key``), or for a PostgreSQL store in the exporting user's configuration folder
(``~/.config/graphrag/keys/<store digest>.ed25519``: the database holds no secret an application role could read).
Only the public half goes into a pack; ``graphrag pack key`` prints it for an auditor to keep.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from graphrag.errors import GraphRAGError, InputError
from graphrag.store.url import StoreURL

KEY_SUFFIX = ".signing-key"
PUBLIC_PREFIX = "ed25519:"  # how a public key is written: the prefix, then its 32 raw bytes in hex


class SigningKeyError(GraphRAGError):
    """The store's signing key cannot be read or written, or is readable by others."""


def key_path(url: StoreURL, config_home: Path | None = None) -> Path:
    """Where the private key of the store at ``url`` is kept (see the module's docstring)."""
    if url.kind == "sqlite":
        assert url.path is not None
        return url.path.with_name(url.path.name + KEY_SUFFIX)
    home = config_home if config_home is not None else Path.home() / ".config"
    digest = hashlib.sha256(url.key.encode("utf-8")).hexdigest()[:16]
    return home / "graphrag" / "keys" / f"{digest}.ed25519"


@dataclass(frozen=True)
class SigningKey:
    """The private key and where it lives."""

    private: Ed25519PrivateKey
    path: Path

    @property
    def public_text(self) -> str:
        """The public half as printed and stored in a pack: ``ed25519:<64 hex digits>``."""
        return public_text(self.private.public_key())

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``data``."""
        return self.private.sign(data)


def public_text(key: Ed25519PublicKey) -> str:
    """``ed25519:`` and the key's raw bytes in hex."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return PUBLIC_PREFIX + raw.hex()


def parse_public(text: str) -> Ed25519PublicKey:
    """A public key written as ``ed25519:<hex>`` (what ``graphrag pack key`` prints), bare hex, or PEM."""
    text = text.strip()
    try:
        if text.startswith("-----BEGIN"):
            key = serialization.load_pem_public_key(text.encode("ascii"))
            if not isinstance(key, Ed25519PublicKey):
                raise ValueError("not an Ed25519 key")
            return key
        raw = bytes.fromhex(text.removeprefix(PUBLIC_PREFIX))
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise InputError("a public key is 'ed25519:' and 64 hex digits (as `graphrag pack key` prints it), or an "
                         "Ed25519 public key in PEM") from None


def verifies(key: Ed25519PublicKey, signature: bytes, data: bytes) -> bool:
    """Whether ``signature`` is ``key``'s over ``data``."""
    try:
        key.verify(signature, data)
    except InvalidSignature:
        return False
    return True


def load_or_create(path: Path) -> SigningKey:
    """The key at ``path``, made (0600, its folder 0700 when new) when there is none. A key file others can read is
    refused: whoever reads it could sign packs in the store's name."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it meanwhile: use theirs
            return load_or_create(path)
        except OSError as exc:
            raise SigningKeyError(f"cannot write the signing key {path}: {exc.strerror}") from None
        with os.fdopen(fd, "wb") as f:
            f.write(pem)
        return SigningKey(key, path)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise SigningKeyError(f"the signing key {path} is readable by others (mode {mode:o}): run "
                              f"`chmod 600 {path}`, and make a new key if others may have read it")
    try:
        loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError) as exc:
        raise SigningKeyError(f"cannot read the signing key {path}: {exc}") from None
    if not isinstance(loaded, Ed25519PrivateKey):
        raise SigningKeyError(f"{path} holds no Ed25519 private key")
    return SigningKey(loaded, path)


def store_key(url: StoreURL, config_home: Path | None = None) -> SigningKey:
    """The signing key of the store at ``url``, made on first use."""
    return load_or_create(key_path(url, config_home))
