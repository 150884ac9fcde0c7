// The rules needed to check a log: the layout (ends, spinner, count), the state, legality,
// hand results and every consequence the server must emit on its own (openapi/events.md), for
// every set (double-6, -9, -12: the rule set's `set`) and every scoring option.
import { topOf } from "./shuffle.mjs";

export const END_NAMES = ["left", "right", "up", "down"];

/** An event the state before it cannot take (api/rules/errors.py ImpossibleEvent): a tile played
 *  that its seat does not hold, a draw from an empty boneyard. Only a rewritten log holds one;
 *  the fold throws it, and the replayer reports it with the event's seq. */
export class ImpossibleEvent extends Error {}
const LEFT = 0, RIGHT = 1, UP = 2, DOWN = 3;

export const key = (t) => `${Math.max(t[0], t[1])}-${Math.min(t[0], t[1])}`;
export const norm = (t) => [Math.max(t[0], t[1]), Math.min(t[0], t[1])];
const pips = (t) => t[0] + t[1];
const isDouble = (t) => t[0] === t[1];
const has = (t, n) => t[0] === n || t[1] === n;
const pipCount = (tiles) => tiles.reduce((sum, t) => sum + pips(t), 0);
// The forced play's order of weight: pips, then a double, then the higher end (one number per
// tile: a high end is at most 12, below the double's 50, and pips are at most 24).
const forcedWeight = (t) => pips(t) * 100 + (isDouble(t) ? 50 : 0) + Math.max(t[0], t[1]);
const heavier = (a, b) => pips(a) > pips(b) || (pips(a) === pips(b) && Math.max(...a) > Math.max(...b));

export class Layout {
  constructor(usesSpinner) {
    this.values = [null, null, null, null];   // the number open on each end
    this.doubles = [false, false, false, false]; // the end's last tile is a double: counts twice
    this.occupied = [false, false, false, false];
    this.spinnerEnds = new Set();                // ends whose end tile is the spinner itself
    this.spinner = null;
    this.spinnerSides = 0;
    this.tiles = 0;
    this.first = null;
    this.usesSpinner = usesSpinner;
  }

  openEnds() {
    return this.values.map((v, i) => [i, v]).filter(([, v]) => v !== null);
  }

  accepts(tile) {
    return this.tiles === 0 || this.openEnds().some(([, v]) => has(tile, v));
  }

  count() {
    if (this.tiles === 1) return pips(this.first);
    let total = 0;
    for (let i = 0; i < 4; i++) {
      const v = this.values[i];
      if (v !== null && (i < UP || this.occupied[i])) total += this.doubles[i] ? 2 * v : v;
    }
    return total;
  }

  endsObject() {
    const out = {};
    this.openEnds().forEach(([i, v]) => { out[END_NAMES[i]] = v; });
    return out;
  }

  place(tile, end) {
    const [high, low] = norm(tile);
    if (this.tiles === 0) {
      this.first = [high, low];
      this.values[LEFT] = high; this.values[RIGHT] = low;
      this.doubles[LEFT] = this.doubles[RIGHT] = high === low;
      if (this.usesSpinner && high === low) { this.spinner = [high, low]; this.spinnerEnds = new Set([LEFT, RIGHT]); }
      this.tiles = 1;
      return;
    }
    const number = this.values[end];
    this.values[end] = high === number ? low : high;
    this.doubles[end] = high === low;
    this.occupied[end] = true;
    this.tiles += 1;
    if (!this.usesSpinner) return;
    if (this.spinnerEnds.has(end)) {
      // against one of the spinner's sides; with both taken, up and down open on it
      this.spinnerEnds.delete(end);
      this.spinnerSides += 1;
      if (this.spinnerSides === 2) this.values[UP] = this.values[DOWN] = this.spinner[0];
    } else if (this.spinner === null && high === low) {
      // the first double, played on a line end: its inner side already touches the line
      this.spinner = [high, low];
      this.spinnerEnds = new Set([end]);
      this.spinnerSides = 1;
    }
  }

  copy() {
    const other = Object.assign(new Layout(this.usesSpinner), this);
    other.values = [...this.values]; other.doubles = [...this.doubles]; other.occupied = [...this.occupied];
    other.spinnerEnds = new Set(this.spinnerEnds);
    return other;
  }
}

// --- what points are worth (api/rules/scoring.py, written again here on purpose) ------------

/** The rule set's `end_count_scoring`: named in the rules object when it is `fives_and_threes`;
 *  otherwise v1's `fives_scoring` says it (true: `fives`, false: `none`). */
export function endCountScoring(rules) {
  if (rules.end_count_scoring !== undefined && rules.end_count_scoring !== null) return rules.end_count_scoring;
  return rules.fives_scoring ? "fives" : "none";
}

/** What a count (the open ends' sum after a play) scores: under `fives` the count itself when 5
 *  divides it; under `fives_and_threes` a point per five when 5 divides it plus a point per three
 *  when 3 divides it (15: 3 + 5 = 8); nothing under `none`. */
export function countPoints(count, scoring) {
  if (count <= 0) return 0;
  if (scoring === "fives") return count % 5 === 0 ? count : 0;
  if (scoring === "fives_and_threes") return (count % 5 ? 0 : count / 5) + (count % 3 ? 0 : count / 3);
  return 0;
}

/** The points a side on `score` is credited with when it makes `points`: all of them, but none
 *  under `exact_target` when they would take it past `target` (the play or the hand stands). */
export function credited(points, score, target, exact) {
  return exact && score + points > target ? 0 : points;
}

/** The options that say what a finished hand pays (defaults: every game before Fives and Threes). */
function handScoring(rules) {
  return {
    pipsCounted: rules.hand_end_pips ?? true,
    allHands: (rules.hand_points ?? "opponents") === "all_hands",
    minusOwn: rules.blocked_scoring === "others_minus_own",
    rounded: rules.round_to_five,
    outBonus: rules.out_bonus ?? 0,
  };
}

/** api/rules/scoring.py hand_award: which side a finished hand pays, and how much. `sidePips` are
 *  the pips left in each side's hands; `outSide` the side of the seat that went out (null: the hand
 *  blocked). Going out scores every other side's pips (under `allHands` every hand's, the
 *  partner's included) plus the out bonus; blocked, the lightest side scores the others' (less its
 *  own when `minusOwn`; under `allHands` every hand's, its own included); a tie for lightest pays
 *  nobody: [null, 0]. Without `pipsCounted` going out pays the bonus alone, a blocked hand nothing.
 *  The bonus comes after the rounding. */
function handAward(sidePips, outSide, scoring) {
  if (!scoring.pipsCounted) return outSide === null ? [null, 0] : [outSide, scoring.outBonus];
  const total = sidePips.reduce((a, b) => a + b, 0);
  let side, points;
  if (outSide !== null) {
    side = outSide;
    points = scoring.allHands ? total : total - sidePips[side];
  } else {
    const low = Math.min(...sidePips);
    if (sidePips.filter((p) => p === low).length > 1) return [null, 0];
    side = sidePips.indexOf(low);
    points = scoring.allHands ? total : scoring.minusOwn ? total - low - low : total - low;
  }
  if (scoring.rounded) points = Math.floor((points + 2) / 5) * 5;
  return [side, outSide !== null ? points + scoring.outBonus : points];
}

export class Match {
  constructor(rules, seats) {
    this.rules = rules;
    this.seats = seats.map((s) => ({ ...s }));
    this.players = rules.players;
    this.top = topOf(rules.set);            // the set's highest number: 6, 9 or 12
    this.countScoring = endCountScoring(rules);
    this.handScoring = handScoring(rules);
    this.sides = rules.partners ? 2 : rules.players;
    this.status = "waiting";
    this.handNumber = 0;
    this.leader = null;
    this.turn = null;
    this.hands = Array.from({ length: this.players }, () => []);
    this.boneyard = [];
    this.layout = new Layout(rules.spinner === "first_double");
    this.scores = new Array(this.sides).fill(0);
    this.handLive = false;
    this.lastResult = null;
    this.winner = null;
    this.turnUpLeader = null;
    this.pendingMuggins = null;   // [seat, points]: an unclaimed count (muggins_calls)
    this.drawn = new Array(this.players).fill(0);
    this.timeouts = new Array(this.players).fill(0); // turns timed out in a row, per seat (turn clocks)
  }

  sideOf(seat) { return this.rules.partners ? seat % 2 : seat; }
  next(seat) { return (seat + 1) % this.players; }
  drawable() {
    if (this.rules.game !== "draw") return 0;
    return Math.max(0, this.boneyard.length - this.rules.boneyard_reserve);
  }
  canPlay(seat) { return this.hands[seat].some((t) => this.layout.accepts(t)); }
  isBot(seat) { return this.seats[seat].type === "bot"; }
  /** What the count of `layout` scores under the rules' end_count_scoring (before the exact target). */
  countPoints(layout) { return countPoints(layout.count(), this.countScoring); }
  /** `points` made now by `side`, as credited (none past an exact target). */
  credit(points, side) { return credited(points, this.scores[side], this.rules.target, this.rules.exact_target === true); }

  /** What a timed-out seat plays: [tile, end index] of its heaviest playable tile (equal weight:
   *  the double, then the higher end), on the first open end it fits (left, right, up, down),
   *  or null when nothing fits. On an empty table every tile fits, on end left. */
  forcedChoice(seat) {
    let best = null;
    for (const tile of this.hands[seat]) {
      const ends = this.layout.tiles === 0 ? [LEFT]
        : this.layout.openEnds().filter(([, v]) => has(tile, v)).map(([i]) => i);
      if (ends.length && (best === null || forcedWeight(tile) > forcedWeight(best[0]))) best = [norm(tile), ends[0]];
    }
    return best;
  }
  holds(seat, tile) { return this.hands[seat].findIndex((t) => key(t) === key(tile)); }
  clientSeeds() { return this.seats.map((s) => s.client_seed ?? null); }

  isBlocked() {
    if (this.drawable() > 0) return false;
    if (this.layout.tiles === 0) return !this.hands.some((h) => h.length);
    return !this.hands.some((h) => h.some((t) => this.layout.accepts(t)));
  }

  /** How the live hand ends now (reason, winner, side, points, pips), or null while it goes on. */
  handOutcome() {
    if (!this.handLive) return null;
    if (this.layout.tiles && this.hands.some((h) => h.length === 0)) {
      return this.score("domino", this.hands.findIndex((h) => h.length === 0));
    }
    if (this.isBlocked()) return this.score("blocked", null);
    return null;
  }

  score(reason, wentOut) {
    const seatPips = this.hands.map(pipCount);
    const sidePips = new Array(this.sides).fill(0);
    seatPips.forEach((p, seat) => { sidePips[this.sideOf(seat)] += p; });
    const outSide = reason === "domino" ? this.sideOf(wentOut) : null;
    const [side, award] = handAward(sidePips, outSide, this.handScoring);
    if (side === null) return { reason, winner: null, side: null, points: 0, pips: seatPips };
    const points = this.credit(award, side);  // past an exact target: the hand stands, its side scores 0
    let winner = wentOut;
    if (outSide === null) { // blocked: the side's lightest hand; on equal pips the lower seat
      const members = [...Array(this.players).keys()].filter((s) => this.sideOf(s) === side);
      winner = members.reduce((best, s) => (seatPips[s] < seatPips[best] ? s : best));
    }
    return { reason, winner, side, points, pips: seatPips };
  }

  /** Who leads the hand about to be dealt, and the forced tile (null: any tile). */
  nextLead(hands) {
    const rules = this.rules;
    const firstHand = this.handNumber === 0;
    if (leadIsForced(rules, this.handNumber + 1)) return forcedLead(hands, this.top);
    if (rules.lead === "rotate_any") return [firstHand ? this.turnUpLeader : this.next(this.leader), null];
    // winner_any after the first hand: the last hand's winner, or who was left with fewest tiles
    const last = this.lastResult;
    if (last.winner !== null) return [last.winner, null];
    const sizes = last.hands.map((h) => h.length);
    const fewest = sizes.map((n, s) => [n, s]).filter(([n]) => n === Math.min(...sizes));
    return [fewest.length === 1 ? fewest[0][1] : this.leader, null];
  }

  sideAtTarget() {
    return this.scores.findIndex((s) => s >= this.rules.target);
  }

  // --- the fold: one effect per event type ---------------------------------------------------
  apply(e) {
    // A seat's own move (not auto; a muggins call too) ends its run of timed-out turns.
    if ((["tile_played", "tile_drawn", "knocked"].includes(e.type) && !e.auto)
        || (e.type === "points_scored" && e.how === "muggins")) this.timeouts[e.seat] = 0;
    switch (e.type) {
      case "seat_claimed":
        this.seats[e.seat] = { ...this.seats[e.seat], name: e.name, type: "remote" };
        if (e.client_seed !== null && e.client_seed !== undefined) this.seats[e.seat].client_seed = e.client_seed;
        break;
      case "tiles_turned_up":
        this.turnUpLeader = e.leader;
        break;
      case "hand_started":
        Object.assign(this, { status: "playing", handNumber: e.hand_number, leader: e.leader, turn: e.leader,
          hands: e.hands.map((h) => h.map(norm)), boneyard: e.boneyard.map(norm), layout: new Layout(this.rules.spinner === "first_double"),
          handLive: true, pendingMuggins: null, drawn: new Array(this.players).fill(0) });
        break;
      case "tile_played": {
        const isTile = Array.isArray(e.tile) && e.tile.length === 2;
        const held = isTile && this.hands[e.seat] ? this.holds(e.seat, e.tile) : -1;
        if (held < 0) {
          const tile = isTile ? key(e.tile) : JSON.stringify(e.tile);
          throw new ImpossibleEvent(`seat ${e.seat} plays ${tile}, which it does not hold`);
        }
        this.hands[e.seat].splice(held, 1);
        this.layout.place(e.tile, END_NAMES.indexOf(e.end));
        this.turn = this.next(e.seat);
        this.pendingMuggins = null;
        if (this.rules.muggins_calls && e.claim === null) {
          const points = this.countPoints(this.layout);
          if (points) this.pendingMuggins = [e.seat, points];
        }
        break;
      }
      case "tile_drawn":
        if (this.boneyard.length === 0) throw new ImpossibleEvent(`seat ${e.seat} draws from an empty boneyard`);
        this.hands[e.seat].push(this.boneyard.shift());
        this.drawn[e.seat] += 1;
        break;
      case "knocked":
        this.turn = this.next(e.seat);
        break;
      case "points_scored":
        this.scores[e.side] += e.points;
        this.pendingMuggins = null;
        break;
      case "hand_ended":
        if (e.side !== null) this.scores[e.side] += e.points;
        this.handLive = false; this.turn = null; this.pendingMuggins = null; this.lastResult = e;
        break;
      case "turn_timed_out":
        this.timeouts[e.seat] = e.consecutive;
        break;
      case "seat_replaced":
        this.seats[e.seat] = { ...this.seats[e.seat], type: "bot", level: e.level };
        break;
      case "match_ended":
        this.status = "ended"; this.handLive = false; this.turn = null; this.winner = e.winner; this.pendingMuggins = null;
        break;
      default:
        throw new ImpossibleEvent(`unknown event type ${JSON.stringify(e.type)}`);
    }
  }
}

/** state.py lead_is_forced: whether hand `handNumber` (from 1) opens with the forced lead. */
function leadIsForced(rules, handNumber) {
  return rules.lead === "highest_double" || (rules.lead === "winner_any" && handNumber === 1);
}

/** The set's highest double dealt sets (top: the set's highest number); with no double dealt,
 *  the heaviest tile (higher end on ties). */
function forcedLead(hands, top) {
  for (let n = top; n >= 0; n--) {
    for (let seat = 0; seat < hands.length; seat++) {
      if (hands[seat].some((t) => t[0] === n && t[1] === n)) return [seat, [n, n]];
    }
  }
  let best = null;
  hands.forEach((hand, seat) => hand.forEach((t) => { if (best === null || heavier(t, best[1])) best = [seat, norm(t)]; }));
  return best;
}

export function turnUpLeader(tiles) {
  let best = 0;
  tiles.forEach((t, seat) => { if (heavier(t, tiles[best])) best = seat; });
  return best;
}

