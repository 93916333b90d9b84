"""Whether a question asks about the documents as a whole ("What are these documents about?"), not about one thing
they say: such a question is answered by themes (``graphrag.answer.themes``), in every mode that would otherwise
quote the few sentences nearest it (one stray sentence is no answer to it).

The rule is small and can be read in full below, so that a person can say why a question went one way:

* **global**: the whole question, once lowercased and stripped of its end mark and of a polite opening ("please",
  "can you", "could you tell me"), is one of the forms in ``_GLOBAL``: "what are these documents about",
  "summarise the collection", "give me an overview of the files", "what topics do the documents cover", "what is
  in the corpus", "what is all this about" and their like. A question holding anything more (a thing, a date, a
  name: "what do the documents say about refunds") is not one of these forms, so a factual question never goes to
  themes;
* **maybe global**: not one of those forms, but it names the collection ("these documents", "the collection", "all
  the files") and asks for its gist ("summary", "overview", "topics", "themes", "main points", or ends in
  "about"): answered from the nearest sentences as asked, and the surfaces offer the themes answer in one step;
* otherwise a question about something the documents say.
"""

from __future__ import annotations

import re

# the collection as a whole: an optional determiner, then a word for documents or for the collection
_DET = r"(?:(?:all\s+(?:of\s+)?)?(?:these|those|the|this|my|our|your|all)\s+)"
_NOUN = (r"(?:documents?|docs?|files?|texts?|articles?|papers?|pages?|sources?|records?|materials?|collection|corpus|"
         r"store|library|knowledge\s+base|content|contents|data\s*set|set\s+of\s+(?:documents|files|texts))")
_COLLECTION = rf"(?:{_DET}?{_NOUN}|{_DET}(?:uploaded|ingested|stored|available)\s+{_NOUN}|{_DET}{_NOUN}\s+"\
              r"(?:i|we)\s+(?:have|uploaded|ingested|stored))"
# "this", "these", "all this", "everything": the collection without a noun (said to the collection itself)
_BARE = r"(?:this|these|that|those|all\s+(?:of\s+)?(?:this|these|that)|everything(?:\s+here)?|it\s+all)"
_ADVERB = r"(?:\s+(?:mostly|mainly|generally|all|really|actually|broadly|basically|overall|in\s+general))?"
_VERB = (r"(?:cover|discuss|contain|describe|say|talk\s+about|deal\s+with|address|explain|tell\s+(?:me|us)|"
         r"hold|include|concern|focus\s+on)")
_GIST = r"(?:topics?|themes?|subjects?|main\s+(?:ideas?|points?)|key\s+(?:ideas?|points?)|gist|main\s+messages?)"
_SUMMARY = (r"(?:summari[sz]e|sum\s+up|recap|give\s+(?:me|us)\s+(?:a|an)\s+(?:short\s+|brief\s+|quick\s+)?"
            r"(?:summary|overview|rundown)\s+of|(?:a\s+|an\s+)?(?:short\s+|brief\s+|quick\s+)?"
            r"(?:summary|overview|rundown)\s+of|overview|summary|describe|explain)")
_WHAT = r"(?:what|which)"
_BE = r"(?:is|are|'s|’s|were|was)"

_GLOBAL = [re.compile(p) for p in (
    # what are these documents about / what is this collection mostly about / what's all this about
    rf"{_WHAT}\s*{_BE}\s+(?:{_COLLECTION}|{_BARE}){_ADVERB}\s+about",
    rf"{_WHAT}\s+(?:{_COLLECTION}|{_BARE})\s+{_BE}{_ADVERB}\s+about",  # (tell me) what these documents are about
    # what do the documents cover / say / talk about
    rf"{_WHAT}\s+(?:do|does|did)\s+(?:{_COLLECTION}|{_BARE}){_ADVERB}\s+{_VERB}",
    # summarise the documents / give me an overview of the collection / overview of these files
    rf"{_SUMMARY}\s+{_COLLECTION}",
    rf"{_SUMMARY}",  # "Summary?" "Overview" alone
    # what (are the main) topics (of|in|across) the documents / do the documents cover / are covered
    rf"(?:{_WHAT}\s+)?(?:{_BE}\s+)?(?:the\s+)?(?:main\s+|key\s+|major\s+|common\s+|central\s+)?{_GIST}"
    rf"(?:\s+(?:of|in|across|covered\s+(?:in|by)|discussed\s+in)\s+{_COLLECTION})?",
    rf"{_WHAT}\s+{_GIST}\s+(?:do|does)\s+(?:{_COLLECTION}|{_BARE})\s+{_VERB}",
    rf"{_WHAT}\s+{_GIST}\s+(?:are|is)\s+(?:covered|discussed|addressed)(?:\s+(?:in|by)\s+{_COLLECTION})?",
    # what is in the documents / what's in here
    rf"{_WHAT}\s*{_BE}\s+in\s+(?:{_COLLECTION}|here|there)",
    # tell me about the documents / describe the collection
    rf"(?:tell\s+(?:me|us)\s+(?:about|what\s+(?:{_COLLECTION}|{_BARE})\s+{_BE}\s+about))\s*{_COLLECTION}?",
)]
# a polite or wordy opening and close, taken off before the forms are matched
_OPENING = re.compile(r"^(?:(?:please|so|ok(?:ay)?|hi|hello|hey)[\s,]+)*(?:(?:can|could|would|will)\s+you\s+"
                      r"(?:please\s+)?(?:tell\s+(?:me|us)\s+)?|i\s+(?:want|would\s+like|'d\s+like)\s+to\s+know\s+|"
                      r"tell\s+(?:me|us)\s+(?=what|which)|in\s+(?:short|brief|a\s+nutshell)[\s,]+)?")
_CLOSE = re.compile(r"(?:[\s,]+(?:please|in\s+(?:short|brief|general|a\s+nutshell)|overall|as\s+a\s+whole|"
                    r"briefly|for\s+me))+$")
# what "maybe" needs: the collection named, and its gist asked for
_NAMES_COLLECTION = re.compile(rf"\b(?:{_DET}{_NOUN}|{_DET}?(?:collection|corpus))\b")
_ASKS_GIST = re.compile(r"\b(?:summar\w*|overview|topics?|themes?|subjects?|gist|main\s+points?|key\s+points?|"
                        r"as\s+a\s+whole|in\s+general)\b|\babout$")


MAX_CHARS = 160  # a longer question asks about more than the collection (and no pattern runs on a long text)


def _normal(question: str) -> str:
    """The question lowercased, on one line, typographic apostrophes straight, without its end marks or a polite
    opening and close; "" for a question longer than ``MAX_CHARS``."""
    q = " ".join(question.replace("’", "'").lower().split())
    if len(q) > MAX_CHARS:
        return ""
    q = q.strip(" ?!.…:;\"'“”")
    q = _OPENING.sub("", q, count=1)
    return _CLOSE.sub("", q).strip(" ?!.,…")


def is_global(question: str) -> bool:
    """Whether ``question`` asks about the documents as a whole, and nothing more (the module's docstring says by
    which forms): answered by themes."""
    q = _normal(question)
    return bool(q) and any(p.fullmatch(q) for p in _GLOBAL)


def may_be_global(question: str) -> bool:
    """Whether ``question``, not global by ``is_global``, still names the whole collection and asks for its gist
    ("What topics about billing do these documents cover?"): answered as asked, with the themes answer offered."""
    q = _normal(question)
    return bool(q) and not is_global(question) and bool(_NAMES_COLLECTION.search(q)) and bool(_ASKS_GIST.search(q))
