// A match's record (boneyard-record/1, docs/records.md) turned back into the audit log it stands
// for, by this replayer's own rules: every seat's move in the record is given to them in turn,
// they answer with what follows on its own (the deals from the revealed seed, the server's
// moves, points, hand and match ends), and the record must hold exactly that, element for
// element. The log is then chained as /audit serves it, for replay.mjs to verify as any audit.
//
//   auditFromRecord(text) -> the audit document, or a RecordError at the record's line and column
import { GENESIS, rowHash } from "./chain.mjs";
import { LogError, equal } from "./checks.mjs";
import { RecordError, readRecord } from "./record_text.mjs";
import * as line from "./replay.mjs";
import { END_NAMES, Match } from "./rules.mjs";
import { TrainsMatch, isTrains } from "./trains.mjs";
import * as trains from "./trains_replay.mjs";

/** The record's elements an event stands for (docs/records.md, Moves); a play's points are a
 *  suffix of its play, so points_scored by a play changes the element before it. */
function addElements(out, e) {
  const move = (fields) => out.push({ element: "move", seat: e.seat, ...fields });
  const deal = (head) => {
    out.push(head);
    e.hands.forEach((tiles, seat) => out.push({ element: "deal", seat, tiles }));
    out.push({ element: "boneyard", tiles: e.boneyard });
  };
  switch (e.type) {
    case "tiles_turned_up": out.push({ element: "turn-up", tiles: e.tiles, leader: e.leader }); break;
    case "hand_started": deal({ element: "hand", number: e.hand_number, leader: e.leader }); break;
    case "round_started": deal({ element: "round", number: e.round, engine: e.engine, leader: e.leader }); break;
    case "tile_played": move({ action: "play", tile: e.tile, place: e.end, auto: e.auto, claim: e.claim, points: null }); break;
    case "tile_placed": move({ action: "play", tile: e.tile, place: String(e.train), auto: e.auto, claim: null, points: null }); break;
    case "points_scored":
      if (e.how === "play") out.at(-1).points = e.points;
      else move({ action: "muggins", points: e.points });
      break;
    case "tile_drawn": move({ action: "draw", tile: e.tile ?? null, auto: e.auto }); break;
    case "knocked": move({ action: "knock", auto: e.auto }); break;
    case "passed": move({ action: "pass", auto: e.auto }); break;
    case "turn_timed_out": move({ action: "time-out", consecutive: e.consecutive }); break;
    case "seat_replaced": move({ action: "replaced", level: e.level }); break;
    case "hand_ended":
      out.push({ element: "end", reason: e.reason, winner: e.winner, points: e.points, pips: e.pips, label: "scores", scores: e.scores });
      break;
    case "round_ended":
      out.push({ element: "end", reason: e.winner === null ? "blocked" : "domino", winner: e.winner, points: null,
                 pips: e.pips, label: "totals", scores: e.totals });
      break;
    case "match_ended":
      out.push({ element: "match", shared: e.winners !== undefined, winners: e.winners ?? [e.winner], scores: e.scores });
      break;
    default: break; // match_created and seat_claimed are tags
  }
}

/** The event a seat's own move element stands for, with what the rules add to it (the ends after
 *  a play, the count of a muggins call), and the check that the rules allow it now; the
 *  points_scored that must follow it (a line game's scoring play), if any. */
function lineSeatEvent(m, el) {
  const seat = el.seat;
  let e;
  if (el.action === "play" && !el.auto) {
    const endIndex = m.layout.tiles === 0 ? 0 : END_NAMES.indexOf(el.place);
    try {
      [e] = line.playEvents(m, seat, el.tile, endIndex, el.claim, false);
    } catch {
      e = { type: "tile_played", seat, tile: el.tile, end: el.place, ends: {}, auto: false, claim: el.claim };
    }
    if (m.layout.tiles === 0) e.end = el.place; // the first tile: checkMove asks for "left"
  } else if (el.action === "draw" && !el.auto) {
    e = { type: "tile_drawn", seat, tile: el.tile, auto: false };
  } else if (el.action === "knock" && !el.auto) {
    e = { type: "knocked", seat, ends: m.layout.endsObject(), auto: false };
  } else if (el.action === "muggins") {
    const scores = [...m.scores];
    scores[m.sideOf(seat)] += el.points;
    e = { type: "points_scored", seat, side: m.sideOf(seat), points: el.points, count: m.layout.count(), how: "muggins", scores };
  } else if (el.action === "time-out") {
    e = { type: "turn_timed_out", seat, consecutive: el.consecutive };
    line.checkTimeout(m, e, 0);
    return [e, null];
  } else {
    return [null, null];
  }
  return [e, line.checkMove(m, e, 0)];
}

function trainsSeatEvent(m, el) {
  const seat = el.seat;
  let e;
  if (el.action === "play" && !el.auto) {
    e = { type: "tile_placed", seat, tile: el.tile, train: /^[0-9]+$/.test(el.place) ? Number(el.place) : el.place, auto: false };
  } else if (el.action === "draw" && !el.auto) {
    e = { type: "tile_drawn", seat, tile: el.tile, auto: false };
  } else if (el.action === "pass" && !el.auto) {
    e = { type: "passed", seat, marker: m.mexican, auto: false };
  } else if (el.action === "time-out") {
    e = { type: "turn_timed_out", seat, consecutive: el.consecutive };
    trains.checkTimeout(m, e, 0);
    return e;
  } else {
    return null;
  }
  trains.checkMove(m, e, 0);
  return e;
}

/** Drives the rules with the record's moves: `produced` holds the elements of the events made so
 *  far, which must be the record's first ones; the record's next element is then the next move. */
class Driver {
  constructor(record) {
    this.written = record.elements.filter((el) => el.element !== "comment");
    this.produced = [];
    this.events = [];
  }

  next() {
    const el = this.written[this.produced.length];
    if (el === undefined) {
      const last = this.written.at(-1);
      throw new RecordError(...(last?.at ?? [1, 1]), "the record ends where the rules go on: a seat is to move");
    }
    return el;
  }

  /** `make()` run for element `el`: a LogError it throws (a move the rules refuse) at el's place. */
  at(el, make) {
    try {
      return make();
    } catch (err) {
      if (err instanceof LogError) throw new RecordError(...el.at, `refused by the rules: ${err.message}`);
      throw err;
    }
  }

  add(m, e) {
    m.apply(e);
    this.events.push(e);
    addElements(this.produced, e);
  }

  /** Every element produced must be the record's, and the record holds no more. */
  check() {
    const { written, produced } = this;
    for (let k = 0; k < produced.length; k++) {
      if (k >= written.length) {
        throw new RecordError(...(written.at(-1)?.at ?? [1, 1]), `the record ends where the rules go on: ${JSON.stringify(produced[k])}`);
      }
      if (!equal(written[k], produced[k])) {
        throw new RecordError(...written[k].at, `the rules give ${JSON.stringify(produced[k])} here`);
      }
    }
    if (written.length > produced.length) throw new RecordError(...written[produced.length].at, "the match is over before this");
  }
}

function lineEvents(driver, m, seed) {
  let expected = [];
  let forced = null; // a timed-out turn the server is playing
  while (m.status !== "ended") {
    if (expected.length === 0 && forced) {
      expected = line.forcedTurn(m, forced);
      if (forced.phase === "done") forced = null;
    }
    if (expected.length === 0) expected = line.consequences(m, seed, null);
    if (expected.length) {
      let e = expected.shift();
      if (e.forcedLead) {
        const [played, points] = line.playEvents(m, e.leader, e.forcedLead, 0, null, true);
        e = played;
        if (points) expected.unshift(points);
      }
      driver.add(m, e);
      continue;
    }
    const el = driver.next();
    const [e, follow] = driver.at(el, () => lineSeatEvent(m, el));
    if (e === null) throw new RecordError(...el.at, `the rules wait for seat ${m.turn}'s move here`);
    if (e.type === "turn_timed_out") forced = { seat: e.seat, consecutive: e.consecutive, phase: "turn" };
    driver.add(m, e);
    if (follow) expected.unshift(follow);
  }
}

function trainsEvents(driver, m, seed) {
  let drawAuto = false;
  let forced = null;
  while (m.status !== "ended") {
    let [e] = trains.consequences(m, seed, drawAuto);
    if (!e && forced) {
      e = trains.forcedTurn(m, forced);
      if (forced.phase === "done") forced = null;
    }
    if (!e) {
      const el = driver.next();
      e = driver.at(el, () => trainsSeatEvent(m, el));
      if (e === null) throw new RecordError(...el.at, `the rules wait for seat ${m.turn}'s move here`);
      if (e.type === "turn_timed_out") forced = { seat: e.seat, consecutive: e.consecutive, phase: "move" };
    }
    driver.add(m, e);
    if (e.type === "tile_drawn") drawAuto = e.auto;
  }
}

/** The audit document (GET /v1/matches/{id}/audit, its pages together) a record stands for. */
export function auditFromRecord(text) {
  const record = readRecord(text);
  const tags = Object.fromEntries(record.tags);
  if (typeof tags.Seed !== "string") {
    throw new RecordError(1, 1, "no Seed tag: a record replays once its match has ended and the seed is revealed");
  }
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (!isObject(tags.Rules) || !Array.isArray(tags.Seats) || tags.Seats.length !== tags.Rules.players ||
      !tags.Seats.every(isObject) || !(tags.Claims === undefined || (Array.isArray(tags.Claims) && tags.Claims.every(isObject)))) {
    throw new RecordError(1, 1, "Rules is the rule set's object, Seats one object per player, Claims a list of objects");
  }
  if (typeof tags.SeedCommitment !== "string" || typeof tags.SeedAlgorithm !== "string" ||
      !(tags.SeededByClient === undefined || typeof tags.SeededByClient === "boolean")) {
    throw new RecordError(1, 1, "SeedCommitment and SeedAlgorithm are strings, SeededByClient true or false");
  }
  const created = { type: "match_created", rules: tags.Rules, seats: tags.Seats, seed_commitment: tags.SeedCommitment,
                    seed_algorithm: tags.SeedAlgorithm, seeded_by_client: tags.SeededByClient ?? false };
  const driver = new Driver(record);
  const game = isTrains(created.rules);
  const m = game ? new TrainsMatch(created.rules, created.seats) : new Match(created.rules, created.seats);
  driver.events.push(created);
  for (const claim of tags.Claims ?? []) {
    driver.add(m, { type: "seat_claimed", seat: claim.seat, name: claim.name, client_seed: claim.client_seed ?? null });
  }
  try {
    (game ? trainsEvents : lineEvents)(driver, m, tags.Seed);
  } catch (err) {
    // a tag or a move of another shape than docs/records.md gives, which these rules cannot read
    if (err instanceof TypeError || err instanceof RangeError) throw new RecordError(1, 1, `unreadable by the rules: ${err.message}`);
    throw err;
  }
  driver.check();
  const ended = driver.events.at(-1);
  const result = { winner: ended.winner, scores: ended.scores, ...(ended.winners ? { winners: ended.winners } : {}) };
  const scores = driver.produced.filter((el) => el.element === "end").map((el) => el.scores);
  for (const [name, value] of [["Result", result], ["Scores", scores], ["Players", created.rules.players], ["Game", created.rules.preset]]) {
    if (!equal(tags[name], value)) throw new RecordError(1, 1, `the ${name} tag is ${JSON.stringify(value)} by the rules`);
  }
  let prev = GENESIS;
  const rows = driver.events.map(({ type, ...data }, index) => {
    const seq = index + 1;
    const hash = rowHash(prev, seq, type, 1, data);
    const row = { seq, type, ...data, schema_version: 1, prev_hash: prev, hash };
    prev = hash;
    return row;
  });
  return {
    match_id: tags.Match ?? "?", seed: tags.Seed, seed_commitment: created.seed_commitment,
    shuffle_algorithm: created.seed_algorithm, seq: rows.length, chain_head: { seq: rows.length, hash: prev }, events: rows,
  };
}
