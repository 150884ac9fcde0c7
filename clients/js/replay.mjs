#!/usr/bin/env node
// Replay and verify a Boneyard audit log (GET /v1/matches/{id}/audit), then print the final state.
//
//   node clients/js/replay.mjs http://127.0.0.1:8000/v1/matches/$ID/audit   (follows every page)
//   node clients/js/replay.mjs audit.json      (a whole log; or "-" for standard input)
//   node clients/js/replay.mjs --pin 120:9f3c... --pins pins.json audit.json
//   node clients/js/replay.mjs match.rec       (a match's record, docs/records.md; or its /record URL)
//
// A record is first turned into the log it stands for (record.mjs: the record's moves given to
// these rules, which must answer with what the record holds), then verified as an audit log.
//
// Checks: the hash chain; every pinned head (--pin SEQ:HASH, repeatable, and --pins FILE, a JSON
// array of {"seq": n, "hash": "hex"}: the `chain_head` a view or an event page showed earlier) is
// in the log as it was pinned, so a log rewritten and re-chained since is caught; the seed against
// its commitment; every deal and turn-up re-derived from the seed (deal seed with the seats'
// client seeds) over the rule set's set, by the shuffle match_created names, which must be that
// set's (boneyard-shuffle-v1 for double-six, -v2 for double-nine and double-twelve); every seat's
// move legal when made; every consequence the server emits on its own (forced leads, automatic
// draws and knocks, points during play, hand ends, the next deal, the match end) exactly as the
// rules give it, under every scoring option (end_count_scoring, exact_target, out_bonus,
// hand_end_pips, hand_points); for the trains games (mexican-train, chicken-foot:
// trains_replay.mjs) every round's deal, place, draw, pass, marker, round end, total and the
// winners; every timed-out turn (turn clocks)
// played as the rules play it, and the seat handed to a bot when it should be. A computer player's
// move is checked legal like any seat's, but whether it is the one that bot makes is NOT checked
// here (that takes the bots themselves): the summary counts those moves per level under
// checks.bot_moves_not_checked, and GET /v1/matches/{id}/fairness or `boneyard verify AUDIT.json`
// (the Python package, offline) make every bot decision again. Exit 0 and a JSON summary on
// stdout (and, when bots moved, a line on stderr saying where their choices are checked), or
// exit 1 and the first problem on stderr.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { GENESIS, ROW_FIELDS, rowData, verifyChain } from "./chain.mjs";
import { BotMoves, LogError, REPLACEMENT_LEVEL, equal } from "./checks.mjs";
import { auditFromRecord } from "./record.mjs";
import { RecordError } from "./record_text.mjs";
import { END_NAMES, ImpossibleEvent, Match, key, norm, turnUpLeader } from "./rules.mjs";
import { algorithmFor, dealSeed, seedCommitment, shuffledTiles } from "./shuffle.mjs";
import { isTrains } from "./trains.mjs";
import { replayTrains } from "./trains_replay.mjs";

export { LogError };

const SUPPORTED_SCHEMA_VERSION = 1;

/** The events the server emits on its own from this state (none: a seat must act now). */
export function consequences(m, serverSeed, afterPlay) {
  if (afterPlay) return afterPlay;
  if (m.status === "waiting") {
    return m.seats.every((s) => s.type !== "open") ? deal(m, serverSeed) : [];
  }
  if (m.status !== "playing") return [];
  const side = m.sideAtTarget();
  if (side >= 0) {
    return [{ type: "match_ended", winner: side, scores: [...m.scores], seed: serverSeed,
              hands: m.handLive ? m.hands.map((h) => h.map(norm)) : [] }];
  }
  if (!m.handLive) return deal(m, serverSeed);
  const result = m.handOutcome();
  if (result) {
    const scores = [...m.scores];
    if (result.side !== null) scores[result.side] += result.points;
    return [{ type: "hand_ended", hand_number: m.handNumber, ...result, hands: m.hands.map((h) => h.map(norm)), scores }];
  }
  if (m.layout.tiles === 0) return [];
  const seat = m.turn;
  if ((m.rules.auto_draw || m.rules.auto_knock) && !m.canPlay(seat)) {
    if (m.drawable() > 0) {
      if (m.rules.auto_draw) return [{ type: "tile_drawn", seat, tile: norm(m.boneyard[0]), auto: true }];
    } else if (m.rules.auto_knock) {
      return [{ type: "knocked", seat, ends: m.layout.endsObject(), auto: true }];
    }
  }
  return [];
}


/** A seat's turn_timed_out, checked against the state before it (the server's own event, but
 *  the server chooses when: only the seat to move, a person, in a match with a clock). */
export function checkTimeout(m, e, seq) {
  const fail = (msg) => { throw new LogError(seq, msg); };
  if (m.rules.turn_seconds === null || m.rules.turn_seconds === undefined) fail("a turn timed out in a match without turn_seconds");
  if (m.status !== "playing" || !m.handLive) fail("a turn timed out while no hand is being played");
  if (m.turn !== e.seat) fail(`seat ${e.seat} timed out but it is seat ${m.turn}'s turn`);
  if (m.isBot(e.seat)) fail(`seat ${e.seat} is a computer player: it moves at once, its turn cannot time out`);
  const want = { type: "turn_timed_out", seat: e.seat, consecutive: m.timeouts[e.seat] + 1 };
  if (!equal(e, want)) fail(`timeout should be ${JSON.stringify(want)} (its timeouts in a row, this one included)`);
}

/** The next events of a timed-out turn being played by the server (all auto): draw one at a
 *  time while nothing fits and drawing is allowed, then play the heaviest playable tile or knock;
 *  then seat_replaced once the seat has timed out timeout_limit times in a row. [] when done:
 *  the ordinary consequences follow. */
export function forcedTurn(m, f) {
  if (f.phase === "turn") {
    const choice = m.forcedChoice(f.seat);
    if (choice === null && m.drawable() > 0 && m.handOutcome() === null) {
      return [{ type: "tile_drawn", seat: f.seat, tile: norm(m.boneyard[0]), auto: true }];
    }
    f.phase = "replace";
    if (choice !== null) return playEvents(m, f.seat, choice[0], choice[1], null, true).filter(Boolean);
    if (m.handOutcome() === null) return [{ type: "knocked", seat: f.seat, ends: m.layout.endsObject(), auto: true }];
    // else the last draw left nobody able to move: the hand's end follows, as after any draw
  }
  f.phase = "done";
  const limit = m.rules.timeout_limit;
  return limit !== null && limit !== undefined && f.consecutive >= limit
    ? [{ type: "seat_replaced", seat: f.seat, level: REPLACEMENT_LEVEL }] : [];
}

/** The next deal (the turn-up first, under rotate_any), and the forced lead when there is one. */
function deal(m, serverSeed) {
  const seed = dealSeed(serverSeed, m.clientSeeds());
  const number = m.handNumber + 1;
  const out = [];
  if (m.rules.lead === "rotate_any" && number === 1 && m.turnUpLeader === null) {
    const tiles = shuffledTiles(seed, "turn-up", m.top).slice(0, m.players);
    return [{ type: "tiles_turned_up", tiles, leader: turnUpLeader(tiles) }];
  }
  const order = shuffledTiles(seed, `hand:${number}`, m.top);  // the rule set's whole set
  const n = m.rules.hand_size;
  const hands = Array.from({ length: m.players }, (_, s) => order.slice(s * n, (s + 1) * n));
  const [leader, forced] = m.nextLead(hands);
  out.push({ type: "hand_started", hand_number: number, leader, hands, boneyard: order.slice(m.players * n) });
  return out.concat(forced ? [{ forcedLead: forced, leader }] : []);
}

/** A play's tile_played, and the points_scored that must follow it (null when none): the count's
 *  points under end_count_scoring (the lead alone may score), with the right claim under
 *  muggins_calls, and none past an exact target (the play stands, no points_scored). */
export function playEvents(m, seat, tile, endIndex, claim, auto) {
  const after = m.layout.copy();
  after.place(tile, endIndex);
  const made = m.countPoints(after);
  if (auto && m.rules.muggins_calls) claim = made || null;
  const played = { type: "tile_played", seat, tile: norm(tile), end: END_NAMES[endIndex], ends: after.endsObject(), auto, claim };
  const side = m.sideOf(seat);
  const points = made && (!m.rules.muggins_calls || claim === made) ? m.credit(made, side) : 0;
  if (!points) return [played, null];
  const scores = [...m.scores];
  scores[side] += points;
  return [played, { type: "points_scored", seat, side, points, count: after.count(), how: "play", scores }];
}

/** A seat's own move: legal now? Returns the points_scored that must follow it, if any. */
export function checkMove(m, e, seq) {
  const fail = (msg) => { throw new LogError(seq, msg); };
  if (m.status !== "playing" || !m.handLive) fail(`${e.type} while no hand is being played`);
  if (e.type === "points_scored") {
    if (e.how !== "muggins") fail("points during play follow a scoring play at once");
    if (!m.pendingMuggins) fail(`seat ${e.seat} calls muggins but no points are pending`);
    const [owner, points] = m.pendingMuggins;
    if (m.sideOf(owner) === m.sideOf(e.seat)) fail(`seat ${e.seat} calls muggins on its own side's points`);
    const scores = [...m.scores];
    scores[m.sideOf(e.seat)] += points;
    const want = { type: "points_scored", seat: e.seat, side: m.sideOf(e.seat), points, count: m.layout.count(), how: "muggins", scores };
    if (!equal(e, want)) fail(`muggins call should be ${JSON.stringify(want)}`);
    return null;
  }
  if (m.turn !== e.seat) fail(`seat ${e.seat} moved (${e.type}) but it is seat ${m.turn}'s turn`);
  if (e.auto) fail(`${e.type} marked auto where the rules leave the choice to seat ${e.seat}`);
  if (e.type === "tile_played") {
    if (!Array.isArray(e.tile) || m.holds(e.seat, e.tile) < 0) fail(`seat ${e.seat} played ${JSON.stringify(e.tile)}, which it does not hold`);
    const endIndex = END_NAMES.indexOf(e.end);
    if (m.layout.tiles === 0) {
      if (e.end !== "left") fail("the first tile of a hand is logged on end left");
    } else {
      const number = m.layout.values[endIndex];
      if (endIndex < 0 || number === null) fail(`end ${JSON.stringify(e.end)} is not open`);
      if (!e.tile.includes(number)) fail(`${key(e.tile)} does not match the ${e.end} end (${number})`);
    }
    if (e.claim !== null) {
      if (!m.rules.muggins_calls) fail("a claim outside muggins_calls");
      const after = m.layout.copy();
      after.place(e.tile, endIndex);
      if (e.claim !== m.countPoints(after) || e.claim === 0) fail(`claim ${e.claim} but the play scores ${m.countPoints(after)}`);
    }
    const [played, points] = playEvents(m, e.seat, e.tile, endIndex, e.claim, false);
    if (!equal(e, played)) fail(`play should be logged as ${JSON.stringify(played)}`);
    return points;
  }
  if (e.type === "tile_drawn") {
    if (m.rules.game !== "draw") fail("a draw in the Block game");
    if (m.drawable() === 0) fail("a draw from an empty (or reserved) boneyard");
    if (m.canPlay(e.seat) && !m.rules.draw_at_will) fail(`seat ${e.seat} drew while holding a playable tile`);
    const want = { type: "tile_drawn", seat: e.seat, tile: norm(m.boneyard[0]), auto: false };
    if (!equal(e, want)) fail(`draw should be ${JSON.stringify(want)} (the boneyard's first tile)`);
    return null;
  }
  if (e.type === "knocked") {
    if (m.canPlay(e.seat)) fail(`seat ${e.seat} knocked while holding a playable tile`);
    if (m.drawable() > 0) fail(`seat ${e.seat} knocked while it could draw`);
    const want = { type: "knocked", seat: e.seat, ends: m.layout.endsObject(), auto: false };
    if (!equal(e, want)) fail(`knock should be ${JSON.stringify(want)}`);
    return null;
  }
  return fail(`${e.type} is not a seat's move here`);
}

// The word options whose every value this replayer knows how to score (openapi/events.md,
// Conventions): a value it does not know is refused rather than scored as some other.
const RULE_WORDS = {
  end_count_scoring: ["none", "fives", "fives_and_threes"],
  hand_points: ["opponents", "all_hands"],
  blocked_scoring: ["others_minus_own", "others"],
  game: ["draw", "block"],
  lead: ["highest_double", "winner_any", "rotate_any"],
  spinner: ["none", "first_double"],
};

function checkRuleWords(rules) {
  for (const [name, words] of Object.entries(RULE_WORDS)) {
    const value = rules[name];
    if (value !== undefined && !words.includes(value)) {
      throw new LogError(1, `rules.${name} ${JSON.stringify(value)} is unknown to this replayer (knows ${words.join(", ")})`);
    }
  }
}

/** The pinned chain heads, each checked against the log: [{seq, hash}]. */
function checkPins(rows, pins) {
  for (const pin of pins) {
    if (!Number.isInteger(pin.seq) || pin.seq < 0 || typeof pin.hash !== "string") {
      throw new LogError(0, `a pin is {"seq": n >= 0, "hash": "hex"}, not ${JSON.stringify(pin)}`);
    }
    if (pin.seq === 0) {  // the head shown before the first event: the genesis hash, nothing else
      if (pin.hash.toLowerCase() !== GENESIS) throw new LogError(0, `pinned hash ${pin.hash} at seq 0, which only the genesis hash can be`);
      continue;
    }
    if (pin.seq > rows.length) throw new LogError(0, `the log ends at seq ${rows.length} before pinned seq ${pin.seq}`);
    const row = rows[pin.seq - 1];
    if (row.seq !== pin.seq) throw new LogError(pin.seq, `row ${pin.seq} of the log carries seq ${row.seq}`);
    if (row.hash !== pin.hash.toLowerCase()) throw new LogError(pin.seq, `pinned hash ${pin.hash} but the log has ${row.hash}`);
  }
}

/** Verify an audit document; the final state's summary, or a LogError. `pins`: chain heads seen
 *  earlier ({seq, hash}), each of which the log must hold. */
export function replayAudit(audit, { pins = [] } = {}) {
  const rows = audit.events;
  if (audit.next_after !== null && audit.next_after !== undefined) {
    throw new LogError(0, `this is one page of the audit (rows after ${audit.next_after} are on the next pages): ` +
      "pass the audit's URL, or put its pages together (follow next_after until it is null)");
  }
  if (!Array.isArray(rows) || rows.length === 0) throw new LogError(0, "the audit has no events");
  for (const row of rows) {
    if (row.schema_version !== SUPPORTED_SCHEMA_VERSION) {
      throw new LogError(row.seq, `schema_version ${row.schema_version} of ${row.type} is unknown to this replayer (knows ${SUPPORTED_SCHEMA_VERSION})`);
    }
  }
  const chain = verifyChain(rows);
  if (chain.length) throw new LogError(0, `hash chain broken: ${chain.join("; ")}`);
  if (audit.seq !== rows.length) throw new LogError(0, `audit seq ${audit.seq} but ${rows.length} events`);
  checkPins(rows, pins);
  const events = rows.map((row) => ({ type: row.type, ...rowData(row) }));
  const created = events[0];
  if (created.type !== "match_created") throw new LogError(1, "a log starts with match_created");
  const serverSeed = audit.seed;
  if (typeof serverSeed !== "string") throw new LogError(0, "the audit carries no seed");
  if (seedCommitment(serverSeed) !== created.seed_commitment || audit.seed_commitment !== created.seed_commitment) {
    throw new LogError(1, "the revealed seed does not match the commitment published at match_created");
  }
  let algorithm;  // the shuffle of the rule set's set: v1 for double-six, v2 for the others
  try {
    algorithm = algorithmFor(created.rules?.set);
  } catch (err) {
    throw new LogError(1, `${err.message}: this replayer knows the sets double-6, double-9 and double-12`);
  }
  if (created.seed_algorithm !== algorithm) {
    throw new LogError(1, `seed_algorithm ${created.seed_algorithm} is not the ${created.rules.set ?? "double-6"} set's ${algorithm}`);
  }
  if (audit.shuffle_algorithm !== algorithm) {
    throw new LogError(1, `the audit's shuffle_algorithm ${audit.shuffle_algorithm} is not match_created's ${algorithm}`);
  }
  const checks = { chain_rows: rows.length, deals_checked: 0, moves_checked: 0, auto_events_checked: 0,
                   timeouts_checked: 0, pins_checked: pins.length };
  if (isTrains(created.rules)) return replayTrains(audit, events, serverSeed, checks);
  checkRuleWords(created.rules);
  const m = new Match(created.rules, created.seats);
  const hands = [];
  const bots = new BotMoves(m);
  let expected = [];          // events the server must emit next, on its own
  let forced = null;          // a timed-out turn the server is playing: {seat, consecutive, phase}
  for (let i = 1; i < events.length; i++) {
    const e = events[i];
    const seq = i + 1;
    if (m.status === "ended") throw new LogError(seq, `${e.type} after match_ended`);
    if (expected.length === 0 && forced) {
      expected = forcedTurn(m, forced);
      if (forced.phase === "done") forced = null;
    }
    if (expected.length === 0) expected = consequences(m, serverSeed, null);
    let follow = null;
    if (expected.length) {
      let want = expected.shift();
      if (want.forcedLead) {   // the forced lead: a tile_played the server makes for the leader
        const [played, points] = playEvents(m, want.leader, want.forcedLead, 0, null, true);
        want = played;
        if (points) expected.unshift(points);
      }
      if (!equal(e, want)) {
        throw new LogError(seq, `the log holds ${JSON.stringify(e)} where the rules give ${JSON.stringify(want)}`);
      }
      checks.auto_events_checked += 1;
      if (e.type === "hand_started" || e.type === "tiles_turned_up") checks.deals_checked += 1;
    } else if (e.type === "seat_claimed") {
      if (m.status !== "waiting" || m.seats[e.seat]?.type !== "open") throw new LogError(seq, `seat ${e.seat} is not open`);
    } else if (e.type === "turn_timed_out") {
      checkTimeout(m, e, seq);
      forced = { seat: e.seat, consecutive: e.consecutive, phase: "turn" };
      checks.timeouts_checked += 1;
    } else if (e.type === "seat_replaced") {
      throw new LogError(seq, `seat_replaced only ends a timed-out turn that reaches timeout_limit`);
    } else {
      follow = checkMove(m, e, seq);
      checks.moves_checked += 1;
      bots.count(m, e.seat);  // legal; whether it is the bot's own choice is not asked here
    }
    if (e.type === "seat_replaced") bots.seated(e.level);
    try {
      m.apply(e);  // checked above, so only a check this replayer lacks lets an impossible event through
    } catch (err) {
      if (err instanceof ImpossibleEvent) throw new LogError(seq, `impossible event: ${err.message}`);
      throw err;
    }
    if (follow) expected.unshift(follow);
    if (e.type === "hand_started") {
      hands.push({ hand_number: e.hand_number, leader: e.leader, reason: null, winner: null, side: null, points: 0,
                   pips: null, points_in_play: new Array(m.sides).fill(0), scores: null });
    } else if (e.type === "points_scored") {
      hands.at(-1).points_in_play[e.side] += e.points;
    } else if (e.type === "hand_ended") {
      for (const k of ["reason", "winner", "side", "points", "pips", "scores"]) hands.at(-1)[k] = e[k];
    } else if (e.type === "match_ended") {
      if (e.seed !== serverSeed) throw new LogError(seq, "match_ended reveals another seed than the audit's");
      if (hands.length && hands.at(-1).scores === null) {
        hands.at(-1).pips = e.hands.map((h) => h.reduce((s, t) => s + t[0] + t[1], 0));
        hands.at(-1).scores = e.scores;
      }
    }
  }
  if (m.status !== "ended") throw new LogError(events.length, "the log ends before match_ended");
  checks.bot_moves_not_checked = bots.notChecked;
  return {
    match_id: audit.match_id, preset: m.rules.preset, players: m.players, partners: m.rules.partners,
    target: m.rules.target, status: m.status, winner: m.winner, scores: m.scores, hand_number: m.handNumber,
    events: events.length, hands, checks,
  };
}

/** A match's record (GET /v1/matches/{id}/record: plain text, docs/records.md). */
async function fetchRecord(url, { fetchImpl = globalThis.fetch } = {}) {
  const response = await fetchImpl(url, { headers: { Accept: "text/plain" } });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  return response.text();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The whole audit document behind an /audit URL: every page fetched in turn (`after` set to each
 *  page's `next_after`; any `limit` in the URL kept), put together as one document without
 *  `next_after`. 429 and 503 are waited out (`Retry-After`) a few times. */
export async function fetchAudit(url, { fetchImpl = globalThis.fetch, retries = 5 } = {}) {
  const getPage = async (after) => {
    const pageUrl = new URL(url);
    if (after !== null) pageUrl.searchParams.set("after", String(after));
    for (let attempt = 0; ; attempt++) {
      const response = await fetchImpl(pageUrl, { headers: { Accept: "application/json" } });
      if (response.ok) return response.json();
      if ((response.status === 429 || response.status === 503) && attempt < retries) {
        const wait = Number(response.headers.get("Retry-After")) || 2 ** attempt;
        await sleep(Math.min(wait, 60) * 1000);
        continue;
      }
      throw new Error(`GET ${pageUrl}: ${response.status} ${await response.text()}`);
    }
  };
  const audit = await getPage(null);
  while (audit.next_after !== null && audit.next_after !== undefined) {
    const page = await getPage(audit.next_after);
    audit.events.push(...page.events);
    audit.next_after = page.next_after;
  }
  delete audit.next_after;
  return audit;
}

const BOT_MOVES_NOTE = (n) => `${n} bot moves checked legal but not re-made here: ` +
  "GET /v1/matches/{id}/fairness and `boneyard verify AUDIT.json` ask every bot again";

const USAGE = "usage: node replay.mjs [--pin SEQ:HASH]... [--pins PINS.json] AUDIT.json | AUDIT-URL | RECORD | RECORD-URL" +
  "   (\"-\" reads standard input)\n";

/** The command line: the source, and the pins from every --pin SEQ:HASH and --pins FILE. */
function parseArgs(argv) {
  const pins = [];
  const sources = [];
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k];
    if (arg === "--pin" || arg === "--pins") {
      const value = argv[++k];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      if (arg === "--pin") {
        const match = /^(\d+):([0-9a-fA-F]{64})$/.exec(value);
        if (!match) throw new Error(`--pin takes SEQ:HASH (a seq and 64 hex digits), not ${JSON.stringify(value)}`);
        pins.push({ seq: Number(match[1]), hash: match[2] });
      } else {
        const listed = JSON.parse(readFileSync(value, "utf8"));
        if (!Array.isArray(listed)) throw new Error(`${value}: --pins takes a JSON array of {"seq": n, "hash": "hex"}`);
        pins.push(...listed);
      }
    } else if (arg === "-h" || arg === "--help") {
      return null;
    } else {
      sources.push(arg);
    }
  }
  return sources.length === 1 ? { source: sources[0], pins } : null;
}

async function main(argv) {
  let args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`replay.mjs: ${err.message}\n${USAGE}`);
    return 2;
  }
  if (args === null) {
    process.stderr.write(USAGE);
    return 2;
  }
  const { source, pins } = args;
  let audit;
  let text;
  try {
    if (/^https?:\/\//.test(source)) {
      if (/\/record$/.test(new URL(source).pathname)) text = await fetchRecord(source);
      else audit = await fetchAudit(source);
    } else {
      text = readFileSync(source === "-" ? 0 : source, "utf8");
      if (!text.startsWith("[Format ")) audit = JSON.parse(text);  // else a record (docs/records.md)
    }
  } catch (err) {
    process.stderr.write(`replay.mjs: cannot read ${source}: ${err.message}\n`);
    return 2;
  }
  try {
    if (audit === undefined) audit = auditFromRecord(text);
  } catch (err) {
    if (!(err instanceof RecordError)) throw err;
    process.stderr.write(`replay.mjs: ${source}:${err.message}\n`);
    return 1;
  }
  try {
    const summary = replayAudit(audit, { pins });
    process.stdout.write(`${JSON.stringify(summary, null, 1)}\n`);
    const botMoves = Object.values(summary.checks.bot_moves_not_checked).reduce((a, b) => a + b, 0);
    if (botMoves > 0) process.stderr.write(`replay.mjs: ${source}: ${BOT_MOVES_NOTE(botMoves)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof LogError)) throw err;
    process.stderr.write(`replay.mjs: ${source}: verification failed: ${err.message}\n`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
