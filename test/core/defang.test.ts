// Defanging (src/core/defang.ts): a workspace's name quoted in mail links nowhere and still reads the same.
import { describe, expect, it } from 'vitest';
import { defang } from '../../src/core/defang.ts';

describe('defang', () => {
  it('breaks domains and schemes, and leaves plain names alone', () => {
    expect(defang('example.com')).toBe('example[.]com');
    expect(defang('Visit http://evil.example/login')).toBe('Visit hxxp://evil[.]example/login');
    expect(defang('HTTPS://www.bank.co.id')).toBe('hxxps://www[.]bank[.]co[.]id');
    expect(defang('ftp://files.example')).toBe('ftp[://]files[.]example');
    expect(defang('evil\u3002com and evil\uff0ecom')).toBe('evil[.]com and evil[.]com');
    expect(defang('Toko Maju Jaya')).toBe('Toko Maju Jaya');
    expect(defang('PT. Maju, Tbk.')).toBe('PT. Maju, Tbk.');
  });
});
