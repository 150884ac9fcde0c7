// boneyard-record/1 (docs/records.md), read and written in plain JavaScript: written from that
// document alone, it shares no code with the server (api/records/) and needs nothing but Node.
//
// readRecord(text) -> {tags: [[name, value], ...], elements: [{element, ...}, ...]}, or a
// RecordError naming the line and column of the first departure from the grammar;
// writeRecord(record) -> the canonical form of the document's last section.

export const FORMAT = "boneyard-record/1";
const TAG_ORDER = [
  "Format", "Event", "Site", "Date", "Match", "Game", "Family", "Set", "Players", "Teams", "Rules",
  "Seats", "Claims", "SeededByClient", "SeedAlgorithm", "SeedCommitment", "Seed", "Result", "Scores",
];
const KEYWORDS = ["TurnUp", "Hand", "Round", "Deal", "Boneyard", "End", "Match"];
const ENDS = { L: "left", R: "right", U: "up", D: "down" };
const LEVELS = ["random", "greedy", "intermediate", "expert"];
const NUMBER = "(?:0|[1-9][0-9]*)";
const TILE = new RegExp(`^(${NUMBER})-(${NUMBER})$`);
const INT = new RegExp(`^${NUMBER}$`);
const MOVE = new RegExp(
  `^(${NUMBER}):(?:` +
    `(${NUMBER}-${NUMBER})(?:([LRUD])|/(${NUMBER}|mexican|toe:${NUMBER}:${NUMBER}))(\\*)?(?:=(${NUMBER}))?(?:\\+(${NUMBER}))?` +
    `|D(${NUMBER}-${NUMBER})?(\\*)?` +
    `|([KP])(\\*)?` +
    `|M\\+(${NUMBER})` +
    `|T(${NUMBER})` +
    `|R=(${LEVELS.join("|")})` +
    `)$`,
);
const WIDTH = 79;

export class RecordError extends Error {
  constructor(line, column, message) {
    super(`${line}:${column}: ${message}`);
    this.line = line;
    this.column = column;
  }
}

// --- reading ---------------------------------------------------------------------------------
export function readRecord(text) {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  const tags = [];
  let n = 0;
  while (n < lines.length && lines[n].startsWith("[")) {
    tags.push(readTag(lines[n], n + 1));
    n += 1;
  }
  if (!tags.length || tags[0][0] !== "Format") throw new RecordError(1, 1, "a record begins with its Format tag");
  if (tags[0][1] !== FORMAT) throw new RecordError(1, 9, `not ${FORMAT}`);
  if (n < lines.length) {
    if (lines[n].trim() !== "") throw new RecordError(n + 1, 1, "an empty line after the tags");
    n += 1;
  }
  return { tags, elements: readMoveText(tokenize(lines, n)) };
}

function readTag(line, number) {
  const head = /^\[([A-Za-z][A-Za-z0-9]*) /.exec(line);
  if (!head || !line.endsWith("]")) throw new RecordError(number, 1, "a tag is [Name value]");
  const json = line.slice(head[0].length, -1);
  let value;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new RecordError(number, head[0].length + 1, `the value is not JSON: ${error.message}`);
  }
  return [head[1], value];
}

function tokenize(lines, first) {
  const tokens = [];
  for (let i = first; i < lines.length; i += 1) {
    const line = lines[i];
    let c = 0;
    while (c < line.length) {
      if (line[c] === " ") {
        c += 1;
        continue;
      }
      const at = [i + 1, c + 1];
      if (line[c] === "{") {
        let text = "";
        let j = c + 1;
        for (;;) {
          if (j >= line.length) throw new RecordError(...at, "a comment ends on its line");
          if (line[j] === "}") break;
          if (line[j] === "\\") {
            if (line[j + 1] !== "}" && line[j + 1] !== "\\") throw new RecordError(i + 1, j + 1, "bad escape");
            text += line[j + 1];
            j += 2;
          } else {
            text += line[j];
            j += 1;
          }
        }
        tokens.push({ comment: text, at });
        c = j + 1;
        continue;
      }
      let end = c;
      while (end < line.length && line[end] !== " " && line[end] !== "{") end += 1;
      tokens.push({ text: line.slice(c, end), at });
      c = end;
    }
  }
  return tokens;
}

function tile(token, text = token.text) {
  const m = TILE.exec(text);
  if (!m) throw new RecordError(...token.at, `not a tile: ${text}`);
  const [high, low] = [Number(m[1]), Number(m[2])];
  if (high < low) throw new RecordError(...token.at, `a tile is written high end first: ${text}`);
  return [high, low];
}

function readMoveText(tokens) {
  let i = 0;
  const peekWord = () => (i < tokens.length && tokens[i].comment === undefined ? tokens[i] : null);
  const take = (what, after) => {
    const token = peekWord();
    if (!token) throw new RecordError(...(tokens[i] || after).at, `${what} expected`);
    i += 1;
    return token;
  };
  const word = (expected, after) => {
    const token = take(expected, after);
    if (token.text !== expected) throw new RecordError(...token.at, `"${expected}" expected`);
  };
  const number = (what, after) => {
    const token = take(what, after);
    if (!INT.test(token.text)) throw new RecordError(...token.at, `${what} expected`);
    return Number(token.text);
  };
  const numbers = (what, after) => {
    const out = [number(what, after)];
    while (peekWord() && INT.test(peekWord().text)) out.push(Number(tokens[i++].text));
    return out;
  };
  const held = (hidden) => {
    const out = [];
    for (let token = peekWord(); token; token = peekWord()) {
      if (hidden && token.text === "?") out.push(null);
      else if (TILE.test(token.text)) out.push(tile(token));
      else break;
      i += 1;
    }
    return out;
  };
  const elements = [];
  while (i < tokens.length) {
    const token = tokens[i++];
    if (token.comment !== undefined) {
      elements.push({ element: "comment", text: token.comment });
    } else if (token.text === "Hand") {
      const n = number("a hand number", token);
      word("lead", token);
      elements.push({ element: "hand", number: n, leader: number("a seat", token) });
    } else if (token.text === "Round") {
      const n = number("a round number", token);
      word("engine", token);
      const engine = number("the engine", token);
      word("lead", token);
      elements.push({ element: "round", number: n, engine, leader: number("a seat", token) });
    } else if (token.text === "TurnUp") {
      const tiles = held(false);
      word("lead", token);
      elements.push({ element: "turn-up", tiles, leader: number("a seat", token) });
    } else if (token.text === "Deal") {
      const seat = number("a seat", token);
      elements.push({ element: "deal", seat, tiles: held(true) });
    } else if (token.text === "Boneyard") {
      elements.push({ element: "boneyard", tiles: held(true) });
    } else if (token.text === "End") {
      const reason = take("a reason", token);
      if (reason.text !== "domino" && reason.text !== "blocked") throw new RecordError(...reason.at, "domino or blocked");
      const out = { element: "end", reason: reason.text, winner: null, points: null };
      let next = take("pips", token);
      if (next.text === "winner") {
        out.winner = number("a seat", token);
        next = take("pips", token);
      }
      if (next.text === "points") {
        out.points = number("points", token);
        next = take("pips", token);
      }
      if (next.text !== "pips") throw new RecordError(...next.at, '"pips" expected');
      out.pips = numbers("pips", token);
      const label = take("scores or totals", token);
      if (label.text !== "scores" && label.text !== "totals") throw new RecordError(...label.at, "scores or totals");
      out.label = label.text;
      out.scores = numbers(label.text, token);
      elements.push(out);
    } else if (token.text === "Match") {
      const who = take("winner", token);
      let winners;
      if (who.text === "winner") winners = [number("a side", token)];
      else if (who.text === "winners") winners = numbers("seats", token);
      else throw new RecordError(...who.at, '"winner" or "winners" expected');
      word("scores", token);
      elements.push({ element: "match", shared: who.text === "winners", winners, scores: numbers("scores", token) });
    } else {
      elements.push(readMove(token));
    }
    // where the element begins, [line, column]: not enumerable, so not part of its value
    Object.defineProperty(elements.at(-1), "at", { value: token.at });
  }
  return elements;
}

function readMove(token) {
  const m = MOVE.exec(token.text);
  if (!m) throw new RecordError(...token.at, `not a move: ${token.text}`);
  const seat = Number(m[1]);
  const num = (v) => (v === undefined ? null : Number(v));
  if (m[2] !== undefined) {
    return {
      element: "move", seat, action: "play", tile: tile(token, m[2]),
      place: m[3] !== undefined ? ENDS[m[3]] : m[4], auto: m[5] !== undefined, claim: num(m[6]), points: num(m[7]),
    };
  }
  const letter = token.text[m[1].length + 1];
  if (letter === "D") return { element: "move", seat, action: "draw", tile: m[8] ? tile(token, m[8]) : null, auto: m[9] !== undefined };
  if (m[10] !== undefined) return { element: "move", seat, action: m[10] === "K" ? "knock" : "pass", auto: m[11] !== undefined };
  if (m[12] !== undefined) return { element: "move", seat, action: "muggins", points: Number(m[12]) };
  if (m[13] !== undefined) return { element: "move", seat, action: "time-out", consecutive: Number(m[13]) };
  return { element: "move", seat, action: "replaced", level: m[14] };
}

// --- writing the canonical form ----------------------------------------------------------------
function sortedJson(value) {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const tileText = (t) => (t === null ? "?" : `${t[0]}-${t[1]}`);
const LETTERS = Object.fromEntries(Object.entries(ENDS).map(([letter, end]) => [end, letter]));

function moveText(e) {
  const auto = e.auto ? "*" : "";
  let action;
  if (e.action === "play") {
    action = tileText(e.tile) + (LETTERS[e.place] ?? `/${e.place}`) + auto;
    if (e.claim !== null) action += `=${e.claim}`;
    if (e.points !== null) action += `+${e.points}`;
  } else if (e.action === "draw") action = `D${e.tile ? tileText(e.tile) : ""}${auto}`;
  else if (e.action === "knock") action = `K${auto}`;
  else if (e.action === "pass") action = `P${auto}`;
  else if (e.action === "muggins") action = `M+${e.points}`;
  else if (e.action === "time-out") action = `T${e.consecutive}`;
  else action = `R=${e.level}`;
  return `${e.seat}:${action}`;
}

function elementTokens(e) {
  switch (e.element) {
    case "comment": return [`{${e.text.replaceAll("\\", "\\\\").replaceAll("}", "\\}")}}`];
    case "move": return [moveText(e)];
    case "hand": return ["Hand", `${e.number}`, "lead", `${e.leader}`];
    case "round": return ["Round", `${e.number}`, "engine", `${e.engine}`, "lead", `${e.leader}`];
    case "turn-up": return ["TurnUp", ...e.tiles.map(tileText), "lead", `${e.leader}`];
    case "deal": return ["Deal", `${e.seat}`, ...e.tiles.map(tileText)];
    case "boneyard": return ["Boneyard", ...e.tiles.map(tileText)];
    case "end": {
      const out = ["End", e.reason];
      if (e.winner !== null) out.push("winner", `${e.winner}`);
      if (e.points !== null) out.push("points", `${e.points}`);
      return [...out, "pips", ...e.pips.map(String), e.label, ...e.scores.map(String)];
    }
    default:
      return ["Match", ...(e.shared ? ["winners", ...e.winners.map(String)] : ["winner", `${e.winners[0]}`]), "scores", ...e.scores.map(String)];
  }
}

function pack(tokens, indent) {
  const lines = [];
  let line = "";
  for (const token of tokens) {
    if (line && line.length + 1 + token.length > WIDTH) {
      lines.push(line);
      line = indent + token;
    } else line = line ? `${line} ${token}` : token;
  }
  if (line) lines.push(line);
  return lines;
}

export function writeRecord({ tags, elements }) {
  const rank = (name) => (TAG_ORDER.includes(name) ? TAG_ORDER.indexOf(name) : TAG_ORDER.length);
  const ordered = [...tags].sort((a, b) => rank(a[0]) - rank(b[0]) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const lines = ordered.map(([name, value]) => `[${name} ${sortedJson(value)}]`);
  lines.push("");
  let flow = [];
  for (const e of elements) {
    if (e.element === "move" || e.element === "comment") {
      flow.push(...elementTokens(e));
      continue;
    }
    lines.push(...pack(flow, ""));
    flow = [];
    lines.push(...pack(elementTokens(e), "  "));
  }
  lines.push(...pack(flow, ""));
  return `${lines.join("\n")}\n`;
}
