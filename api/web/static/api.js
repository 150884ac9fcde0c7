// The HTTP client: the only module that knows the API's paths and how it answers.
//
// The page speaks only the public API (/v1), at the same origin, relative to the page so a
// mount prefix (SCRIPT_NAME) works. Failures arrive as RFC 9457 problems; they are thrown as
// ApiError carrying the problem's stable `code`, which callers branch on (never on text).

const BASE = new URL("../v1/", document.baseURI).href;

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem?.code;
  }
}

/** The server could not be reached (no answer, or a gateway saying it is down): the request
 *  may be tried again later; nothing about the match is known to have changed. */
export class NetworkError extends Error {
  constructor(message) {
    super(message);
    this.offline = true;
  }
}

// a proxy in front of a stopped or restarting server answers with one of these
const GATEWAY_DOWN = new Set([502, 503, 504]);

/** One request; resolves to {status, etag, data}, or {status: 304, etag} when nothing changed.
 *  Match state is never taken from the browser's cache (`cache: "no-store"`) unless asked. */
async function request(path, { method = "GET", token, body, headers = {}, cache = "no-store" } = {}) {
  const h = { Accept: "application/json", ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (body !== undefined) h["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(BASE + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), cache });
  } catch (err) {
    throw new NetworkError(`The server could not be reached (${err.message}).`);
  }
  if (res.status === 304) return { status: 304, etag: res.headers.get("ETag") };
  const data = await res.json().catch(() => null);
  // a proxy's own error page, not the API's problem document: the server behind it is away
  if (GATEWAY_DOWN.has(res.status) && !data) throw new NetworkError(`The server is not answering (HTTP ${res.status}).`);
  if (!res.ok) throw new ApiError(res.status, data);
  return { status: res.status, etag: res.headers.get("ETag"), data };
}

/** GET /presets: the rule presets and computer levels on offer. The browser's cache may answer
 *  (the server sends Cache-Control and an ETag): the lists change only when the server does. */
export function getPresets() {
  return request("presets", { cache: "default" });
}

// --- tournaments (the tournament page, tournament.js) ---------------------------------------
// `who` says who asks: {token} a player's token (bypl_…), else {apiKey} the portal's key.
const asking = (who, headers = {}) => ({ token: who.token,
                                         headers: who.token || !who.apiKey ? headers : { ...headers, "X-API-Key": who.apiKey } });

/** GET /tournaments/ID: settings, status, entrants; with `etag`, 304 while its seq is unchanged. */
export function getTournament(id, who, etag) {
  return request(`tournaments/${encodeURIComponent(id)}`, asking(who, etag ? { "If-None-Match": etag } : {}));
}

/** One page of the standings, best first (`next_offset` null: the last page). */
export function getStandings(id, who, offset, limit) {
  return request(`tournaments/${encodeURIComponent(id)}/standings?offset=${offset}&limit=${limit}`, asking(who));
}

/** Every round's tables and bye; `my_seats`: the asking player's own seats, with their tokens. */
export function getRounds(id, who) {
  return request(`tournaments/${encodeURIComponent(id)}/rounds`, asking(who));
}

/** The player whose token is sent enters the tournament. */
export function enterTournament(id, token) {
  return request(`tournaments/${encodeURIComponent(id)}/entrants`, { method: "POST", token, body: {} });
}

/** The player's events after `after` (GET /me/events), waiting up to `wait` s for one. */
export function getMyEvents(token, after, wait = 0, limit = 100) {
  return request(`me/events?after=${after}&limit=${limit}&wait=${wait}`, { token });
}

/** POST /matches; `apiKey` is the portal key a server may require to create matches. */
export function createMatch(body, apiKey) {
  return request("matches", { method: "POST", headers: apiKey ? { "X-API-Key": apiKey } : {}, body });
}

/** GET a seat's view (`token` undefined: the spectator's); with `etag`, 304 when unchanged. */
export function getView(matchId, token, etag) {
  return request(`matches/${matchId}/view`, { token, headers: etag ? { "If-None-Match": etag } : {} });
}

/** One page of events after `after`, redacted for the seat whose token is sent. */
export function getEvents(matchId, token, after, limit = 500) {
  return request(`matches/${matchId}/events?after=${after}&limit=${limit}`, { token });
}

/** POST one action; the answer carries the actor's new view and its ETag. */
export function postAction(matchId, token, body) {
  return request(`matches/${matchId}/actions`, { method: "POST", token, body });
}

/** GET /players/REF/stats: a portal player's record on the server (the portal key, if the server wants one). */
export function getPlayerStats(playerRef, apiKey) {
  return request(`players/${encodeURIComponent(playerRef)}/stats`, { headers: apiKey ? { "X-API-Key": apiKey } : {} });
}

/** GET /matches/ID/analysis: the analysis after an ended match (409 `analysis_not_ready` until
 *  the server's runner has made it, `match_not_over` before the end). */
export function getAnalysis(matchId) {
  return request(`matches/${matchId}/analysis`);
}

/** The whole unredacted log of an ended match (GET /matches/ID/audit, page after page). */
export async function getWholeAudit(matchId) {
  const events = [];
  let after = 0;
  for (;;) {
    const { data } = await request(`matches/${matchId}/audit?after=${after}&limit=5000`);
    events.push(...data.events);
    if (data.next_after === null || data.next_after === undefined) return events;
    after = data.next_after;
  }
}

/** GET /matches/ID/hint with the seat's token: its choices now, best first, each valued by the
 *  expert from what the seat sees (unrated matches against the computer only). */
export function getHint(matchId, token) {
  return request(`matches/${matchId}/hint`, { token });
}
