// Card chips in answers (`[[card:Name]]`, rendered as <button class="card-chip"> by the server)
// show the card in a small popover: on hover (a preview), on click or Enter (pinned until
// Escape, the ✕ button or a click elsewhere). The card comes from GET {cardUrl}?name=…, once
// per name; every value is put in with textContent, never as HTML.

const HOVER_DELAY_MS = 250;
const LEAVE_DELAY_MS = 200;

export function attachCardPreview(container, cardUrl, strings) {
  const popover = document.getElementById("card-popover");
  if (!popover || !cardUrl) return;
  const part = (name) => popover.querySelector(`.card-popover-${name}`);
  const cache = new Map(); // name → Promise<card | null>
  const french = (document.documentElement.lang || "fr").startsWith("fr");
  let current = null; // the chip whose card is shown
  let pinned = false;
  let hoverTimer = null;
  let leaveTimer = null;

  function load(name) {
    if (!cache.has(name)) {
      const request = fetch(`${cardUrl}?name=${encodeURIComponent(name)}`, { credentials: "same-origin" })
        .then((response) => (response.ok ? response.json() : null))
        .catch(() => {
          cache.delete(name); // a network error is worth another try later
          return null;
        });
      cache.set(name, request);
    }
    return cache.get(name);
  }

  function fill(card, status) {
    part("name").textContent = card.name;
    const nameFr = card.name_fr && card.name_fr !== card.name ? card.name_fr : "";
    part("fr").textContent = nameFr ? `${strings.cardFrench} ${nameFr}` : "";
    part("fr").hidden = !nameFr;
    part("type").textContent = card.type_line || "";
    part("cost").textContent = card.cost || "";
    part("text").textContent = (french && card.text_fr) || card.text || "";
    part("status").textContent = status || "";
  }

  function place(chip) {
    const box = chip.getBoundingClientRect();
    const width = popover.offsetWidth;
    const height = popover.offsetHeight;
    const left = Math.max(8, Math.min(box.left, window.innerWidth - width - 8));
    const below = box.bottom + 6;
    const top = below + height > window.innerHeight - 8 && box.top - height - 6 > 8 ? box.top - height - 6 : below;
    popover.style.left = `${left}px`;
    popover.style.top = `${top}px`;
  }

  async function show(chip, { pin = false, focus = false } = {}) {
    clearTimeout(hoverTimer);
    clearTimeout(leaveTimer);
    if (current && current !== chip) current.setAttribute("aria-expanded", "false");
    const same = current === chip && !popover.hidden;
    current = chip;
    pinned = pin || (same && pinned);
    chip.setAttribute("aria-expanded", "true");
    const name = chip.dataset.card;
    if (!same) fill({ name }, strings.cardLoading);
    popover.hidden = false;
    place(chip);
    if (focus) popover.focus();
    const card = await load(name);
    if (current !== chip || popover.hidden) return; // another chip won meanwhile
    fill(card || { name }, card ? "" : strings.cardUnknown);
    popover.dataset.card = name;
    place(chip);
  }

  function hide({ returnFocus = false } = {}) {
    clearTimeout(hoverTimer);
    clearTimeout(leaveTimer);
    if (popover.hidden) return;
    popover.hidden = true;
    delete popover.dataset.card;
    pinned = false;
    if (current) {
      current.setAttribute("aria-expanded", "false");
      if (returnFocus && current.isConnected) current.focus();
    }
    current = null;
  }

  const chipOf = (target) => (target instanceof Element ? target.closest(".card-chip") : null);

  container.addEventListener("click", (event) => {
    const chip = chipOf(event.target);
    if (!chip) return;
    event.preventDefault();
    if (current === chip && pinned) return hide({ returnFocus: true });
    show(chip, { pin: true, focus: event.detail === 0 }); // detail 0: Enter or Space, not a mouse
  });

  container.addEventListener("mouseover", (event) => {
    const chip = chipOf(event.target);
    if (!chip || pinned || chip === current) return;
    clearTimeout(hoverTimer);
    hoverTimer = setTimeout(() => show(chip), HOVER_DELAY_MS);
  });
  const leave = (event) => {
    clearTimeout(hoverTimer);
    if (pinned || popover.contains(event.relatedTarget) || chipOf(event.relatedTarget) === current) return;
    leaveTimer = setTimeout(() => hide(), LEAVE_DELAY_MS);
  };
  container.addEventListener("mouseout", (event) => chipOf(event.target) && leave(event));
  popover.addEventListener("mouseenter", () => clearTimeout(leaveTimer));
  popover.addEventListener("mouseleave", leave);

  popover.querySelector(".card-popover-close").addEventListener("click", () => hide({ returnFocus: true }));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !popover.hidden) {
      const focusWasHere = popover.contains(document.activeElement) || document.activeElement === current;
      hide({ returnFocus: focusWasHere });
    }
  });
  document.addEventListener("click", (event) => {
    if (!popover.hidden && !popover.contains(event.target) && !chipOf(event.target)) hide();
  });
  window.addEventListener("scroll", () => current && !popover.hidden && place(current), { capture: true, passive: true });
  window.addEventListener("resize", () => current && !popover.hidden && place(current));
}
