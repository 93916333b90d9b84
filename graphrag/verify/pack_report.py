"""The evidence pack's readable report: one self-contained HTML page (no script, no remote resource), every value
escaped, from the same data as the pack's JSON files."""

from __future__ import annotations

from collections import Counter
from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphrag.verify.pack import PackContents

_STYLE = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}"
          "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;vertical-align:top}"
          "blockquote{margin:.3em 0 .3em 1em;color:#333;border-left:3px solid #ccc;padding-left:.5em}")


def _e(x: object) -> str:
    return escape("" if x is None else str(x))


def _estimate(e: dict[str, Any]) -> str:
    if e.get("unsupported_share") is None:
        return f"<p>{_e(e.get('reason'))}</p>"
    return (f"<p>Of the {e['population']} claims that had no verdict when the sample was drawn ({_e(e['drawn_at'])}), "
            f"an estimated <b>{e['unsupported_share']:.1%}</b> would be judged unsupported "
            f"(95% interval {e['ci_low']:.1%} to {e['ci_high']:.1%}; {e['judged']} of {e['sampled']} sampled claims "
            f"settled; {_e(e['method'])}).</p>")


def report_html(c: PackContents, signer: str) -> str:
    """The report of one pack's contents, signed by ``signer`` (its public key)."""
    verdicts_by_claim: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
    for v in c.verdicts:
        verdicts_by_claim.setdefault((v["answer_id"], v["claim_index"]), []).append(v)
    counts = Counter(str(v["verdict"]) for v in c.verdicts)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>Evidence pack</title><style>{_STYLE}</style>"
             "</head><body><h1>Verification record: evidence pack</h1>",
             f"<p>Exported {_e(c.scope['created_at'])} from a {_e(c.scope['store'])} store. Labels covered: "
             f"<b>{_e(', '.join(c.scope['labels']))}</b> (nothing outside them is in this pack). Signer "
             f"<code>{_e(signer)}</code>.</p>",
             "<p>Check it with <code>graphrag pack verify PACK.zip --key KEY</code>, KEY being the public key the "
             "exporting store's <code>graphrag pack key</code> prints.</p>",
             f"<h2>Review policy</h2><p>{c.policy['required_verdicts']} independent verdict(s) per claim"
             f"{' (blind review)' if c.policy['blind'] else ''}.</p>",
             f"<h2>Verdicts</h2><p>{len(c.verdicts)} verdict rows: "
             + _e(", ".join(f"{k or 'correction'} {n}" for k, n in sorted(counts.items()))) + ".</p>",
             "<h2>What nobody reviewed</h2>", _estimate(c.estimate),
             f"<h2>Answers ({len(c.answers)})</h2>"]
    for a in c.answers:
        parts.append(f"<h3>Answer {_e(a['answer_id'])}: {_e(a['question'])}</h3><p>asked {_e(a['asked_at'])}, "
                     f"{_e(a['status'])}</p><table><tr><th>claim</th><th>cited sentence</th><th>verdicts</th></tr>")
        for cl in a["claims"]:
            cites = "".join(f"<blockquote>[{_e(ct['marker'])}] {_e(ct.get('text', '(marker not in the context)'))}"
                            f"<br><small>{_e(ct.get('document'))} v{_e(ct.get('version'))}, sentence sha256 "
                            f"{_e(str(ct.get('sentence_sha256', ''))[:16])}…</small></blockquote>"
                            for ct in cl["citations"])
            vs = "<br>".join(f"{_e(v['verdict'] or 'correction')} by {_e(v['reviewer'])} ({_e(v['time'])})"
                             + (f" <i>{_e(v['tampered'])}</i>" if v.get("tampered") else "")
                             for v in verdicts_by_claim.get((a["answer_id"], cl["index"]), []))
            parts.append(f"<tr><td>{_e(cl['text'])}</td><td>{cites}</td><td>{vs or 'no verdict'}</td></tr>")
        parts.append("</table>")
    parts.append(f"<h2>Audit log</h2><p>{len(c.audit)} rows in audit.json"
                 f" ({c.scope['withheld_audit_rows']} left out: they name what these labels do not show).</p>"
                 "</body></html>")
    return "\n".join(parts)
