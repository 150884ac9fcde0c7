// The server's computer players (api/bots), re-run: every bot move in a log can be asked again.
//
// A bot is a pure function of its level, what its seat is shown (the view, with its
// legal_actions in the server's order, and the hand's events redacted for the seat) and an
// rng_seed the match's revealed server seed gives (bot_seed). Its randomness is CPython's
// random.Random (pyrandom.mjs). So this file ports, choice for choice and draw for draw:
//   - the view's legal_actions (api/rules/engine.py legal_actions over MatchState.legal_moves),
//     and the redaction of the hand's events (api/rules/views.py);
//   - random and greedy (api/bots/simple.py);
//   - intermediate and expert, one algorithm at two budgets (api/bots/expert.py + knowledge.py),
//     with the engine's fast path it pushes its playouts through (api/rules/simulate.py push,
//     engine.py perform_play/settle, the MatchState effects and hand_outcome), and the expert's
//     exact solver of line endings (api/bots/endgame.py ExactLine: the same alpha-beta, the same
//     move order and table, the same count of visited positions, which decides how many deals
//     are dealt): the same deals, the same rollout moves, the same float sums, so the same best
//     average.
// Exported: chooseAction(level, view, log, rngSeed), botSeed, makeRng, botView, redactEvent; and,
// for tests/clients/test_js_bots.py to hold the port to Python's, expertValues, ExactLine,
// SEARCH_TOO_BIG and SOLVER_TILES (the tiles as the solver numbers them).
import { createHash } from "node:crypto";
import { PyRandom } from "./pyrandom.mjs";
import { forcedLead, handAward, leadIsForced } from "./rules.mjs";

export const LEVELS = ["random", "greedy", "intermediate", "expert"]; // weakest first, as api/bots LEVELS
export const DEFAULT_LEVEL = "greedy"; // a bot seat stored without a level (api/bots DEFAULT_LEVEL)
const END_NAMES = ["left", "right", "up", "down"];
const END_INDEX = { left: 0, right: 1, up: 2, down: 3 };
const LEFT = 0, RIGHT = 1, UP = 2;
const PLAY = "play", DRAW = "draw", KNOCK = "knock", MUGGINS = "muggins";

const sha256 = (bytes) => createHash("sha256").update(bytes).digest();

/** api/bots/actions.py bot_seed: the rng_seed of the seat about to act after event `seq`. */
export function botSeed(seed, seq, seat) {
  return sha256(Buffer.from(`bot:${seed}:${seq}:${seat}`, "utf8")).toString("hex");
}

/** api/bots/actions.py make_rng: random.Random(int(sha256(salt + NUL + rng_seed), big-endian)). */
export function makeRng(rngSeed, salt = "") {
  const digest = sha256(Buffer.concat([Buffer.from(salt, "utf8"), Buffer.from([0]), Buffer.from(rngSeed, "utf8")]));
  return new PyRandom(BigInt(`0x${digest.toString("hex")}`));
}

// --- tiles: interned, canonical order (api/rules/tiles.py ALL_TILES) ---------------------------
export const ALL_TILES = [];
const BY_PAIR = [];
for (let high = 0; high <= 6; high++) {
  BY_PAIR.push([]);
  for (let low = 0; low <= high; low++) {
    const tile = { high, low, pips: high + low, index: ALL_TILES.length, isDouble: high === low,
                   mask: (1 << high) | (1 << low) };
    ALL_TILES.push(tile);
    BY_PAIR[high][low] = tile;
  }
}
// The exact solver's numbering (api/bots/endgame.py BY_WEIGHT): heaviest first, doubles first on
// equal pips, then the higher end; tile.bit is the tile's bit in a hand's mask (28 bits: int32 ops).
const BY_WEIGHT = ALL_TILES.slice().sort((x, y) => y.pips - x.pips || y.isDouble - x.isDouble || y.high - x.high);
BY_WEIGHT.forEach((t, i) => { t.bit = 1 << i; });
const HIGH = BY_WEIGHT.map((t) => t.high);
const LOW = BY_WEIGHT.map((t) => t.low);
const SHOWS = Array.from({ length: 7 }, (_, n) => ALL_TILES.reduce((m, t) => (t.high === n || t.low === n ? m | t.bit : m), 0));
const PIPS_BY_RANK = BY_WEIGHT.map((t) => t.pips);
/** The interned tile of a JSON pair [a, b] (either order). */
export const tileOf = (pair) => (pair[0] >= pair[1] ? BY_PAIR[pair[0]][pair[1]] : BY_PAIR[pair[1]][pair[0]]);
const toJson = (t) => [t.high, t.low];
export const SOLVER_TILES = BY_WEIGHT.map(toJson);
const fivesPoints = (count) => (count > 0 && count % 5 === 0 ? count : 0);
const popcount = (m) => { let n = 0; for (; m; m &= m - 1) n++; return n; };

// --- the layout, as api/rules/layout.py Layout (tiles are interned objects here) ---------------
export class SimLayout {
  constructor(usesSpinner) {
    this.values = [null, null, null, null];
    this.doubles = [false, false, false, false];
    this.occupied = [false, false, false, false];
    this.spinnerEnds = 0; // bit i: end i's end tile is the spinner itself
    this.spinner = null;
    this.spinnerSides = 0;
    this.tiles = 0;
    this.first = null;
    this.usesSpinner = usesSpinner;
  }

  copy() {
    const o = new SimLayout(this.usesSpinner);
    o.values = this.values.slice();
    o.doubles = this.doubles.slice();
    o.occupied = this.occupied.slice();
    o.spinnerEnds = this.spinnerEnds;
    o.spinner = this.spinner;
    o.spinnerSides = this.spinnerSides;
    o.tiles = this.tiles;
    o.first = this.first;
    return o;
  }

  openMask() {
    let m = 0;
    for (const v of this.values) if (v !== null) m |= 1 << v;
    return m;
  }

  count() {
    if (this.tiles === 1 && this.first !== null) return this.first.pips;
    let total = 0;
    for (let i = 0; i < 4; i++) {
      const v = this.values[i];
      if (v !== null && (i < UP || this.occupied[i])) total += this.doubles[i] ? 2 * v : v;
    }
    return total;
  }

  place(tile, end) {
    const values = this.values;
    if (!this.tiles) {
      this.first = tile;
      values[0] = tile.high;
      values[1] = tile.low;
      this.doubles[0] = this.doubles[1] = tile.isDouble;
      if (this.usesSpinner && tile.isDouble) {
        this.spinner = tile;
        this.spinnerEnds = 0b11;
      }
      this.tiles = 1;
      return;
    }
    values[end] = tile.high === values[end] ? tile.low : tile.high;
    this.doubles[end] = tile.isDouble;
    this.occupied[end] = true;
    this.tiles += 1;
    if (!this.usesSpinner) return;
    if (this.spinnerEnds & (1 << end)) {
      this.spinnerEnds &= ~(1 << end);
      this.spinnerSides += 1;
      if (this.spinnerSides === 2) values[2] = values[3] = this.spinner.high;
    } else if (this.spinner === null && tile.isDouble) {
      this.spinner = tile;
      this.spinnerEnds = 1 << end;
      this.spinnerSides = 1;
    }
  }
}

// --- the seat's view and log, as the server shows them to a bot --------------------------------
const sideOfRules = (rules, seat) => (rules.partners ? seat % 2 : seat);

/** api/rules/engine.py legal_actions(state, seat) for a clients/js/rules.mjs Match, in the
 *  server's order: a muggins call first, then plays in hand order and end order, then a draw (or
 *  a knock), and "draw until playable" last when the seat has no play. */
export function legalActions(m, seat) {
  const rules = m.rules;
  if (m.status !== "playing" || !m.handLive) return [];
  const actions = [];
  const pending = m.pendingMuggins;
  if (pending && sideOfRules(rules, seat) !== sideOfRules(rules, pending[0])) {
    actions.push({ type: MUGGINS, scores: pending[1] });
  }
  if (seat !== m.turn) return actions;
  const layout = m.layout;
  let plays = 0;
  for (const pair of m.hands[seat]) {
    const t = tileOf(pair);
    const ends = layout.tiles === 0 ? [LEFT]
      : [0, 1, 2, 3].filter((i) => layout.values[i] !== null && (t.high === layout.values[i] || t.low === layout.values[i]));
    for (const end of ends) {
      const action = { type: PLAY, tile: toJson(t), end: END_NAMES[end] };
      if (rules.fives_scoring) {
        const after = layout.copy();
        after.place(toJson(t), end);
        const points = fivesPoints(after.count());
        if (points) {
          action.scores = points;
          if (rules.muggins_calls) action.claim = points;
        }
      }
      actions.push(action);
      plays += 1;
    }
  }
  if (plays && !rules.draw_at_will) return actions;
  let draw = false;
  if (rules.game === "draw" && m.boneyard.length > rules.boneyard_reserve) {
    actions.push({ type: DRAW });
    draw = true;
  } else if (!plays) {
    actions.push({ type: KNOCK });
  }
  if (!plays && draw) actions.push({ type: DRAW, until: "playable" });
  return actions;
}

/** The parts of api/rules/views.py view(state, seat) a bot reads. */
export function botView(m, seat) {
  return {
    status: m.status, seat, hand_number: m.handNumber, leader: m.leader, turn: m.turn, rules: m.rules,
    seats: m.seats.map((s, i) => ({ seat: i, name: s.name, type: s.type, level: s.level, client_seed: s.client_seed })),
    scores: [...m.scores], hand_counts: m.hands.map((h) => h.length), drawn: [...m.drawn],
    boneyard: m.boneyard.length, legal_actions: legalActions(m, seat),
    hand: m.hands[seat].map((t) => [Math.max(...t), Math.min(...t)]),
  };
}

/** api/rules/views.py redact_event: a deal shows the seat its own hand and only counts of the
 *  rest; another seat's draw hides the tile. Every other event is public. */
export function redactEvent(e, seat) {
  if (e.type === "hand_started") {
    return { type: e.type, hand_number: e.hand_number, leader: e.leader, hand_counts: e.hands.map((h) => h.length),
             boneyard: e.boneyard.length, hand: e.hands[seat] };
  }
  if (e.type === "tile_drawn" && e.seat !== seat) {
    const { tile: _hidden, ...rest } = e;
    return rest;
  }
  return e;
}

// --- shared helpers (api/bots/actions.py) ------------------------------------------------------
const find = (actions, kind) => actions.find((a) => a.type === kind) ?? null;
const playsOf = (actions) => actions.filter((a) => a.type === PLAY);
function withoutClaim(action) {
  if (!("claim" in action)) return action;
  const { claim: _dropped, ...rest } = action;
  return rest;
}
function noPlayChoice(actions) {
  for (const a of actions) if (a.type === DRAW && a.until === "playable") return a;
  return find(actions, DRAW) ?? find(actions, KNOCK) ?? actions[0];
}
/** A listed action as a fast-path move: [PLAY, tile, end] | [DRAW] | [KNOCK] | [MUGGINS]. */
function toMove(action) {
  if (action.type === PLAY) return [PLAY, tileOf(action.tile), END_INDEX[action.end ?? "left"]];
  return [action.type];
}

// --- random and greedy (api/bots/simple.py) ----------------------------------------------------
export function chooseRandom(view, log, rng) {
  return withoutClaim(rng.choice(view.legal_actions));
}

export function chooseGreedy(view, log, rng) {
  const actions = view.legal_actions;
  const muggins = find(actions, MUGGINS);
  if (muggins !== null) return muggins;
  const plays = playsOf(actions);
  if (!plays.length) return noPlayChoice(actions);
  const keys = plays.map((a) => { const t = tileOf(a.tile); return [a.scores ?? 0, t.pips, t.isDouble ? 1 : 0]; });
  const cmp = (x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  const best = keys.reduce((b, k) => (cmp(k, b) > 0 ? k : b));
  return rng.choice(plays.filter((_, i) => cmp(keys[i], best) === 0));
}

// --- the fast path (api/rules/state.py effects, simulate.py push, engine.py settle) ------------
class SimState {
  constructor(rules) {
    this.rules = rules;
    this.players = rules.players;
    this.status = "waiting";
    this.turn = null;
    this.hands = [];
    this.boneyard = [];
    this.layout = new SimLayout(rules.spinner === "first_double");
    this.scores = new Array(rules.partners ? 2 : rules.players).fill(0);
    this.handLive = false;
    this.pendingMuggins = null;
    this.winner = null;
  }

  copy() {
    const o = Object.create(SimState.prototype);
    o.rules = this.rules;
    o.players = this.players;
    o.status = this.status;
    o.turn = this.turn;
    o.hands = this.hands.map((h) => h.slice());
    o.boneyard = this.boneyard.slice();
    o.layout = this.layout.copy();
    o.scores = this.scores.slice();
    o.handLive = this.handLive;
    o.pendingMuggins = this.pendingMuggins;
    o.winner = this.winner;
    return o;
  }

  sideOf(seat) { return this.rules.partners ? seat % 2 : seat; }
  drawable() {
    if (this.rules.game !== "draw") return 0;
    return Math.max(0, this.boneyard.length - this.rules.boneyard_reserve);
  }

  canPlay(seat) {
    const hand = this.hands[seat];
    if (this.layout.tiles === 0) return hand.length > 0;
    const mask = this.layout.openMask();
    for (const t of hand) if (t.mask & mask) return true;
    return false;
  }

  onHandStarted(leader, hands, boneyard) {
    this.status = "playing";
    this.turn = leader;
    this.hands = hands.map((h) => h.slice());
    this.boneyard = boneyard.slice();
    this.layout = new SimLayout(this.rules.spinner === "first_double");
    this.handLive = true;
    this.pendingMuggins = null;
  }

  onTilePlayed(seat, tile, end, claim) {
    const hand = this.hands[seat];
    const at = hand.indexOf(tile);
    if (at < 0) throw new Error(`seat ${seat} does not hold ${tile.high}-${tile.low}`); // list.remove's ValueError
    hand.splice(at, 1);
    this.layout.place(tile, end);
    this.turn = (seat + 1) % this.players;
    this.pendingMuggins = null;
    if (this.rules.muggins_calls && claim === null) {
      const points = fivesPoints(this.layout.count());
      if (points) this.pendingMuggins = [seat, points];
    }
  }

  onTileDrawn(seat) { this.hands[seat].push(this.boneyard.shift()); }
  onKnocked(seat) { this.turn = (seat + 1) % this.players; }
  onPointsScored(side, points) {
    this.scores[side] += points;
    this.pendingMuggins = null;
  }

  /** MatchState.hand_outcome: [side or null, points] once the hand is over, else null. */
  handOutcome() {
    if (!this.handLive) return null;
    const layout = this.layout;
    if (layout.tiles) {
      for (let seat = 0; seat < this.players; seat++) if (!this.hands[seat].length) return this.score(seat);
      const mask = layout.openMask();
      for (const hand of this.hands) for (const t of hand) if (t.mask & mask) return null;
    }
    if (this.drawable() > 0) return null; // is_blocked()
    if (!(layout.tiles > 0 || !this.hands.some((h) => h.length))) return null;
    return this.score(null);
  }

  score(wentOut) {
    const rules = this.rules;
    const sidePips = new Array(this.scores.length).fill(0);
    this.hands.forEach((hand, seat) => { for (const t of hand) sidePips[this.sideOf(seat)] += t.pips; });
    const outSide = wentOut === null ? null : this.sideOf(wentOut);
    return handAward(sidePips, outSide, rules.blocked_scoring === "others_minus_own", rules.round_to_five);
  }
}

/** engine.py perform_play with auto=True (the playouts' plays): the server claims rightly. */
function performPlay(st, seat, tile, end) {
  const rules = st.rules;
  let claim = null;
  if (rules.muggins_calls) {
    const after = st.layout.copy();
    after.place(tile, end);
    claim = fivesPoints(after.count()) || null;
  }
  st.onTilePlayed(seat, tile, end, claim);
  if (rules.fives_scoring) {
    const points = fivesPoints(st.layout.count());
    if (points && (!rules.muggins_calls || claim === points)) st.onPointsScored(st.sideOf(seat), points);
  }
}

/** engine.py settle without a dealer: the consequences up to the end of the hand. */
function settle(st) {
  const rules = st.rules;
  const auto = rules.auto_draw || rules.auto_knock;
  while (st.status === "playing") {
    if (Math.max(...st.scores) >= rules.target) {
      st.status = "ended";
      st.handLive = false;
      st.turn = null;
      st.winner = st.scores.findIndex((s) => s >= rules.target);
      st.pendingMuggins = null;
      return;
    }
    if (!st.handLive) return;
    const result = st.handOutcome();
    if (result !== null) {
      if (result[0] !== null) st.scores[result[0]] += result[1];
      st.handLive = false;
      st.turn = null;
      st.pendingMuggins = null;
      continue;
    }
    if (st.layout.tiles === 0) return;
    const seat = st.turn;
    if (auto && !st.canPlay(seat)) {
      if (st.drawable()) {
        if (rules.auto_draw) { st.onTileDrawn(seat); continue; }
      } else if (rules.auto_knock) {
        st.onKnocked(seat);
        continue;
      }
    }
    return;
  }
}

/** simulate.py push: make a (trusted) move, then its consequences to the end of the hand. */
function push(st, move, seat = null) {
  const mover = seat === null ? st.turn : seat;
  const kind = move[0];
  if (kind === PLAY) {
    if (st.rules.fives_scoring) performPlay(st, mover, move[1], move[2]);
    else st.onTilePlayed(mover, move[1], move[2], null);
  } else if (kind === DRAW) {
    st.onTileDrawn(mover);
  } else if (kind === KNOCK) {
    st.onKnocked(mover);
    if (!(st.rules.auto_draw || st.rules.auto_knock)) return;
  } else if (kind === MUGGINS) {
    st.onPointsScored(st.sideOf(mover), st.pendingMuggins[1]);
  }
  settle(st);
}

// --- what one seat knows (api/bots/knowledge.py) -----------------------------------------------
const RETRIES = 30;

function endsMask(values) {
  let mask = 0;
  for (const v of values) if (v !== null && v !== undefined) mask |= 1 << v;
  return mask;
}

function removeSlot(masks, tile, newest) {
  if (!masks.length) return;
  if (newest) {
    masks.pop();
    return;
  }
  let best = null;
  masks.forEach((m, i) => {
    if (!(m & tile.mask) && (best === null || popcount(m) > popcount(masks[best]))) best = i;
  });
  masks.splice(best !== null ? best : masks.length - 1, 1);
}

// knowledge.py WEIGHT_KEY, KEY_SPAN, _FITTING, LEANING_ODDS and lean_powers: the play model of the inference.
const LEANING_ODDS = 0.5;
const WEIGHT_KEY = ALL_TILES.map((t) => 2 * t.pips + (t.isDouble ? 1 : 0));
const KEY_SPAN = Math.max(...WEIGHT_KEY);
const FITTING = Array.from({ length: 128 }, (_, numbers) =>
  ALL_TILES.reduce((m, t) => (t.mask & numbers ? m | (1 << t.index) : m), 0));
const POWERS = new Map();
function leanPowers(lean) {
  if (!POWERS.has(lean)) {
    const up = [1.0], down = [1.0];
    for (let i = 0; i < KEY_SPAN; i++) {
      up.push(up[up.length - 1] * lean);
      down.push(down[down.length - 1] / lean);
    }
    POWERS.set(lean, [...down.reverse(), ...up.slice(1)]);
  }
  return POWERS.get(lean);
}

// knowledge.py signal_strength, _signal_odds and signal_powers: the experts' partnership convention.
const CARRYING = Array.from({ length: 7 }, (_, n) =>
  ALL_TILES.reduce((m, t) => (t.high === n || t.low === n ? m | (1 << t.index) : m), 0));
function signalStrength(hand, tile, number) {
  return popcount(hand & ~(1 << tile.index) & CARRYING[number]);
}
function signalOdds(hand, choice, signals, stray) {
  let total = 0.0, chosen = 0.0, count = 0;
  let options = hand & choice.fits;
  while (options) {
    const bit = options & -options;
    options ^= bit;
    const tile = ALL_TILES[31 - Math.clz32(bit)];
    let strongest = 0;
    for (let number = 0; number < 7; number++) {
      if (!((choice.ends & tile.mask) >> number & 1)) continue;
      const far = tile.high === number ? tile.low : tile.high;
      strongest = Math.max(strongest, signalStrength(hand, tile, far));
    }
    const weight = signals[strongest];
    total += weight;
    count += 1;
    if (tile.index === choice.tile) chosen = weight;
  }
  return (1.0 - stray) * chosen / total + stray / count;
}
const SIGNAL_POWERS = new Map();
function signalPowers(lean) {
  if (!SIGNAL_POWERS.has(lean)) {
    const out = [1.0];
    for (let i = 0; i < 6; i++) out.push(out[out.length - 1] * lean);
    SIGNAL_POWERS.set(lean, out);
  }
  return SIGNAL_POWERS.get(lean);
}

/** knowledge.py _outranking: the tiles that would have led instead of `lead` (a mask by index),
 *  by the replayer's own forcedLead (rules.mjs); worked out once per tile. */
const OUTRANKING = new Map();
function outranking(lead) {
  if (!OUTRANKING.has(lead)) {
    OUTRANKING.set(
      lead,
      ALL_TILES.reduce(
        (m, t) => (t !== lead && forcedLead([[toJson(lead)], [toJson(t)]])[0] === 1 ? m | (1 << t.index) : m),
        0,
      ),
    );
  }
  return OUTRANKING.get(lead);
}

class Knowledge {
  static read(view, log) {
    const k = new Knowledge();
    const rules = view.rules;
    const seat = view.seat;
    let start = null;
    log.forEach((e, i) => { if (e.type === "hand_started") start = i; });
    const events = start === null ? [] : log.slice(start + 1);
    const counts = [...view.hand_counts];
    const slots = new Map(); // other seat -> one lacks mask per hidden tile (ascending seats)
    for (let s = 0; s < rules.players; s++) if (s !== seat) slots.set(s, []);
    if (start !== null) {
      const dealt = log[start].hand_counts;
      for (const s of slots.keys()) slots.set(s, new Array(dealt[s]).fill(0));
    }
    const layout = new SimLayout(rules.spinner === "first_double");
    const played = [];
    const informativeDraws = rules.game === "draw" && !rules.draw_at_will;
    const drewLast = new Map([...slots.keys()].map((s) => [s, false]));
    let chosen = []; // [seat, tile index, fits, open numbers] of each play another seat chose (knowledge.py)
    let barred = 0; // tiles no other seat holds (a forced lead's lesson)
    for (const e of events) {
      const who = e.seat;
      if (e.type === "tile_played") {
        const tile = tileOf(e.tile);
        if (slots.has(who) && layout.tiles > 0) {
          const ends = endsMask(layout.values);
          chosen.push([who, tile.index, FITTING[ends], ends]);
        }
        if (layout.tiles === 0 && leadIsForced(rules, view.hand_number)) barred = outranking(tile);
        if (slots.has(who)) {
          removeSlot(slots.get(who), tile, informativeDraws && drewLast.get(who));
          drewLast.set(who, false);
        }
        layout.place(tile, END_INDEX[e.end]);
        played.push(tile);
      } else if (e.type === "tile_drawn" && slots.has(who)) {
        const masks = slots.get(who);
        if (informativeDraws) {
          const lack = endsMask(layout.values);
          for (let i = 0; i < masks.length; i++) masks[i] |= lack;
        }
        masks.push(0);
        drewLast.set(who, true);
        chosen = chosen.filter((c) => c[0] !== who);
        barred = 0;
      } else if (e.type === "knocked" && slots.has(who)) {
        const masks = slots.get(who);
        const lack = endsMask(Object.values(e.ends ?? {}));
        for (let i = 0; i < masks.length; i++) masks[i] |= lack;
        drewLast.set(who, false);
      }
    }
    for (const [s, masks] of slots) if (masks.length !== counts[s]) slots.set(s, new Array(counts[s]).fill(0));
    const hand = (view.hand ?? []).map(tileOf);
    const known = new Set([...hand, ...played]);
    const choices = [];
    if (!rules.fives_scoring) {
      chosen.forEach(([who, tile, fits, ends], i) => {
        let kept = 1 << tile;
        for (const [other, later] of chosen.slice(i + 1)) if (other === who) kept |= 1 << later;
        choices.push({ seat: who, tile, fits, kept, ends });
      });
    }
    Object.assign(k, { rules, view, seat, hand, played, events, slots, layout, choices, barred,
                       unseen: ALL_TILES.filter((t) => !known.has(t)), boneyard: view.boneyard });
    return k;
  }

  /** Knowledge.likelihood: how likely the other seats' choices are with these hidden hands, each seat
   *  at even odds (LEANING_ODDS) a leaning player (lean ** key, a `stray` share of any fitting tile
   *  alike) or an even one (any fitting tile alike); a `signaller` (an expert partner) by the
   *  convention instead (signalOdds); the same operations in the same order. */
  likelihood(hands, powers, stray, signaller = null, signals = []) {
    const masks = new Map();
    for (const [s, tiles] of hands) { let m = 0; for (const t of tiles) m |= 1 << t.index; masks.set(s, m); }
    const players = this.rules.players;
    const leaning = new Array(players).fill(1.0), even = new Array(players).fill(1.0);
    const keep = 1.0 - stray;
    let signalled = 1.0;
    for (const c of this.choices) {
      if (c.seat === signaller) {
        signalled *= signalOdds((masks.get(c.seat) ?? 0) | c.kept, c, signals, stray);
        continue;
      }
      let options = ((masks.get(c.seat) ?? 0) | c.kept) & c.fits;
      const base = KEY_SPAN - WEIGHT_KEY[c.tile];
      let total = 0.0, count = 0;
      while (options) {
        const bit = options & -options;
        options ^= bit;
        total += powers[base + WEIGHT_KEY[31 - Math.clz32(bit)]];
        count += 1;
      }
      leaning[c.seat] *= keep / total + stray / count;
      even[c.seat] *= 1.0 / count;
    }
    let product = signalled;
    for (let seat = 0; seat < players; seat++) {
      if (seat !== signaller) product *= LEANING_ODDS * leaning[seat] + (1.0 - LEANING_ODDS) * even[seat];
    }
    return product;
  }

  /** Knowledge.sample: a deal of the unseen tiles that respects every slot's lacks. */
  sample(rng) {
    let holders = [];
    for (const s of [...this.slots.keys()].sort((a, b) => a - b)) for (const m of this.slots.get(s)) holders.push([s, m]);
    for (let i = 0; i < this.boneyard; i++) holders.push([-1, 0]);
    const pool = this.unseen;
    if (holders.length !== pool.length) {
      holders = holders.slice(0, pool.length);
      while (holders.length < pool.length) holders.push([-1, 0]);
    }
    const order = holders.map((_, i) => i);
    order.sort((a, b) => popcount(holders[b][1]) - popcount(holders[a][1])); // stable, as sorted()
    let got;
    for (let attempt = 0; attempt <= RETRIES; attempt++) {
      const remaining = pool.slice();
      rng.shuffle(remaining);
      got = new Array(holders.length).fill(null);
      let ok = true;
      for (const i of order) {
        const mask = attempt < RETRIES ? holders[i][1] : 0;
        const bar = holders[i][0] >= 0 && attempt < RETRIES ? this.barred : 0;
        const j = remaining.findIndex((t) => !(t.mask & mask) && !((bar >> t.index) & 1));
        if (j < 0) {
          ok = false;
          break;
        }
        got[i] = remaining.splice(j, 1)[0];
      }
      if (ok) break;
    }
    const hands = new Map([...this.slots.keys()].map((s) => [s, []]));
    const boneyard = [];
    holders.forEach(([s], i) => (s === -1 ? boneyard : hands.get(s)).push(got[i]));
    return [hands, boneyard];
  }

  /** Knowledge.state: the hand as it would be with these hidden tiles, through the effects. */
  state(hands, boneyard) {
    const view = this.view;
    const st = new SimState(this.rules);
    const full = [];
    for (let s = 0; s < this.rules.players; s++) full.push((hands.get(s) ?? []).slice());
    full[this.seat] = this.hand.slice();
    for (const e of this.events) if (e.type === "tile_played") full[e.seat].push(tileOf(e.tile));
    st.onHandStarted(view.leader, full, boneyard);
    for (const e of this.events) {
      if (e.type === "tile_played") st.onTilePlayed(e.seat, tileOf(e.tile), END_INDEX[e.end], e.claim ?? null);
      else if (e.type === "points_scored") st.onPointsScored(e.side, 0);
      else if (e.type === "knocked") st.onKnocked(e.seat);
    }
    st.status = "playing";
    st.scores = [...view.scores];
    st.turn = view.turn;
    return st;
  }
}

// --- the intermediate and the expert (api/bots/expert.py) ---------------------------------------
// expert.py Budget, field for field (camelCase); tests/clients/test_js_bots.py holds both to Python's.
export const DEFAULT_BUDGET = Object.freeze({
  determinizations: 64, rollouts: 1, maxPlayouts: 400, minDeterminizations: 16, epsilon: 0.1,
  exactTiles: 16, exactLimit: 20_000, exactWork: 24_000, sure: 1.5, inference: 4, lean: 2.5,
  stray: 0.2, signal: 1.5, signalLean: 2.0,
}); // the expert
export const INTERMEDIATE_BUDGET = Object.freeze({
  ...DEFAULT_BUDGET, determinizations: 12, maxPlayouts: 96, minDeterminizations: 4, exactTiles: 0, sure: 0.0,
  inference: 1, signal: 0.0,
});
/** api/bots LEVEL_BUDGETS: the work each playout level does per decision. */
export const LEVEL_BUDGETS = Object.freeze({ intermediate: INTERMEDIATE_BUDGET, expert: DEFAULT_BUDGET });

function dealsFor(budget, candidates) {
  const perDeal = Math.max(1, candidates * budget.rollouts);
  return Math.max(budget.minDeterminizations, Math.min(budget.determinizations, Math.floor(budget.maxPlayouts / perDeal)));
}

/** expert.py choose_expert. `report` (tests only) receives the candidates' `values` when they are weighed. */
export function chooseExpert(view, log, rng, budget = DEFAULT_BUDGET, report = null) {
  const actions = view.legal_actions;
  const muggins = find(actions, MUGGINS);
  if (muggins !== null) return muggins;
  const plays = playsOf(actions);
  if (!plays.length) return noPlayChoice(actions);
  const know = Knowledge.read(view, log);
  const candidates = distinct(plays, know);
  const draw = find(actions, DRAW);
  if (draw !== null) candidates.push(draw);
  if (candidates.length === 1) return candidates[0];
  const values = evaluate(know, candidates.map(toMove), rng, budget);
  if (report !== null) report.values = values;
  const scores = withSignals(know, candidates, values, budget);
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i] > scores[best]) best = i; // ties: the first
  return candidates[best];
}

/** expert.py _with_signals: each play raised by `signal` per tile kept that carries the number it
 *  leaves open, when the partner plays the convention too (a new array). */
function withSignals(know, candidates, values, budget) {
  if (!budget.signal || signallingPartner(know) === null || know.layout.tiles === 0) return values;
  let hand = 0;
  for (const t of know.hand) hand |= 1 << t.index;
  return candidates.map((action, i) => {
    const move = toMove(action);
    if (move[0] !== PLAY) return values[i];
    const [, tile, end] = move;
    const on = know.layout.values[end];
    const far = tile.high === on ? tile.low : tile.high;
    return values[i] + budget.signal * signalStrength(hand, tile, far);
  });
}

/** expert.py signalling_partner: the other seat of this seat's side, when both are bots of one level. */
function signallingPartner(know) {
  const rules = know.rules, me = know.seat, seats = know.view.seats;
  const sideOf = (s) => (rules.partners ? s % 2 : s);
  const partners = [];
  for (let s = 0; s < rules.players; s++) if (s !== me && sideOf(s) === sideOf(me)) partners.push(s);
  if (partners.length !== 1) return null;
  const mine = seats[me], theirs = seats[partners[0]];
  return mine.type === "bot" && theirs.type === "bot" && mine.level === theirs.level ? partners[0] : null;
}

function evaluate(know, moves, rng, budget) {
  const rules = know.rules;
  const me = know.seat;
  const side = rules.partners ? me % 2 : me;
  const fives = rules.fives_scoring;
  const bonus = rules.target / 2;
  const totals = new Array(moves.length).fill(0);
  const deals = dealsFor(budget, moves.length);
  const exact = exactLineFor(rules, me, know.view.scores, bonus, budget);
  const lines = exact !== null && lineMoves(know, moves);
  const rows = []; // each deal's values, for `sure`
  const weighed = weighedDeals(know, rng, budget, deals);
  let dealt = 0;
  while (dealt < deals) {
    if (dealt >= budget.minDeterminizations) {
      if (exact !== null && exact.visited >= budget.exactWork) break; // enough solving for this decision
      if (budget.sure && dealt % SURE_EVERY === 0 && settled(rows, totals, budget.sure)) break;
    }
    dealt += 1;
    const [hands, boneyard] = weighed === null ? know.sample(rng) : pick(weighed, rng);
    let values;
    if (lines) {
      values = lineValues(know, hands, moves, rng, budget, exact);
    } else {
      values = new Array(moves.length).fill(0);
      const base = know.state(hands, boneyard);
      const before = base.scores.slice();
      for (let r = 0; r < budget.rollouts; r++) {
        const seed = rng.getrandbits(64);
        moves.forEach((move, i) => {
          const st = base.copy();
          push(st, move, me);
          if (exact === null) {
            rollout(st, new PyRandom(seed), budget.epsilon, fives);
            values[i] += value(st, before, side, bonus);
          } else {
            values[i] += solvedPlayout(st, new PyRandom(seed), budget, exact, before, side, bonus);
          }
        });
      }
    }
    for (let i = 0; i < values.length; i++) totals[i] += values[i];
    if (budget.sure) rows.push(values);
  }
  const n = dealt * budget.rollouts;
  return totals.map((t) => t / n);
}

/** expert.py _weighed_deals: `inference` deals for each one played out, with cumulative likelihoods. */
function weighedDeals(know, rng, budget, deals) {
  if (budget.inference <= 1 || !know.choices.length) return null;
  const powers = leanPowers(budget.lean);
  const signaller = budget.signal ? signallingPartner(know) : null;
  const signals = signalPowers(budget.signalLean);
  const candidates = [];
  for (let i = 0; i < budget.inference * deals; i++) candidates.push(know.sample(rng));
  const cumulative = [];
  let total = 0.0;
  for (const [hands] of candidates) {
    total += know.likelihood(hands, powers, budget.stray, signaller, signals);
    cumulative.push(total);
  }
  if (!(total > 0.0)) return null;
  return [candidates, cumulative];
}

/** expert.py _pick: the first deal whose cumulative likelihood exceeds a uniform point. */
function pick([candidates, cumulative], rng) {
  const point = rng.random() * cumulative[cumulative.length - 1];
  for (let i = 0; i < candidates.length; i++) if (point < cumulative[i]) return candidates[i];
  return candidates[candidates.length - 1];
}

const SURE_EVERY = 8; // deals between two looks at whether the choice is settled (Budget.sure)

/** expert.py _settled: whether the move leading so far beats every other by more than `sure`
 *  standard errors of the mean difference over the same deals (sums added one by one, in
 *  Python's order: expert.py uses plain loops, not sum(), which rounds differently from 3.12). */
function settled(rows, totals, sure) {
  let lead = 0;
  for (let i = 1; i < totals.length; i++) if (totals[i] > totals[lead]) lead = i; // ties: the first
  const n = rows.length;
  for (let i = 0; i < totals.length; i++) {
    if (i === lead) continue;
    const diffs = rows.map((row) => row[lead] - row[i]);
    let sum = 0;
    for (const d of diffs) sum += d;
    const mean = sum / n;
    let spread = 0;
    for (const d of diffs) spread += (d - mean) * (d - mean);
    const variance = spread / (n - 1);
    if (variance && mean * mean * n <= sure * sure * variance) return false;
  }
  return true;
}

/** expert.py _line_moves: the rest of the hand is plays on a line, nothing left to draw. */
function lineMoves(know, moves) {
  const rules = know.rules;
  const drawable = rules.game === "draw" && know.boneyard > rules.boneyard_reserve;
  return !drawable && know.layout.tiles > 0 && moves.every((m) => m[0] === PLAY);
}

const maskOf = (tiles) => { let m = 0; for (const t of tiles) m |= t.bit; return m; };

/** expert.py _line_values: each move's value on one deal, played out and solved on bit masks. */
function lineValues(know, hands, moves, rng, budget, exact) {
  const me = know.seat;
  const players = know.rules.players;
  const masks = [];
  for (let s = 0; s < players; s++) masks.push(s !== me ? maskOf(hands.get(s)) : maskOf(know.hand));
  const ends = know.layout.values;
  const out = [];
  for (let r = 0; r < budget.rollouts; r++) {
    const seed = rng.getrandbits(64);
    for (const move of moves) {
      const tile = move[1], end = move[2];
      const on = ends[end];
      const far = tile.high === on ? tile.low : tile.high;
      const [a, b] = end === LEFT ? [far, ends[RIGHT]] : [ends[LEFT], far];
      const child = masks.slice();
      child[me] ^= tile.bit;
      if (!child[me]) out.push(exact.ended(child, exact.mySide));
      else out.push(exact.playout(child, a, b, (me + 1) % players, new PyRandom(seed), budget.epsilon, budget.exactTiles));
    }
  }
  if (budget.rollouts === 1) return out;
  const k = moves.length;
  const sums = [];
  for (let i = 0; i < k; i++) {
    let sum = 0;
    for (let j = i; j < out.length; j += k) sum += out[j];
    sums.push(sum);
  }
  return sums;
}

/** expert.py _exact_line: the solver for this decision, when its hands end in a line without
 *  scoring on the way; else null. */
function exactLineFor(rules, me, scores, bonus, budget) {
  if (budget.exactTiles <= 0 || rules.spinner === "first_double" || rules.fives_scoring) return null;
  const sides = [];
  for (let s = 0; s < rules.players; s++) sides.push(rules.partners ? s % 2 : s);
  return new ExactLine(sides, me, [...scores], rules.target, bonus, rules.blocked_scoring === "others_minus_own",
                       rules.round_to_five, budget.exactLimit);
}

/** expert.py _solved_playout: greedy until the rest of the hand can be solved exactly, then solved. */
function solvedPlayout(st, rng, budget, exact, before, side, bonus) {
  while (st.handLive && st.status === "playing") {
    let left = 0;
    for (const h of st.hands) left += h.length;
    if (st.drawable() === 0 && left <= budget.exactTiles) {
      const values = st.layout.values;
      try {
        return exact.solve(st.hands.map(maskOf), values[LEFT], values[RIGHT], st.turn);
      } catch (e) {
        if (e !== SEARCH_TOO_BIG) throw e; // too big to solve within the budget: this playout rolls on
      }
      rollout(st, rng, budget.epsilon, false);
      break;
    }
    push(st, policyMove(st, rng, budget.epsilon, false));
  }
  return value(st, before, side, bonus);
}

// --- the exact solver of a line ending (api/bots/endgame.py) -------------------------------------
// Thrown (a bare object: no stack to capture) when one solve visits more than `limit` positions.
export const SEARCH_TOO_BIG = Object.freeze({ name: "SearchTooBig" });
const bitIndex = (bit) => 31 - Math.clz32(bit); // int.bit_length() - 1

function pipsOfMask(mask) {
  let total = 0;
  for (; mask; mask &= mask - 1) total += PIPS_BY_RANK[bitIndex(mask & -mask)];
  return total;
}

/** endgame.py ExactLine: solves positions of one hand for the side of seat `me`; `visited` counts
 *  the positions searched, exactly as Python counts them. */
export class ExactLine {
  constructor(sides, me, scores, target, bonus, minusOwn, rounded, limit) {
    this.sides = sides;
    this.mySide = sides[me];
    this.players = sides.length;
    this.sideCount = Math.max(...sides) + 1;
    this.sideSeats = Array.from({ length: this.sideCount }, (_, i) => sides.flatMap((side, s) => (side === i ? [s] : [])));
    this.scores = scores;
    this.target = target;
    this.bonus = bonus;
    this.minusOwn = minusOwn;
    this.rounded = rounded;
    this.limit = limit;
    this.visited = 0;
    this.stop = limit;
    this.table = new Map(); // position key -> [lower, upper] bound
    this.awards = new Map();
  }

  valueOfEnd(sidePips, outSide) {
    const key = `${sidePips.join(",")}|${outSide}`;
    const known = this.awards.get(key);
    if (known !== undefined) return known;
    const [side, points] = handAward(sidePips, outSide, this.minusOwn, this.rounded);
    let value = 0;
    if (side !== null) {
      const mine = side === this.mySide;
      value = mine ? points : points === 0 ? 0 : -points / (this.sideCount - 1); // Python's -0 is 0
      if (this.scores[side] + points >= this.target) value += mine ? this.bonus : -this.bonus;
    }
    this.awards.set(key, value);
    return value;
  }

  ended(hands, outSide) {
    const sidePips = [];
    for (const seats of this.sideSeats) {
      let mask = 0;
      for (const seat of seats) mask |= hands[seat];
      sidePips.push(pipsOfMask(mask));
    }
    return this.valueOfEnd(sidePips, outSide);
  }

  solve(hands, a, b, turn) {
    this.stop = this.visited + this.limit;
    return this.search(hands.slice(), a, b, turn, -1e9, 1e9);
  }

  playout(hands, a, b, turn, rng, epsilon, exactTiles) {
    hands = hands.slice();
    const players = this.players;
    let left = 0;
    for (const h of hands) left += popcount(h); // int.bit_count()
    for (;;) {
      const fit = SHOWS[a] | SHOWS[b];
      let k = 0;
      for (; k < players; k++) {
        if (hands[turn] & fit) break;
        turn = (turn + 1) % players;
      }
      if (k === players) return this.ended(hands, null);
      if (left <= exactTiles) {
        try {
          return this.solve(hands, a, b, turn);
        } catch (e) {
          if (e !== SEARCH_TOO_BIG) throw e;
          exactTiles = -1;
        }
      }
      let playable = hands[turn] & fit;
      let bit = playable & -playable; // the heaviest
      if (epsilon && playable !== bit && rng.random() < epsilon) {
        const bits = [];
        while (playable) {
          const lowBit = playable & -playable;
          bits.push(lowBit);
          playable ^= lowBit;
        }
        bit = rng.choice(bits);
      }
      const i = bitIndex(bit);
      const high = HIGH[i], low = LOW[i];
      if (high === a || low === a) a = high === a ? low : high;
      else b = high === b ? low : high;
      hands[turn] ^= bit;
      left -= 1;
      if (!hands[turn]) return this.ended(hands, this.sides[turn]);
      turn = (turn + 1) % players;
    }
  }

  search(hands, a, b, turn, alpha, beta) {
    const fit = SHOWS[a] | SHOWS[b];
    const players = this.players;
    let k = 0;
    for (; k < players; k++) {
      if (hands[turn] & fit) break;
      turn = (turn + 1) % players; // a seat with nothing that fits knocks
    }
    if (k === players) return this.ended(hands, null); // nobody can play: blocked
    if (a > b) [a, b] = [b, a]; // the two ends of a line are interchangeable
    const key = `${hands.join(",")}|${(a << 3) | b}|${turn}`;
    const bounds = this.table.get(key);
    let lower, upper;
    if (bounds !== undefined) {
      [lower, upper] = bounds;
      if (lower >= beta) return lower;
      if (upper <= alpha) return upper;
      if (lower === upper) return lower;
      if (lower > alpha) alpha = lower; // max(alpha, lower)
      if (upper < beta) beta = upper; // min(beta, upper)
    } else {
      lower = -1e9;
      upper = 1e9;
    }
    this.visited += 1;
    if (this.visited > this.stop) throw SEARCH_TOO_BIG;
    const alpha0 = alpha, beta0 = beta;
    const maximize = this.sides[turn] === this.mySide;
    let best = maximize ? -1e9 : 1e9;
    const hand = hands[turn];
    let playable = hand & fit;
    const nxt = (turn + 1) % players;
    const side = this.sides[turn];
    const ons = a !== b ? [a, b] : [a];
    while (playable) {
      const bit = playable & -playable;
      playable ^= bit;
      const i = bitIndex(bit);
      const high = HIGH[i], low = LOW[i];
      hands[turn] = hand ^ bit;
      // The tile's placements: on `a` (its far half becomes the end), and on `b` when that
      // differs; a double leaves the ends as they were.
      for (const on of ons) {
        let far;
        if (high === on) far = low;
        else if (low === on) far = high;
        else continue;
        const na = on === a ? far : a;
        const nb = on === a ? b : far;
        const v = hand ^ bit ? this.search(hands, na, nb, nxt, alpha, beta) : this.ended(hands, side);
        if (maximize) {
          if (v > best) {
            best = v;
            if (v > alpha) alpha = v;
          }
        } else if (v < best) {
          best = v;
          if (v < beta) beta = v;
        }
        if (alpha >= beta) break;
        if (high === low) break; // a double fits one way only
      }
      if (alpha >= beta) break;
    }
    hands[turn] = hand;
    if (best <= alpha0) upper = best; // failed low: an upper bound
    else if (best >= beta0) lower = best; // failed high: a lower bound
    else lower = upper = best;
    this.table.set(key, [lower, upper]);
    return best;
  }
}

function rollout(st, rng, epsilon, fives) {
  while (st.handLive && st.status === "playing") push(st, policyMove(st, rng, epsilon, fives));
  return st;
}

function policyMove(st, rng, epsilon, fives) {
  const hand = st.hands[st.turn];
  const layout = st.layout;
  if (layout.tiles === 0) {
    let heaviest = hand[0];
    for (const t of hand) {
      if (t.pips > heaviest.pips || (t.pips === heaviest.pips
          && (t.isDouble > heaviest.isDouble || (t.isDouble === heaviest.isDouble && t.high > heaviest.high)))) heaviest = t;
    }
    return [PLAY, heaviest, 0];
  }
  const values = layout.values;
  const plays = [];
  let best = null;
  let bestKey = -1;
  for (const t of hand) {
    for (let i = 0; i < 4; i++) {
      const v = values[i];
      if (v !== null && (t.high === v || t.low === v)) {
        let key = 2 * t.pips + (t.isDouble ? 1 : 0);
        if (fives) key += 64 * fivesAfter(layout, t, i);
        const move = [PLAY, t, i];
        plays.push(move);
        if (key > bestKey) {
          best = move;
          bestKey = key;
        }
      }
    }
  }
  if (best === null) return st.drawable() ? [DRAW] : [KNOCK];
  if (epsilon && plays.length > 1 && rng.random() < epsilon) return rng.choice(plays);
  return best;
}

function fivesAfter(layout, tile, end) {
  let total;
  if (layout.tiles === 0) {
    total = tile.pips;
  } else {
    const { values, doubles, occupied } = layout;
    const v = values[end];
    const far = tile.high === v ? tile.low : tile.high;
    total = tile.isDouble ? 2 * far : far;
    for (let j = 0; j < 4; j++) {
      if (j !== end) {
        const w = values[j];
        if (w !== null && (j < UP || occupied[j])) total += doubles[j] ? 2 * w : w;
      }
    }
  }
  return fivesPoints(total);
}

function value(st, before, side, bonus) {
  const gains = st.scores.map((s, i) => s - before[i]);
  const others = gains.length - 1;
  const sum = gains.reduce((a, b) => a + b, 0);
  let v = gains[side] - (sum - gains[side]) / others;
  if (st.status === "ended") v += st.winner === side ? bonus : -bonus;
  return v;
}

/** expert.py _distinct: drop plays that leave the same table as an earlier one. */
function distinct(plays, know) {
  const seen = new Set();
  const out = [];
  for (const action of plays) {
    const move = toMove(action);
    const after = know.layout.copy();
    after.place(move[1], move[2]);
    const shape = [0, 1, 2, 3].map((i) => JSON.stringify([i >= UP, after.values[i], after.doubles[i], after.occupied[i],
                                                          Boolean(after.spinnerEnds & (1 << i))])).sort();
    const key = JSON.stringify([move[1].index, shape, after.spinnerSides, after.spinner !== null]);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(action);
    }
  }
  return out;
}

/** The values the `level` playout bot gives its candidates on this decision (expert.py evaluate's
 *  answer), or null when it takes a shortcut: for tests/clients/test_js_bots.py, which compares
 *  them with Python's to the last bit. */
export function expertValues(level, view, log, rngSeed, budget = null) {
  const report = {};
  chooseExpert(view, log, makeRng(rngSeed, level), budget ?? LEVEL_BUDGETS[level], report);
  return report.values ?? null;
}

/** api/bots choose_action: the action the `level` bot takes for the seat of `view`. */
export function chooseAction(level, view, log, rngSeed, budget = null) {
  if (!LEVELS.includes(level)) throw new Error(`unknown bot level ${JSON.stringify(level)}`);
  if (!view.legal_actions.length) throw new Error("the seat has no legal action now");
  const rng = makeRng(rngSeed, level);
  if (level === "random") return chooseRandom(view, log, rng);
  if (level === "greedy") return chooseGreedy(view, log, rng);
  return chooseExpert(view, log, rng, budget ?? LEVEL_BUDGETS[level]); // budget: benchmarks and tests only
}
