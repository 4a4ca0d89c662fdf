import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';

export interface DnsQuery {
  name: string;
  type: 'A' | 'AAAA' | 'other';
}

/** What the stand-in does with a query: answer these addresses (maybe none), or never answer. */
export type DnsAnswer = string[] | 'silent';

/**
 * A real DNS server on 127.0.0.1 (UDP), small enough to read: it answers A and AAAA questions
 * as the test says, and can stay silent, as a slow or broken name server does.
 */
export class DnsStandIn {
  readonly queries: DnsQuery[] = [];
  private socket?: Socket;
  address = '';

  constructor(private readonly answer: (query: DnsQuery) => DnsAnswer) {}

  async start(): Promise<this> {
    this.socket = createSocket('udp4');
    this.socket.on('message', (message, remote) => {
      const query = parseQuery(message);
      this.queries.push(query);
      const answer = this.answer(query);
      if (answer === 'silent') return;
      const wanted = answer.filter((a) => isIP(a) === (query.type === 'A' ? 4 : query.type === 'AAAA' ? 6 : 0));
      this.socket!.send(buildResponse(message, wanted), remote.port, remote.address);
    });
    await new Promise<void>((ok) => this.socket!.bind(0, '127.0.0.1', ok));
    this.address = `127.0.0.1:${this.socket.address().port}`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((ok) => (this.socket ? this.socket.close(() => ok()) : ok()));
  }
}

function questionEnd(message: Buffer): number {
  let offset = 12;
  while (message[offset] !== 0) offset += message[offset] + 1;
  return offset + 1 + 4; // the root label, then QTYPE and QCLASS
}

function parseQuery(message: Buffer): DnsQuery {
  const labels: string[] = [];
  let offset = 12;
  while (message[offset] !== 0) {
    labels.push(message.subarray(offset + 1, offset + 1 + message[offset]).toString('ascii'));
    offset += message[offset] + 1;
  }
  const qtype = message.readUInt16BE(offset + 1);
  return { name: labels.join('.').toLowerCase(), type: qtype === 1 ? 'A' : qtype === 28 ? 'AAAA' : 'other' };
}

function buildResponse(query: Buffer, addresses: string[]): Buffer {
  const question = query.subarray(12, questionEnd(query));
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the query's id
  header.writeUInt16BE(0x8180, 2); // response, recursion desired and available, no error
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const v6 = isIP(address) === 6;
    const rdata = v6 ? ipv6Bytes(address) : Buffer.from(address.split('.').map(Number));
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(v6 ? 28 : 1, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([record, rdata]);
  });
  return Buffer.concat([header, question, ...records]);
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const parts = (s: string) => (s ? s.split(':') : []);
  const groups = [...parts(head), ...Array(8 - parts(head).length - parts(tail).length).fill('0'), ...parts(tail)];
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}
