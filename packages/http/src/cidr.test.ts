import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseCidr } from './cidr.js';

describe('parseCidr', () => {
  it('reads addresses and CIDRs of both families', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('203.0.113.7')).toEqual({ address: '203.0.113.7', prefix: 32, family: 'ipv4' });
    expect(parseCidr('2001:db8::/32')).toEqual({ address: '2001:db8::', prefix: 32, family: 'ipv6' });
    expect(parseCidr('::1')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' });
    expect(parseCidr('0.0.0.0/0')).toEqual({ address: '0.0.0.0', prefix: 0, family: 'ipv4' });
  });

  it('refuses what is not one: an empty prefix is not /0', () => {
    for (const bad of [
      '10.0.0.0/',
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/8/8',
      '10.0.0.0/-1',
      '10.0.0.0/ 8',
      '1',
      'true',
    ])
      expect(parseCidr(bad), bad).toBeUndefined();
    for (const bad of ['example.com', 'localhost', '', '/8', '10.0.0/8', '10.0.0.0/0x8', '10.0.0.0/1e1'])
      expect(parseCidr(bad), bad).toBeUndefined();
  });

  it('gives what BlockList.addSubnet takes', () => {
    const list = new BlockList();
    const c = parseCidr('192.168.0.0/16')!;
    list.addSubnet(c.address, c.prefix, c.family);
    expect(list.check('192.168.4.5', 'ipv4')).toBe(true);
    expect(list.check('192.169.0.1', 'ipv4')).toBe(false);
  });
});
