// What every game's log check shares (replay.mjs, trains_replay.mjs): the error that names a
// seq, deep equality, the first field where two events differ, and the count of bot moves.

export class LogError extends Error {
  constructor(seq, message) {
    super(seq ? `seq ${seq}: ${message}` : message);
    this.seq = seq;
  }
}

export function equal(a, b) {
  if (a === b) return true;
  if (Array.isArray(a) !== Array.isArray(b) || typeof a !== "object" || typeof b !== "object" || !a || !b) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
}

/** Where a logged event departs from the one the rules give, in words: the first field that
 *  differs ("round_ended.totals [3, 9] where the rules give [3, 8]"), or null when equal. */
export function difference(logged, want) {
  if (equal(logged, want)) return null;
  if (logged.type !== want.type) return `the log holds ${logged.type} where the rules give ${want.type}`;
  const fields = [...new Set([...Object.keys(want), ...Object.keys(logged)])];
  const k = fields.find((f) => !equal(logged[f], want[f]));
  const shown = (v) => (v === undefined ? "nothing" : JSON.stringify(v));
  return `${want.type}.${k} is ${shown(logged[k])} where the rules give ${shown(want[k])}`;
}

// The bot level that takes over a seat after timeout_limit timeouts in a row (api/rules/clock.py,
// the trains games' too).
export const REPLACEMENT_LEVEL = "greedy";

// The level of a bot seat created without one (api/bots DEFAULT_LEVEL).
export const DEFAULT_LEVEL = "greedy";

/** The bot moves of a log, per level: each is checked legal here like any seat's move, but the
 *  bot's choice is not made again (that takes the bots themselves: GET /v1/matches/{id}/fairness
 *  and `boneyard verify`, api/bots/audit.py). Every level seated starts at 0, a replaced seat's too. */
export class BotMoves {
  constructor(m) {
    this.notChecked = {};
    m.seats.forEach((s) => { if (s.type === "bot") this.notChecked[s.level || DEFAULT_LEVEL] = 0; });
  }

  /** After a seat's own move by `seat` is found legal (and before it is folded). */
  count(m, seat) {
    if (!m.isBot(seat)) return;
    const level = m.seats[seat].level || DEFAULT_LEVEL;
    this.notChecked[level] = (this.notChecked[level] ?? 0) + 1;
  }

  /** A seat handed to a bot (turn clocks): its level is seated from now on. */
  seated(level) {
    this.notChecked[level] ??= 0;
  }
}
