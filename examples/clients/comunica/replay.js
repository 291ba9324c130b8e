'use strict';
// Replays a pacing-lab scenario's queries through Comunica 5.4's own HTTP actors, so the real
// client can be recorded beside the lab's `comunica` model of it:
//
//   pacing-lab record scenarios/kgf-burst.json --out out -- \
//     examples/clients/node_modules/.bin/node examples/clients/comunica/replay.js scenarios/kgf-burst.json
//
// The actors are wired as @comunica/query-sparql 5.4.1's default engine (engine-default.js) wires
// them: same constructor arguments, created in the same order, on a bus ordered by the same
// beforeActors links, so its MediatorNumber ("time", min) picks
// limit-rate -> retry-body -> retry -> proxy -> fetch, each wrapper calling that mediator again.
// The engine's main mediator sits on a fallback bus holding actor-http-wayback, a pass-through
// unless recoverBrokenLinks is set; it is wired here too. The script checks the order at start.
//
// The scenario's requests are issued when it says (start + at + i * every), with the context the
// lab's model reads: client.timeout -> httpTimeout, context.retryCount (else client.retries) ->
// httpRetryCount, retryDelayLimit, retryDelayFallback, retryStatusCodes. Requests go straight to
// the lab's servers (PACING_LAB_SERVERS), as Comunica's fetch (Node's undici) does not use an
// HTTP proxy. At the scenario's `until` whatever is unfinished is counted aborted and the process
// ends. One JSON line on stdout says what the client saw.

const fs = require('node:fs');
const { ActionContext, Bus } = require('@comunica/core');
const { MediatorNumber } = require('@comunica/mediator-number');
const { ActorHttpInvalidateListenable } = require('@comunica/bus-http-invalidate');
const { KeysHttp } = require('@comunica/context-entries');
const { ActorHttpFetch } = require('@comunica/actor-http-fetch');
const { ActorHttpProxy } = require('@comunica/actor-http-proxy');
const { ActorHttpRetry } = require('@comunica/actor-http-retry');
const { ActorHttpLimitRate } = require('@comunica/actor-http-limit-rate');
const { ActorHttpRetryBody } = require('@comunica/actor-http-retry-body');
const { ActorHttpWayback } = require('@comunica/actor-http-wayback');

const kEngineOrder = ['limit-rate', 'retry-body', 'retry', 'proxy', 'fetch'];

/// The HTTP part of Comunica's default engine; returns its main mediator.
function defaultEngineHttp() {
  const failMessage = 'HTTP request failed: none of the configured actors were able to handle ${action.input}';
  const httpBus = new Bus({ name: 'ActorHttp_default_bus' });
  const fallbackBus = new Bus({ name: 'ActorHttp_fallback_bus' });
  const invalidateBus = new Bus({ name: 'ActorHttpInvalidate_default_bus' });
  const invalidator = name => new ActorHttpInvalidateListenable({
    name: `${name}_default_invalidator`, bus: invalidateBus,
    busFailMessage: 'HTTP invalidation failed: none of the configured actors were able to invalidate ${action.url}',
  });
  const mediator = bus => new MediatorNumber({ field: 'time', type: 'min', ignoreFailures: true, name: `${bus.name}_mediator`, bus });
  const noFallback = mediator(httpBus);
  const main = mediator(fallbackBus);
  new ActorHttpWayback({ mediatorHttp: noFallback, name: 'urn:comunica:default:http/actors#wayback', bus: fallbackBus, busFailMessage: failMessage });
  const fetch = new ActorHttpFetch({
    cacheMaxSize: 104857600, cacheMaxCount: 1000, cacheMaxEntrySize: 5242880,
    httpInvalidator: invalidator('fetch'), agentOptions: { keepAlive: true, maxSockets: 5 },
    name: 'urn:comunica:default:http/actors#fetch', bus: httpBus, busFailMessage: failMessage,
  });
  const proxy = new ActorHttpProxy({ mediatorHttp: main, name: 'urn:comunica:default:http/actors#proxy', bus: httpBus, busFailMessage: failMessage, beforeActors: [fetch] });
  const retry = new ActorHttpRetry({ mediatorHttp: main, httpInvalidator: invalidator('retry'), name: 'urn:comunica:default:http/actors#retry', bus: httpBus, busFailMessage: failMessage, beforeActors: [proxy] });
  new ActorHttpLimitRate({
    mediatorHttp: main, httpInvalidator: invalidator('limit-rate'),
    correctionMultiplier: 0.1, failureMultiplier: 10, limitByDefault: false, allowOverlap: false,
    name: 'urn:comunica:default:http/actors#limit-rate', bus: httpBus, busFailMessage: failMessage, beforeActors: [proxy],
  });
  new ActorHttpRetryBody({ mediatorHttp: main, name: 'urn:comunica:default:http/actors#retry-body', bus: httpBus, busFailMessage: failMessage, beforeActors: [retry] });
  const order = httpBus.actors.map(a => a.name.replace(/.*#/u, ''));
  if (order.join() !== kEngineOrder.join()) {
    throw new Error(`the HTTP bus is ordered ${order.join(', ')}, not as the default engine: ${kEngineOrder.join(', ')}`);
  }
  return main;
}

/// Seconds as the lab writes them (a number) to milliseconds; undefined stays undefined.
const ms = seconds => (seconds === undefined || seconds === null ? undefined : seconds * 1000);

function contextFor(scenario, query) {
  const client = scenario.client ?? {};
  const given = query.context ?? {};
  const entries = {};
  const timeout = client.timeout ?? 30;  // the lab's default; 0: none
  if (timeout > 0) entries[KeysHttp.httpTimeout.name] = ms(timeout);
  const retries = given.retryCount ?? client.retries;
  if (retries !== undefined && retries !== null) entries[KeysHttp.httpRetryCount.name] = retries;
  if (given.retryDelayLimit !== undefined) entries[KeysHttp.httpRetryDelayLimit.name] = ms(given.retryDelayLimit);
  if (given.retryDelayFallback !== undefined) entries[KeysHttp.httpRetryDelayFallback.name] = ms(given.retryDelayFallback);
  if (given.retryStatusCodes !== undefined) entries[KeysHttp.httpRetryStatusCodes.name] = given.retryStatusCodes;
  return new ActionContext(entries);
}

function main() {
  const [file] = process.argv.slice(2);
  if (!file) {
    console.error('usage: replay.js SCENARIO.json (run under pacing-lab record, which sets PACING_LAB_SERVERS)');
    process.exit(2);
  }
  const scenario = JSON.parse(fs.readFileSync(file, 'utf8'));
  // Host -> "127.0.0.1:PORT"; without it the scenario's host names are used as they are.
  const servers = JSON.parse(process.env.PACING_LAB_SERVERS ?? '{}');
  if (scenario.clients) throw new Error('replay.js plays one client; the scenario has populations (clients)');
  const mediator = defaultEngineHttp();
  const seen = { requests: 0, succeeded: 0, answered_other: 0, gave_up: 0, failed: 0, aborted: 0, statuses: {}, errors: {} };
  let pending = 0;
  let next = 0;
  const started = performance.now();
  const finish = () => {
    seen.aborted = pending;
    seen.elapsed = Math.round(performance.now() - started) / 1000;
    process.stdout.write(`${JSON.stringify(seen)}\n`);
    process.exit(0);
  };
  let issued = 0;
  const issue = async (url, init, context) => {
    ++issued;
    ++pending;
    try {
      const response = await mediator.mediate({ input: url, init, context });
      await response.text();  // as a query engine does: it reads what it asked for
      seen.statuses[response.status] = (seen.statuses[response.status] ?? 0) + 1;
      if (response.ok) ++seen.succeeded; else ++seen.answered_other;
    } catch (error) {
      // The retry actor's own verdict (retries ran out, a delay past the limit) is a bare
      // "Request failed: URL"; anything else (timeout, network) was thrown by fetch.
      const message = String(error?.message ?? error);
      if (message.startsWith('Request failed')) ++seen.gave_up; else ++seen.failed;
      const kind = message.replace(/https?:\/\/\S+/gu, 'URL').replace(/\d+ ms/u, 'N ms');
      seen.errors[kind] = (seen.errors[kind] ?? 0) + 1;
    }
    --pending;
  };
  for (const query of scenario.queries ?? []) {
    const context = contextFor(scenario, query);
    for (const r of query.requests) {
      const base = servers[r.host] ?? r.host;
      for (let i = 0; i < (r.count ?? 1); ++i) {
        const at = 1000 * ((query.start ?? 0) + (r.at ?? 0) + i * (r.every ?? 0));
        // One query string per request, so a recording can follow a request's attempts.
        const url = `http://${base}${r.path ?? '/'}${(r.path ?? '/').includes('?') ? '&' : '?'}request=${next++}`;
        const init = { method: r.method ?? 'GET', headers: { ...r.headers, ...(r.heavy ? { 'X-Heavy': '1' } : {}) } };
        ++seen.requests;
        setTimeout(() => { issue(url, init, context); }, Math.max(0, at - (performance.now() - started)));
      }
    }
  }
  // Ends at the scenario's `until` (as the lab's runs do), or as soon as every request is done.
  const until = 1000 * (scenario.until ?? 3600);
  setTimeout(finish, until);
  setInterval(() => {
    if (issued === seen.requests && pending === 0) finish();
  }, 20).unref();
}

main();
