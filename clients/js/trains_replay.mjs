// Checking a trains game's log (Mexican Train, Chicken Foot; openapi/events.md, "The trains
// games: what a replayer checks"): every round's deal from the seed, every seat's move legal
// when made, and every event the server emits on its own (the pass after a draw that fits
// nowhere, each round's end, pips and totals, the next deal, the match's end and its winners,
// the turns it plays for a seat whose clock ran out) exactly as the rules give it.
import { BotMoves, LogError, REPLACEMENT_LEVEL, difference } from "./checks.mjs";
import { ImpossibleEvent, key, norm } from "./rules.mjs";
import { dealSeed } from "./shuffle.mjs";
import { TrainsMatch, lowestTotals, placeFromWire, placeName, placeToWire, rulesProblem } from "./trains.mjs";

const SEAT_MOVES = ["tile_placed", "tile_drawn", "passed"];
const SERVER_EVENTS = ["round_started", "round_ended", "match_ended"];
const isTile = (t) => Array.isArray(t) && t.length === 2 && t.every(Number.isInteger);

/** round_ended as the rules give it now: `winner` went out (null: the round is blocked). */
function roundEnded(m, winner) {
  const pips = m.hands.map((hand) => m.handPips(hand));
  return { type: "round_ended", round: m.round, winner, pips, totals: m.totals.map((t, s) => t + pips[s]),
           hands: m.hands.map((hand) => hand.map(norm)) };
}

/** The events the server emits on its own from this state (none: a seat must act now).
 *  `drawAuto`: whether the last draw was the server's (a timed-out turn): the pass it leads to is too. */
export function consequences(m, serverSeed, drawAuto) {
  const seed = () => dealSeed(serverSeed, m.clientSeeds());
  if (m.status === "waiting") return m.seats.every((s) => s.type !== "open") ? [m.deal(seed(), 1)] : [];
  if (m.status !== "playing") return [];
  if (!m.roundLive) {
    if (m.round < m.rules.rounds) return [m.deal(seed(), m.round + 1)];
    const winners = lowestTotals(m.totals);
    return [{ type: "match_ended", winner: winners[0], scores: [...m.totals], seed: serverSeed, hands: [], winners }];
  }
  const seat = m.turn;
  if (m.drawn !== null && m.placesFor(m.drawn, seat).length === 0) {
    return [{ type: "passed", seat, marker: m.mexican, auto: drawAuto }]; // the drawn tile fits nowhere
  }
  const out = m.hands.findIndex((hand) => hand.length === 0);
  if (out >= 0) return [roundEnded(m, out)];
  if (m.isCertainlyBlocked()) return [roundEnded(m, null)];
  return [];
}

/** A seat's turn_timed_out, checked against the state before it (the server's own event, but
 *  the server chooses when: only the seat to move, a person, in a match with a clock). */
export function checkTimeout(m, e, seq) {
  const fail = (msg) => { throw new LogError(seq, msg); };
  if (m.rules.turn_seconds === null) fail("a turn timed out in a match without turn_seconds");
  if (m.status !== "playing" || !m.roundLive) fail("a turn timed out while no round is being played");
  if (m.turn !== e.seat) fail(`seat ${e.seat} timed out but it is seat ${m.turn}'s turn`);
  if (m.isBot(e.seat)) fail(`seat ${e.seat} is a computer player: it moves at once, its turn cannot time out`);
  const want = { type: "turn_timed_out", seat: e.seat, consecutive: m.timeouts[e.seat] + 1 };
  const diff = difference(e, want);
  if (diff) fail(`${diff} (its timeouts in a row, this one included)`);
}

/** What the server plays for a timed-out seat: its heaviest playable tile (pips, then a double,
 *  then the higher end; the first place listed of equals), else a draw, else a pass. */
function forcedMove(m) {
  const weight = (t) => [t[0] + t[1], t[0] === t[1] ? 1 : 0, Math.max(t[0], t[1])];
  const heavier = (a, b) => {
    const [x, y] = [weight(a), weight(b)];
    const k = x.findIndex((v, i) => v !== y[i]);
    return k >= 0 && x[k] > y[k];
  };
  const moves = m.legalMoves();
  let best = null;
  for (const move of moves) if (move.type === "play" && (best === null || heavier(move.tile, best.tile))) best = move;
  return best ?? moves[0];
}

/** The next event of a timed-out turn the server is playing (all auto), after the ordinary
 *  consequences of each: the forced move; a drawn tile that fits played at once the same way;
 *  then seat_replaced once the seat has timed out timeout_limit times in a row and the match
 *  goes on. null when the turn is done. */
export function forcedTurn(m, f) {
  if (f.phase === "move" || (f.phase === "after" && m.drawn !== null && m.turn === f.seat)) {
    f.phase = "after";
    const move = forcedMove(m);
    if (move.type === "play") return { type: "tile_placed", seat: f.seat, tile: move.tile, train: placeToWire(move.place), auto: true };
    if (move.type === "draw") return { type: "tile_drawn", seat: f.seat, tile: norm(m.boneyard[0]), auto: true };
    return { type: "passed", seat: f.seat, marker: m.mexican, auto: true };
  }
  const limit = m.rules.timeout_limit;
  const replace = f.phase === "after" && limit !== null && f.consecutive >= limit && m.status === "playing";
  f.phase = "done";
  return replace ? { type: "seat_replaced", seat: f.seat, level: REPLACEMENT_LEVEL } : null;
}

/** A play `seat` could make now, in words ("6-4 on seat 1's train"), or null. */
function somePlay(m) {
  const play = m.legalMoves().find((move) => move.type === "play");
  return play ? `${key(play.tile)} on ${placeName(play.place)}` : null;
}

/** A seat's own move: legal now, and logged as the rules write it? */
export function checkMove(m, e, seq) {
  const fail = (msg) => { throw new LogError(seq, msg); };
  if (SERVER_EVENTS.includes(e.type) && m.roundLive) {
    fail(`${e.type} where the rules give none: the round goes on, seat ${m.turn} to move`);
  }
  if (!SEAT_MOVES.includes(e.type)) fail(`${e.type} is not a seat's move here`);
  if (m.status !== "playing" || !m.roundLive) fail(`${e.type} while no round is being played`);
  const seat = e.seat;
  if (m.turn !== seat) fail(`seat ${seat} moved (${e.type}) but it is seat ${m.turn}'s turn`);
  if (e.auto) fail(`${e.type} marked auto where the rules leave the choice to seat ${seat}`);
  let want;
  if (e.type === "tile_placed") {
    if (!isTile(e.tile)) fail(`seat ${seat} placed ${JSON.stringify(e.tile)}, which is no tile`);
    const tile = norm(e.tile);
    if (m.holds(seat, tile) < 0) fail(`seat ${seat} placed ${key(tile)}, which it does not hold`);
    if (m.drawn !== null && key(tile) !== key(m.drawn)) {
      fail(`seat ${seat} placed ${key(tile)}, but after a draw only the tile drawn (${key(m.drawn)}) may be placed`);
    }
    const place = placeFromWire(e.train);
    if (place === null) fail(`train ${JSON.stringify(e.train)} names no place (a seat number, "mexican" or a toe id)`);
    const why = m.board.whyNot(tile, place, seat);
    if (why) fail(`seat ${seat} placed ${key(tile)} on ${placeName(place)}: ${why}`);
    want = { type: "tile_placed", seat, tile, train: placeToWire(place), auto: false };
  } else {
    const play = somePlay(m);
    if (m.drawn !== null) fail(`seat ${seat} ${e.type === "passed" ? "passed" : "drew again"}, but the tile it drew fits: ${play}`);
    if (play) fail(`seat ${seat} ${e.type === "passed" ? "passed" : "drew"} while holding a playable tile (${play})`);
    if (e.type === "tile_drawn") {
      if (m.boneyard.length === 0) fail(`seat ${seat} drew from an empty boneyard`);
      want = { type: "tile_drawn", seat, tile: norm(m.boneyard[0]), auto: false };
    } else {
      if (m.boneyard.length) fail(`seat ${seat} passed while it could draw (the boneyard holds ${m.boneyard.length})`);
      if (e.marker !== m.mexican) {
        fail(m.mexican ? "a pass in Mexican Train puts a marker on the seat's own train: marker true"
          : "Chicken Foot has no markers: a pass is logged with marker false");
      }
      want = { type: "passed", seat, marker: m.mexican, auto: false };
    }
  }
  const diff = difference(e, want);
  if (diff) fail(diff);
}

/** Verify a trains game's events (the chain, pins, seed and shuffle already checked by
 *  replay.mjs); the final state's summary, or a LogError. */
export function replayTrains(audit, events, serverSeed, checks) {
  const created = events[0];
  const problem = rulesProblem(created.rules);
  if (problem) throw new LogError(1, problem);
  if (!Array.isArray(created.seats) || created.seats.length !== created.rules.players) {
    throw new LogError(1, `${created.rules.players} players but ${created.seats?.length} seats`);
  }
  const m = new TrainsMatch(created.rules, created.seats);
  const bots = new BotMoves(m);
  const rounds = [];
  let drawAuto = false;
  let forced = null; // a timed-out turn the server is playing: {seat, consecutive, phase}
  for (let i = 1; i < events.length; i++) {
    const e = events[i];
    const seq = i + 1;
    if (m.status === "ended") throw new LogError(seq, `${e.type} after match_ended`);
    let [want] = consequences(m, serverSeed, drawAuto);
    if (!want && forced) {
      want = forcedTurn(m, forced);
      if (forced.phase === "done") forced = null;
    }
    if (want) {
      const diff = difference(e, want);
      if (diff) throw new LogError(seq, diff);
      checks.auto_events_checked += 1;
      if (e.type === "round_started") checks.deals_checked += 1;
    } else if (e.type === "turn_timed_out") {
      checkTimeout(m, e, seq);
      forced = { seat: e.seat, consecutive: e.consecutive, phase: "move" };
      checks.timeouts_checked += 1;
    } else if (e.type === "seat_replaced") {
      throw new LogError(seq, "seat_replaced only ends a timed-out turn that reaches timeout_limit");
    } else if (e.type === "seat_claimed") {
      if (m.status !== "waiting" || m.seats[e.seat]?.type !== "open") throw new LogError(seq, `seat ${e.seat} is not open`);
    } else {
      checkMove(m, e, seq);
      checks.moves_checked += 1;
      bots.count(m, e.seat); // legal; whether it is the bot's own choice is not asked here
    }
    try {
      m.apply(e); // checked above, so only a check this replayer lacks lets an impossible event through
    } catch (err) {
      if (err instanceof ImpossibleEvent) throw new LogError(seq, `impossible event: ${err.message}`);
      throw err;
    }
    if (e.type === "tile_drawn") drawAuto = e.auto;
    if (e.type === "seat_replaced") bots.seated(e.level);
    if (e.type === "round_started") {
      rounds.push({ round: e.round, engine: e.engine, leader: e.leader, winner: null, pips: null, totals: null });
    } else if (e.type === "round_ended") {
      Object.assign(rounds.at(-1), { winner: e.winner, pips: e.pips, totals: e.totals });
    }
  }
  if (m.status !== "ended") throw new LogError(events.length, "the log ends before match_ended");
  checks.bot_moves_not_checked = bots.notChecked;
  return {
    match_id: audit.match_id, preset: m.rules.preset, players: m.players, status: m.status,
    winner: m.winners[0], winners: m.winners, scores: m.totals, round: m.round, events: events.length, rounds, checks,
  };
}
