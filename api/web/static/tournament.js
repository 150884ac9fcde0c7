// The tournament page (/play/tournament?id=ID): its standings and rounds, and for an entrant
// (a person holding their player token) their pairing, with a Play link to the table.
//
// Like the table it speaks only the public HTTP API (api.js). Who asks is a player's token
// (`#token=bypl_…` once in the address, or the form; kept in this browser), else the portal's key
// the table's form saved. The page follows the tournament without a clock where it can: with a
// token it long-polls the player's own event stream (GET /me/events?wait=, which carries
// round_paired, round_ended, tournament_ended) and after each answer, or each wait that ran out,
// asks for the tournament with If-None-Match, so an unchanged tournament costs a 304. With the
// portal's key alone there is no stream to follow: it asks the same conditional GET every few
// seconds. The Play link hands the seat's token to the table the way the table keeps its own
// (state.js saves it as this tab's match), so /play opens on that match with that seat.

import { enterTournament, getMyEvents, getRounds, getStandings, getTournament } from "./api.js";
import { backOnline, bindConnection, wentOffline } from "./connection.js";
import { $, h } from "./dom.js";
import { loadPresets, presetTitle } from "./presets.js";
import { beginMatch, saveMatch, savedApiKey } from "./state.js";

const TOKEN_KEY = "boneyard.playerToken";
const PAGE_SIZE = 50;          // standings rows per page (the API's pages go up to 500)
const WAIT_SECONDS = 25;       // one long poll of the player's events (the API allows up to 60)
const PORTAL_POLL_MS = 5000;   // the portal's key alone: no event stream to wait on

const FORMATS = { swiss: "Swiss", round_robin: "Round robin", arena: "Arena" };
const MATCH_POINTS = "Match points: a win 2, a draw 1";
const ARENA_POINTS = "Arena points: a win 2, a draw 1; the third win in a row and each after it 4";
// each tiebreak's column: a short heading, and its name in full for the tooltip and screen readers
const TIEBREAKS = {
  buchholz: ["Bu", "Buchholz: the opponents' match points"],
  sonneborn_berger: ["SB", "Sonneborn-Berger: each opponent's match points times the points earned against it"],
  win_margin: ["±", "Win margin: points for minus points against"],
};

const page = {
  id: null,
  who: { token: null, apiKey: null },
  me: null,            // the player's ref (from their event stream), when a token is held
  etag: null,          // the tournament's last ETag: an unchanged one answers 304
  tournament: null,
  standings: null,     // the page of standings on screen
  offset: 0,
  rounds: null,        // GET …/rounds: rounds and my_seats
  eventsAfter: 0,
};

let refreshing = null;
let refreshAgain = false;
let pollTimer = null;

/** `body[data-settled]`: no request under way; `body[data-seq]`: the tournament's seq on screen.
 *  Tests wait on these rather than on time. */
function settle() {
  document.body.toggleAttribute("data-settled", !refreshing);
  if (page.tournament) document.body.dataset.seq = String(page.tournament.seq);
}

// --- who asks ---------------------------------------------------------------------------------
/** A token given in the address (`#token=…`) is kept and taken out of the address at once, so
 *  it stays out of the history, bookmarks and the Referer. */
function takeToken() {
  const hash = new URLSearchParams(window.location.hash.slice(1));
  const given = hash.get("token");
  if (given) {
    localStorage.setItem(TOKEN_KEY, given.trim());
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  return localStorage.getItem(TOKEN_KEY);
}

function showOpenForm(why) {
  $("#t-open").hidden = false;
  $("#t-open-why").textContent = why;
  $("#t-id").value = page.id || "";
  $("#t-id-field").hidden = Boolean(page.id);
}

function bindOpenForm() {
  $("#t-open").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const token = $("#t-token").value.trim();
    if (token) localStorage.setItem(TOKEN_KEY, token);
    const id = $("#t-id").value.trim() || page.id;
    window.location.search = `?id=${encodeURIComponent(id)}`;
  });
}

// --- reading the tournament -----------------------------------------------------------------------
/** Fetch the tournament if it moved (a 304 otherwise), then its standings page and rounds. */
export function refresh() {
  if (refreshing) { refreshAgain = true; return refreshing; }
  refreshing = (async () => {
    try {
      do { refreshAgain = false; await refreshNow(); } while (refreshAgain);
    } finally { refreshing = null; settle(); }
  })();
  settle();
  return refreshing;
}

async function refreshNow() {
  try {
    const res = await getTournament(page.id, page.who, page.etag);
    backOnline();
    if (res.status === 304) return;
    const [standings, rounds] = await Promise.all([
      getStandings(page.id, page.who, page.offset, PAGE_SIZE),
      getRounds(page.id, page.who),
    ]);
    Object.assign(page, { tournament: res.data, etag: res.etag, standings: standings.data, rounds: rounds.data });
    render();
  } catch (err) {
    if (err.offline) { wentOffline(refresh); return; }
    if (err.status === 401 || err.status === 403 || err.status === 404) {
      showOpenForm(err.status === 404 ? "No such tournament here, or not one this token may see."
        : "This tournament is shown to its portal's players: enter your player token.");
    }
    $("#t-status").textContent = err.message;
  }
}

/** The standings page at `offset` (Previous / Next). */
async function turnPage(offset) {
  page.offset = Math.max(0, offset);
  page.etag = null;   // the page changes even when the tournament does not
  await refresh();
}

const over = () => Boolean(page.tournament && ["ended", "cancelled"].includes(page.tournament.status));

/** With a player token: wait on the player's events, and look at the tournament after each
 *  answer (an event, or a wait that ran out: another table's result has no event of its own). */
async function follow() {
  try {
    const first = await getMyEvents(page.who.token, 0, 0, 1);
    page.me = first.data.player_ref;
    page.eventsAfter = first.data.seq;
  } catch (err) {
    if (err.offline) { wentOffline(follow); return; }
    if (err.status !== 401 && err.status !== 403) { retryLater(err); return; }
    page.who.token = null;   // a token the server refuses: read as the portal, if this browser may
    localStorage.removeItem(TOKEN_KEY);
    if (page.who.apiKey) { pollAsPortal(); return; }
    showOpenForm("The server did not take this player token: enter it again.");
    return;
  }
  render();
  await refresh();
  while (!over()) {
    try {
      const res = await getMyEvents(page.who.token, page.eventsAfter, WAIT_SECONDS);
      backOnline();
      page.eventsAfter = Math.max(page.eventsAfter, res.data.seq);
    } catch (err) {
      if (err.offline) wentOffline(follow);
      else retryLater(err);
      return;
    }
    await refresh();
  }
}

/** A refusal that may pass (too many requests, a server error): say it, and follow again later. */
function retryLater(err) {
  $("#t-status").textContent = `${err.message} Trying again shortly.`;
  setTimeout(follow, PORTAL_POLL_MS);
}

function pollAsPortal() {
  clearTimeout(pollTimer);
  refresh().then(() => {
    if (over()) return;
    pollTimer = setTimeout(pollAsPortal, PORTAL_POLL_MS);
  });
}

// --- what it says -------------------------------------------------------------------------------------
const entrantName = (id) => page.tournament.entrants.find((e) => e.id === id)?.name ?? id;

/** The entrant the person holding the token is (one of its members is their player). */
function myEntrant() {
  if (!page.me || !page.tournament) return null;
  return page.tournament.entrants.find((e) => !e.withdrawn
    && e.members.some((m) => m.kind === "player" && m.player_ref === page.me)) ?? null;
}

function statusText(t) {
  const of = t.planned_rounds ? ` of ${t.planned_rounds}` : "";
  if (t.status === "registering") return `Registering: ${t.entrants.filter((e) => !e.withdrawn).length} entered`;
  const paused = t.paused ? " (paused: nobody new is paired)" : "";
  if (t.status === "running" && t.settings.format === "arena") {
    if (t.closed) return "Closed: the games in play finish and count";
    const until = t.ends_at ? new Date(t.ends_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : null;
    return `Pairing${until ? ` until ${until}` : ""}${paused}`;
  }
  if (t.status === "running") return `Round ${t.current_round}${of}${paused}`;
  if (t.status === "ended" && t.settings.format === "arena") return "Ended";
  if (t.status === "ended") return `Ended after ${t.rounds_ended} round${t.rounds_ended === 1 ? "" : "s"}`;
  return `Cancelled${t.cancel_reason ? `: ${t.cancel_reason}` : ""}`;
}

function render() {
  const t = page.tournament;
  if (!t) return;
  $("#t-open").hidden = true;
  const s = t.settings;
  const format = FORMATS[s.format] ?? s.format;
  // the portal's name for it when it gave one (as text, never markup), else its format and game
  const game = presetTitle(s.preset);
  const title = s.name || `${format}: ${game}`;
  $("#t-name").textContent = title;
  document.title = `Boneyard · ${title}`;
  const parts = [s.name && `${format}: ${game}`, s.side_size > 1 && "Partner teams", s.duplicate && "Duplicate deals",
    s.duration_minutes && `${s.duration_minutes} min`, `${s.turn_seconds} s a turn`, s.rated && "rated", `id ${t.id}`];
  $("#t-meta").textContent = parts.filter(Boolean).join(" · ");
  $("#t-status").textContent = statusText(t);
  renderMine(t);
  renderStandings(t);
  renderRounds(t);
}

/** "You": the pairing to play, its result, a bye, or the way in. */
function renderMine(t) {
  const box = $("#t-mine");
  const play = $("#t-play");
  const join = $("#t-join");
  play.hidden = true;
  join.hidden = true;
  if (!page.who.token || !page.me) { box.hidden = true; return; }
  box.hidden = false;
  const me = myEntrant();
  const text = $("#t-mine-text");
  if (!me) {
    const open = t.status === "registering";
    text.textContent = open ? "You are not entered in this tournament." : "You are not playing in this tournament.";
    join.hidden = !open;
    return;
  }
  const standing = t.standings.find((r) => r.entrant_id === me.id);
  if (t.status === "registering") { text.textContent = `You are entered as ${me.name}. Waiting for the start.`; return; }
  if (t.status === "ended" || t.status === "cancelled") {
    text.textContent = standing && t.status === "ended"
      ? `The tournament is over: ${me.name} finished ${ordinal(standing.rank)} with ${standing.match_points} points.`
      : `${statusText(t)}.`;
    return;
  }
  // Every table of mine, by round. A Swiss or round robin seats me at one table a round (two with
  // duplicate deals: the pairing's two legs, seats swapped); an arena at one table at a time, each
  // pairing a "round" of its own numbered across the whole field.
  const arena = t.settings.format === "arena";
  const word = arena ? "pairing" : "round";
  const rounds = page.rounds?.rounds ?? [];
  const mine = (round) => round.tables.filter((tb) => tb.sides.includes(me.id));
  const open = rounds.flatMap((r) => mine(r).filter((tb) => !tb.result).map((tb) => [r, tb]));
  if (open.length) {
    const [round, table] = open[0];
    const side = table.sides.indexOf(me.id);
    const against = entrantName(table.sides[1 - side]);
    const legs = mine(round);
    const done = legs.filter((tb) => tb.result).map((tb) => `table ${tb.number}: ${outcome(tb.result, tb.sides.indexOf(me.id))}`);
    const leg = legs.length > 1 ? ` (table ${legs.indexOf(table) + 1} of ${legs.length}${done.length ? `; ${done.join(", ")}` : ""})` : "";
    text.textContent = `Your pairing: ${word} ${round.number} vs ${against}${leg}`;
    const seat = page.rounds.my_seats.find((m) => m.round === round.number && m.table === table.number);
    if (seat?.token) {
      play.hidden = false;
      play.dataset.match = seat.match_id;
      play.setAttribute("aria-label", `Play ${word} ${round.number} against ${against}`);
      play.onclick = () => {
        // the table resumes this tab's saved match: this seat of this match, held by this device
        // (and which tournament it belongs to: the match's end offers the way back to it)
        beginMatch({ id: seat.match_id, local: { [seat.seat]: seat.token }, seen: 0, humans: 1, tournament: t.id });
        saveMatch();
      };
    }
    return;
  }
  const latest = [...rounds].reverse().find((r) => r.bye === me.id || mine(r).length);
  let next = " Waiting for the end.";
  if (arena) next = t.closed ? " The arena pairs no more: waiting for the end." : " Waiting for your next pairing.";
  else if (latest && latest.number < (t.planned_rounds || Infinity)) next = ` Waiting for round ${latest.number + 1}.`;
  if (!latest) {
    text.textContent = arena ? "Waiting to be paired." : `Waiting for round ${t.current_round ?? 1} to be paired.`;
    return;
  }
  if (latest.bye === me.id) { text.textContent = `Round ${latest.number}: you have a bye.${next}`; return; }
  const tables = mine(latest);
  const against = entrantName(tables[0].sides[1 - tables[0].sides.indexOf(me.id)]);
  const results = tables.map((tb) => outcome(tb.result, tb.sides.indexOf(me.id)));
  text.textContent = `${arena ? "Pairing" : "Round"} ${latest.number} vs ${against}: ${results.join(", ")}.${next}`;
}

/** A table's result for `side`: "you won 20–5", "you lost 5–20 (forfeit)", "a draw 10–10". */
function outcome(result, side) {
  const score = `${result.scores[side]}–${result.scores[1 - side]}`;
  const how = result.winner === null ? "a draw" : result.winner === side ? "you won" : "you lost";
  return `${how} ${score}${result.forfeit ? " (forfeit)" : ""}`;
}

const ordinal = (n) => {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th";
  return `${n}${tail}`;
};

function renderStandings(t) {
  const names = t.settings.tiebreaks;
  const arena = t.settings.format === "arena";
  $("#t-standings-head").replaceChildren(
    h("th", { scope: "col", class: "num" }, h("abbr", { title: "Rank" }, "#")),
    h("th", { scope: "col", class: "name" }, "Name"),
    h("th", { scope: "col", class: "num" }, h("abbr", { title: arena ? ARENA_POINTS : MATCH_POINTS }, "Pts")),
    h("th", { scope: "col", class: "num" }, h("abbr", { title: "Played" }, "P")),
    ...names.map((n) => h("th", { scope: "col", class: "num" }, h("abbr", { title: TIEBREAKS[n]?.[1] ?? n }, TIEBREAKS[n]?.[0] ?? n))),
    arena ? h("th", { scope: "col", class: "num" }, h("abbr", { title: "Streak: wins in a row" }, "Str")) : null,
  );
  const mine = myEntrant()?.id;
  const rows = page.standings?.standings ?? [];
  $("#t-standings-body").replaceChildren(...rows.map((r) => {
    const values = Object.fromEntries(r.tiebreaks.map((tb) => [tb.name, tb.value]));
    return h("tr", { class: [r.entrant_id === mine ? "me" : "", r.withdrawn ? "withdrawn" : ""].join(" ").trim(),
                     dataset: { entrant: r.entrant_id } },
      h("td", { class: "num" }, String(r.rank)),
      h("th", { scope: "row", class: "name" }, r.name, r.entrant_id === mine ? " (you)" : "",
        r.withdrawn ? " (withdrawn)" : ""),
      h("td", { class: "num pts" }, String(r.match_points)),
      h("td", { class: "num" }, String(r.played)),
      ...names.map((n) => h("td", { class: "num", dataset: { tiebreak: n } }, String(values[n] ?? ""))),
      arena ? h("td", { class: "num" }, String(r.streak ?? 0)) : null);
  }));
  $("#t-standings-empty").hidden = rows.length > 0;
  const next = page.standings?.next_offset;
  $("#t-prev").hidden = page.offset === 0;
  $("#t-next").hidden = next === null || next === undefined;
  $("#t-page").textContent = page.offset || (next !== null && next !== undefined)
    ? `${page.offset + 1}–${page.offset + rows.length}` : "";
}

/** Each round, the newest first: its tables (who sat first, the score, the other) and its bye. */
function renderRounds() {
  const rounds = [...(page.rounds?.rounds ?? [])].reverse();
  $("#t-rounds-empty").hidden = rounds.length > 0;
  $("#t-rounds").replaceChildren(...rounds.map((round) => h("section", { class: "t-round", dataset: { round: round.number } },
    h("h3", {}, `Round ${round.number}`, h("span", { class: "t-when" }, round.ended ? " · ended" : " · in play")),
    h("table", { class: "t-table t-pairings" },
      h("caption", { class: "visually-hidden" }, `Round ${round.number}'s tables`),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col", class: "num" }, h("abbr", { title: "Table" }, "T")),
        h("th", { scope: "col", class: "name" }, "First"),
        h("th", { scope: "col", class: "score" }, "Score"),
        h("th", { scope: "col", class: "name" }, "Second"))),
      h("tbody", {},
        ...round.tables.map((table) => {
          const r = table.result;
          const won = (side) => (r && r.winner === side ? "won" : "");
          return h("tr", { dataset: { table: table.number, match: table.match_id ?? "" } },
            h("td", { class: "num" }, String(table.number)),
            h("td", { class: `name ${won(0)}` }, entrantName(table.sides[0])),
            h("td", { class: "score" }, r ? `${r.scores[0]}–${r.scores[1]}${r.forfeit ? " ff" : ""}` : "…"),
            h("td", { class: `name ${won(1)}` }, entrantName(table.sides[1])));
        }),
        round.bye ? h("tr", { class: "bye" }, h("td", { class: "num" }, ""),
          h("td", { class: "name", colspan: "3" }, `${entrantName(round.bye)}: bye`)) : null)))));
}

// --- start ----------------------------------------------------------------------------------------------
async function joinTournament() {
  $("#t-join").disabled = true;
  try {
    await enterTournament(page.id, page.who.token);
    await refresh();   // the entry moved the tournament's seq on: its ETag is stale
  } catch (err) {
    $("#t-status").textContent = err.message;
  } finally { $("#t-join").disabled = false; }
}

function init() {
  bindConnection();
  bindOpenForm();
  page.id = new URLSearchParams(window.location.search).get("id");
  page.who = { token: takeToken(), apiKey: savedApiKey() };
  $("#t-prev").addEventListener("click", () => turnPage(page.offset - PAGE_SIZE));
  $("#t-next").addEventListener("click", () => turnPage(page.standings?.next_offset ?? 0));
  $("#t-join").addEventListener("click", joinTournament);
  settle();
  // the game's title in the heading; without the list (an old server, a failure) its name stands
  loadPresets().then(render, () => {});
  if (!page.id || (!page.who.token && !page.who.apiKey)) {
    showOpenForm(page.id ? "Enter your player token to see this tournament and play your pairings."
      : "Which tournament? Its organiser gives its id, and each player a token.");
    return;
  }
  // back on this page (the browser's Back from the table, another tab): what changed meanwhile
  window.addEventListener("pageshow", (ev) => { if (ev.persisted) refresh(); });
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") refresh(); });
  window.addEventListener("focus", () => refresh());
  if (page.who.token) follow();
  else pollAsPortal();
}

init();
