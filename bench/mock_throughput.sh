#!/usr/bin/env bash
# Mock-server throughput on loopback, measured with wrk: a host answering 200 at once and a host
# refusing every request with 429. Prints requests/s for each. Run after building pacing-lab.
#   bash bench/mock_throughput.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
scenario=$(mktemp --suffix=.json)
ports=$(mktemp)
trap 'kill $server 2>/dev/null; rm -f "$scenario" "$ports"' EXIT
cat > "$scenario" <<'JSON'
{"name": "throughput",
 "servers": {"ok.example.org": {"model": "sequence", "responses": [{"status": 200, "body": "ok"}]},
             "refuse.example.org": {"model": "sequence", "responses": [{"status": 429}]}}}
JSON
"$build/pacing-lab" serve "$scenario" > "$ports" &
server=$!
for _ in $(seq 50); do [ "$(wc -l < "$ports")" -ge 2 ] && break; sleep 0.1; done
for host in ok.example.org refuse.example.org; do
  port=$(awk -v h="$host" '$1 == h {print $2}' "$ports")
  rate=$(wrk -t2 -c32 -d5s -H "Host: $host" "http://127.0.0.1:$port/sparql" | awk '/Requests\/sec/ {print $2}')
  echo "$host: $rate requests/s (wrk -t2 -c32 -d5s, keep-alive)"
done
