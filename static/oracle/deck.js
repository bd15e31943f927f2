// Deckbuilding answers: the server renders the validation badge and the export buttons under
// the answer (templates/questions/_deck_tools.html), live or reloaded; this makes the buttons
// work: Arena / text lists copied to the clipboard, the MTGO .dek downloaded.

function download(content, filename) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([content], { type: "application/xml" }));
  link.download = filename;
  link.click();
  URL.revokeObjectURL(link.href);
}

/** Handles the deck export buttons inside `root`; `copiedLabel` replaces a copy button's label for a moment. */
export function attachDeckTools(root, copiedLabel) {
  root.addEventListener("click", async (event) => {
    const button = event.target.closest(".deck-export");
    if (!button) return;
    if (button.dataset.download !== undefined) {
      download(button.dataset.download, button.dataset.filename || "oracle-deck.dek");
      return;
    }
    try {
      await navigator.clipboard.writeText(button.dataset.copy);
      const label = button.textContent;
      button.textContent = copiedLabel;
      setTimeout(() => { button.textContent = label; }, 1500);
    } catch (error) {
      console.warn("copy failed", error);
    }
  });
}
