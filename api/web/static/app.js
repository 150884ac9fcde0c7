// Boneyard's reference web table. One dependency-free ES module, no build step.
//
// It speaks only the public HTTP API (/v1): it creates a match, keeps the seat tokens of
// the seats played on this device, shows each seat's view and sends back exactly the
// actions the view lists in `legal_actions`. It never decides a rule itself: what is
// playable, where, and whether drawing or knocking is allowed all come from the server.

const API = new URL("../v1/", document.baseURI).href;
const STORE_KEY = "boneyard.table.v1";
const API_KEY_KEY = "boneyard.apiKey";
const POLL_MS = 1500;
const END_ORDER = ["left", "up", "down", "right"];
const LEVELS = ["random", "greedy", "expert"];

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

// --- state --------------------------------------------------------------------------------
const S = {
  match: null,        // {id, local: {seat: token}, seen: last hand_number whose result was shown}
  viewer: null,       // the seat whose view is on screen (null: spectator)
  view: null,
  etags: {},          // seat -> {etag, view}: conditional GETs answer 304 when nothing moved
  events: [],
  eventsAfter: 0,
  selected: 0,        // index into view.hand
  chosenEnd: null,    // for a tile that fits several ends: the one `,`/`.` picked
  passTo: null,       // a local seat waiting behind the pass screen
  overlay: null,      // "hand" | "pass" | null
  busy: false,
  pollTimer: null,
  drag: null,
  suppressClick: false,
  keyboard: false,    // the last input was a key: keep focus on the hand across re-renders
};

// --- HTTP ---------------------------------------------------------------------------------
class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem?.code;
  }
}

async function api(path, { method = "GET", token, body, headers = {} } = {}) {
  const h = { Accept: "application/json", ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (body !== undefined) h["Content-Type"] = "application/json";
  const res = await fetch(API + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" });
  if (res.status === 304) return { status: 304, etag: res.headers.get("ETag") };
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, data);
  return { status: res.status, etag: res.headers.get("ETag"), data };
}

// --- persistence: a reload resumes the match on this device ---------------------------------
function save() {
  if (S.match) localStorage.setItem(STORE_KEY, JSON.stringify({ ...S.match, viewer: S.viewer }));
  else localStorage.removeItem(STORE_KEY);
}

function load() {
  try { return JSON.parse(localStorage.getItem(STORE_KEY) || "null"); } catch { return null; }
}

// --- tiles as SVG -------------------------------------------------------------------------
const SVGNS = "http://www.w3.org/2000/svg";
// pip centres in a 100×100 half; "v" halves stack along the tile's long axis vertically
const PIPS = {
  0: [], 1: [[50, 50]], 2: [[27, 27], [73, 73]], 3: [[27, 27], [50, 50], [73, 73]],
  4: [[27, 27], [73, 27], [27, 73], [73, 73]], 5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
};
const SIX = { v: [[30, 24], [30, 50], [30, 76], [70, 24], [70, 50], [70, 76]],
              h: [[24, 30], [50, 30], [76, 30], [24, 70], [50, 70], [76, 70]] };

function svgEl(name, attrs) {
  const el = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

/** A tile face: `a` is the left (or top) half, `b` the right (or bottom) half. */
function tileFace(a, b, vertical) {
  const w = vertical ? 100 : 200, h = vertical ? 200 : 100;
  const svg = svgEl("svg", { viewBox: `0 0 ${w} ${h}`, class: "face", "aria-hidden": "true", focusable: "false" });
  svg.append(svgEl("rect", { x: 3, y: 3, width: w - 6, height: h - 6, rx: 14, class: "body" }));
  svg.append(vertical ? svgEl("line", { x1: 18, y1: 100, x2: 82, y2: 100, class: "bar" })
                      : svgEl("line", { x1: 100, y1: 18, x2: 100, y2: 82, class: "bar" }));
  [a, b].forEach((n, half) => {
    const dx = vertical ? 0 : half * 100, dy = vertical ? half * 100 : 0;
    const spots = n === 6 ? SIX[vertical ? "v" : "h"] : PIPS[n];
    for (const [x, y] of spots) svg.append(svgEl("circle", { cx: x + dx, cy: y + dy, r: 9.5, class: `pip p${n}` }));
  });
  return svg;
}

function tileEl(a, b, vertical, extra = "") {
  const el = document.createElement("span");
  el.className = `tile ${vertical ? "tv" : "th"} ${extra}`.trim();
  el.append(tileFace(a, b, vertical));
  return el;
}

const key = (t) => `${t[0]}-${t[1]}`;
const sameTile = (x, y) => (x[0] === y[0] && x[1] === y[1]) || (x[0] === y[1] && x[1] === y[0]);

// --- what the view allows -----------------------------------------------------------------
function plays() {
  const out = new Map();  // tile key -> [{end, action}]
  for (const action of S.view?.legal_actions || []) {
    if (action.type !== "play") continue;
    const k = key(action.tile);
    if (!out.has(k)) out.set(k, []);
    out.get(k).push(action);
  }
  return out;
}

const legal = (type) => (S.view?.legal_actions || []).filter((a) => a.type === type);
const isLocal = (seat) => S.match && Object.prototype.hasOwnProperty.call(S.match.local, seat);
const localSeats = () => (S.match ? Object.keys(S.match.local).map(Number) : []);
const seatName = (seat) => S.view?.seats?.[seat]?.name ?? `Seat ${seat + 1}`;
const sideOf = (seat) => {
  const sides = S.view?.sides;
  if (!sides) return seat;
  return sides.findIndex((members) => members.includes(seat));
};
const myTurn = () => S.view && S.view.status === "playing" && S.viewer !== null && S.view.turn === S.viewer && !S.overlay;

function winnerName(side) {
  if (side === null || side === undefined) return "Nobody";
  const sides = S.view?.sides;
  if (sides) return sides[side].map(seatName).join(" & ");
  return seatName(side);
}

// --- flow ---------------------------------------------------------------------------------
async function startMatch(config) {
  const seats = config.seats.map((s) => (s.kind === "you" || s.kind === "friend")
    ? { name: s.name, type: "remote" } : { name: s.name, type: "bot", level: s.kind });
  const headers = {};
  const apiKey = localStorage.getItem(API_KEY_KEY);
  if (apiKey) headers["X-API-Key"] = apiKey;
  const { data } = await api("matches", { method: "POST", headers,
    body: { preset: config.preset, rules: { target: config.target }, seats } });
  const local = {};
  for (const seat of data.seats) if (seat.token) local[seat.seat] = seat.token;
  S.match = { id: data.id, local, seen: 0, humans: config.seats.filter((s) => s.kind === "you" || s.kind === "friend").length };
  S.viewer = null;
  S.view = null;
  S.etags = {};
  S.events = [];
  S.eventsAfter = 0;
  S.selected = 0;
  S.chosenEnd = null;
  S.passTo = null;
  closeOverlay();
  save();
  showScreen("table");
  await refresh();
}

/** Which local seat should hold the device now: the one whose turn it is, else the last one. */
function wantedViewer(view) {
  const seats = localSeats();
  if (!seats.length) return null;
  if (view && view.status === "playing" && isLocal(view.turn)) return view.turn;
  if (S.viewer !== null && isLocal(S.viewer)) return S.viewer;
  return seats[0];
}

async function fetchView(seat) {
  const token = seat === null ? undefined : S.match.local[seat];
  const cached = S.etags[seat];
  const headers = cached ? { "If-None-Match": cached.etag } : {};
  const res = await api(`matches/${S.match.id}/view`, { token, headers });
  if (res.status === 304 && cached) return cached.view;
  S.etags[seat] = { etag: res.etag, view: res.data };
  return res.data;
}

async function fetchEvents() {
  // The log shows counts and public moves only, so any local seat's redaction will do;
  // it never prints the tiles a seat drew (friends share this screen).
  const seats = localSeats();
  const token = seats.length ? S.match.local[seats[0]] : undefined;
  for (let guard = 0; guard < 50; guard++) {
    const { data } = await api(`matches/${S.match.id}/events?after=${S.eventsAfter}&limit=500`, { token });
    S.events.push(...data.events);
    if (data.events.length) S.eventsAfter = data.events[data.events.length - 1].seq;
    if (data.next_after === null || data.next_after === undefined) break;
  }
}

async function refresh() {
  if (!S.match) return;
  clearTimeout(S.pollTimer);
  try {
    let view = await fetchView(S.viewer === null ? wantedViewer(null) : S.viewer);
    const wanted = wantedViewer(view);
    if (wanted !== view.seat) {
      if (S.match.humans > 1 && S.viewer !== null && !S.passTo) {
        S.passTo = wanted;        // the next person takes the device behind a pass screen
      } else if (!S.passTo) {
        view = await fetchView(wanted);
      }
    }
    const prevSeq = S.view?.seq;
    S.view = view;
    S.viewer = view.seat;
    if (S.view.seq !== prevSeq) { S.chosenEnd = null; }
    S.selected = Math.min(S.selected, Math.max(0, (view.hand || []).length - 1));
    if (S.eventsAfter < view.seq) await fetchEvents();
    save();
    render();
    nextOverlay();
  } catch (err) {
    if (err.status === 404 || err.status === 401 || err.status === 403) {
      // the match is gone (another database) or the tokens no longer open it: start over
      S.match = null;
      save();
      showScreen("setup");
    }
    toast(err.message);
  }
  schedulePoll();
}

function schedulePoll() {
  clearTimeout(S.pollTimer);
  const v = S.view;
  if (!S.match || !v) return;
  // every seat is played on this device or by the server's bots, so after our own action the
  // answer is already current; poll only while someone elsewhere must move (a claimed seat)
  const waiting = v.status === "waiting" || (v.status === "playing" && !isLocal(v.turn));
  if (waiting) S.pollTimer = setTimeout(refresh, POLL_MS);
}

async function act(action) {
  if (S.busy || !S.view || S.viewer === null) return;
  S.busy = true;
  document.body.classList.add("busy");
  try {
    const body = { ...action, expected_seq: S.view.seq };
    delete body.scores;   // a hint the view carries, not part of the move
    const { data, etag } = await api(`matches/${S.match.id}/actions`, { method: "POST", token: S.match.local[S.viewer], body });
    $("#toast").hidden = true;     // a hint about the last attempt is stale once a move went through
    S.etags[S.viewer] = { etag, view: data.view };
    S.selected = Math.min(S.selected, Math.max(0, (data.view.hand || []).length - 1));
    S.chosenEnd = null;
  } catch (err) {
    toast(err.code === "stale_seq" ? "The table moved on; here is the latest." : err.message);
  } finally {
    S.busy = false;
    document.body.classList.remove("busy");
  }
  await refresh();
}

function playTile(tileKey, end) {
  const options = plays().get(tileKey) || [];
  const action = end ? options.find((a) => a.end === end) : options.length === 1 ? options[0] : null;
  if (action) return act(action);
  if (options.length > 1) {
    toast("This tile fits more than one end: tap an end, or press , or . then Enter.");
  }
}

// --- overlays: hand results, match end, pass screen ----------------------------------------
function nextOverlay() {
  if (S.overlay) return;
  const v = S.view;
  if (v.last_hand && v.last_hand.hand_number > (S.match.seen || 0)) return showHandResult(v.last_hand);
  if (v.status === "ended") return showMatchEnd();
  if (S.passTo !== null) return showPass(S.passTo);
}

function openOverlay(kind, build) {
  S.overlay = kind;
  const card = $("#overlay-card");
  card.replaceChildren();
  build(card);
  $("#overlay").hidden = false;
  document.body.classList.add("has-overlay");
  render();
  requestAnimationFrame(() => ($("[data-autofocus]", card) || $("button", card))?.focus());
}

function closeOverlay() {
  S.overlay = null;
  $("#overlay").hidden = true;
  document.body.classList.remove("has-overlay");
}

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") el.className = v;
    else if (k === "onclick") el.addEventListener("click", v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

function handHeadline(result) {
  const pts = result.points === 1 ? "1 point" : `${result.points} points`;
  if (result.winner === null || result.winner === undefined) return "Blocked, and a tie for the lowest count: nobody scores.";
  if (result.reason === "domino") return `${seatName(result.winner)} went out: ${pts} to ${winnerName(result.side)}.`;
  return `Blocked. ${seatName(result.winner)} holds the fewest pips: ${pts} to ${winnerName(result.side)}.`;
}

function scoreTable(scores, winnerSide) {
  const v = S.view;
  const rows = v.sides
    ? v.sides.map((members, side) => [members.map(seatName).join(" & "), scores[side], side])
    : v.seats.map((s) => [s.name, scores[s.seat], s.seat]);
  return h("ul", { class: "final-scores" },
    rows.map(([name, score, side]) => h("li", { class: side === winnerSide ? "won" : "" },
      h("span", {}, name), h("b", { dataset: { finalScore: String(side) } }, String(score)))));
}

function showHandResult(result) {
  const ended = S.view.status === "ended";
  openOverlay("hand", (card) => {
    card.append(
      h("h2", { id: "overlay-title" }, `Hand ${result.hand_number}`),
      h("p", { class: "headline" }, handHeadline(result)),
      h("ul", { class: "reveal" }, S.view.seats.map((seat) => {
        const tiles = result.hands[seat.seat] || [];
        return h("li", { class: seat.seat === result.winner ? "winner" : "", dataset: { revealSeat: String(seat.seat) } },
          h("div", { class: "reveal-head" }, h("span", { class: "name" }, seat.name),
            h("span", { class: "count" }, `${tiles.length} ${tiles.length === 1 ? "tile" : "tiles"} · `,
              h("b", { dataset: { revealPips: String(seat.seat) } }, String(result.pips[seat.seat])), " pips")),
          h("div", { class: "reveal-tiles" }, tiles.length ? tiles.map((t) => tileEl(t[0], t[1], false, "small")) : h("em", {}, "out")));
      })),
      h("p", { class: "sub" }, "Scores"),
      scoreTable(result.scores, result.side),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn primary", id: "continue", "data-autofocus": true, onclick: () => {
          S.match.seen = result.hand_number;
          save();
          closeOverlay();
          render();
          nextOverlay();
        } }, ended ? "See the result" : "Next hand")));
  });
}

function showMatchEnd() {
  const v = S.view;
  openOverlay("end", (card) => {
    const mine = v.winner !== null && localSeats().length === 1 && sideOf(localSeats()[0]) === v.winner;
    card.append(
      h("h2", { id: "overlay-title", class: "trophy" }, mine ? "You win the match!" : `${winnerName(v.winner)} wins the match`),
      h("p", { class: "headline" }, `First to ${v.rules.target} points.`),
      scoreTable(v.scores, v.winner),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn ghost", onclick: () => { closeOverlay(); render(); } }, "Look at the table"),
        h("button", { class: "btn primary", id: "rematch", "data-autofocus": true, onclick: newMatch }, "New match")));
  });
}

function showPass(seat) {
  openOverlay("pass", (card) => {
    card.append(
      h("div", { class: "pass-tiles", "aria-hidden": "true" }, [0, 1, 2].map(() => h("span", { class: "back" }))),
      h("h2", { id: "overlay-title" }, `Pass the device to ${seatName(seat)}`),
      h("p", { class: "headline" }, `Only ${seatName(seat)} should look at the next screen: it shows their hand.`),
      h("div", { class: "overlay-actions" },
        h("button", { class: "btn primary", id: "ready", "data-autofocus": true, onclick: async () => {
          S.passTo = null;
          S.viewer = seat;
          S.selected = 0;
          closeOverlay();
          await refresh();
        } }, `I'm ${seatName(seat)}: show my hand`)));
  });
}

// --- rendering ------------------------------------------------------------------------------
function render() {
  const v = S.view;
  if (!v) return;
  const hidden = S.overlay === "pass" || S.passTo !== null;
  document.body.dataset.seq = String(v.seq);     // lets tests (and curious people) see what is shown
  document.body.classList.toggle("my-turn", myTurn());
  renderMeta(v);
  renderOpponents(v);
  renderLine();
  renderStatus(v, hidden);
  renderHand(v, hidden);
  renderLog();
}

function renderMeta(v) {
  const preset = $("#preset").querySelector(`option[value="${v.rules.preset}"]`)?.textContent || v.rules.preset;
  $("#match-meta").replaceChildren(
    h("span", {}, preset), h("span", { class: "dot" }, "·"),
    h("span", {}, `to ${v.rules.target}`), h("span", { class: "dot" }, "·"),
    h("span", {}, `hand ${v.hand_number}`));
}

function seatBadge(seat) {
  const s = S.view.seats[seat];
  if (s.type === "bot") return h("span", { class: "badge" }, `computer · ${s.level}`);
  if (isLocal(seat) && S.match.humans > 1) return h("span", { class: "badge" }, "this device");
  if (!isLocal(seat)) return h("span", { class: "badge" }, "online");
  return null;
}

function renderOpponents(v) {
  const others = v.seats.filter((s) => s.seat !== S.viewer);
  $("#opponents").replaceChildren(...others.map((s) => {
    const n = v.hand_counts[s.seat];
    const drawn = v.drawn?.[s.seat] || 0;
    const backs = h("div", { class: "backs", "aria-hidden": "true" },
      Array.from({ length: Math.min(n, 14) }, () => h("span", { class: "back" })));
    return h("div", { class: `opp ${v.turn === s.seat && v.status === "playing" ? "turn" : ""}`, dataset: { seat: String(s.seat) } },
      h("div", { class: "opp-head" }, h("span", { class: "name" }, s.name), seatBadge(s.seat)),
      backs,
      h("div", { class: "opp-foot" },
        h("span", {}, h("b", { dataset: { handCount: String(s.seat) } }, String(n)), n === 1 ? " tile" : " tiles"),
        drawn ? h("span", { class: "muted" }, `drew ${drawn}`) : null,
        h("span", { class: "score" }, "Score ", h("b", { dataset: { score: String(s.seat) } }, String(v.scores[sideOf(s.seat)])))));
  }));
}

function renderStatus(v, hidden) {
  $("#boneyard-count").textContent = String(v.boneyard);
  const countPill = $("#count-pill");
  countPill.hidden = v.count === undefined || v.count === null;
  if (!countPill.hidden) $("#ends-count").textContent = String(v.count);
  let text;
  if (v.status === "ended") text = `Match over: ${winnerName(v.winner)} ${v.sides ? "win" : "wins"}. Press N for a new match.`;
  else if (v.status === "waiting") text = "Waiting for players to join…";
  else if (hidden) text = `Pass the device to ${seatName(S.passTo)}.`;
  else if (v.turn === S.viewer) {
    const who = S.match.humans > 1 ? `${seatName(S.viewer)}, your turn` : "Your turn";
    if (plays().size) text = `${who}: play a lifted tile.`;
    else if (legal("draw").length) text = `${who}: nothing fits, draw from the boneyard.`;
    else if (legal("knock").length) text = `${who}: nothing fits and nothing to draw, knock.`;
    else text = `${who}.`;
  } else text = `${seatName(v.turn)} to play…`;
  $("#status").textContent = text;
}

function renderHand(v, hidden) {
  const me = S.viewer;
  $("#me").classList.toggle("spectator", me === null);
  $("#me-name").textContent = me === null ? "Spectating" : seatName(me);
  $("#me-score").textContent = me === null ? "–" : String(v.scores[sideOf(me)]);
  $("#me-score").dataset.score = me === null ? "" : String(me);
  $("#me-pips").textContent = hidden ? "?" : String(v.pips ?? 0);
  const hand = $("#hand");
  const options = plays();
  const turn = myTurn();
  const tiles = v.hand || [];
  const hadFocus = hand.contains(document.activeElement);
  hand.classList.toggle("hidden-hand", hidden);
  hand.dataset.handCount = String(tiles.length);
  if (hidden) {
    hand.replaceChildren(...tiles.map(() => h("span", { class: "back big" })));
  } else {
    hand.replaceChildren(...tiles.map((t, i) => {
      const k = key(t);
      const ends = (options.get(k) || []).map((a) => a.end);
      const playable = turn && ends.length > 0;
      const btn = h("button", {
        type: "button", class: `hand-tile${playable ? " playable" : ""}${i === S.selected ? " selected" : ""}`,
        tabindex: i === S.selected ? "0" : "-1", "aria-pressed": i === S.selected ? "true" : "false",
        "aria-label": `${t[0]}-${t[1]}${playable ? `, plays on ${ends.join(" or ")}` : ""}`,
        dataset: { tile: k, index: String(i), ends: ends.join(" ") },
      }, tileEl(t[0], t[1], true));
      // fives games: the view marks plays that score; show the best of this tile's
      const bonus = Math.max(0, ...(options.get(k) || []).map((a) => a.scores || 0));
      if (playable && bonus) btn.append(h("span", { class: "bonus", title: `scores ${bonus}` }, `+${bonus}`));
      if (turn && !playable) btn.classList.add("dim");
      return btn;
    }));
    // re-rendering replaces the buttons: keep keyboard focus on the selection
    const lost = document.activeElement === document.body && S.keyboard && !S.overlay;
    if (hadFocus || lost) $(`.hand-tile[data-index="${S.selected}"]`, hand)?.focus();
  }
  const draw = legal("draw");
  const canDraw = turn && draw.length > 0 && !hidden;
  $("#draw").disabled = !canDraw;
  $("#draw").title = canDraw ? `Draw from the boneyard (${v.boneyard} left)` : "Drawing is allowed only when nothing fits";
  $("#knock").disabled = !(turn && legal("knock").length && !hidden);
  const muggins = legal("muggins");
  $("#muggins").hidden = !(muggins.length && !hidden);
  renderEndChoice(turn && !hidden);
}

// A tile that fits several ends also gets big buttons, one per end: on a crowded line the
// ends themselves can be small targets for a finger.
function renderEndChoice(active) {
  const box = $("#end-choice");
  const tileKey = selectedTileKey();
  const options = active && tileKey ? (plays().get(tileKey) || []) : [];
  box.hidden = options.length < 2;
  if (box.hidden) { box.replaceChildren(); return; }
  const values = Object.fromEntries((S.view.ends || []).map((e) => [e.end, e.value]));
  const ordered = END_ORDER.filter((end) => options.some((a) => a.end === end));
  box.replaceChildren(h("span", { class: "label" }, `${tileKey} on`), ...ordered.map((end) =>
    h("button", { type: "button", class: `btn small${S.chosenEnd === end ? " primary" : ""}`, dataset: { chooseEnd: end },
      onclick: () => playTile(tileKey, end) }, `${end} · ${values[end] ?? ""}`,
      options.find((a) => a.end === end)?.scores ? ` (+${options.find((a) => a.end === end).scores})` : "")));
}

// The line is laid out as a snake (rows alternate direction, like a line turning at the
// table's edge); spinner games show a cross: the line through the spinner, its arms above
// and below. Each open end is a drop target showing the number it needs.
function renderLine() {
  const v = S.view;
  const board = $("#board");
  const line = $("#line");
  if (!v) return;
  const selectedKey = selectedTileKey();
  const fits = new Set(myTurn() && selectedKey ? (plays().get(selectedKey) || []).map((a) => a.end) : []);
  const dragFits = new Set(S.drag?.ends || []);
  const live = new Set(myTurn() ? [...plays().values()].flat().map((a) => a.end) : []);
  const values = Object.fromEntries((v.ends || []).map((e) => [e.end, e.value]));
  const target = (end, label) => {
    const el = h("button", { type: "button", class: "end-target", dataset: { end },
      "aria-label": `${end} end${values[end] !== undefined ? `, needs ${values[end]}` : ""}`, tabindex: fits.has(end) ? "0" : "-1" },
      h("span", { class: "need" }, label ?? String(values[end] ?? "")));
    if (fits.has(end) || dragFits.has(end)) el.classList.add("fits");
    else if (live.has(end)) el.classList.add("live");
    if (S.chosenEnd === end && fits.has(end)) el.classList.add("chosen");
    return el;
  };
  line.replaceChildren();
  line.className = "line";
  const W = board.clientWidth - 16, H = board.clientHeight - 16;
  const isDouble = (t) => t[0] === t[1];

  if (!v.line.length) {
    const lead = (v.legal_actions || []).find((a) => a.type === "play");
    if (lead) {
      line.classList.add("empty");
      line.append(target(lead.end, "lead"));
    } else {
      line.append(h("p", { class: "empty-note" }, v.status === "playing" ? "Waiting for the lead…" : ""));
    }
    return;
  }

  if (v.spinner && v.arms) {
    // a cross: column 2 holds the spinner with its arms above and below; the line runs
    // through it in row 2 (CSS grid areas keep the arms centred on the spinner)
    const k = v.line.findIndex((t) => sameTile(t, v.spinner));
    const span = (tiles) => tiles.reduce((n, t) => n + (isDouble(t) ? 1 : 2), 0);
    const across = span(v.line.slice(0, k)) + span(v.line.slice(k + 1)) + 2 + 4.5;
    const tall = span(v.arms.up) + span(v.arms.down) + 2 + (values.up !== undefined ? 1.5 : 0) + (values.down !== undefined ? 1.5 : 0);
    const u = clamp(Math.floor(Math.min(W / across, H / (tall + 0.5))), 12, maxUnit());
    line.style.setProperty("--u", `${u}px`);
    line.classList.add("cross");
    const laid = (t, vertical) => tileEl(t[0], t[1], vertical, isDouble(t) ? "double" : "");
    line.append(
      h("div", { class: "seg left" }, values.left !== undefined ? target("left") : null,
        v.line.slice(0, k).map((t) => laid(t, isDouble(t)))),
      h("div", { class: "seg spin" }, tileEl(v.line[k][0], v.line[k][1], true, "double spinner")),
      h("div", { class: "seg right" }, v.line.slice(k + 1).map((t) => laid(t, isDouble(t))),
        values.right !== undefined ? target("right") : null),
      // arms: [number touching the spinner's side, other]; the up arm grows upwards
      h("div", { class: "seg up" }, v.arms.up.map((t) => laid([t[1], t[0]], !isDouble(t))),
        values.up !== undefined ? target("up") : null),
      h("div", { class: "seg down" }, v.arms.down.map((t) => laid(t, !isDouble(t))),
        values.down !== undefined ? target("down") : null));
    return;
  }

  // the snake: items are targets and tiles, each with a width in units
  const items = [{ kind: "target", end: "left", w: 2 }];
  for (const t of v.line) items.push({ kind: "tile", t, w: isDouble(t) ? 1 : 2 });
  items.push({ kind: "target", end: "right", w: 2 });
  const gap = 0.12;
  let u = maxUnit(), rows;
  for (; u >= 12; u -= 1) {
    rows = snakeRows(items, Math.floor(W / u), gap);
    if (rows.length * (2 + 0.5) * u <= H || u === 12) break;
  }
  line.style.setProperty("--u", `${u}px`);
  line.classList.add("snake");
  rows.forEach((rowItems, r) => {
    const reverse = r % 2 === 1;
    const row = h("div", { class: `snake-row${reverse ? " rev" : ""}` });
    for (const it of rowItems) {
      if (it.kind === "target") row.append(target(it.end));
      else {
        const [a, b] = reverse ? [it.t[1], it.t[0]] : it.t;
        row.append(tileEl(a, b, isDouble(it.t), isDouble(it.t) ? "double" : ""));
      }
    }
    line.append(row);
  });
}

function snakeRows(items, capacity, gap) {
  const rows = [[]];
  let used = 0;
  for (const it of items) {
    const w = it.w + gap;
    if (used + w > capacity && rows[rows.length - 1].length) { rows.push([]); used = 0; }
    rows[rows.length - 1].push(it);
    used += w;
  }
  return rows;
}

const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, x));
// the line starts big and shrinks as it grows (the layout picks the largest unit that fits)
const maxUnit = () => (window.innerWidth < 640 ? 34 : 44);

function selectedTileKey() {
  const t = S.view?.hand?.[S.selected];
  return t ? key(t) : null;
}

// --- the log --------------------------------------------------------------------------------
function endsText(ends) {
  const vals = Object.values(ends || {});
  return vals.length ? vals.join(" · ") : "";
}

function logLines() {
  const lines = [];
  let lastDraw = null;
  for (const e of S.events) {
    if (e.type === "tile_drawn") {
      if (lastDraw && lastDraw.seat === e.seat) { lastDraw.n += 1; lastDraw.el.textContent = `${seatName(e.seat)} drew ${lastDraw.n} from the boneyard`; continue; }
      lastDraw = { seat: e.seat, n: 1, el: h("li", { class: "ev-draw", dataset: { event: "draw", seat: String(e.seat) } }, `${seatName(e.seat)} drew 1 from the boneyard`) };
      lines.push(lastDraw.el);
      continue;
    }
    lastDraw = null;
    const li = (cls, ...text) => lines.push(h("li", { class: `ev-${cls}`, dataset: { event: e.type, seq: String(e.seq) } }, ...text));
    switch (e.type) {
      case "match_created": li("sys", `New match: first to ${e.rules.target}.`); break;
      case "seat_claimed": li("sys", `${e.name} took seat ${e.seat + 1}.`); break;
      case "tiles_turned_up": li("sys", `Tiles turned up; ${seatName(e.leader)} leads.`); break;
      case "hand_started": li("hand", `Hand ${e.hand_number}: ${e.hand_counts[0]} tiles each, ${e.boneyard} in the boneyard. ${seatName(e.leader)} leads.`); break;
      case "tile_played": li("play", `${seatName(e.seat)} ${e.auto ? "led" : "played"} `, h("b", {}, `${e.tile[0]}-${e.tile[1]}`),
        e.auto ? "" : ` on the ${e.end}${e.end === "up" || e.end === "down" ? " arm" : ""}`, `  (ends ${endsText(e.ends)})`); break;
      case "knocked": li("knock", `${seatName(e.seat)} knocked: nothing for ${endsText(e.ends)}`); break;
      case "points_scored": li("points", `${seatName(e.seat)} scored ${e.points}${e.how === "muggins" ? " calling muggins" : ` (count ${e.count})`}`); break;
      case "hand_ended": li("result", e.winner === null ? `Hand ${e.hand_number} blocked: a tie, nobody scores.`
        : `Hand ${e.hand_number}: ${seatName(e.winner)} ${e.reason === "domino" ? "went out" : "won the blocked hand"}, +${e.points}.`); break;
      case "match_ended": li("result", `${winnerName(e.winner)} won the match.`); break;
      default: li("sys", e.type.replace(/_/g, " "));
    }
  }
  return lines;
}

function renderLog() {
  const log = $("#log");
  // follow the newest line unless the reader scrolled up to read older ones
  const stick = !log.childElementCount || log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
  const lines = logLines();
  log.replaceChildren(...lines);
  $("#log-last").textContent = lines.length ? lines[lines.length - 1].textContent : "";
  if (stick) log.scrollTop = log.scrollHeight;
}

// --- toast ----------------------------------------------------------------------------------
let toastTimer = null;
function toast(message) {
  const el = $("#toast");
  el.textContent = message;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 3500);
}

// --- input: tap, drag, keyboard ---------------------------------------------------------------
function select(index, focus = true) {
  const n = S.view?.hand?.length || 0;
  if (!n) return;
  S.selected = ((index % n) + n) % n;
  S.chosenEnd = null;
  render();
  if (focus) $(`#hand .hand-tile[data-index="${S.selected}"]`)?.focus();
}

function onHandClick(ev) {
  if (S.suppressClick) { S.suppressClick = false; return; }
  const btn = ev.target.closest(".hand-tile");
  if (!btn) return;
  const index = Number(btn.dataset.index);
  const tileKey = btn.dataset.tile;
  const options = plays().get(tileKey) || [];
  if (!myTurn()) { select(index); return; }
  if (options.length === 1) { S.selected = index; playTile(tileKey); return; }
  select(index);
  if (options.length > 1) toast("Tap the end to play it on.");
  else if (plays().size === 0) toast(legal("draw").length ? "Nothing fits: draw." : "Nothing fits.");
  else toast(`${tileKey} does not fit an open end.`);
}

function onTargetClick(ev) {
  const el = ev.target.closest(".end-target");
  if (!el || !myTurn()) return;
  const tileKey = selectedTileKey();
  const options = plays().get(tileKey) || [];
  if (options.some((a) => a.end === el.dataset.end)) return playTile(tileKey, el.dataset.end);
  // no tile picked for this end: if exactly one tile fits it, that is the obvious move
  const candidates = [...plays().entries()].filter(([, acts]) => acts.some((a) => a.end === el.dataset.end));
  if (candidates.length === 1) return playTile(candidates[0][0], el.dataset.end);
  toast(candidates.length ? "Pick a tile first, then the end." : "No tile of yours fits that end.");
}

function onPointerDown(ev) {
  S.keyboard = false;
  const btn = ev.target.closest(".hand-tile.playable");
  if (!btn || ev.button !== 0 || !myTurn()) return;
  S.drag = { btn, x: ev.clientX, y: ev.clientY, id: ev.pointerId, started: false, ghost: null,
             tile: btn.dataset.tile, ends: btn.dataset.ends.split(" ").filter(Boolean) };
}

function onPointerMove(ev) {
  const d = S.drag;
  if (!d || ev.pointerId !== d.id) return;
  if (!d.started) {
    if (Math.hypot(ev.clientX - d.x, ev.clientY - d.y) < 8) return;
    d.started = true;
    d.ghost = d.btn.querySelector(".tile").cloneNode(true);
    d.ghost.classList.add("drag-ghost");
    document.body.append(d.ghost);
    d.btn.classList.add("dragging");
    S.selected = Number(d.btn.dataset.index);
    renderLine();
  }
  d.ghost.style.setProperty("left", `${ev.clientX}px`);
  d.ghost.style.setProperty("top", `${ev.clientY}px`);
  const over = document.elementFromPoint(ev.clientX, ev.clientY)?.closest(".end-target");
  $$(".end-target").forEach((t) => t.classList.toggle("over", t === over && d.ends.includes(t.dataset.end)));
  ev.preventDefault();
}

function onPointerUp(ev) {
  const d = S.drag;
  if (!d || ev.pointerId !== d.id) return;
  S.drag = null;
  if (!d.started) return;           // a tap: the click handler plays or selects
  S.suppressClick = true;
  setTimeout(() => { S.suppressClick = false; }, 0);
  d.ghost.remove();
  d.btn.classList.remove("dragging");
  const over = document.elementFromPoint(ev.clientX, ev.clientY)?.closest(".end-target");
  if (over && d.ends.includes(over.dataset.end)) playTile(d.tile, over.dataset.end);
  else if (d.ends.length === 1 && over) playTile(d.tile);
  else renderLine();
}

function chooseEnd(step) {
  const options = (plays().get(selectedTileKey()) || []).map((a) => a.end);
  if (options.length < 2) return;
  const ordered = END_ORDER.filter((e) => options.includes(e));
  const at = ordered.indexOf(S.chosenEnd);
  S.chosenEnd = at < 0 ? (step < 0 ? ordered[0] : ordered[ordered.length - 1])
                       : ordered[clamp(at + step, 0, ordered.length - 1)];
  renderLine();
  renderEndChoice(myTurn());
}

function playSelected() {
  const tileKey = selectedTileKey();
  const options = plays().get(tileKey) || [];
  if (!options.length) {
    toast(plays().size ? `${tileKey} does not fit; pick a lifted tile.` : "Nothing fits: D draws, K knocks.");
    return;
  }
  if (options.length === 1) return playTile(tileKey);
  if (S.chosenEnd && options.some((a) => a.end === S.chosenEnd)) return playTile(tileKey, S.chosenEnd);
  toast("It fits more than one end: press , or . to choose, then Enter.");
}

function onKey(ev) {
  if ($("#table").hidden || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target.closest("input, select, textarea")) return;
  if (S.overlay) return;               // buttons in the dialog take Enter/Space themselves
  const k = ev.key;
  S.keyboard = true;
  if (k === "n" || k === "N") { ev.preventDefault(); newMatch(); return; }
  if (!S.view || S.viewer === null) return;
  if (k === "ArrowLeft") { ev.preventDefault(); select(S.selected - 1); }
  else if (k === "ArrowRight") { ev.preventDefault(); select(S.selected + 1); }
  else if (k === "ArrowUp" || (k === "Enter" && (ev.target === document.body || ev.target.closest("#hand")))) {
    ev.preventDefault();
    if (myTurn()) playSelected();
  } else if (k === ",") { ev.preventDefault(); chooseEnd(-1); }
  else if (k === ".") { ev.preventDefault(); chooseEnd(1); }
  else if (k === "d" || k === "D") { ev.preventDefault(); if (!$("#draw").disabled) drawAction(); }
  else if (k === "k" || k === "K") { ev.preventDefault(); if (!$("#knock").disabled) act(legal("knock")[0]); }
}

function drawAction() {
  const options = legal("draw");
  // one press draws until a tile fits when the server offers it; otherwise one tile
  const action = options.find((a) => a.until === "playable") || options[0];
  if (action) act(action);
}

// --- setup ----------------------------------------------------------------------------------
const seatDefaults = (i) => (i === 0 ? { kind: "you", name: "You" } : { kind: "greedy", name: `Computer ${i}` });
let seatConfig = [0, 1, 2, 3].map(seatDefaults);

function defaultName(kind, i) {
  if (kind === "you") return "You";
  if (kind === "friend") return `Player ${i + 1}`;
  return `Computer ${i}`;
}

function renderSeats() {
  const n = Number($("input[name=players]:checked").value);
  $("#seat-list").replaceChildren(...seatConfig.slice(0, n).map((seat, i) => {
    const select = h("select", { "aria-label": `Seat ${i + 1} is played by`, dataset: { seatKind: String(i) } },
      h("option", { value: "you" }, "You"),
      h("option", { value: "friend" }, "A friend on this device"),
      LEVELS.map((lv) => h("option", { value: lv }, `Computer: ${lv}`)));
    select.value = seat.kind;
    select.addEventListener("change", () => {
      const auto = seat.name === defaultName(seat.kind, i);
      seat.kind = select.value;
      if (auto) { seat.name = defaultName(seat.kind, i); input.value = seat.name; }
    });
    const input = h("input", { type: "text", maxlength: "40", required: true, value: seat.name,
      "aria-label": `Seat ${i + 1} name`, dataset: { seatName: String(i) } });
    input.addEventListener("input", () => { seat.name = input.value; });
    return h("li", {}, h("span", { class: "seat-no" }, String(i + 1)), input, select);
  }));
}

async function onSetupSubmit(ev) {
  ev.preventDefault();
  const n = Number($("input[name=players]:checked").value);
  const seats = seatConfig.slice(0, n).map((s) => ({ ...s, name: s.name.trim() || defaultName(s.kind, 0) }));
  const keyInput = $("#api-key");
  if (!$("#api-key-field").hidden && keyInput.value) localStorage.setItem(API_KEY_KEY, keyInput.value);
  const start = $("#start");
  start.disabled = true;
  try {
    await startMatch({ seats, preset: $("#preset").value, target: Number($("input[name=target]:checked").value) });
  } catch (err) {
    if (err.code === "invalid_api_key") { $("#api-key-field").hidden = false; keyInput.focus(); }
    toast(err.message);
  } finally {
    start.disabled = false;
  }
}

function newMatch() {
  closeOverlay();
  clearTimeout(S.pollTimer);
  $("#resume").hidden = !(S.match && S.view && S.view.status !== "ended");
  showScreen("setup");
}

function showScreen(name) {
  $("#setup").hidden = name !== "setup";
  $("#table").hidden = name !== "table";
  document.body.dataset.screen = name;
  if (name === "setup") {
    renderSeats();
    $("#start").focus();
  }
}

function init() {
  $("#setup-form").addEventListener("submit", onSetupSubmit);
  $$("input[name=players]").forEach((r) => r.addEventListener("change", renderSeats));
  $("#resume").addEventListener("click", () => { showScreen("table"); refresh(); });
  $("#new-match").addEventListener("click", newMatch);
  $("#hand").addEventListener("click", onHandClick);
  $("#hand").addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove, { passive: false });
  window.addEventListener("pointerup", onPointerUp);
  window.addEventListener("pointercancel", (ev) => { if (S.drag?.ghost) S.drag.ghost.remove(); S.drag = null; renderLine(); });
  $("#line").addEventListener("click", onTargetClick);
  $("#draw").addEventListener("click", drawAction);
  $("#knock").addEventListener("click", () => act(legal("knock")[0]));
  $("#muggins").addEventListener("click", () => act(legal("muggins")[0]));
  document.addEventListener("keydown", onKey);
  new ResizeObserver(() => renderLine()).observe($("#board"));
  if (window.matchMedia("(max-width: 899px)").matches) $("#log-panel").open = false;

  const saved = load();
  if (saved?.id && saved.local) {
    S.match = { id: saved.id, local: saved.local, seen: saved.seen || 0, humans: saved.humans ?? Object.keys(saved.local).length };
    S.viewer = saved.viewer ?? null;
    showScreen("table");
    refresh();
  } else {
    showScreen("setup");
  }
}

init();
