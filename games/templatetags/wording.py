"""Template filters for French that reads right (games/wording.py)."""

from django import template

from games import wording

register = template.Library()


@register.filter
def of_name(name) -> str:
    """{{ game.name|of_name }}: « des Aéronautes » (French page), "of Les Aéronautes" (English)."""
    return wording.of_name(str(name))


@register.filter
def booklet_title(booklet_name, game_name) -> str:
    """{{ job.booklet_name|booklet_title:job.game.name }}: the game's name once, never twice."""
    return wording.booklet_title(str(game_name), str(booklet_name))


@register.filter
def repeats_name(booklet_name, game_name) -> bool:
    """{% if job.booklet_name|repeats_name:job.game.name %}: the booklet's name already says the game's."""
    return wording.names_overlap(str(game_name), str(booklet_name))
