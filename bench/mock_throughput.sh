#!/usr/bin/env bash
# Mock-server throughput on loopback, measured with wrk: a host answering 200 at once and a host
# refusing every request with 429, each straight and through the proxy while every exchange is
# recorded (serve --proxy --record); then how long writing that recording takes, and its peak
# memory. Prints requests/s for each. Run after building pacing-lab.
#   bash bench/mock_throughput.sh [build-dir] [connections, default 32]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
connections=${2:-32}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
scenario=$(mktemp --suffix=.json)
ports=$(mktemp)
record=$(mktemp -d)
server=
trap 'kill $server 2>/dev/null; rm -rf "$scenario" "$ports" "$record"' EXIT
cat > "$scenario" <<'JSON'
{"name": "throughput",
 "servers": {"ok.example.org": {"model": "sequence", "responses": [{"status": 200, "body": "ok"}]},
             "refuse.example.org": {"model": "sequence", "responses": [{"status": 429}]}}}
JSON
measure() {  # measure PORT HOST LABEL
  local rate
  rate=$(wrk -t2 -c"$connections" -d5s -H "Host: $2" "http://127.0.0.1:$1/sparql" |
    awk '/Requests\/sec/ {print $2}')
  echo "$3: $rate requests/s (wrk -t2 -c$connections -d5s, keep-alive)"
}
"$build/pacing-lab" serve "$scenario" > "$ports" &
server=$!
for _ in $(seq 50); do [ "$(wc -l < "$ports")" -ge 2 ] && break; sleep 0.1; done
for host in ok.example.org refuse.example.org; do
  measure "$(awk -v h="$host" '$1 == h {print $2}' "$ports")" "$host" "$host"
done
kill -TERM $server; wait $server 2>/dev/null || true
# The same through the proxy, every exchange recorded (origin-form with Host: routed by Host).
/usr/bin/time -f "%M" -o "$record/peak" "$build/pacing-lab" serve "$scenario" --proxy 0 \
  --record "$record/rec" > "$ports" &
server=$!
for _ in $(seq 50); do grep -q '^proxy ' "$ports" && break; sleep 0.1; done
proxy=$(awk '$1 == "proxy" {print $2}' "$ports")
for host in ok.example.org refuse.example.org; do
  measure "$proxy" "$host" "$host through the proxy, recorded"
done
begin=$(date +%s.%N)
pkill -TERM -P $server  # serve itself: GNU time would not pass the signal on
pid=$server
server=
while kill -0 $pid 2>/dev/null; do sleep 0.05; done
end=$(date +%s.%N)
exchanges=$(wc -l < "$record/rec/trace.jsonl")
echo "recording of $exchanges exchanges written in $(echo "$end - $begin" | bc) s" \
  "(result.json $(stat -c %s "$record/rec/result.json") bytes, trace $(stat -c %s "$record/rec/trace.jsonl")" \
  "bytes); serve's peak memory $(($(cat "$record/peak") / 1024)) MiB"
