"""« Phase 1 » of the reference's deckbuilding mode, for a game without a card catalog (Terraforming
Mars, Ark Nova, a board game with cards…): no structured spec, pool or inspiration lists are
possible, so the answer is built from a synergy retrieval over the rulebooks alone, with the
deckbuilding prompt's rules — never a plain rules answer (the reference's « Pool exhaustif… »: « TM / Ark Nova : pas de
champs structurels → retombent silencieusement sur Phase 1 »; docs/reference-differences.md).

Plain Python: `games.deck_phase1.ask_phase1` gathers the retrieval, the LLM and the booklets.
"""

from __future__ import annotations

from rag.answer import context_block
from rag.extractive import extractive_answer
from rag.retrieve import RetrievedChunk

PHASE1_SYSTEM_PROMPT = """Tu es l'Oracle, expert des règles de jeux de société. Le joueur demande de construire
un deck, un paquet ou une sélection de cartes pour un jeu dont Oracle n'a pas le catalogue de cartes.

Règles :
1. Appuie-toi UNIQUEMENT sur les extraits des livrets fournis : règles de construction (taille,
   copies, restrictions), cartes ou éléments que les extraits nomment, synergies qu'ils décrivent.
2. Commence par les contraintes de construction que les règles imposent, chacune citée
   [Livret, p.N : "citation exacte"].
3. Propose ensuite une construction ou une stratégie organisée par rôles (titres ### Rôle),
   en ne nommant que des cartes ou éléments présents dans les extraits ; quand une liste
   complète exigerait des cartes absentes des extraits, dis-le et décris le rôle à remplir.
4. N'invente aucune carte, aucun nombre de copies que les règles ne permettent pas.
5. Réponds dans la langue de la question, en markdown."""

SPEC_BLOCK = (
    "SPEC DU DECK :\n"
    "Jeu sans catalogue de cartes dans Oracle : pas de format, de tailles ni de rôles structurés. "
    "Les contraintes viennent des extraits des règles ci-dessous."
)

OFFLINE_INTRO = (
    "**{game}** n'a pas de catalogue de cartes dans Oracle : je ne peux pas construire une liste "
    "complète et vérifiée. Voici ce que disent les livrets sur la construction et les synergies :"
)


def phase1_user_prompt(question: str, chunks: list[RetrievedChunk], *, game_name: str,
                       mentioned: list[str] = (), history: list[dict] = ()) -> str:  # fmt: skip
    """Blocks in the deckbuilding prompt's order, without the structured ones Phase 2 adds."""
    blocks = [f"JEU : {game_name}", SPEC_BLOCK]
    if mentioned:
        blocks.append("CARTES OBLIGATOIRES (ANCHORS) :\n" + "\n".join(f"- {name}" for name in mentioned))
    turns = [f"Joueur : {t['question']}" for t in (history or [])[-5:] if t.get("question")]
    if turns:
        blocks.append("HISTORIQUE DE LA CONVERSATION :\n" + "\n".join(turns))
    blocks.append("EXTRAITS DES RÈGLES (retrieval synergie) :\n\n" + "\n\n".join(context_block(c) for c in chunks)
                  if chunks else "EXTRAITS DES RÈGLES : (aucun extrait trouvé)")
    blocks.append(f"QUESTION : {question}")
    return "\n\n".join(blocks)


def phase1_offline_answer(question: str, chunks: list[RetrievedChunk], *, game_name: str, best_score: float,
                          min_score: float, embedder=None) -> str:  # fmt: skip
    """Without an LLM: say why no list is built, then quote the passages that matter."""
    quotes = extractive_answer(question, chunks, best_score=best_score, min_score=min_score, embedder=embedder)
    return OFFLINE_INTRO.format(game=game_name) + "\n\n" + quotes
