// The trains games' rules needed to check a log (Mexican Train and Chicken Foot, issue 34): the
// boards, the state, the legal moves, a certain block, a round's pips and the deal. Written again
// here from the rule book on purpose (openapi/events.md): the server's are api/rules/trains.py and trains_board.py.
import { shuffledTiles, topOf } from "./shuffle.mjs";
import { ImpossibleEvent, key, norm } from "./rules.mjs";

/** The games: each preset's set. A rules object names its game by `preset`. */
export const GAMES = { "mexican-train": "double-12", "chicken-foot": "double-9" };
export const MEXICAN_TRAIN = "mexican-train";
export const MIN_PLAYERS = 2, MAX_PLAYERS = 8;
export const DOUBLE_BLANK_CHOICES = [0, 50]; // what 0-0 counts in a hand at a round's end
const ENGINE_SIDES = 4; // the engine takes a tile against each side before anything else
const TOES = 3;         // a double at an arm's end takes three toes before anything else

export const isTrains = (rules) => Object.hasOwn(GAMES, rules?.preset);

// --- places: inside, the server's ids; on the wire a seat's train is its seat number ----------
export const MEXICAN = "mexican";
export const trainPlace = (seat) => `train:${seat}`;
export const toePlace = (number, toe) => `toe:${number}:${toe}`;
const TRAIN = /^train:(\d+)$/;
const TOE = /^toe:(\d{1,2}):(\d{1,2})$/;

/** A place as events name it ("train"): an integer seat, "mexican", or a toe id. */
export function placeToWire(place) {
  const match = TRAIN.exec(place);
  return match ? Number(match[1]) : place;
}

/** The place an event's "train" value names, or null when it names none. */
export function placeFromWire(value) {
  if (Number.isInteger(value) && value >= 0) return trainPlace(value);
  if (value === MEXICAN || (typeof value === "string" && TOE.test(value))) return value;
  return null;
}

/** A place in words, as a message says it: "seat 2's train", "the Mexican train", "toe:9:0". */
export function placeName(place) {
  const match = TRAIN.exec(place);
  if (match) return `seat ${match[1]}'s train`;
  return place === MEXICAN ? "the Mexican train" : place;
}

const has = (t, n) => t[0] === n || t[1] === n;
const other = (t, n) => (t[0] === n ? t[1] : t[0]);
const isDouble = (t) => t[0] === t[1];
const faceOf = (t) => key(t);

// --- the boards ------------------------------------------------------------------------------
/** The engine, one train per seat (train:<s>) and the Mexican train, each starting at the engine's
 *  number; markers; the one double awaiting cover (with double_must_be_covered: no double covers
 *  a double, so at most one). */
export class MexicanTrainBoard {
  constructor(players, engine, coverDoubles) {
    this.engine = engine;
    this.coverDoubles = coverDoubles;
    this.trains = new Map();
    for (let s = 0; s < players; s++) this.trains.set(trainPlace(s), { end: engine, owner: s, marked: false });
    this.trains.set(MEXICAN, { end: engine, owner: null, marked: false });
    this.uncovered = null;
  }

  /** Why `seat` may not put `tile` on `place` now, or null when it may. */
  whyNot(tile, place, seat) {
    const train = this.trains.get(place);
    if (!train) return `there is no ${placeName(place)} at this table`;
    if (this.uncovered !== null && place !== this.uncovered) {
      return `the double on ${placeName(this.uncovered)} awaits cover: covering it is every seat's only play`;
    }
    if (this.uncovered === null && train.owner !== null && train.owner !== seat && !train.marked) {
      return `${placeName(place)} carries no marker: it is open to its owner alone`;
    }
    if (!has(tile, train.end)) return `${faceOf(tile)} does not match ${placeName(place)}'s open end (${train.end})`;
    return null;
  }

  placesFor(tile, seat) {
    return [...this.trains.keys()].filter((p) => this.whyNot(tile, p, seat) === null);
  }

  /** The numbers any play could still be made on, whoever passes first: while a double awaits
   *  cover, its number alone; else every train's end (a pass marks the passer's train). */
  reachable() {
    if (this.uncovered !== null) return new Set([this.trains.get(this.uncovered).end]);
    return new Set([...this.trains.values()].map((t) => t.end));
  }

  put(tile, place) {
    const train = this.trains.get(place);
    train.end = other(tile, train.end);
    if (isDouble(tile)) {
      if (this.coverDoubles) this.uncovered = place;
    } else if (this.uncovered === place) {
      this.uncovered = null;
    }
  }

  mark(seat) { this.trains.get(trainPlace(seat)).marked = true; }
  unmark(seat) { this.trains.get(trainPlace(seat)).marked = false; }
}

/** The engine, its four sides (the toes toe:<engine>:0..3), and the arms grown from them; a
 *  double at an arm's end ends it and requires its three toes (toe:<n>:0..2), in order, before
 *  any tile goes elsewhere. Each arm is named by the toe it starts from. */
export class ChickenFootBoard {
  constructor(engine) {
    this.engine = engine;
    this.arms = new Map(); // each arm's open end (null: ended by a double)
    this.foot = { number: engine, placed: 0, needed: ENGINE_SIDES };
  }

  nextToe() { return this.foot === null ? null : toePlace(this.foot.number, this.foot.placed); }

  whyNot(tile, place) {
    const foot = this.foot;
    if (foot !== null) {
      const what = foot.needed === ENGINE_SIDES ? "the engine's four sides come first"
        : `the three toes of the ${foot.number}-${foot.number} come first`;
      if (place !== this.nextToe()) return `${what}: the only place is ${this.nextToe()}`;
      if (!has(tile, foot.number)) return `${faceOf(tile)} does not match ${place} (${foot.number})`;
      return null;
    }
    if (!this.arms.has(place)) return `there is no arm ${place} on the table`;
    const end = this.arms.get(place);
    if (end === null) return `arm ${place} ends on a double: its toes carry the play on`;
    if (!has(tile, end)) return `${faceOf(tile)} does not match arm ${place}'s open end (${end})`;
    return null;
  }

  placesFor(tile) {
    if (this.foot !== null) return this.whyNot(tile, this.nextToe()) === null ? [this.nextToe()] : [];
    return [...this.arms.keys()].filter((p) => this.whyNot(tile, p) === null);
  }

  /** The required toes' number, else every open arm's end (passing changes nothing here). */
  reachable() {
    if (this.foot !== null) return new Set([this.foot.number]);
    return new Set([...this.arms.values()].filter((end) => end !== null));
  }

  put(tile, place) {
    const foot = this.foot;
    if (foot !== null) {
      this.arms.set(place, other(tile, foot.number));
      foot.placed += 1;
      if (foot.placed === foot.needed) this.foot = null;
      return;
    }
    const end = this.arms.get(place);
    if (isDouble(tile)) {
      this.arms.set(place, null);
      this.foot = { number: end, placed: 0, needed: TOES };
    } else {
      this.arms.set(place, other(tile, end));
    }
  }
}

// --- the rules object ------------------------------------------------------------------------
const RULE_FIELDS = ["preset", "players", "set", "rounds", "hand_size", "double_blank_points",
  "double_must_be_covered", "turn_seconds", "timeout_limit"];

/** Why a trains rules object cannot be played (its fields, bounds and the game's set), or null. */
export function rulesProblem(rules) {
  const fields = Object.keys(rules).sort();
  if (fields.join() !== [...RULE_FIELDS].sort().join()) {
    return `a trains game's rules are exactly ${RULE_FIELDS.join(", ")}; these have ${fields.join(", ")}`;
  }
  const set = GAMES[rules.preset];
  if (rules.set !== set) return `${rules.preset} is played with the ${set} set, not ${JSON.stringify(rules.set)}`;
  const { players, rounds, hand_size: handSize } = rules;
  if (!Number.isInteger(players) || players < MIN_PLAYERS || players > MAX_PLAYERS) {
    return `players ${players}: the trains games seat ${MIN_PLAYERS} to ${MAX_PLAYERS}`;
  }
  const top = topOf(set);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > top + 1) return `rounds ${rounds}: 1 to ${top + 1} (one per double)`;
  const dealtFrom = ((top + 1) * (top + 2)) / 2 - 1; // the engine is out of the deal
  if (!Number.isInteger(handSize) || handSize < 1 || handSize * players > dealtFrom) {
    return `hand_size ${handSize}: at least 1, and ${players} hands within the ${dealtFrom} tiles dealt`;
  }
  if (!DOUBLE_BLANK_CHOICES.includes(rules.double_blank_points)) return `double_blank_points ${rules.double_blank_points}: 0 or 50`;
  if (typeof rules.double_must_be_covered !== "boolean") return "double_must_be_covered is true or false";
  if (rules.preset !== MEXICAN_TRAIN && !rules.double_must_be_covered) {
    return "double_must_be_covered is Mexican Train's option: Chicken Foot always requires its toes";
  }
  return null;
}

// --- the state -------------------------------------------------------------------------------
export class TrainsMatch {
  constructor(rules, seats) {
    this.rules = rules;
    this.seats = seats.map((s) => ({ ...s }));
    this.players = rules.players;
    this.mexican = rules.preset === MEXICAN_TRAIN;
    this.top = topOf(rules.set);
    this.status = "waiting";
    this.round = 0;
    this.board = null;
    this.hands = [];
    this.boneyard = [];
    this.turn = null;     // null: no round in play
    this.drawn = null;    // the tile the seat to move drew this turn: the only one it may play
    this.totals = new Array(this.players).fill(0);
    this.winners = null;
    this.timeouts = new Array(this.players).fill(0); // turns timed out in a row, per seat
  }

  /** Round r's engine double's number: counted down from the set's top double. */
  engineOf(round) { return this.top - round + 1; }
  /** The seat that begins round r. */
  leaderOf(round) { return (round - 1) % this.players; }
  next(seat) { return (seat + 1) % this.players; }
  isBot(seat) { return this.seats[seat].type === "bot"; }
  clientSeeds() { return this.seats.map((s) => s.client_seed ?? null); }
  holds(seat, tile) { return this.hands[seat].findIndex((t) => key(t) === key(tile)); }
  get roundLive() { return this.turn !== null; }

  /** Where `seat` may put `tile` now. */
  placesFor(tile, seat) { return this.board.placesFor(tile, seat); }

  /** Every move of the seat to move: [{tile, place}] plays, else [{draw}] or [{pass}]. */
  legalMoves() {
    const seat = this.turn;
    if (seat === null) return [];
    const playsOf = (tile) => this.placesFor(tile, seat).map((place) => ({ type: "play", tile: norm(tile), place }));
    if (this.drawn !== null) return playsOf(this.drawn);
    const plays = this.hands[seat].flatMap(playsOf);
    if (plays.length) return plays;
    return [{ type: this.boneyard.length ? "draw" : "pass" }];
  }

  /** No one can play or draw, whatever anyone does: an empty boneyard, and no tile in any hand
   *  shows a number that play could still reach. */
  isCertainlyBlocked() {
    if (this.boneyard.length || this.board === null) return false;
    const reachable = this.board.reachable();
    return !this.hands.some((hand) => hand.some((t) => reachable.has(t[0]) || reachable.has(t[1])));
  }

  /** What a hand left at a round's end adds to its total (0-0 counts double_blank_points). */
  handPips(hand) {
    return hand.reduce((sum, t) => sum + (t[0] === 0 && t[1] === 0 ? this.rules.double_blank_points : t[0] + t[1]), 0);
  }

  /** Round r's deal: the set shuffled by the deal seed and "hand:<r>", the engine taken out,
   *  seat s the s-th run of hand_size, the rest the boneyard in draw order. */
  deal(seed, round) {
    const engine = this.engineOf(round);
    const order = shuffledTiles(seed, `hand:${round}`, this.top).filter((t) => !(t[0] === engine && t[1] === engine));
    const n = this.rules.hand_size;
    const hands = Array.from({ length: this.players }, (_, s) => order.slice(s * n, (s + 1) * n));
    return { type: "round_started", round, engine, leader: this.leaderOf(round), hands, boneyard: order.slice(this.players * n) };
  }

  // --- the fold: one effect per event type (each event checked by the replayer before) -------
  apply(e) {
    if (["tile_placed", "tile_drawn", "passed"].includes(e.type) && !e.auto) this.timeouts[e.seat] = 0;
    switch (e.type) {
      case "seat_claimed":
        this.seats[e.seat] = { ...this.seats[e.seat], name: e.name, type: "remote" };
        if (e.client_seed !== null && e.client_seed !== undefined) this.seats[e.seat].client_seed = e.client_seed;
        break;
      case "round_started":
        Object.assign(this, {
          status: "playing", round: e.round, turn: e.leader, drawn: null,
          board: this.mexican ? new MexicanTrainBoard(this.players, e.engine, this.rules.double_must_be_covered)
            : new ChickenFootBoard(e.engine),
          hands: e.hands.map((h) => h.map(norm)), boneyard: e.boneyard.map(norm),
        });
        break;
      case "tile_placed": {
        const place = placeFromWire(e.train);
        const held = Array.isArray(e.tile) && this.hands[e.seat] ? this.holds(e.seat, e.tile) : -1;
        if (held < 0) throw new ImpossibleEvent(`seat ${e.seat} places ${JSON.stringify(e.tile)}, which it does not hold`);
        if (place === null || this.board.whyNot(norm(e.tile), place, e.seat) !== null) {
          throw new ImpossibleEvent(`${JSON.stringify(e.train)} takes no ${key(e.tile)} now`);
        }
        this.hands[e.seat].splice(held, 1);
        this.board.put(norm(e.tile), place);
        this.drawn = null;
        if (this.mexican) {
          if (place === trainPlace(e.seat)) this.board.unmark(e.seat); // its owner played on it
          if (isDouble(e.tile)) break; // a double earns its player one more tile
        }
        this.turn = this.next(e.seat);
        break;
      }
      case "tile_drawn":
        if (this.boneyard.length === 0) throw new ImpossibleEvent(`seat ${e.seat} draws from an empty boneyard`);
        this.drawn = this.boneyard.shift();
        this.hands[e.seat].push(this.drawn);
        break;
      case "passed":
        if (e.marker) this.board.mark(e.seat);
        this.drawn = null;
        this.turn = this.next(e.seat);
        break;
      case "round_ended":
        this.totals = [...e.totals];
        this.turn = null;
        this.drawn = null;
        break;
      case "turn_timed_out":
        this.timeouts[e.seat] = e.consecutive;
        break;
      case "seat_replaced":
        this.seats[e.seat] = { ...this.seats[e.seat], type: "bot", level: e.level };
        break;
      case "match_ended":
        this.status = "ended";
        this.turn = null;
        this.winners = [...e.winners];
        break;
      default:
        throw new ImpossibleEvent(`unknown event type ${JSON.stringify(e.type)} in a trains game`);
    }
  }
}

/** The seats with the lowest total: the match's winners (a tie shares the win). */
export function lowestTotals(totals) {
  const best = Math.min(...totals);
  return totals.flatMap((t, seat) => (t === best ? [seat] : []));
}
