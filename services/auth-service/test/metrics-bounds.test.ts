/**
 * The auth-service's metric labels take bounded sets of values (docs/security.md "Bounds"): the
 * method (what Node's HTTP parser accepts, a fixed list) and the status. However many paths,
 * clients, accounts and methods callers name, a second round of new ones adds no series.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { svcMetricSeries } from '@svc/testkit';
import { startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;
before(async () => {
  f = await startAuth();
});
after(() => f.close());

/** One request with any method (fetch refuses some), answered or refused by the parser. */
function send(method: string, path: string, body = ''): Promise<number> {
  return new Promise((resolve) => {
    const req = request(`${f.url}${path}`, { method, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'MKCOL', 'PURGE', 'BREW', 'X-CUSTOM'];

/** One round of traffic naming new paths, clients, addresses and codes, each with every method. */
async function traffic(tag: string): Promise<void> {
  for (let i = 0; i < 4; i++) {
    for (const method of METHODS) await send(method, `/${tag}/${i}?client_id=${tag}`);
    await send('POST', '/api/oauth/token', `grant_type=${tag}&client_id=${tag}-${i}`);
    await send('GET', `/api/oauth/authorize?client_id=${tag}-${i}&response_type=code`);
    await send('POST', '/signin', `email=${tag}${i}@example.com&password=x`);
    await send('GET', `/device?code=${tag.toUpperCase()}-${i}`);
  }
}

test('new paths, clients, accounts and methods add no metric series', async () => {
  await traffic('first');
  const before = await svcMetricSeries(f.url);
  await traffic('second');
  const added = [...(await svcMetricSeries(f.url))].filter((s) => !before.has(s));
  assert.deepEqual(added, []);
  for (const s of before) assert.doesNotMatch(s, /first|example\.com/, s);
});
