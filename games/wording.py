"""French that reads right around names: « les règles des Aéronautes » (not « de Les
Aéronautes »), « Les Aéronautes — Règles du jeu » (not the game's name twice).

`of_name` is what templates use (the `of_name` filter, games/templatetags/wording.py): the
contracted French « de » when the page is French, "of …" in English."""

from __future__ import annotations

import re

from django.utils.translation import get_language, gettext

_VOWELS = "aeiouyàâäéèêëîïôöûùüÿœæ"
_ARTICLE = re.compile(r"^(?P<article>les|le|la|l['’])\s*(?P<rest>.+)$", re.IGNORECASE | re.DOTALL)


def french_de(name: str) -> str:
    """« de » before a name, contracted as French wants it: « du Petit Prince », « des
    Aéronautes », « de la Tour », « de l'Île », « d'Arcmage », « de Heat »."""
    name = (name or "").strip()
    if not name:
        return "de"
    match = _ARTICLE.match(name)
    if match:
        article, rest = match["article"].lower(), match["rest"]
        if article == "les" and name[3:4].isspace():
            return f"des {rest}"
        if article == "le" and name[2:3].isspace():
            return f"du {rest}"
        if article == "la" and name[2:3].isspace():
            return f"de la {rest}"
        if article in ("l'", "l’"):
            return f"de l'{rest}"
    if name[0].lower() in _VOWELS:
        return f"d'{name}"
    return f"de {name}"


def of_name(name: str) -> str:
    """« des Aéronautes » on a French page, "of Les Aéronautes" on an English one."""
    if (get_language() or "fr").startswith("fr"):
        return french_de(name)
    return gettext("de %(name)s") % {"name": name}


def same_name(a: str, b: str) -> bool:
    return _key(a) == _key(b)


def names_overlap(game_name: str, booklet_name: str) -> bool:
    """True when the booklet's name already says the game's (« Les Aéronautes — Règles du
    jeu » of « Les Aéronautes »): showing both would repeat it."""
    game, booklet = _key(game_name), _key(booklet_name)
    return bool(game) and booklet.startswith(game)


def booklet_title(game_name: str, booklet_name: str) -> str:
    """« Les Aéronautes — Storm Front », but « Les Aéronautes — Règles du jeu » alone when the
    booklet's name starts with the game's, and the game's name alone when both are the same."""
    if not booklet_name or names_overlap(game_name, booklet_name):
        return booklet_name or game_name
    return f"{game_name} — {booklet_name}"


def _key(name: str) -> str:
    return " ".join((name or "").casefold().split())
