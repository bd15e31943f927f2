"""The deckbuilding prompt (docs/architecture.md, « Prompt Opus spécialisé » and « userPrompt assemblage »):
the system rules, then the user prompt's blocks in this exact order:
SPEC DU DECK, CARTES OBLIGATOIRES (ANCHORS), CARTES CITÉES PAR LE JOUEUR (ce tour),
CARTES ÉVOQUÉES DANS LA CONVERSATION, DECKLISTS DE TOURNOI, POOL DE CARTES ÉLIGIBLES,
CARTES CANDIDATES."""

from __future__ import annotations

from typing import Sequence

from rag.cards import FRESH_BLOCK_TITLE, STICKY_BLOCK_TITLE, render_decklist, render_full_card, render_short_card
from rag.limits import MAX_HISTORY_TURNS

from .spec import ROLES, DeckSpec

DECKBUILDING_SYSTEM_PROMPT = """Tu es l'Oracle, un constructeur de decks expert. Tu produis une decklist complète et jouable.

Règles impératives :
1. Total exact par section : chaque section doit compter exactement le nombre de cartes de la SPEC DU DECK (deck principal, sideboard, runes, champs de bataille).
2. Nombre maximal d'exemplaires par carte : max_copies de la spec, deck principal et sideboard confondus. Seuls les terrains de base sont illimités (Plains/Island/Swamp/Mountain/Forest/Wastes, Plaine/Île/Marais/Montagne/Forêt), et les cartes dont le texte permet un autre nombre (« A deck can have any number of cards named… », « up to seven… »). Une carte restreinte dans le format (Vintage) : un seul exemplaire.
3. Les CARTES OBLIGATOIRES (ANCHORS) : tu DOIS inclure chacune de ces cartes, au moins un exemplaire.
4. Pool strict : n'utilise que des cartes présentes dans le contexte (pool éligible, cartes citées, candidates, decklists de tournoi). N'invente aucune carte.
5. Format markdown par rôles : un titre par rôle avec son total, par exemple `### Créatures (24)`, puis une ligne par carte au format exact `- 4× [[card:Nom anglais]]`. Le sideboard sous `### Sideboard (15)` ; pour Riftbound `### Runes (12)`, `### Champs de bataille (3)` et la légende sous `### Légende (1)` ; pour Flesh and Blood le héros sous `### Héros (1)` et armes et équipements sous `### Équipement` ; pour un deck Commander ou Brawl le commandant (une carte obligatoire qui peut l'être, sinon une créature légendaire du pool) sous `### Commandant (1)`, compté dans le total du deck principal, et toutes les autres cartes dans son identité couleur.
6. Après la liste, explique brièvement le plan de jeu et le rôle des cartes obligatoires, en français."""


def _spec_block(spec: DeckSpec) -> str:
    headings = ", ".join(f"{ROLES[spec.game][r]} ({n})" for r, n in spec.roles.items())
    leader = ""
    if spec.partner:
        leader = (f"\nCommandants (une paire) : {spec.commander} et {spec.partner}, sous « ### Commandant (2) », "
                  f"comptés dans les {spec.main} cartes.")
    elif spec.commander:
        leader = f"\nCommandant : {spec.commander}, sous « ### Commandant (1) », compté dans les {spec.main} cartes."
    return f"SPEC DU DECK\n{spec.model_dump_json(indent=1)}\nTitres des rôles du deck principal : {headings}{leader}"


def _anchors_block(anchors: Sequence[dict]) -> str:
    lines = [f"- {a.get('card_name')}" for a in anchors] or ["(aucune)"]
    return "CARTES OBLIGATOIRES (ANCHORS)\nTu DOIS inclure ces cartes :\n" + "\n".join(lines)


def _pool_block(candidates: dict[str, list[dict]], spec: DeckSpec) -> str:
    labels = {**ROLES[spec.game], "runes": "Runes", "battlefields": "Champs de bataille"}
    parts = ["POOL DE CARTES ÉLIGIBLES"]
    for role, cards in candidates.items():
        if role not in labels:
            continue
        parts.append(f"#### {labels[role]} ({len(cards)} candidates)")
        parts.extend(f"- {render_short_card(card, 160)}" for card in cards)
    return "\n".join(parts)


def build_deck_prompt(
    question: str,
    spec: DeckSpec,
    anchors: Sequence[dict],
    fresh: Sequence[dict],
    sticky: Sequence[dict],
    decklists: Sequence[dict],
    candidates: dict[str, list[dict]],
    candidate_chunks: Sequence[dict],
    history: Sequence[dict] = (),
) -> str:
    blocks = [
        _spec_block(spec),
        _anchors_block(anchors),
        f"{FRESH_BLOCK_TITLE}\n" + ("\n\n".join(render_full_card(c) for c in fresh) or "(aucune)"),
        f"{STICKY_BLOCK_TITLE}\n" + ("\n".join(f"- {render_short_card(c)}" for c in sticky) or "(aucune)"),
        "DECKLISTS DE TOURNOI\n" + ("\n\n".join(render_decklist(d) for d in decklists) or "(aucune)"),
        _pool_block(candidates, spec),
        "CARTES CANDIDATES\n"
        + ("\n".join(c.get("text", "") for c in candidate_chunks if c.get("tag") in ("[CARD]", "[META]")) or "(aucune)"),
    ]
    turns = [f"{t.get('role', 'user')}: {t.get('content', t.get('text', ''))}" for t in history][-MAX_HISTORY_TURNS:]
    if turns:
        blocks.append("HISTORIQUE\n" + "\n".join(turns))
    blocks.append(f"QUESTION\n{question}")
    return "\n\n".join(blocks)


def format_retry_prompt(prompt: str, issues: Sequence[str], spec: DeckSpec) -> str:
    """The same prompt, preceded by what was wrong with the previous list and the strict limits."""
    sizes = ", ".join(f"{section} = {n}" for section, n in spec.section_sizes().items())
    listed = "\n".join(f"- {issue}" for issue in issues)
    return (
        "TA LISTE PRÉCÉDENTE EST INVALIDE. Problèmes :\n"
        f"{listed}\n"
        f"Contraintes strictes : totaux exacts ({sizes}), au plus {spec.max_copies} exemplaires par carte "
        "hors terrains de base, toutes les cartes obligatoires présentes, format `N× [[card:Nom]]`.\n"
        "Réécris la decklist complète corrigée.\n\n" + prompt
    )
