import { describe, expect, it } from 'vitest';
import {
  checkDestinationUrl,
  checkLocalDestinationUrl,
  checkResolvedAddress,
} from '../../../functions/webhooks/transport/destination-rules.ts';

const strict = { allowPrivate: false };
const local = { allowPrivate: true };

const refusedUrls = [
  // IP literals in every spelling, including those `new URL` rewrites to dotted form
  'https://127.0.0.1/hook',
  'https://8.8.8.8/hook',
  'https://2130706433/hook',
  'https://0177.0.0.1/hook',
  'https://0x7f.1/hook',
  'https://0x7f000001/hook',
  'https://127.1/hook',
  'https://10.1/hook',
  'https://%31%32%37.0.0.1/hook',
  'https://[::1]/hook',
  'https://[2606:4700:4700::1111]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://169.254.169.254/latest/meta-data',
  // credentials
  'https://user:pass@hooks.example-receiver.com/x',
  'https://user@hooks.example-receiver.com/x',
  'https://@hooks.example-receiver.com/x',
  // scheme and port
  'http://hooks.example-receiver.com/x',
  'ftp://hooks.example-receiver.com/x',
  'https://hooks.example-receiver.com:8443/x',
  'https://hooks.example-receiver.com:80/x',
  // local and reserved names
  'https://localhost/hook',
  'https://LOCALHOST/hook',
  'https://api.localhost/hook',
  'https://printer.local/hook',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://router.home.arpa/hook',
  'https://receiver/hook',
  'https://hooks.invalid/x',
  'https://hooks.test/x',
  'https://hooks.example/x',
  'https://localhost./hook',
  'https://hooks.example-receiver.com./x',
  'https://hooks.example-receiver.123/x',
  // malformed or oversized
  'not a url',
  '',
  ' https://hooks.example-receiver.com/x',
  'https://hooks.example-receiver.com/x\n',
  'https://hooks.example-receiver.com\\@evil.example-receiver.com/',
  'https://ｌｏｃａｌｈｏｓｔ/hook',
  `https://hooks.example-receiver.com/${'a'.repeat(2048)}`,
];

const refusedAddresses = [
  '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254',
  '100.64.0.1', '0.0.0.0', '255.255.255.255', '224.0.0.1', '240.0.0.1', '198.18.0.1', '192.0.2.1',
  '::1', '::', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd00:ec2::254', '::ffff:127.0.0.1',
  '::ffff:10.0.0.1', '::ffff:8.8.8.8', '::127.0.0.1', '64:ff9b::a00:1', '64:ff9b:1::1',
  '2002:7f00:1::1', '2001::1', '2001:db8::1', '2001:2::1', '2001:10::1', '2001:20::1', 'ff02::1',
  'fec0::1', '100::1', 'localhost', '0x7f.1', 'not-an-ip', '',
];

describe('checkDestinationUrl refuses', () => {
  it.each(refusedUrls)('%s', (raw) => {
    const result = checkDestinationUrl(raw, strict);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/\w/);
  });
});

describe('checkResolvedAddress refuses', () => {
  it.each(refusedAddresses)('%s', (address) => {
    expect(checkResolvedAddress(address, strict).ok).toBe(false);
  });
});

describe('public destinations pass', () => {
  it.each(['https://hooks.example-receiver.com/x', 'https://api.acme.cl:443/webhooks?x=1', 'https://xn--bcher-kva.de/hook'])(
    '%s',
    (raw) => {
      const result = checkDestinationUrl(raw, strict);
      expect(result).toMatchObject({ ok: true });
      if (result.ok) expect(result.url.protocol).toBe('https:');
    },
  );

  it('an explicit :443 is normalised away', () => {
    const result = checkDestinationUrl('https://api.acme.cl:443/webhooks?x=1', strict);
    expect(result.ok && result.url.host).toBe('api.acme.cl');
  });

  it.each(['93.184.216.34', '2606:4700:4700::1111', '8.8.8.8', '1.1.1.1'])('%s', (address) => {
    expect(checkResolvedAddress(address, strict)).toEqual({ ok: true });
  });
});

describe('allowPrivate (local stack)', () => {
  it.each(['http://127.0.0.1:4567/hook', 'https://127.0.0.1:8443/hook', 'http://localhost:3000/x', 'http://[::1]:9000/x'])(
    'accepts the loopback receiver %s only with allowPrivate',
    (raw) => {
      expect(checkDestinationUrl(raw, local).ok).toBe(true);
      expect(checkDestinationUrl(raw, strict).ok).toBe(false);
    },
  );

  it.each(['http://10.0.0.1:80/hook', 'https://10.0.0.1/hook', 'http://192.168.1.10:4567/', 'https://user:pw@127.0.0.1/'])(
    'still refuses %s',
    (raw) => {
      expect(checkDestinationUrl(raw, local).ok).toBe(false);
    },
  );

  it('accepts loopback addresses but nothing else private', () => {
    expect(checkResolvedAddress('127.0.0.1', local).ok).toBe(true);
    expect(checkResolvedAddress('::1', local).ok).toBe(true);
    for (const address of ['10.0.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', 'fc00::1', '0.0.0.0']) {
      expect(checkResolvedAddress(address, local).ok, address).toBe(false);
    }
  });

  it('checkLocalDestinationUrl relaxes only scheme and port, never the name rules', () => {
    expect(checkLocalDestinationUrl('http://receiver.localtest:4567/').ok).toBe(true);
    expect(checkLocalDestinationUrl('http://10.0.0.1:4567/').ok).toBe(false);
    expect(checkLocalDestinationUrl('http://receiver.internal:4567/').ok).toBe(false);
    expect(checkLocalDestinationUrl('http://u:p@receiver.localtest:4567/').ok).toBe(false);
  });
});

it('the refusal tables are large enough to mean something', () => {
  expect(refusedUrls.length + refusedAddresses.length).toBeGreaterThanOrEqual(40);
});
