#!/usr/bin/env bash
# A whole Boneyard bot in curl and jq: seat 0 against the server's expert, first legal action.
set -euo pipefail
S=${BONEYARD_SERVER:-http://127.0.0.1:8000}
RULES=${BONEYARD_RULES:-'{}'}   # the preset's own, or e.g. BONEYARD_RULES='{"target": 50}'
JSON='Content-Type: application/json'
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"

# 1. create a match: the answer holds our seat's token (shown this once)
#    (2. or claim an open seat: POST $S/v1/matches/$ID/seats/1/claim {"name": "me"} -> .token)
curl -sf -X POST "$S/v1/matches" -H "$JSON" \
     -d '{"seats": [{"name": "curl", "type": "remote"}, {"name": "cpu", "type": "bot", "level": "expert"}],
          "rules": '"$RULES"'}' \
     > created.json
ID=$(jq -r .id created.json)
AUTH="Authorization: Bearer $(jq -r '.seats[0].token' created.json)"
etag=""

while :; do
  # 3. the view; If-None-Match makes an unchanged one a bodiless 304 (keep the last)
  code=$(curl -s -o new.json -D head.txt -w '%{http_code}' -H "$AUTH" \
              ${etag:+-H "If-None-Match: $etag"} "$S/v1/matches/$ID/view")
  case $code in
    200) mv new.json view.json; etag=$(grep -i '^etag:' head.txt | cut -d' ' -f2 | tr -d '\r') ;;
    304) ;;
    *) cat new.json >&2; exit 1 ;;              # invalid_token, unknown_match...: give up
  esac
  [ "$(jq -r .status view.json)" = ended ] && break
  action=$(jq -c '.legal_actions[0] // empty' view.json)
  [ -z "$action" ] && { sleep 0.1; continue; }  # not our move yet (or no opponent yet)
  # 4. act: If-Match = "only on what I saw" (else 412: look again), and an
  #    Idempotency-Key so a retried post is applied once
  curl -s -o /dev/null -X POST "$S/v1/matches/$ID/actions" -H "$AUTH" -H "$JSON" -H "If-Match: $etag" \
       -H "Idempotency-Key: $(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" -d "$action"
done

jq -c '{match_id, scores, winner}' view.json
# 5. after the end: the server re-deals from the revealed seed and re-checks every move
curl -sf "$S/v1/matches/$ID/fairness" | jq -c '{verified}'
