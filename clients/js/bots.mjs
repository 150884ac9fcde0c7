// The server's computer players (api/bots), re-run: every bot move in a log can be asked again.
//
// A bot is a pure function of its level, what its seat is shown (the view, with its
// legal_actions in the server's order, and the hand's events redacted for the seat) and an
// rng_seed the match's revealed server seed gives (bot_seed). Its randomness is CPython's
// random.Random (pyrandom.mjs). So this file ports, choice for choice and draw for draw:
//   - the view's legal_actions (api/rules/engine.py legal_actions over MatchState.legal_moves),
//     and the redaction of the hand's events (api/rules/views.py);
//   - random and greedy (api/bots/simple.py);
//   - expert (api/bots/expert.py + knowledge.py), with the engine's fast path it pushes its
//     playouts through (api/rules/simulate.py push, engine.py perform_play/settle, the
//     MatchState effects and hand_outcome): the same deals, the same rollout moves, the same
//     float sums, so the same best average.
// Exported: chooseAction(level, view, log, rngSeed), botSeed, makeRng, botView, redactEvent.
import { createHash } from "node:crypto";
import { PyRandom } from "./pyrandom.mjs";

export const LEVELS = ["random", "greedy", "expert"];
export const DEFAULT_LEVEL = "greedy"; // a bot seat stored without a level (api/bots DEFAULT_LEVEL)
const END_NAMES = ["left", "right", "up", "down"];
const END_INDEX = { left: 0, right: 1, up: 2, down: 3 };
const LEFT = 0, UP = 2;
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
/** The interned tile of a JSON pair [a, b] (either order). */
export const tileOf = (pair) => (pair[0] >= pair[1] ? BY_PAIR[pair[0]][pair[1]] : BY_PAIR[pair[1]][pair[0]]);
const toJson = (t) => [t.high, t.low];
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
    const total = sidePips.reduce((a, b) => a + b, 0);
    let side, points;
    if (wentOut !== null) {
      side = this.sideOf(wentOut);
      points = total - sidePips[side];
    } else {
      const low = Math.min(...sidePips);
      if (sidePips.filter((p) => p === low).length > 1) return [null, 0];
      side = sidePips.indexOf(low);
      points = total - low;
      if (rules.blocked_scoring === "others_minus_own") points -= low;
    }
    if (rules.round_to_five) points = Math.floor((points + 2) / 5) * 5;
    return [side, points];
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
    for (const e of events) {
      const who = e.seat;
      if (e.type === "tile_played") {
        const tile = tileOf(e.tile);
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
    Object.assign(k, { rules, view, seat, hand, played, events, slots, layout,
                       unseen: ALL_TILES.filter((t) => !known.has(t)), boneyard: view.boneyard });
    return k;
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
        const j = remaining.findIndex((t) => !(t.mask & mask));
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

// --- the expert (api/bots/expert.py) -----------------------------------------------------------
export const DEFAULT_BUDGET = Object.freeze({
  determinizations: 40, rollouts: 1, maxPlayouts: 400, minDeterminizations: 8, epsilon: 0.1,
});

function dealsFor(budget, candidates) {
  const perDeal = Math.max(1, candidates * budget.rollouts);
  return Math.max(budget.minDeterminizations, Math.min(budget.determinizations, Math.floor(budget.maxPlayouts / perDeal)));
}

export function chooseExpert(view, log, rng, budget = DEFAULT_BUDGET) {
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
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i; // ties: the first
  return candidates[best];
}

function evaluate(know, moves, rng, budget) {
  const rules = know.rules;
  const me = know.seat;
  const side = rules.partners ? me % 2 : me;
  const fives = rules.fives_scoring;
  const bonus = rules.target / 2;
  const totals = new Array(moves.length).fill(0);
  const deals = dealsFor(budget, moves.length);
  for (let d = 0; d < deals; d++) {
    const [hands, boneyard] = know.sample(rng);
    const base = know.state(hands, boneyard);
    const before = base.scores.slice();
    for (let r = 0; r < budget.rollouts; r++) {
      const seed = rng.getrandbits(64);
      moves.forEach((move, i) => {
        const st = base.copy();
        push(st, move, me);
        rollout(st, new PyRandom(seed), budget.epsilon, fives);
        totals[i] += value(st, before, side, bonus);
      });
    }
  }
  const n = deals * budget.rollouts;
  return totals.map((t) => t / n);
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

/** api/bots choose_action: the action the `level` bot takes for the seat of `view`. */
export function chooseAction(level, view, log, rngSeed, budget = DEFAULT_BUDGET) {
  if (!LEVELS.includes(level)) throw new Error(`unknown bot level ${JSON.stringify(level)}`);
  if (!view.legal_actions.length) throw new Error("the seat has no legal action now");
  const rng = makeRng(rngSeed, level);
  if (level === "random") return chooseRandom(view, log, rng);
  if (level === "greedy") return chooseGreedy(view, log, rng);
  return chooseExpert(view, log, rng, budget);
}
