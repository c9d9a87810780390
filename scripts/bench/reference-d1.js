// Reference Worker for `npm run bench`: one D1 primary-key SELECT per request, answered as JSON.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/setup' && request.method === 'POST') {
      await env.DB.batch([
        env.DB.prepare('CREATE TABLE IF NOT EXISTS items (id TEXT PRIMARY KEY, name TEXT NOT NULL, data TEXT NOT NULL)'),
        ...Array.from({ length: 100 }, (_, i) =>
          env.DB.prepare('INSERT OR REPLACE INTO items (id, name, data) VALUES (?1, ?2, ?3)').bind(
            `item-${i}`,
            `Item ${i}`,
            JSON.stringify({ i }),
          ),
        ),
      ]);
      return new Response('ready');
    }
    const row = await env.DB.prepare('SELECT id, name, data FROM items WHERE id = ?1')
      .bind(url.searchParams.get('id') ?? 'item-42')
      .first();
    return Response.json(row, { status: row ? 200 : 404 });
  },
};
