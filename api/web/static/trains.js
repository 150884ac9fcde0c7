// The trains games (Mexican Train, Chicken Foot) as the page reads their views: which views
// are theirs, where an action goes, and the board's rows in the order the table shows them.
//
// Pure: views in, words and lists out. Nothing here decides a rule: the rows are the board
// the view lists (plus any place a legal action names that holds no tile yet), and what may
// be played where is the view's `legal_actions`.

/** A trains game's view: played in rounds, its board (none before the first deal) lists trains
 *  (Mexican Train) or arms (Chicken Foot), not a line. */
export const isTrains = (view) => Boolean(view && (view.rounds !== undefined || view.board?.trains || view.board?.arms));

/** Where an action goes, as one string the page's targets carry in `data-end`: a line end
 *  ("left"), or a train's wire value as text ("2" for seat 2's train, "mexican", "toe:9:0"). */
export const placeKey = (action) => (action.end !== undefined ? action.end : String(action.train));

/** A Chicken Foot place: an arm begun against the engine's side or a double's toe. */
export const isToe = (key) => key.startsWith("toe:");

/** A place's name for people: "Your train", "Ana's train", "Mexican train", "Arm 2", "6-6 toe 1". */
export function placeName(view, key, seatName) {
  if (key === "mexican") return "Mexican train";
  if (isToe(key)) {
    const [, number, k] = key.split(":").map(Number);
    return number === view.board.engine[0] ? `Arm ${k + 1}` : `${number}-${number} toe ${k + 1}`;
  }
  const seat = Number(key);
  return seat === view.seat ? "Your train" : `${seatName(seat)}'s train`;
}

/** The same name inside a sentence: "your train", "Ana's train", "the Mexican train", "Arm 2". */
export const placeInSentence = (view, key, seatName) =>
  placeName(view, key, seatName).replace(/^Your/, "your").replace(/^Mexican/, "the Mexican");

/**
 * The board's rows, in the table's order: {key, owner, open, marker, tiles}.
 * Mexican Train: the viewer's own train first, then the Mexican train, then the other seats'
 * in turn order from the viewer. Chicken Foot: the arms as the view lists them, the place
 * that must take the next toe (not begun yet) last. A place some legal action names that the
 * board does not list yet is a row with no tiles.
 */
export function trainRows(view) {
  const board = view.board;
  const rows = [];
  if (board.trains) {
    const seats = view.seats.length;
    const me = view.seat ?? 0;
    const turnOrder = (owner) => (owner === null ? -1 : (owner - me + seats) % seats);
    const sorted = [...board.trains].sort((a, b) => {
      const [x, y] = [turnOrder(a.owner), turnOrder(b.owner)];
      // own train (0), the Mexican (-1 → after it), then the others
      const rank = (t) => (t === 0 ? 0 : t === -1 ? 1 : 1 + t);
      return rank(x) - rank(y);
    });
    for (const t of sorted) {
      rows.push({ key: String(t.train), owner: t.owner, open: t.open, marker: Boolean(t.marker), tiles: t.tiles });
    }
  } else {
    const next = board.toes_needed?.next ?? null;
    for (const arm of board.arms) {
      rows.push({ key: String(arm.train), owner: null, open: arm.open, marker: false, tiles: arm.tiles });
    }
    if (next !== null && !rows.some((r) => r.key === next)) {
      rows.push({ key: next, owner: null, open: board.toes_needed.number, marker: false, tiles: [] });
    }
  }
  for (const action of view.legal_actions || []) {
    if (action.type !== "play" || rows.some((r) => r.key === placeKey(action))) continue;
    rows.push({ key: placeKey(action), owner: null, open: null, marker: false, tiles: [] });
  }
  return rows;
}

/** The double that must be covered, or take its toes, before anything else: {tile, key, toes,
 *  engine} (toes: how many more it needs in Chicken Foot; engine: the engine's own four sides),
 *  or null when nothing is owed. */
export function doubleToCover(view) {
  const board = view.board;
  if (board.trains) {
    const t = board.trains.find((x) => x.awaits_cover);
    return t && t.tiles.length ? { tile: t.tiles[t.tiles.length - 1], key: String(t.train), toes: 1, engine: false } : null;
  }
  const foot = board.toes_needed;
  if (!foot) return null;
  return { tile: [foot.number, foot.number], key: foot.next, toes: foot.left, engine: foot.number === board.engine[0] };
}

/** The seats sharing the lowest total at the end (the view's `winners`), else the one winner. */
export const winnersOf = (view) => view.winners ?? (view.winner === null || view.winner === undefined ? [] : [view.winner]);
