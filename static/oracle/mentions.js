// @-mentions of cards in the question box. Suggestions come from GET {cardsUrl}?q=…; when
// the game has no card catalog (404, empty list, network error) the box simply offers none.

const MENTION_BEFORE_CARET = /@([^@\n]{0,40})$/;

export function attachCardMentions(textarea, cardsUrl, strings) {
  const list = document.getElementById("card-suggestions");
  const picked = new Set();
  let timer = null;
  let active = -1;
  let requestSeq = 0;

  const isOpen = () => !list.hidden;
  const close = () => { list.hidden = true; list.replaceChildren(); active = -1; };

  function currentMention() {
    const before = textarea.value.slice(0, textarea.selectionStart);
    const match = before.match(MENTION_BEFORE_CARET);
    if (!match || match[1].includes("  ")) return null;
    if ([...picked].some((name) => match[1].startsWith(`${name} `))) return null; // already complete
    return { query: match[1], start: before.length - match[0].length, end: before.length };
  }

  async function fetchCards(query) {
    try {
      const response = await fetch(`${cardsUrl}?q=${encodeURIComponent(query)}`, { credentials: "same-origin" });
      if (!response.ok) return [];
      const body = await response.json();
      const cards = Array.isArray(body) ? body : body.items ?? body.results ?? [];
      return cards.map((card) => (typeof card === "string" ? card : card.name)).filter(Boolean).slice(0, 8);
    } catch {
      return [];
    }
  }

  async function suggest() {
    const mention = currentMention();
    if (!mention) return close();
    const seq = ++requestSeq;
    const names = await fetchCards(mention.query);
    if (seq !== requestSeq) return; // a newer keystroke won
    list.replaceChildren();
    active = -1;
    if (!names.length) {
      const item = document.createElement("li");
      item.className = "no-cards";
      item.textContent = strings.noCards;
      list.appendChild(item);
    }
    names.forEach((name) => {
      const item = document.createElement("li");
      item.setAttribute("role", "option");
      item.dataset.name = name;
      item.textContent = name;
      item.addEventListener("mousedown", (event) => { event.preventDefault(); pick(name); });
      list.appendChild(item);
    });
    list.hidden = false;
  }

  function pick(name) {
    const mention = currentMention();
    if (!mention) return close();
    const value = textarea.value;
    textarea.value = `${value.slice(0, mention.start)}@${name} ${value.slice(mention.end)}`;
    const caret = mention.start + name.length + 2;
    textarea.setSelectionRange(caret, caret);
    picked.add(name);
    close();
    textarea.dispatchEvent(new Event("input"));
  }

  function move(step) {
    const options = [...list.querySelectorAll('[role="option"]')];
    if (!options.length) return;
    active = (active + step + options.length) % options.length;
    options.forEach((option, index) => option.classList.toggle("active", index === active));
  }

  textarea.addEventListener("input", (event) => {
    if (!event.isTrusted) return; // our own event after a pick
    clearTimeout(timer);
    timer = setTimeout(suggest, 150);
  });
  textarea.addEventListener("keydown", (event) => {
    if (!isOpen()) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      move(event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Enter" || event.key === "Tab") {
      const options = [...list.querySelectorAll('[role="option"]')];
      if (!options.length) return close();
      event.preventDefault();
      event.stopImmediatePropagation(); // Enter picks a card, it does not send the question
      pick(options[Math.max(active, 0)].dataset.name);
    } else if (event.key === "Escape") {
      close();
    }
  });
  textarea.addEventListener("blur", () => setTimeout(close, 100));

  return {
    isOpen,
    /** The picked cards still named in the question. */
    mentionsIn(question) {
      return [...picked].filter((name) => question.includes(`@${name}`));
    },
    /** Once the question went through: a refused one is sent again with its cards. */
    forget() {
      picked.clear();
    },
  };
}
