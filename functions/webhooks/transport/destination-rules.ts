import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface RuleOptions {
  allowPrivate: boolean;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;

// RFC 6761 / 6762 / 8375 / 9476 special-use names, plus suffixes that only ever mean "inside a network".
const RESERVED_SUFFIXES = [
  'localhost', 'local', 'internal', 'home.arpa', 'arpa', 'invalid', 'test', 'example',
  'onion', 'alt', 'localdomain', 'lan', 'intranet', 'corp', 'home', 'private',
];

// The local stack's receivers; `new URL` has already lower-cased and normalised these.
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
// Any of the loose IPv4 spellings that resolvers and URL parsers accept: 127.1, 0x7f.1, 0177.0.0.1, 2130706433.
const NUMERIC_HOST = /^(?:0x[0-9a-f]*|\d+)(?:\.(?:0x[0-9a-f]*|\d+))*\.?$/i;

/** Create/update check and the first step of every attempt. */
export function checkDestinationUrl(raw: string, options: RuleOptions): UrlCheck {
  const parsed = parseUrl(raw);
  if (!parsed.ok) return parsed;
  const url = parsed.url;
  if (options.allowPrivate && LOCAL_HOSTS.has(url.hostname)) return parsed;
  if (url.protocol !== 'https:') return refuse('the URL must use https');
  // `new URL` drops the scheme's default port, so an explicit :443 also ends up empty here.
  if (url.port !== '') return refuse('the URL must use port 443');
  return checkPublicName(url, raw);
}

/**
 * allowPrivate only: a named local receiver (e.g. `http://receiver.localtest:4567/`) may use http and
 * any port, provided every address it resolves to is loopback — sendAttempt enforces that part.
 */
export function checkLocalDestinationUrl(raw: string): UrlCheck {
  const parsed = parseUrl(raw);
  if (!parsed.ok) return parsed;
  return checkPublicName(parsed.url, raw);
}

export function checkResolvedAddress(address: string, options: RuleOptions): { ok: true } | { ok: false; reason: string } {
  // net.isIP is strict (no 0x7f.1 forms), which is what a resolver answer must look like.
  if (typeof address !== 'string' || isIP(address) === 0) return refuse(`not an IP address: ${String(address)}`);
  const ip = ipaddr.parse(address);
  if (options.allowPrivate && isLoopback(ip)) return { ok: true };
  const range = ip.range();
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (range === 'ipv4Mapped' || range === 'rfc6145') {
      // ipaddr.js converts only ::ffff:a.b.c.d; the RFC 6145 form ::ffff:0:a.b.c.d throws there,
      // so the embedded address is read from the last 32 bits for both.
      const inner = embeddedIPv4(v6);
      return refuse(`${address} is an IPv4-${range === 'rfc6145' ? 'translated' : 'mapped'} address (${inner.toString()}, ${inner.range()})`);
    }
    // ::a.b.c.d (deprecated IPv4-compatible) is "unicast" to ipaddr.js, but some stacks still route it to IPv4.
    if (range === 'unicast' && v6.parts.slice(0, 6).every((part) => part === 0)) {
      return refuse(`${address} is an IPv4-compatible IPv6 address`);
    }
  }
  if (range !== 'unicast') return refuse(`${address} is not a public address (${range})`);
  return { ok: true };
}

export function isLoopbackAddress(address: string): boolean {
  return isIP(address) !== 0 && isLoopback(ipaddr.parse(address));
}

function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 {
  const [high, low] = v6.parts.slice(6);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function isLoopback(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (ip.kind() === 'ipv4') return ip.range() === 'loopback';
  const v6 = ip as ipaddr.IPv6;
  if (v6.range() === 'ipv4Mapped' || v6.range() === 'rfc6145') return embeddedIPv4(v6).range() === 'loopback';
  return v6.range() === 'loopback';
}

function parseUrl(raw: string): UrlCheck {
  if (typeof raw !== 'string' || raw.length === 0) return refuse('the URL is empty');
  if (raw.length > MAX_URL_LENGTH) return refuse(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  // `new URL` silently strips or rewrites these (a backslash becomes a slash); a stored URL should be exactly what is used.
  if (/[\s\u0000-\u001f\u007f\\]/.test(raw)) return refuse('the URL contains whitespace, control characters or backslashes');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('the URL is not valid');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return refuse('the URL must use https');
  if (url.username !== '' || url.password !== '' || rawAuthority(raw).includes('@')) {
    return refuse('the URL must not contain credentials');
  }
  return { ok: true, url };
}

function checkPublicName(url: URL, raw: string): UrlCheck {
  const hostname = url.hostname;
  const rawHost = hostOfAuthority(rawAuthority(raw));
  if (hostname.startsWith('[') || rawHost.startsWith('[') || isIpLike(hostname) || isIpLike(rawHost)) {
    return refuse('the URL must use a DNS name, not an IP address');
  }
  if (hostname.endsWith('.')) return refuse('the host name must not end with a dot');
  if (hostname.length > 253) return refuse('the host name is too long');
  const labels = hostname.split('.');
  if (labels.length < 2) return refuse('the host name must be a public DNS name (single-label names are not allowed)');
  if (!labels.every((label) => LABEL.test(label))) return refuse('the host name is not a valid DNS name');
  if (!TLD.test(labels[labels.length - 1])) return refuse('the host name does not end in a plausible top-level domain');
  const reserved = RESERVED_SUFFIXES.find((suffix) => hostname === suffix || hostname.endsWith(`.${suffix}`));
  if (reserved) return refuse(`the host name uses the reserved name .${reserved}`);
  return { ok: true, url };
}

function isIpLike(host: string): boolean {
  return host !== '' && (ipaddr.isValid(host) || NUMERIC_HOST.test(host));
}

function rawAuthority(raw: string): string {
  // WHATWG parsing treats backslashes like slashes for http(s), so split on both.
  const match = /^[a-z][a-z0-9+.-]*:[\\/]*([^\\/?#]*)/i.exec(raw);
  return match ? match[1] : '';
}

function hostOfAuthority(authority: string): string {
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (host.startsWith('[')) return host;
  const colon = host.lastIndexOf(':');
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
}

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
