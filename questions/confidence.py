"""How sure the Oracle is, from the best retrieval score of an answer (bestScore)."""

from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext_lazy as _


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


def confidence_of(best_score) -> Confidence | None:
    """None when there is no score to judge (e.g. an answer recovered without one)."""
    try:
        score = float(best_score)
    except (TypeError, ValueError):
        return None
    if score >= settings.UI_CONFIDENCE_HIGH:
        level = "high"
    elif score >= settings.UI_CONFIDENCE_LOW:
        level = "medium"
    else:
        level = "low"
    return Confidence(level=level, label=str(LABELS[level]), score=score)
