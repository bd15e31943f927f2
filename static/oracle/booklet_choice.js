// The booklets a question searches: every booklet of the game is ticked unless the player
// unticks it. The choice is kept per game in localStorage (the unticked ones, so a booklet
// added later starts ticked); a link with ?ext= chooses for this visit and is kept too.

const storageKey = (gameId) => `oracle.unticked.${gameId}`;

function readUnticked(gameId) {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey(gameId)) || "null");
    return Array.isArray(saved) ? saved : null;
  } catch {
    return null; // storage disabled or damaged: the page's own choice stands
  }
}

function save(gameId, boxes) {
  const unticked = boxes.filter((box) => !box.checked).map((box) => box.value);
  try {
    localStorage.setItem(storageKey(gameId), JSON.stringify(unticked));
  } catch {
    /* private mode: the choice lasts as long as the page */
  }
}

export function attachBookletChoice(fieldset, gameId, fromUrl) {
  const boxes = fieldset ? [...fieldset.querySelectorAll("input[name=booklet]")] : [];
  const unticked = fromUrl ? null : readUnticked(gameId);
  if (unticked) boxes.forEach((box) => (box.checked = !unticked.includes(box.value)));
  else save(gameId, boxes);
  boxes.forEach((box) => box.addEventListener("change", () => save(gameId, boxes)));
  return { checked: () => boxes.filter((box) => box.checked).map((box) => box.value) };
}
