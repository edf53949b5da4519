/**
 * A name server on a local UDP port for the lookups' tests (RFC 1035 §4): it answers A and AAAA
 * queries for the names it is given, NXDOMAIN for other names, and never answers a name under
 * `never.test`, like a tenant's name server that drops every query. It counts the queries it gets.
 */
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

export interface LocalDns {
  /** `127.0.0.1:<port>`, for Resolver.setServers. */
  server: string;
  /** Queries received per name (lower case). */
  asked: Map<string, number>;
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

/** Starts the server; `names` maps a name to its addresses (IPv4 and IPv6 mixed). */
export async function startLocalDns(names: Record<string, string[]>): Promise<LocalDns> {
  const asked = new Map<string, number>();
  const socket = createSocket('udp4');
  socket.on('message', (query, from) => {
    const q = readQuestion(query);
    if (!q) return;
    asked.set(q.name, (asked.get(q.name) ?? 0) + 1);
    if (q.name === 'never.test' || q.name.endsWith('.never.test')) return;
    const known = names[q.name];
    const answers = (known ?? []).filter((a) => (q.type === TYPE_A ? !a.includes(':') : q.type === TYPE_AAAA && a.includes(':')));
    socket.send(answer(query, q.end, known ? 0 : 3, q.type, answers), from.port, from.address);
  });
  await new Promise<void>((ok) => socket.bind(0, '127.0.0.1', ok));
  return {
    server: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    asked,
    close: () => new Promise<void>((ok) => socket.close(() => ok())),
  };
}

/** The first question's name and type, and where the question ends. */
function readQuestion(msg: Buffer): { name: string; type: number; end: number } | null {
  let at = 12;
  const labels: string[] = [];
  while (at < msg.length) {
    const len = msg[at]!;
    if (len === 0) break;
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('latin1'));
    at += 1 + len;
  }
  if (at + 5 > msg.length) return null;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at + 1), end: at + 5 };
}

/** The reply: the query's id and question, `rcode`, and one record per address. */
function answer(query: Buffer, questionEnd: number, rcode: number, type: number, addresses: string[]): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180 | rcode, 2); // a response, recursion desired and available
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((a) => {
    const data = type === TYPE_A ? Buffer.from(a.split('.').map(Number)) : ipv6Bytes(a);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the question's name
    rr.writeUInt16BE(type, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(60, 6);
    rr.writeUInt16BE(data.length, 10);
    return Buffer.concat([rr, data]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}
