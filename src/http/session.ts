// A request's D1 session (primary or replica) and the X-D1-Bookmark header both ways.
import { sessionDatabase, type SessionDb, type SessionStart } from '../db/client';
import { badRequest, type ApiError } from './errors';

/**
 * The D1 bookmark both ways (D1 Sessions API): a response carries the latest database state its request read
 * or wrote; a request that sends it back reads at least that fresh. Only the operator's requests answer one: a
 * bookmark is a position in the whole database's commit log, so between two of a platform's requests it would
 * advance by every other platform's writes, and a platform's requests always read at the primary, needing none.
 */
const BOOKMARK_HEADER = 'X-D1-Bookmark';

// D1's bookmark: four hex fields (lexicographically ordered); anything else would fail deep inside D1.
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

interface RequestSession extends SessionDb {
  /** A malformed bookmark header: the route refuses it (400) where it refuses invalid input. */
  refused?: ApiError;
  /** Whether the response carries the session's bookmark (the operator's requests only). */
  answersBookmark: boolean;
}

/**
 * The request's database: one D1 session, which may serve reads from a replica near the user. Everything
 * that must see the latest write starts at the primary: every request that authenticates a stored credential
 * (a deleted token fails on the next request; authentication shares the first round trip with the route's
 * loads) and every write (balances, claims and conditional writes decide there). Only a read that trusts no
 * stored credential starts anywhere, at least as fresh as the bookmark it sends back.
 */
export function requestSession(d1: D1Database, request: Request, auth: 'none' | 'basic' | 'agent' | 'operator'): RequestSession {
  const sent = request.headers.get(BOOKMARK_HEADER);
  const valid = sent !== null && BOOKMARK.test(sent) ? sent : undefined;
  const refused =
    sent !== null && !valid
      ? badRequest(`Invalid ${BOOKMARK_HEADER} header: send back a value a response gave, or none`, {
          fields: [{ field: BOOKMARK_HEADER, message: 'Not a D1 bookmark' }],
        })
      : undefined;
  const primary = auth === 'basic' || auth === 'agent' || request.method !== 'GET';
  const start: SessionStart = primary ? 'first-primary' : (valid ?? 'first-unconstrained');
  return { ...sessionDatabase(d1, start), refused, answersBookmark: auth === 'operator' };
}

/** The response with the session's bookmark, when it is the operator's and the request reached the database. */
export function withBookmark(response: Response, session: RequestSession): Response {
  const bookmark = session.answersBookmark ? session.bookmark() : null;
  if (bookmark) response.headers.set(BOOKMARK_HEADER, bookmark);
  return response;
}
