"""How sure the Oracle is about an answer: one level for the answer page, the API and
eval.run, computed by rag.confidence from the signals stored in the question's diagnostics
(best cosine, margin, dense/BM25 agreement, key terms in the quote). The cosine thresholds
come from the settings (UI_CONFIDENCE_HIGH / UI_CONFIDENCE_LOW, calibrated on the dev split)."""

from dataclasses import dataclass, replace

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from rag.abstain import says_unsettled
from rag.confidence import THRESHOLDS, Signals, Thresholds, level_of


@dataclass(frozen=True)
class Confidence:
    level: str  # "high" | "medium" | "low"
    label: str
    score: float


LABELS = {
    "high": _("Les livrets répondent clairement"),
    "medium": _("Réponse probable, vérifiez la citation"),
    "low": _("Les livrets ne tranchent pas clairement cette question"),
}


def thresholds() -> Thresholds:
    return replace(
        THRESHOLDS, high_cosine=settings.UI_CONFIDENCE_HIGH, low_cosine=settings.UI_CONFIDENCE_LOW,
        abstain_below=settings.ASK_ABSTAIN_BELOW,
    )


def level_for(signals: Signals) -> str:
    return level_of(signals, thresholds())


def confidence_of(best_score, signals: dict | None = None, answer: str = "") -> Confidence | None:
    """None when there is no score to judge (e.g. an answer recovered without one). An answer
    stored before the signals existed is judged on its best cosine alone; one stored before
    `unsettled` existed, on its text (`answer`): « Les règles ne précisent pas… » is low."""
    try:
        score = float(best_score)
    except (TypeError, ValueError):
        return None
    parsed = Signals.from_dict(signals)
    if parsed is not None and "unsettled" not in signals:
        parsed = replace(parsed, unsettled=says_unsettled(answer))
    if parsed is not None:
        level = level_for(parsed)
    elif score >= settings.UI_CONFIDENCE_HIGH:
        level = "high"
    elif score >= settings.UI_CONFIDENCE_LOW:
        level = "medium"
    else:
        level = "low"
    return Confidence(level=level, label=str(LABELS[level]), score=score)
