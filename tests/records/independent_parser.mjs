// An independent reader of boneyard-record/1, written from docs/records.md alone: the reader and
// canonical writer are clients/js/record_text.mjs (plain Node, no code of the server's).
//
//   node independent_parser.mjs RECORD...
//
// prints a JSON array, one entry per record: its tags (in order), its elements, and the record
// written again in the canonical form of the document (section "The canonical form"). A record
// that departs from the grammar: "FILE:LINE:COLUMN: message" on stderr, exit 1.

import { readFileSync } from "node:fs";
import { RecordError, readRecord, writeRecord } from "../../clients/js/record_text.mjs";

const out = [];
for (const path of process.argv.slice(2)) {
  try {
    const record = readRecord(readFileSync(path, "utf8"));
    out.push({ path, ...record, canonical: writeRecord(record) });
  } catch (error) {
    if (!(error instanceof RecordError)) throw error;
    process.stderr.write(`${path}:${error.message}\n`);
    process.exit(1);
  }
}
process.stdout.write(JSON.stringify(out));
