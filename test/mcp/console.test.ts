import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { ORIGIN } from '../support/api';

describe('the console’s agents view', () => {
  it('is served with the console, and builds the MCP URL and client configurations beside the version base', async () => {
    const res = await SELF.fetch(`${ORIGIN}/console/agents.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/javascript/);
    const js = await res.text();
    expect(js).toContain('/mcp');
    expect(js).toContain('mcp-remote');
    expect(js).toContain('Authorization');
    const app = await (await SELF.fetch(`${ORIGIN}/console/app.js`)).text();
    expect(app).toContain("['agents', 'Agents']");
  });
});
