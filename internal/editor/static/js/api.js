// The editor's one way to the API: fetch with the session cookie, the
// X-CSRF-Token header, the site header, If-Match, retries of reads that
// met a busy or unreachable server, and the error envelope as ApiError.

let csrfToken = '';
let siteID = '';

/** setCSRF keeps the session's CSRF token, sent with every request. */
export function setCSRF(token) { csrfToken = token || ''; }

/** setSite names the site requests act on (X-Service-Site). */
export function setSite(id) { siteID = id || ''; }

/** currentSite returns the site requests act on. */
export function currentSite() { return siteID; }

/**
 * ApiError is a failed request: status 0 when the server could not be
 * reached, else the HTTP status with the envelope's message and code.
 */
export class ApiError extends Error {
  constructor(status, body, headers) {
    const msg = body && typeof body.message === 'string' ? body.message
      : status === 0 ? 'The server could not be reached.' : `The server answered ${status}.`;
    super(msg);
    this.status = status;
    this.code = body && body.code != null ? body.code : null;
    this.data = body ? body.data : undefined;
    this.body = body || null;
    this.headers = headers || null;
  }

  /** offline reports whether the request never got an answer. */
  get offline() { return this.status === 0; }

  /** transient reports whether the same request may succeed later. */
  get transient() { return this.status === 0 || this.status === 429 || this.status >= 500; }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** retryDelay is the wait before attempt n (from 1): 0.5 s doubling to 8 s. */
function retryDelay(n, res) {
  const after = res && Number(res.headers.get('Retry-After'));
  if (after > 0 && after < 60) return after * 1000;
  return Math.min(8000, 500 * 2 ** (n - 1));
}

/**
 * request sends one API request and returns {status, data, etag, headers}.
 * path is below /api ("/pages/x"); opts: body (JSON), query (object),
 * ifMatch, retries (default 2 for GET, 0 otherwise: writes are retried by
 * their callers, who know whether a retry is safe), quiet401 (no
 * session-expired event), noSite.
 */
export async function request(method, path, opts = {}) {
  let url = '/api' + path;
  if (opts.query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query)) if (v !== undefined && v !== null) q.set(k, String(v));
    const s = q.toString();
    if (s) url += (url.includes('?') ? '&' : '?') + s;
  }
  const headers = { Accept: 'application/json' };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  if (csrfToken) headers['X-CSRF-Token'] = csrfToken;
  if (siteID && !opts.noSite) headers['X-Service-Site'] = siteID;
  if (opts.ifMatch) headers['If-Match'] = opts.ifMatch;
  if (opts.headers) Object.assign(headers, opts.headers);
  const init = {
    method, headers, credentials: 'same-origin', cache: 'no-store',
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  };
  const retries = opts.retries ?? (method === 'GET' ? 2 : 0);
  for (let attempt = 0; ; attempt++) {
    let res;
    try {
      res = await fetch(url, init);
    } catch (e) {
      if (attempt < retries) { await sleep(retryDelay(attempt + 1)); continue; }
      throw new ApiError(0, null, null);
    }
    if ((res.status === 429 || res.status === 502 || res.status === 503 || res.status === 504) && attempt < retries) {
      await sleep(retryDelay(attempt + 1, res));
      continue;
    }
    let data = null;
    const text = res.status === 204 ? '' : await res.text();
    if (text) {
      try { data = JSON.parse(text); } catch { data = { message: text.slice(0, 200) }; }
    }
    if (!res.ok) {
      const err = new ApiError(res.status, data, res.headers);
      if (res.status === 401 && !opts.quiet401) {
        window.dispatchEvent(new CustomEvent('tessera:unauthorized', { detail: err }));
      }
      throw err;
    }
    return { status: res.status, data, etag: res.headers.get('ETag'), headers: res.headers };
  }
}

export const get = (path, opts) => request('GET', path, opts);
export const post = (path, body, opts = {}) => request('POST', path, { ...opts, body: body ?? {} });
export const put = (path, body, opts = {}) => request('PUT', path, { ...opts, body });
export const del = (path, opts) => request('DELETE', path, opts);

/** pagePath is the API path of a page by id, with an optional tail. */
export function pagePath(id, tail = '') {
  return '/pages/' + encodeURIComponent(id) + tail;
}

/** itemPath is a batch path segment for a slug: spaces and pluses escaped. */
export function seg(slug) {
  return encodeURIComponent(slug);
}

export const patch = (path, body, opts = {}) => request('PATCH', path, { ...opts, body });

/** channelPath is the API path of a channel by slug or id, with an optional tail. */
export function channelPath(ref, tail = '') {
  return '/channels/' + encodeURIComponent(ref) + tail;
}

/** entryPath is the API path of an entry of a channel, with an optional tail. */
export function entryPath(channel, entry, tail = '') {
  return channelPath(channel, '/entries/' + encodeURIComponent(entry) + tail);
}

/** FULL asks for the full file shape (size, width, height) in entry and upload reads. */
export const FULL = { 'X-Service-Client-Version': 'tessera-editor' };

/** total reads a list answer's X-Total-Count. */
export function total(res) {
  return Number(res.headers.get('X-Total-Count') || 0);
}

/** csrf returns the session's CSRF token, for requests made without request() (uploads with progress). */
export function csrf() { return csrfToken; }
