import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/server.ts';

const server = useServer({ background: 'none' });

describe('/favicon.ico', () => {
  it('answers 204 with no body, cached for a day: no 404 on every page a browser opens', async () => {
    const res = await fetch(`${server.url}/favicon.ico`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
  });
});
