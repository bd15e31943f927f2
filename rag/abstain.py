"""Do the booklets state what the question asks? When none of the passages retrieved holds
the question's key terms (in the booklet's language: the words themselves, their
translations and the game's own terms, as rag.quotes matches them), the answer says so
first — « Les livrets ne le disent pas » — and offers the closest passages as such
(rag.extractive), and the label is « ne tranchent pas » (rag.confidence).

Key terms: the question's content words (rag.sparse.tokenize drops the function words of
both languages) but the booklet's and game's names, which every passage of the game is
about. `statement_coverage` is the largest share of them one passage holds. Measured on the
dev split (eval/reports/rulings-llm.md), a passage's share told unanswerable questions from
answerable ones better than its best sentence's share or a share weighted by the terms'
rarity among the passages (at most 5% of answerable questions abstaining: 31% of the
unanswerable ones abstain, against 19% and 15%): a player's words are seldom all in the one
sentence that answers.
"""

from __future__ import annotations

import re

from rag.quotes import question_groups
from rag.retrieve import RetrievedChunk
from rag.sparse import tokenize

DEPTH = 8  # the passages an answer may rest on (ASK_TOP_K)
# Below this share the booklets are taken not to say it: dev split, the highest threshold
# with ≤ 5% of answerable questions abstaining (eval.calibrate.abstention_threshold). Not the
# default: on the test split it made 9–10% of answerable questions abstain and none of the 3
# unanswerable ones (docs/asking.md, « Abstaining »), so ASK_ABSTAIN_BELOW is 0 (off) unless set.
STATED_BELOW = 0.25


def statement_coverage(question: str, chunks: list[RetrievedChunk], depth: int = DEPTH) -> float:
    """0–1: the largest share of the question's key terms one of the first `depth` rulebook
    passages holds; 1.0 when the question has no key term (nothing to miss)."""
    rules = [c for c in chunks if not c.is_forum][:depth]
    if not rules:
        return 0.0
    names = {t for c in rules for t in tokenize(c.booklet.name)}
    shares = []
    for chunk in rules:
        groups = [g for g in question_groups(question, chunk) if not g & names]
        if groups:
            terms = set(tokenize(chunk.text))
            shares.append(sum(1 for group in groups if group & terms) / len(groups))
    return round(max(shares), 3) if shares else 1.0


# How an answer says the booklets do not settle the question, at its start: the sentence the
# system prompt asks the model to open with (rag.prompts, rule 4) and the offline answer's
# (rag.extractive), and the ways a model words it anyway (« Le livret ne précise pas si… »,
# "The rules do not specify whether…"). Only the opening counts, and only when what follows
# the verb does not carry on into an answer: « Les règles ne disent pas qu'il faut attendre :
# jouez » and "The rulebook doesn't specify a limit, so you may" answer the question.
_NOUNS = r"(?:livrets?|règles?|extraits?|passages?|textes?|rulebooks?|rules|booklets?|excerpts|manual)"
_FR_VERBS = r"(?:dit|disent|prévoit|prévoient|(?:précise|tranche|mentionne|couvre|aborde|indique|explique|évoque|traite|parle)(?:nt)?)"
_FR_ENDS = (r"(?:$|[.,;:!?…—–-]|rien\b|si\b|s'ils?\b|combien|comment|quand|où|qui\b|quel|explicitement|clairement"
            r"|à ce sujet|sur ce point|(?:ce (?:point|cas)|cette (?:question|situation)|ces cas)\b|ce qui se passe|la question"
            # « ne parlent pas de ce cas. »: only as the whole clause (« de ce cas précis : oui » answers)
            r"|de (?:ce (?:point|cas)|cette (?:question|situation)|ces cas)\s*(?:$|[.!…;])"
            r"|cela|ça\b|non plus(?!\s+qu))")
_EN_ENDS = (r"(?:$|[.,;:!?…—–-]|whether|if\b|how\b|what\b|when\b|who\b|which\b|anything|this\b(?!\s+\w+\s+(?:is|must|has))"
            r"|it(?=\s*(?:$|[.,;:!?]))|either|explicitly|clearly)")
_UNSETTLED = re.compile(
    rf"(?:(?:les|ces|le|la|ce|cette) {_NOUNS}(?: [\w'-]+){{0,4}}? "
    rf"(?:ne (?:le |la |l')?{_FR_VERBS}(?: pas)?|n'(?:en )?{_FR_VERBS}) ?(?:pas ?)?(?=\s*{_FR_ENDS})"
    rf"|(?:the|this|these)(?: [\w'-]+)? {_NOUNS}(?: [\w'-]+){{0,4}}? (?:don't|do not|doesn't|does not)(?: explicitly| clearly)? "
    rf"(?:say|specify|settle|cover|mention|address|state|explain|tell)(?=\s*{_EN_ENDS}))",
    re.IGNORECASE,
)
# What may come before: markdown, a « Réponse » heading, « Réponse courte : », "Short answer:", « En bref : ».
_LEAD_IN = re.compile(r"^(?:[\s#>*_\-]|(?:(?:short |brief )?answer|réponse(?: courte| brève)?|en bref|in short)\b\s*[:,]?)*", re.IGNORECASE)


def says_unsettled(answer: str) -> bool:
    """Does the answer open by saying the booklets do not say, or do not settle, what was
    asked? Then its label is « ne tranchent pas » (rag.confidence), whatever the passages'
    scores: the label never contradicts the answer."""
    text = (answer or "").replace("’", "'").replace("**", "")
    return bool(_UNSETTLED.match(text, _LEAD_IN.match(text).end()))


def booklets_silent(question: str, chunks: list[RetrievedChunk], below: float) -> bool:
    """True when no passage states what the question asks (see `statement_coverage`); never
    with `below` 0 (abstention off)."""
    return below > 0 and statement_coverage(question, chunks) < below
