// Deckbuilding answers: a validation badge and the export buttons (Arena / MTGO text copied to
// the clipboard, MTGO .dek downloaded) under the answer, from the `deck` field of `done`.

const LABELS = {
  fr: { valid: "Liste valide", invalid: "Liste à corriger", arena: "Copier pour Arena", text: "Copier la liste (texte)",
        dek: "Télécharger .dek (MTGO)", copied: "Copié !", warnings: "Avertissements" },
  en: { valid: "Valid list", invalid: "List needs fixing", arena: "Copy for Arena", text: "Copy list (text)",
        dek: "Download .dek (MTGO)", copied: "Copied!", warnings: "Warnings" },
};

function labels() {
  return (document.documentElement.lang || "fr").startsWith("en") ? LABELS.en : LABELS.fr;
}

function button(text, onClick) {
  const element = document.createElement("button");
  element.type = "button";
  element.className = "deck-export";
  element.textContent = text;
  element.addEventListener("click", () => onClick(element));
  return element;
}

function copyButton(text, content) {
  const L = labels();
  return button(text, async (element) => {
    await navigator.clipboard.writeText(content);
    element.textContent = L.copied;
    setTimeout(() => { element.textContent = text; }, 1500);
  });
}

function downloadButton(text, content, filename) {
  return button(text, () => {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([content], { type: "application/xml" }));
    link.download = filename;
    link.click();
    URL.revokeObjectURL(link.href);
  });
}

export function renderDeckTools(turn, deck) {
  const L = labels();
  turn.querySelector(".deck-tools")?.remove();
  const box = document.createElement("div");
  box.className = "deck-tools";
  const validation = deck.validation ?? {};
  const badge = document.createElement("span");
  badge.className = `deck-badge ${validation.valid ? "valid" : "invalid"}`;
  const totals = Object.values(validation.totals ?? {}).join(" + ");
  badge.textContent = `${validation.valid ? L.valid : L.invalid}${totals ? ` (${totals})` : ""}`;
  const notes = [...(validation.issues ?? []), ...(validation.warnings ?? [])];
  if (notes.length) badge.title = notes.join("\n");
  box.appendChild(badge);
  const exports = deck.exports ?? {};
  if (exports.arena) box.appendChild(copyButton(L.arena, exports.arena));
  if (exports.text) box.appendChild(copyButton(L.text, exports.text));
  if (exports.mtgo_dek) box.appendChild(downloadButton(L.dek, exports.mtgo_dek, "oracle-deck.dek"));
  if (validation.issues?.length) {
    const list = document.createElement("ul");
    list.className = "deck-issues";
    validation.issues.forEach((issue) => {
      const item = document.createElement("li");
      item.textContent = issue;
      list.appendChild(item);
    });
    box.appendChild(list);
  }
  turn.querySelector(".answer")?.after(box);
}
