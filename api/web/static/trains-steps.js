// A trains game's moves one at a time: the table after each new event, played forwards from
// the view that was on screen before them (animate.js groups them into steps and times them).
//
// Pure: a table and an event in, the next table out. Nothing here decides a rule: a tile
// goes on the train its event names, turned so its inner half meets the number that train
// showed, exactly as the next view will show it. What only the server knows mid-way (which
// toes a chicken foot still owes) is left out of the pictures in between; the last picture
// is the view itself.

import { sameTile } from "./tiles.js";

const rowOf = (board, key) => (board.trains ?? board.arms).find((row) => String(row.train) === key);

/**
 * The table of a view (`board`, `hand_counts`, `boneyard`, `hand`), copied, with nothing owed
 * shown: the pictures between two views are drawn from it.
 */
export function trainTable(view) {
  const table = JSON.parse(JSON.stringify({ board: view.board, hand_counts: view.hand_counts,
                                            boneyard: view.boneyard, hand: view.hand || [] }));
  if (table.board.arms) table.board.toes_needed = null;
  return table;
}

/** `table` as it is after event `e` (changed in place); `viewer` sees its own drawn tiles. */
export function applyTrainEvent(table, e, viewer, { coverDoubles = true } = {}) {
  const board = table.board;
  if (e.type === "tile_placed") {
    const key = String(e.train);
    let row = rowOf(board, key);
    if (!row) {   // a chicken foot's toe, begun by this tile: it starts from the double's number
      row = { train: e.train, open: Number(key.split(":")[1]), tiles: [] };
      board.arms.push(row);
    }
    const [a, b] = e.tile;
    const inner = a === row.open ? a : b;
    const outer = inner === a ? b : a;
    row.tiles.push([inner, outer]);
    const double = a === b;
    if (board.trains) {
      row.open = outer;
      if (row.owner === e.seat) row.marker = false;   // its owner played on it: the marker goes
      for (const train of board.trains) train.awaits_cover = false;
      row.awaits_cover = double && coverDoubles;
      board.uncovered = row.awaits_cover ? row.train : null;
    } else {
      row.open = double ? null : outer;   // a double ends its arm: its toes grow from it
    }
    table.hand_counts[e.seat] -= 1;
    if (e.seat === viewer) table.hand = table.hand.filter((t) => !sameTile(t, e.tile));
  } else if (e.type === "tile_drawn") {
    table.boneyard -= 1;
    table.hand_counts[e.seat] += 1;
    if (e.seat === viewer && e.tile) table.hand.push(e.tile);
  } else if (e.type === "passed" && e.marker && board.trains) {
    const own = rowOf(board, String(e.seat));
    if (own) own.marker = true;
  }
  return table;
}
