'use strict';
// A real Node client: fetch in a loop, retrying a refusal once its Retry-After has passed.
//
//   pacing-lab record SCENARIO --out DIR -- node examples/clients/node_fetch.js URL [URL...]
//
// Node's fetch (undici) does not use HTTP_PROXY, so the URL's host is looked up in
// PACING_LAB_SERVERS (host -> "127.0.0.1:PORT", set by `record`) and the request goes there, the
// URL's host still in its Host field. Up to 3 retries per URL; exit 1 when any did not end in 2xx.

const servers = JSON.parse(process.env.PACING_LAB_SERVERS || '{}');

function direct(url) {
  const u = new URL(url);
  const address = servers[u.host];
  return address ? `http://${address}${u.pathname}${u.search}` : url;
}

async function fetchWithRetry(url) {
  for (let attempt = 0; ; ++attempt) {
    const response = await fetch(direct(url), { headers: { 'X-Client-Id': 'node-fetch' } });
    await response.arrayBuffer();
    if (![429, 503].includes(response.status) || attempt === 3) return response.status;
    const wait = Number(response.headers.get('retry-after'));
    await new Promise(resolve => setTimeout(resolve, Number.isFinite(wait) ? wait * 1000 : 100));
  }
}

(async () => {
  let failed = 0;
  for (const url of process.argv.slice(2)) {
    const status = await fetchWithRetry(url);
    console.log(url, status);
    if (status < 200 || status >= 300) ++failed;
  }
  process.exit(failed ? 1 : 0);
})();
