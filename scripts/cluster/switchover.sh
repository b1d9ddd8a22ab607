#!/bin/bash
# A planned switchover away from the current leader through Patroni's REST API (POST /switchover on
# the leader's REST port; Patroni picks the synchronous standby). Answers once the new primary runs.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
leader=$("$here/leader.sh") || { echo "no leader" >&2; exit 1; }
out=$(curl -s -m 60 -w '\n%{http_code}' -X POST -H 'Content-Type: application/json' \
  -d "{\"leader\": \"n$leader\"}" "http://127.0.0.1:$(rest_port "$leader")/switchover")
code=${out##*$'\n'}
echo "${out%$'\n'*}"
[ "$code" = 200 ] || { echo "switchover answered HTTP $code" >&2; exit 1; }
