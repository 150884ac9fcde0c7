/**
 * Plays one match of Boneyard against a live server with a client generated from the
 * committed OpenAPI document (openapi-typescript → generated/openapi.d.ts, openapi-fetch).
 *
 *   node dist/play.js BASE_URL PRESET [TARGET]
 *
 * One remote seat (this program) against a greedy computer player: create, read the seat's
 * view, send one of its listed legal actions as it is listed until the match ends, then read
 * the log (/events) and the audit (/audit), page by page, and check simple facts: they agree
 * with each other and with the final view, the audit ends with match_ended naming the winner
 * and the scores, and its revealed seed is the one committed to at the start.
 * Prints a JSON summary on stdout; a refusal or a disagreement exits 1.
 *
 * Everything is typed from the generated `paths` and `components`: no `any`, no casts. That is
 * the point of the program: if the document stops describing what the server sends, or a listed
 * legal action stops being a valid action body, `tsc --strict` fails before anything runs.
 */
import { createHash } from "node:crypto";
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/openapi.js";

type Schemas = components["schemas"];
type View = Schemas["View"];
type LegalAction = View["legal_actions"][number];
type Preset = NonNullable<Schemas["MatchCreate"]["preset"]>;
type Client = ReturnType<typeof createClient<paths>>;
type MatchPath = paths["/v1/matches/{match_id}/view"]["get"]["parameters"]["path"];
type SeenEvent = paths["/v1/matches/{match_id}/events"]["get"]["responses"][200]["content"]["application/json"]["events"][number];
type AuditRow = paths["/v1/matches/{match_id}/audit"]["get"]["responses"][200]["content"]["application/json"]["events"][number];
type Auth = { Authorization: string };

const PRESETS: readonly Preset[] = ["standard-draw", "standard-block", "pagat-draw", "pagat-block", "dominorules-draw",
  "dominorules-block", "winner-leads", "all-fives", "muggins"];
const MAX_ACTIONS = 2000;
const USAGE = `usage: play.js BASE_URL PRESET [TARGET]; PRESET one of ${PRESETS.join(", ")}`;

class ContractBroken extends Error {}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new ContractBroken(message);
}

function presetNamed(name: string | undefined): Preset {
  const preset = PRESETS.find((p) => p === name);
  if (preset === undefined) throw new ContractBroken(USAGE);
  return preset;
}

/** The play that scores most (the listed hint), else the first listed action: always as listed. */
function choose(view: View): LegalAction {
  let best: LegalAction | undefined;
  for (const action of view.legal_actions) {
    if (best === undefined || points(action) > points(best)) best = action;
  }
  check(best !== undefined, `seat ${view.seat} is to move but lists no legal action`);
  return best;
}

function points(action: LegalAction): number {
  switch (action.type) {
    case "play":
      return action.scores ?? 0;
    case "muggins":
      return action.scores;
    case "draw":
    case "knock":
    case "pass":
      return -1;
  }
}

/** The log as the seat sees it, from `after` on, following next_after page by page. */
async function wholeLog(client: Client, path: MatchPath, auth: Auth, after = 0): Promise<SeenEvent[]> {
  const page = await client.GET("/v1/matches/{match_id}/events", {
    params: { path, query: { after, limit: 50 } }, headers: auth,
  });
  if (page.error !== undefined) throw new ContractBroken(`events refused: ${page.error.code}`);
  const next = page.data.next_after;
  return next === null ? page.data.events : page.data.events.concat(await wholeLog(client, path, auth, next));
}

/** The audit from `after` on: every event unredacted and chained, following next_after page by page. */
async function wholeAudit(client: Client, path: MatchPath, after = 0): Promise<{ rows: AuditRow[]; seq: number; seed: string }> {
  const page = await client.GET("/v1/matches/{match_id}/audit", { params: { path, query: { after, limit: 100 } } });
  if (page.error !== undefined) throw new ContractBroken(`audit refused: ${page.error.code}`);
  const { events, seq, seed, next_after: next } = page.data;
  if (next === null) return { rows: events, seq, seed };
  const rest = await wholeAudit(client, path, next);
  check(rest.seq === seq && rest.seed === seed, `the audit changed between pages: seq ${seq}, then ${rest.seq}`);
  return { rows: events.concat(rest.rows), seq, seed };
}

async function main(argv: readonly string[]): Promise<void> {
  const [baseUrl, presetName, targetText] = argv;
  check(baseUrl !== undefined, USAGE);
  const preset = presetNamed(presetName);
  const client = createClient<paths>({ baseUrl });

  const created = await client.POST("/v1/matches", {
    body: {
      preset,
      seats: [{ name: "TypeScript", type: "remote" }, { name: "Computer", type: "bot", level: "greedy" }],
      ...(targetText === undefined ? {} : { rules: { target: Number(targetText) } }),
    },
  });
  if (created.error !== undefined) throw new ContractBroken(`create refused: ${created.error.code}`);
  check(created.response.status === 201, `create answered ${created.response.status}`);
  const { id: matchId, seed_commitment: commitment } = created.data;
  const mine = created.data.seats.find((s) => s.type === "remote");
  check(mine?.token !== undefined, "the remote seat got no token");
  const seat = mine.seat;
  const auth: Auth = { Authorization: `Bearer ${mine.token}` };
  const path: MatchPath = { match_id: matchId };

  // A wrong token is refused as documented, with a typed problem document.
  const refused = await client.GET("/v1/matches/{match_id}/view", {
    params: { path }, headers: { Authorization: "Bearer not-a-token" },
  });
  check(refused.error?.code === "invalid_token" && refused.response.status === 401, "a bad token was not refused with 401");

  let actions = 0;
  let claims = 0;
  let view: View;
  for (;;) {
    const read = await client.GET("/v1/matches/{match_id}/view", { params: { path }, headers: auth });
    if (read.error !== undefined) throw new ContractBroken(`view refused: ${read.error.code}`);
    // A view is a line game's or a trains game's (SeatView): a trains game's has a board.
    const seen = read.data;
    if ("board" in seen) throw new ContractBroken("a line game answered with a trains game's view");
    view = seen;
    check(view.seat === seat, `the view is of seat ${view.seat}, not ${seat}`);
    if (view.status === "ended") break;
    if (view.turn !== seat) {
      // The computer's replies come with each answer, so this waits only for a move the server
      // plays on its own: a long-poll on the log wakes with it.
      const waited = await client.GET("/v1/matches/{match_id}/events", {
        params: { path, query: { after: view.seq, wait: 5 } }, headers: auth,
      });
      if (waited.error !== undefined) throw new ContractBroken(`events refused: ${waited.error.code}`);
      continue;
    }
    check(actions < MAX_ACTIONS, `no end after ${MAX_ACTIONS} actions`);
    const action = choose(view);
    // Sent as listed, with the seq it was chosen at (the server refuses it if anything moved since).
    const sent = await client.POST("/v1/matches/{match_id}/actions", {
      params: { path }, headers: auth, body: { ...action, expected_seq: view.seq },
    });
    if (sent.error !== undefined) throw new ContractBroken(`a listed ${action.type} was refused: ${sent.error.code}`);
    check(sent.data.seat === seat && sent.data.view.seq === sent.data.seq, "an action's answer is not of this seat");
    actions += 1;
    if (action.type === "play" && action.claim !== undefined) claims += 1;
  }

  const events = await wholeLog(client, path, auth);
  const audit = await wholeAudit(client, path);
  const last = audit.rows[audit.rows.length - 1];
  check(last !== undefined && last.type === "match_ended", `the audit's last event is ${last?.type}, not match_ended`);
  check(view.winner !== null && last.winner === view.winner, `winner: view ${view.winner}, audit ${last.winner}`);
  check(JSON.stringify(last.scores) === JSON.stringify(view.scores), "the audit's scores are not the view's");
  check(last.seed === audit.seed && createHash("sha256").update(audit.seed, "utf8").digest("hex") === commitment,
    "the revealed seed is not the one committed to");
  check(events.length === audit.rows.length && audit.seq === audit.rows.length && view.seq === audit.seq,
    `log lengths disagree: events ${events.length}, audit ${audit.rows.length}, audit seq ${audit.seq}, view seq ${view.seq}`);
  check(events.every((event, i) => event.seq === i + 1 && event.type === audit.rows[i]?.type),
    "the seat's log and the audit disagree on an event's seq or type");

  process.stdout.write(JSON.stringify({
    match_id: matchId, preset, seat, actions, claims, winner: view.winner, scores: view.scores,
    events: events.length, audit_rows: audit.rows.length, last_event: last.type,
  }) + "\n");
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`play: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
