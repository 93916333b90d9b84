"""The signed evidence pack: one zip an auditor checks offline (``graphrag export --format pack``,
``graphrag pack verify``).

A pack holds ``scope.json`` (who exported it, when, the labels it covers), ``answers.json`` (the answers, their
claims, citations with the cited sentence and its digest, and each cited document version's digest),
``verdicts.json`` (every verdict row, as the record's export), ``audit.json`` (the audit log), ``policy.json``,
``estimate.json``, ``report.html`` (the same, readable), ``public_key.txt`` (the signer's public half), then
``manifest.json`` (the SHA-256 and size of every other file) and ``manifest.sig`` (the Ed25519 signature of the
manifest's bytes, hex). Everything in it is what the exporter's labels may see, and all of that: blind review does
not narrow a pack. Under blind review a pack needs an exporter who may read every verdict (a team admin, signed in;
in local mode, where nobody signs in, one who says so with ``whole_record``), else it is refused (``PackRefused``)
before anything is written: never a pack whose verdict file quietly leaves out the verdicts still judged blind (or a
live dispute) while its report says "no verdict". What it leaves out (audit rows naming what its labels do not show)
is counted in ``scope.json`` and the report.

Verifying reads the zip in memory and writes nothing: every entry is checked for size, compression ratio and a
name that could escape a folder before any is read, so a hostile file gives a clear refusal, not a traceback.
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape
from pathlib import Path, PurePosixPath
from typing import Any

from graphrag.access.identity import Forbidden, Viewer
from graphrag.errors import InputError
from graphrag.model import Answer
from graphrag.store import Store
from graphrag.verify.attribution import display_numbers, shown_marker
from graphrag.verify.audit import Sight
from graphrag.verify.review import RETRACTED
from graphrag.verify.signing import PUBLIC_PREFIX, SigningKey, parse_public, public_text, verifies

FORMAT = "graphrag-evidence-pack/1"
MANIFEST, SIGNATURE, PUBLIC_KEY = "manifest.json", "manifest.sig", "public_key.txt"
MAX_ENTRIES = 64  # a pack has nine files; room for a future few
MAX_ENTRY_BYTES = 256 * 1024 * 1024
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
MAX_RATIO = 200  # uncompressed / compressed: JSON compresses about 10x; a bomb, thousands of times


class PackError(InputError):
    """A file that cannot be read as a pack at all (not a zip, a bomb, an escaping name, no manifest)."""


class PackRefused(Forbidden):
    """A pack that would leave out verdicts blind review hides from its exporter: refused, the message says what to
    do."""


def _json(data: Any) -> bytes:
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True, default=str).encode("utf-8")


def sha256(data: bytes) -> str:
    """The hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def answers_json(store: Store, answers: Iterable[Answer]) -> list[dict[str, Any]]:
    """Each answer with its claims and citations: the cited sentence, its digest and its document version's."""
    docs: dict[tuple[str, int], str | None] = {}

    def doc_digest(doc_id: str, version: int) -> str | None:
        if (doc_id, version) not in docs:
            d = store.document(doc_id, version)
            docs[(doc_id, version)] = d.sha256 if d else None
        return docs[(doc_id, version)]

    from graphrag.verify.policy import ReviewViewer
    from graphrag.verify.standing import Documents, answer_standing, current_by_answer
    from graphrag.verify.status import review_policy

    out = []
    policy = review_policy(store)
    overseer = ReviewViewer(oversees=True)  # a pack holds every verdict: its standings are said as its overseer reads it
    current, versions = current_by_answer(store, overseer, policy), Documents(store)
    for a in answers:
        claims = []
        # the numbers every surface shows: the stored ones, but for an answer stored before they were decided as it was
        # composed (retrieval's numbers, shown renumbered in reading order)
        shown = display_numbers(a)
        for cl in a.claims:
            cites = []
            for ct in cl.citations:
                sp = ct.item.span if ct.item else None
                cites.append({"marker": ct.marker, "citation": shown_marker(ct.marker, shown), "valid": ct.valid,
                              **({"document": sp.document_id, "version": sp.version, "sentence": sp.sentence_index,
                                  "start": sp.start, "end": sp.end, "text": sp.text,
                                  "sentence_sha256": sha256(sp.text.encode("utf-8")),
                                  "document_sha256": doc_digest(sp.document_id, sp.version)} if sp else {})})
            claims.append({"index": cl.index, "text": cl.text, "flags": [f.value for f in cl.flags],
                           "support_score": cl.support.score if cl.support else None, "citations": cites})
        # its standing as every surface words it
        standing = answer_standing(store, a, overseer, policy=policy, current=current.get(a.id or 0, []),
                                   docs=versions)
        out.append({"answer_id": a.id, "question": a.question, "asked_at": a.created_at, "text": a.text,
                    "status": a.status.value, "claims": claims, "standing": standing.to_json()})
    return out


@dataclass(frozen=True)
class PackContents:
    """What goes into a pack besides the manifest, its signature and the report."""

    scope: dict[str, Any]
    answers: list[dict[str, Any]]
    verdicts: list[dict[str, Any]]
    audit: list[dict[str, Any]]
    policy: dict[str, Any]
    estimate: dict[str, Any]
    oversight: dict[str, Any] = field(default_factory=dict)  # graphrag.verify.oversight: the auditor's questions


@dataclass(frozen=True)
class BlindCount:
    """The verdicts on the answers a label set shows that blind review hides from someone who has judged nothing
    (on claims still in review or disputed), and on how many claims."""

    verdicts: int
    claims: int


def blind_verdicts(store: Store, labels: Iterable[str]) -> BlindCount:
    """What blind review hides, of the answers ``labels`` show, from an unnamed viewer (nothing without it)."""
    from graphrag.verify.carry import verdict_rows
    from graphrag.verify.policy import ANYONE, visible_verdicts
    from graphrag.verify.review import visible_answers
    from graphrag.verify.status import review_policy

    policy = review_policy(store)
    if not policy.blind:
        return BlindCount(0, 0)
    shown = {a.id for a in visible_answers(store, tuple(labels))}
    rows = [v for v in verdict_rows(store) if v.answer_id in shown]
    seen = {id(v) for v in visible_verdicts(rows, policy, ANYONE)}
    hidden = [v for v in rows if id(v) not in seen]
    return BlindCount(len(hidden), len({(v.answer_id, v.claim_index, v.kind) for v in hidden}))


def sees_whole_record(by: Viewer) -> bool:
    """Whether ``by`` may read every verdict whatever blind review hides: a team admin (signed in; the identity
    provider says who). A local name is self-declared and says nothing of the kind."""
    from graphrag.verify.review import review_viewer

    return by.team and review_viewer(by).oversees


def check_pack_allowed(store: Store, by: Viewer, whole_record: bool) -> BlindCount:
    """Refuse (``PackRefused``) a pack that blind review would narrow for ``by``: under blind review, unless ``by``
    is a team admin or, in local mode, says ``whole_record`` (they will read every verdict). Refused whether or not
    a verdict is hidden right now, so the refusal says nothing derived from others' verdicts. The verdicts blind
    review hides from whoever has not judged them, which the pack holds (counted in its scope)."""
    from graphrag.verify.status import review_policy

    if review_policy(store).blind and not sees_whole_record(by) and not (whole_record and not by.team):
        if by.team:
            raise PackRefused("blind review is on, and an evidence pack holds every verdict, those still judged blind "
                              f"included: a team admin exports it (your role: {by.role or 'none'})")
        raise PackRefused(
            "blind review is on, and an evidence pack holds every verdict, those still judged blind and disputes "
            "included (it is never narrowed to what one reviewer may see): exporting shows them to you. Add "
            "--whole-record to export the whole record (on the Record page: tick \"Every verdict\"), once you are "
            "done reviewing or by someone who does not review; or export as an admin signed in to the team's "
            "dashboard")
    return blind_verdicts(store, by.labels)


def _os_user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return ""


def gather(store: Store, by: Viewer, created_at: str, store_kind: str, sight: Sight,
           blind: BlindCount | None = None, access_policy: Path | None = None) -> PackContents:
    """Everything ``by``'s labels may see, every verdict on it included whatever blind review hides (the caller
    checked that ``by`` may read them: ``check_pack_allowed``, whose count is ``blind``), read after the export's
    own audit row was written (so the log in the pack names this export). ``access_policy``: the team's policy file,
    whose grants of a reviewing role the oversight report names."""
    from graphrag.verify.audit import audit_to_json
    from graphrag.verify.oversight import oversight
    from graphrag.verify.policy import ReviewViewer
    from graphrag.verify.review import export_rows, visible_answers
    from graphrag.verify.sampling import record_estimate
    from graphrag.verify.status import held_until_verified, review_policy

    labels = sorted(by.labels)
    rows = export_rows(store, labels, ReviewViewer(oversees=True))  # the whole record these labels show
    every = store.audit()
    events = [e for e in every if sight.shows(e)]
    policy = review_policy(store)
    who = by.identity
    scope = {"format": FORMAT, "created_at": created_at, "labels": labels, "store": store_kind,
             "exported_by": ({"subject": who.subject, "email": who.email} if who else
                             {"local": _os_user(), "via": by.via}),
             "verdicts": "every verdict on the answers these labels show (blind review does not narrow a pack)",
             "blind_verdicts_included": blind.verdicts if blind else 0,
             "blind_claims_included": blind.claims if blind else 0, "withheld_verdicts": 0,
             "withheld_audit_rows": len(every) - len(events)}
    answers = visible_answers(store, labels)
    verdicts = [dict(r) for r in rows]
    estimate = record_estimate(store, labels).to_json()
    return PackContents(scope, answers_json(store, answers), verdicts, json.loads(audit_to_json(events)),
                        {"required_verdicts": policy.required, "blind": policy.blind,
                         "held_until_verified": held_until_verified(store)}, estimate,
                        oversight(store, labels, answers, verdicts, events, estimate, access_policy=access_policy,
                                  team=by.team))


def build_pack(contents: PackContents, key: SigningKey) -> bytes:
    """The zip's bytes: the files, the manifest of their digests, and its signature by ``key``."""
    files: dict[str, bytes] = {
        "scope.json": _json(contents.scope), "answers.json": _json(contents.answers),
        "verdicts.json": _json(contents.verdicts), "audit.json": _json(contents.audit),
        "policy.json": _json(contents.policy), "estimate.json": _json(contents.estimate),
        "oversight.json": _json(contents.oversight),
        "report.html": report_html(contents, key.public_text).encode("utf-8"),
        PUBLIC_KEY: (key.public_text + "\n").encode("ascii"),
    }
    manifest = _json({"format": FORMAT, "signer": key.public_text, "labels": contents.scope["labels"],
                      "files": [{"name": n, "sha256": sha256(b), "bytes": len(b)} for n, b in sorted(files.items())]})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in [*files.items(), (MANIFEST, manifest), (SIGNATURE, key.sign(manifest).hex().encode())]:
            z.writestr(name, data)
    return buf.getvalue()


# --- verifying ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PackCheck:
    """What ``verify_pack`` found: ``failures`` names each thing that does not hold (empty: the pack is intact and
    signed by ``signer``)."""

    signer: str | None
    labels: tuple[str, ...] = ()
    files: int = 0
    failures: tuple[str, ...] = field(default=())
    expected_key: bool = False  # the signer was checked against a key given by the auditor

    @property
    def ok(self) -> bool:
        """Whether every digest and the signature hold."""
        return not self.failures


def _safe_name(name: str) -> bool:
    p = PurePosixPath(name)
    return (bool(name) and "\\" not in name and not p.is_absolute() and ".." not in p.parts
            and ":" not in name and "\x00" not in name and not name.endswith("/"))


_LOCAL, _CENTRAL, _END, _DESCRIPTOR = b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"PK\x07\x08"
_LOCAL_FMT, _CENTRAL_FMT, _END_FMT = "<4sHHHHHIIIHH", "<4sHHHHHHIIIHHHHHII", "<4sHHHHIIH"
_STORED, _DEFLATED = 0, 8
MAX_EXTRA = 256  # bytes of an entry's extra field (a pack's have none; zip tools add timestamps, ~30 bytes)


@dataclass
class _Entry:
    name: bytes
    flags: int
    method: int
    crc: int
    compressed: int
    size: int
    offset: int
    data_start: int = 0  # where its compressed bytes begin, once its local header is read


def _central_directory(data: bytes) -> tuple[list[_Entry], int]:
    """The central directory's entries and where it starts, refused unless the zip ends with its end record (no
    comment, no bytes after it) right after the directory, with no ZIP64 or multi-disk records."""
    end = struct.calcsize(_END_FMT)
    if len(data) < end or data[-end:-end + 4] != _END:
        raise PackError("refused: the zip does not end with its directory's end record (bytes after the zip, or a "
                        "comment): a pack is its entries and nothing else")
    _, disk, cd_disk, on_disk, count, cd_size, cd_start, comment = struct.unpack(_END_FMT, data[-end:])
    if comment or disk or cd_disk or on_disk != count or 0xFFFFFFFF in (cd_size, cd_start) or count == 0xFFFF:
        raise PackError("refused: the zip's end record is not a pack's (a comment, several disks or ZIP64)")
    if cd_start + cd_size != len(data) - end:
        raise PackError(f"refused: {len(data) - end - cd_start - cd_size} bytes stand before the zip's first entry "
                        "or between its directory and its end record: a pack is its entries and nothing else")
    entries, at, fixed = [], cd_start, struct.calcsize(_CENTRAL_FMT)
    for _ in range(count):
        if data[at:at + 4] != _CENTRAL or at + fixed > cd_start + cd_size:
            raise PackError("refused: the zip's directory does not hold the entries its end record counts")
        (_, _, _, flags, method, _, _, crc, compressed, size, n, m, k, _, _, _,
         offset) = struct.unpack(_CENTRAL_FMT, data[at:at + fixed])
        if k or m > MAX_EXTRA:  # room for a zip tool's timestamps, not for bytes hidden beside the entries
            raise PackError("refused: an entry of the zip carries a comment or a long extra field: a pack is its "
                            "entries and nothing else")
        entries.append(_Entry(data[at + fixed:at + fixed + n], flags, method, crc, compressed, size, offset))
        at += fixed + n + m + k
    if at != cd_start + cd_size:
        raise PackError("refused: the zip's directory holds bytes that are no entry of it")
    return entries, cd_start


def check_layout(data: bytes) -> list[_Entry]:
    """Refuse (``PackError``) a zip that is anything but its entries, back to back from its first byte, then their
    directory and its end record: no bytes before, between or after them, each entry's local header saying what the
    directory says (name, method, flags, CRC and sizes), nothing encrypted, stored or deflated only. A reader that
    starts from the directory at the end (``pack verify``'s) and one that streams the local headers from the start
    then read the same entries: a forged zip placed in front of a genuine pack, or one appended to it, is refused.
    The entries in the directory's order (``read_members`` then checks that each deflated one ends where it says)."""
    entries, cd_start = _central_directory(data)
    fixed = struct.calcsize(_LOCAL_FMT)
    expected = 0
    for e in sorted(entries, key=lambda e: e.offset):
        if e.offset != expected:
            raise PackError(f"refused: {abs(e.offset - expected)} bytes stand before the zip's first entry or "
                            "between its entries, or two entries share their bytes: a pack is its entries and "
                            "nothing else")
        # encrypted; a method a pack never uses; ZIP64; or stored with its size after it, which a streaming reader
        # can only find by a signature the stored bytes themselves may hold
        if (e.flags & 0x1 or e.method not in (_STORED, _DEFLATED) or 0xFFFFFFFF in (e.compressed, e.size, e.offset)
                or (e.method == _STORED and (e.flags & 0x8 or e.compressed != e.size))):
            raise PackError(f"refused: the zip's entry {e.name.decode('utf-8', 'replace')!r} is encrypted, ZIP64, "
                            "or stored or compressed in a way a pack never is")
        head = data[e.offset:e.offset + fixed]
        if len(head) < fixed or head[:4] != _LOCAL:
            raise PackError("refused: an entry of the zip's directory has no local header where it says")
        _, _, flags, method, _, _, crc, compressed, size, n, m = struct.unpack(_LOCAL_FMT, head)
        name = data[e.offset + fixed:e.offset + fixed + n]
        if m > MAX_EXTRA:
            raise PackError("refused: an entry of the zip carries a long extra field: a pack is its entries and "
                            "nothing else")
        described = (crc, compressed, size) == (e.crc, e.compressed, e.size)
        if name != e.name or flags != e.flags or method != e.method or not (described or flags & 0x8):
            raise PackError(f"refused: the local header of {e.name.decode('utf-8', 'replace')!r} does not say what "
                            "the zip's directory says of it")
        e.data_start = e.offset + fixed + n + m
        expected = e.data_start + e.compressed
        if flags & 0x8:  # sizes in a data descriptor after the data (a zip written to a stream)
            sig = data[expected:expected + 4] == _DESCRIPTOR
            crc, compressed, size = struct.unpack("<III", data[expected + 4 * sig:expected + 4 * sig + 12].ljust(12, b"\0"))
            if (crc, compressed, size) != (e.crc, e.compressed, e.size):
                raise PackError(f"refused: the data descriptor of {e.name.decode('utf-8', 'replace')!r} does not say "
                                "what the zip's directory says of it")
            expected += 4 * sig + 12
    if expected != cd_start:
        raise PackError(f"refused: {cd_start - expected} bytes stand between the zip's last entry and its directory: "
                        "a pack is its entries and nothing else")
    return entries


def _deflated_exactly(raw: bytes, size: int) -> bool:
    """Whether ``raw`` is one raw deflate stream of ``size`` bytes that ends at its last byte (nothing after it
    that a streaming reader would take for the next entry); output bounded by ``size``."""
    d = zlib.decompressobj(-zlib.MAX_WBITS)
    out, chunk = 0, raw
    try:
        while chunk and not d.eof:
            out += len(d.decompress(chunk, 1 << 20))
            if out > size:
                return False
            chunk = d.unconsumed_tail
        out += len(d.flush())
    except zlib.error:
        return False
    return d.eof and not d.unused_data and not d.unconsumed_tail and out == size


def read_members(data: bytes) -> dict[str, bytes]:
    """Every entry of the zip ``data``, refused whole (``PackError``) when it is not a zip, is anything but its
    entries (``check_layout``: bytes before, between or after them), holds too many or too large entries, a name
    that could escape a folder, or one name twice."""
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise PackError(f"not a zip file: {exc}") from None
    layout = check_layout(data)
    infos = z.infolist()
    if len(infos) > MAX_ENTRIES:
        raise PackError(f"the zip holds {len(infos)} entries; a pack holds at most {MAX_ENTRIES}")
    names = [i.filename for i in infos]
    bad = next((n for n in names if not _safe_name(n)), None)
    if bad is not None:
        raise PackError(f"refused: the entry {bad!r} names a path outside the pack's folder")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise PackError(f"refused: the zip holds {', '.join(twice)} more than once")
    if sum(i.file_size for i in infos) > MAX_TOTAL_BYTES:
        raise PackError("refused: the zip would expand past 1 GiB (a zip bomb?)")
    out: dict[str, bytes] = {}
    for i in infos:
        if i.file_size > MAX_ENTRY_BYTES or (i.file_size > 1 << 20 and i.file_size > MAX_RATIO * max(i.compress_size, 1)):
            raise PackError(f"refused: {i.filename} expands {i.file_size} bytes from {i.compress_size} (a zip bomb?)")
        try:
            with z.open(i) as f:
                body = f.read(i.file_size + 1)  # never more than it declares: a lying header is caught below
        except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError, EOFError, ValueError) as exc:
            raise PackError(f"cannot read {i.filename} from the zip: {exc}") from None
        if len(body) != i.file_size:
            raise PackError(f"refused: {i.filename} is not the size its zip header declares")
        out[i.filename] = body
    for e in layout:
        raw = data[e.data_start:e.data_start + e.compressed]
        if e.method == _DEFLATED and not _deflated_exactly(raw, e.size):
            raise PackError(f"refused: the compressed bytes of {e.name.decode('utf-8', 'replace')!r} do not end "
                            "where the zip says: a pack is its entries and nothing else")
    return out


def verify_pack(data: bytes, expected: str | None = None) -> PackCheck:
    """Check a pack's bytes: the manifest's signature (by ``expected``, a public key, when given; else by the
    key the pack names, which proves integrity but not who signed), every file's digest, and that no file was
    added or removed. Raises ``PackError`` for what is not a pack at all."""
    members = read_members(data)
    missing = [n for n in (MANIFEST, SIGNATURE) if n not in members]
    if missing:
        raise PackError(f"not an evidence pack: no {' and no '.join(missing)} in the zip")
    try:
        manifest = json.loads(members[MANIFEST].decode("utf-8"))
        listed = {str(f["name"]): (str(f["sha256"]), int(f["bytes"])) for f in manifest["files"]}
        signer = str(manifest["signer"])
        labels = tuple(str(x) for x in manifest.get("labels", ()))
    except (UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise PackError(f"not an evidence pack: {MANIFEST} cannot be read ({exc.__class__.__name__})") from None
    failures: list[str] = []
    try:
        signature = bytes.fromhex(members[SIGNATURE].decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        signature = b""
        failures.append(f"{SIGNATURE} is not a hex signature")
    other_signer = False
    if expected is not None:
        want = public_text(parse_public(expected))
        other_signer = want != signer
        if other_signer:
            failures.append(f"signer: the pack names {signer}, not the expected key {want}")
    try:
        key = parse_public(expected if expected is not None else signer)
    except InputError:
        failures.append(f"signer: the manifest's signer {signer[:80]!r} is not an Ed25519 public key")
    else:
        if signature and not verifies(key, signature, members[MANIFEST]):
            failures.append("signature: the manifest is not signed by the expected key" if other_signer else
                            "signature: the manifest is not signed by "
                            + ("the expected key" if expected is not None else "the key it names")
                            + " (the manifest or its signature was changed)")
    if PUBLIC_KEY in members and members[PUBLIC_KEY].decode("ascii", "replace").strip() != signer:
        failures.append(f"{PUBLIC_KEY} does not hold the key the manifest names")
    for name, (digest, size) in sorted(listed.items()):
        body = members.get(name)
        if body is None:
            failures.append(f"removed: {name} is in the manifest but not in the pack")
        elif sha256(body) != digest or len(body) != size:
            failures.append(f"changed: {name} does not match its SHA-256 in the manifest")
    for name in sorted(set(members) - set(listed) - {MANIFEST, SIGNATURE}):
        failures.append(f"added: {name} is in the pack but not in the manifest")
    return PackCheck(signer, labels, len(listed), tuple(failures), expected is not None)


def read_pack_file(path: str | Path) -> bytes:
    """A pack's bytes from ``path``, refused when missing or larger than a pack can be."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_TOTAL_BYTES:
            raise PackError(f"{p} is larger than any evidence pack (over 1 GiB)")
        return p.read_bytes()
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise PackError(f"cannot read {p}: {exc.strerror}") from None


def read_key_argument(value: str) -> str:
    """``--key``: a public key as text (``ed25519:...``) or a file holding one."""
    if value.strip().startswith(PUBLIC_PREFIX):
        return value
    p = Path(value)
    if p.is_file() and p.stat().st_size < 10_000:
        return p.read_text(encoding="utf-8", errors="replace")
    return value


# The readable report: one self-contained HTML page (no script, no remote resource), every value escaped, from the
# same data as the pack's JSON files.

_STYLE = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}"
          "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;vertical-align:top}"
          "blockquote{margin:.3em 0 .3em 1em;color:#333;border-left:3px solid #ccc;padding-left:.5em}")


def _e(x: object) -> str:
    return escape("" if x is None else str(x))


def _estimate(e: dict[str, Any]) -> str:
    covers = (f"<p>The estimate sample for the labels <b>{_e(', '.join(e.get('labels') or ()) or '(none)')}</b>"
              + (f", drawn {_e(e['drawn_at'])}" if e.get("drawn_at") else "")
              + " (each set of labels has its own sample).</p>")
    if e.get("unsupported_share") is None:
        return covers + f"<p>{_e(e.get('reason'))}</p>"
    return covers + (f"<p>Of the {e['population']} claims that had no verdict when the sample was drawn ({_e(e['drawn_at'])}), "
            f"an estimated <b>{e['unsupported_share']:.1%}</b> would be judged unsupported "
            f"(95% interval {e['ci_low']:.1%} to {e['ci_high']:.1%}; {e['judged']} of {e['sampled']} sampled claims "
            f"settled; {_e(e['method'])}).</p>")


_UNDONE = "taken back by an undo"
_UNDO = "undo (a correction row)"
# the Record page's order: yes, partly, no; the answers kind first, as its tab is
_ORDER = {w: i for i, w in enumerate(
    ["answers", "partly answers", "does not answer", "backed", "partly backed", "not backed", _UNDONE, _UNDO])}


def _said(v: dict[str, Any]) -> str:
    """A verdict row of verdicts.json in the Record page's words: its judgement in its kind's words, or what an
    undo made of it."""
    judgement = str(v.get("judgement") or "")
    if judgement == RETRACTED:
        return _UNDONE
    return judgement or (_UNDO if v.get("retracts") or not v.get("verdict") else str(v.get("verdict")))


def report_html(c: PackContents, signer: str) -> str:
    """The report of one pack's contents, signed by ``signer`` (its public key): the oversight report first."""
    from graphrag.verify.oversight import oversight_html

    verdicts_by_claim: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
    for v in c.verdicts:
        verdicts_by_claim.setdefault((v["answer_id"], v["claim_index"]), []).append(v)
    # one vocabulary with the Record page: each verdict in its kind's words ("backed", "does not answer"); a verdict
    # an undo took back, and the undo's own row, said as such
    counts = Counter(_said(v) for v in c.verdicts)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>Evidence pack</title><style>{_STYLE}</style>"
             "</head><body><h1>Verification record: evidence pack</h1>",
             f"<p>Exported {_e(c.scope['created_at'])} from a {_e(c.scope['store'])} store. Labels covered: "
             f"<b>{_e(', '.join(c.scope['labels']))}</b> (nothing outside them is in this pack). Signer "
             f"<code>{_e(signer)}</code>.</p>",
             "<p>Check it with <code>graphrag pack verify PACK.zip --key KEY</code>, KEY being the public key the "
             "exporting store's <code>graphrag pack key</code> prints.</p>",
             oversight_html(c.oversight) if c.oversight else "",
             f"<h2>Review policy</h2><p>{c.policy['required_verdicts']} independent verdict(s) per claim"
             f"{' (blind review)' if c.policy['blind'] else ''}"
             f"{'; answers held from readers until verified' if c.policy.get('held_until_verified') else ''}.</p>",
             f"<h2>Verdicts</h2><p>{len(c.verdicts)} verdict rows: "
             + _e(", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kn: (_ORDER.get(kn[0], 9),
                                                                                            kn[0])))) + ". "
             f"Every verdict on these answers is here ({_e(c.scope.get('withheld_verdicts', 0))} left out)"
             + (f": blind review does not narrow a pack ({_e(c.scope.get('blind_verdicts_included', 0))} of them "
                "on claims still judged blind or disputed when it was exported)" if c.policy["blind"] else "")
             + ". \"no verdict\" below means nobody has judged the claim.</p>",
             "<h2>What nobody reviewed</h2>", _estimate(c.estimate),
             f"<h2>Answers ({len(c.answers)})</h2>"]
    for a in c.answers:
        standing = a.get("standing", {}).get("words")  # a pack written before standings had none
        parts.append(f"<h3>Answer {_e(a['answer_id'])}: {_e(a['question'])}</h3><p>asked {_e(a['asked_at'])}, "
                     f"{_e(a['status'])}" + (f"; standing: <b>{_e(standing)}</b>" if standing else "") + "</p><table><tr><th>claim</th><th>cited sentence</th><th>verdicts</th></tr>")
        for cl in a["claims"]:
            cites = "".join(f"<blockquote>[{_e(ct.get('citation', ct['marker']))}] "
                            f"{_e(ct.get('text', '(marker not in the context)'))}"
                            f"<br><small>{_e(ct.get('document'))} v{_e(ct.get('version'))}, sentence sha256 "
                            f"{_e(str(ct.get('sentence_sha256', ''))[:16])}…</small></blockquote>"
                            for ct in cl["citations"])
            vs = "<br>".join(f"{_e(_said(v))} by {_e(v['reviewer'])} ({_e(v['time'])})"
                             + (f" <i>{_e(v['tampered'])}</i>" if v.get("tampered") else "")
                             for v in verdicts_by_claim.get((a["answer_id"], cl["index"]), []))
            parts.append(f"<tr><td>{_e(cl['text'])}</td><td>{cites}</td><td>{vs or 'no verdict'}</td></tr>")
        parts.append("</table>")
    parts.append(f"<h2>Audit log</h2><p>{len(c.audit)} rows in audit.json"
                 f" ({c.scope['withheld_audit_rows']} left out: they name what these labels do not show).</p>"
                 "</body></html>")
    return "\n".join(parts)
