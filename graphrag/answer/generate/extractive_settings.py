"""The extractive generator's tuned numbers, in one frozen record.

Each number was set on the answer panel (``graphrag eval answers``: MuSiQue, NQ articles, the real PDFs and the sample
corpus) and the generator's sweep in the retrieval figures; the measurements are in docs/figures.md, sections
"Answers" (#answers-graphrag-eval-answers-one-panel-for-every-change) and "Retrieval"
(#retrieval-graphrag-eval-retrieval). Change one only with the panel run before and after.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphrag.answer.reader.quotes import ANSWER_THRESHOLD, PHRASE_CANDIDATES, QUOTE_MARGIN


@dataclass(frozen=True)
class ExtractiveSettings:
    """How many quotes an answer holds, which sentences earn one, and how far a chain of quotes may run."""

    # Quotes in a short answer: the best sentence, room for a chain link and one more answering sentence (or the
    # other side of a disagreement). Five buried the answer among sentences that did not answer (NQ articles: 4.84
    # citations per answer; "Answers").
    max_sentences: int = 3
    # A further quote scores within this much of the best one (the quote score of ``reader.quotes``) ...
    margin: float = QUOTE_MARGIN
    # ... and at least this much.
    threshold: float = ANSWER_THRESHOLD
    # A chain's next link may be this much less like the question than the most similar sentence: "born in Lyon"
    # shares few words with "Which country is the director of X from?" (0.35 to 1.5 swept; "Retrieval").
    chain_margin: float = 0.8
    # A chain passes only through entities at least this specific (the graph's inverse sentence frequency): a hub
    # such as the handbook's company name joins any sentence to any other (0.4 to 0.65 the same; "Retrieval").
    min_join_specificity: float = 0.55
    # The short answer is looked for in the sentences most like the question only (and in chain links once
    # quoted): spaCy on every context sentence costs more than the rest of the answer. The reader's own number
    # (``reader.quotes.PHRASE_CANDIDATES``); this one is used only where the generator is given no reading.
    phrase_candidates: int = PHRASE_CANDIDATES
    # Links a fact question's quotes follow onward through a quoted sentence (film -> director -> birthplace).
    fact_links: int = 2
    # Quotes in a bridge answer (the chain the walk followed across short pages, "Answers").
    chain_sentences: int = 5
    # Links a bridge chain follows after its opening one (1 to 3 swept, "Retrieval").
    chain_links: int = 2
    # A sentence this close (cosine) to the most similar keeps a place in a bridge answer.
    near_best: float = 0.03
    # A bridge step joins two pages of at most this many sentences (MuSiQue paragraphs: a few; NQ articles:
    # hundreds; with no limit 173 of 319 NQ questions took the chain shape, first citation inside 0.25).
    bridge_page_sentences: int = 12
    # A chain is about the question when one of its sentences is this close to the most similar (0.2 to 0.6
    # swept, "Retrieval").
    chain_about: float = 0.3
    # The other side of a disagreement is quoted when it is this close to the question (cosine) to the most
    # similar sentence: the stale FAQ's "7 days" sits 0.2 below the current "30 days" on the sample corpus.
    rival_margin: float = 0.25
    # Two sentences repeat each other when their word sets overlap more than this (Jaccard): an old FAQ restating
    # a policy is quoted once, from the newer source.
    repeat_overlap: float = 0.7
    # Switches, not tuned: the short answer first; spaCy's entities for who/where/which answers (off: numbers,
    # durations and dates only; like ``phrase_candidates``, only where the generator is given no reading: the
    # reader types the short answers); bridge questions read as their chain.
    short_answer: bool = True
    ner: bool = True
    bridge_chains: bool = True
