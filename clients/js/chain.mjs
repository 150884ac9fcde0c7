// The hash chain over stored rows (openapi/events.md, "The hash chain").
import { createHash } from "node:crypto";

export const GENESIS = "0".repeat(64);
export const ROW_FIELDS = ["seq", "schema_version", "prev_hash", "hash"];

/** Sorted keys at every level, no spaces, UTF-8 as is: Python's json.dumps(sort_keys=True,
 *  separators=(",", ":"), ensure_ascii=False) for the integers, strings, booleans and nulls of a log. */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  if (typeof value === "number" && !Number.isInteger(value)) throw new Error(`non-integer number ${value} in a log`);
  return JSON.stringify(value);
}

export function rowHash(prevHash, seq, type, schemaVersion, data) {
  const body = canonicalJson({ seq, type, schema_version: schemaVersion, data });
  return createHash("sha256").update(Buffer.from(`${prevHash}\n${body}`, "utf8")).digest("hex");
}

/** The event data of an /audit row: everything but type, seq and the chain fields. */
export function rowData(row) {
  const data = {};
  for (const [k, v] of Object.entries(row)) if (k !== "type" && !ROW_FIELDS.includes(k)) data[k] = v;
  return data;
}

/** Problems in the rows' chain (empty when sound): seq gaps, broken links, edited contents. */
export function verifyChain(rows) {
  const problems = [];
  let prev = GENESIS;
  rows.forEach((row, index) => {
    const expected = index + 1;
    if (row.seq !== expected) problems.push(`seq ${row.seq} where ${expected} was expected`);
    if (row.prev_hash !== prev) problems.push(`event ${row.seq}: prev_hash does not link to event ${row.seq - 1}`);
    if (row.hash !== rowHash(row.prev_hash, row.seq, row.type, row.schema_version, rowData(row)))
      problems.push(`event ${row.seq}: hash does not match its contents`);
    prev = row.hash;
  });
  return problems;
}
