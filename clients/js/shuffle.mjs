// boneyard-shuffle-v1 and -v2 (openapi/shuffle.md): HMAC-SHA256 word stream, Fisher-Yates with
// rejection, over the set's tiles in canonical order (v1: the double-six set; v2: any other set).
import { createHash, createHmac } from "node:crypto";

export const ALGORITHM = "boneyard-shuffle-v1";
export const ANY_SET_ALGORITHM = "boneyard-shuffle-v2";
export const DEFAULT_SET = "double-6"; // a rule set without `set` plays the double-six set

/** The highest number of a set named as a rule set names it: "double-9" -> 9. */
export function topOf(setName = DEFAULT_SET) {
  const match = /^double-(6|9|12)$/.exec(setName);
  if (!match) throw new Error(`unknown set ${JSON.stringify(setName)}`);
  return Number(match[1]);
}

/** The seed_algorithm a match on that set names in match_created. */
export const algorithmFor = (setName = DEFAULT_SET) => (topOf(setName) === 6 ? ALGORITHM : ANY_SET_ALGORITHM);

/** The set's tiles in canonical order: 0-0, 1-0, 1-1, 2-0, ... top-top, each [high, low]. */
export function canonicalTiles(top = 6) {
  const tiles = [];
  for (let high = 0; high <= top; high++) for (let low = 0; low <= high; low++) tiles.push([high, low]);
  return tiles;
}

function* words(seed, label) {
  const key = Buffer.from(seed, "utf8");
  const prefix = Buffer.concat([Buffer.from(label, "utf8"), Buffer.from([0])]);
  for (let counter = 0; ; counter++) {
    const be = Buffer.alloc(4);
    be.writeUInt32BE(counter);
    const block = createHmac("sha256", key).update(Buffer.concat([prefix, be])).digest();
    for (let offset = 0; offset < 32; offset += 4) yield block.readUInt32BE(offset);
  }
}

/** The set's tiles (top 6: the 28 of double-six) in the order `seed` (the deal seed) and `label`
 * ("hand:k", "turn-up") give. */
export function shuffledTiles(seed, label, top = 6) {
  const order = canonicalTiles(top);
  const stream = words(seed, label);
  const two32 = 2 ** 32;
  for (let i = order.length - 1; i >= 1; i--) {
    const n = i + 1;
    const limit = two32 - (two32 % n);
    let u = stream.next().value;
    while (u >= limit) u = stream.next().value;
    const j = u % n;
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

export function sha256Hex(text) {
  return createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");
}

/** SHA-256 of the server seed, published in match_created before any play. */
export const seedCommitment = (serverSeed) => sha256Hex(serverSeed);

/** The server seed alone, or mixed with every seat's client seed (length-prefixed, in seat order). */
export function dealSeed(serverSeed, clientSeeds) {
  if (!clientSeeds.some((s) => s)) return serverSeed;
  const hash = createHash("sha256");
  for (const part of [serverSeed, ...clientSeeds.map((s) => s || "")]) {
    const bytes = Buffer.from(part, "utf8");
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length);
    hash.update(bytes);
  }
  return hash.digest("hex");
}
