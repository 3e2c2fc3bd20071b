// Saving: every edit becomes a batch operation (set, insert, delete, move)
// in one ordered queue. The queue goes to the draft batch, or, on a site
// without drafts, to the live batch with If-Match, in requests of up to
// ten operations. Typing is coalesced (one set per field) and sent after a
// short pause; nothing leaves the queue before the server accepted it, so
// a failed or offline save is retried and no keystroke is lost.

import * as api from './api.js';

const MAX_OPS = 10;
const IDLE_MS = 600;

/** joinPath turns path segments (strings, or Blocks for their ids) into a batch path. */
function joinPath(segs) {
  return '/' + segs.map((s) => (typeof s === 'string' ? encodeURIComponent(s) : s.id)).join('/');
}

function keyOf(segs) {
  return segs.map((s) => (typeof s === 'string' ? s : s.key)).join('\u0000');
}

function ready(op) {
  if (op.segs.some((s) => typeof s !== 'string' && !s.id)) return false;
  if (op.after && !op.after.id) return false;
  return true;
}

function touches(op, block) {
  return op.segs.includes(block) || op.after === block;
}

export class Sync {
  /**
   * opts: pageID, drafts (bool), locale ('' for the default), etag (live
   * mode), and callbacks: onState({state, message, pending}),
   * onSaved(response, ops), onConflict(error) → Promise<'overwrite'|'reload'>,
   * onRejected(op, error), reconcile(ops) → Promise<bool> (whether a
   * request whose answer was lost had been applied).
   */
  constructor(opts) {
    Object.assign(this, opts);
    this.queue = [];
    this.running = false;
    this.paused = false;
    this.timer = 0;
    this.failures = 0;
    this.waiters = [];
    this.onOnline = () => { if (this.failures) this.kick(0); };
    this.onReauth = () => { if (this.paused === 'auth') { this.paused = false; this.kick(0); } };
    window.addEventListener('online', this.onOnline);
    window.addEventListener('tessera:reauthenticated', this.onReauth);
  }

  close() {
    clearTimeout(this.timer);
    window.removeEventListener('online', this.onOnline);
    window.removeEventListener('tessera:reauthenticated', this.onReauth);
  }

  /** pending is the number of operations not yet saved. */
  get pending() { return this.queue.length; }

  /** set saves value at the path; a later set of the same path replaces it while unsent. */
  set(segs, value, onSaved) {
    const key = keyOf(segs);
    const queued = this.queue.find((op) => op.op === 'set' && op.key === key && !op.sending && op.locale === this.locale);
    if (queued) {
      queued.value = value;
      queued.at = Date.now();
      if (onSaved) queued.onSaved = onSaved;
    } else {
      this.queue.push({ op: 'set', segs, key, value, locale: this.locale, onSaved, at: Date.now() });
    }
    this.changed(IDLE_MS);
  }

  /** insert adds block (a Block without id) to the canvas at segs, after the block after (null: first; undefined: last). */
  insert(segs, block, value, after) {
    const op = { op: 'insert', segs: [...segs, 'repeatables'], block, value: { slug: block.slug, ...value }, locale: this.locale };
    if (after !== undefined) op.after = after;
    this.queue.push(op);
    this.changed(0);
  }

  /** remove deletes the block at segs (ending in the Block). */
  remove(segs, block) {
    const idx = this.queue.findIndex((op) => op.op === 'insert' && op.block === block && !op.sending);
    if (idx >= 0) {
      // Never sent: forget it and everything that waited for it.
      this.queue = this.queue.filter((op) => op.block !== block && !touches(op, block));
      this.changed(0);
      return;
    }
    this.queue = this.queue.filter((op) => op.sending || !(op.op === 'set' && op.segs.includes(block)));
    this.queue.push({ op: 'delete', segs, locale: this.locale });
    this.changed(0);
  }

  /** move puts the block at segs after the block after (null: first). */
  move(segs, after) {
    this.queue.push({ op: 'move', segs, after, locale: this.locale });
    this.changed(0);
  }

  /** flush sends everything now and resolves when the queue is empty (or rejects when it cannot be). */
  flush() {
    if (!this.queue.length && !this.running) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.kick(0);
    });
  }

  changed(delay) {
    this.report(this.running ? 'saving' : 'pending');
    if (!this.paused && !this.failures) this.kick(delay);
  }

  kick(delay) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), delay);
  }

  report(state, message = '') {
    if (this.onState) this.onState({ state, message, pending: this.queue.length });
  }

  settle(err) {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) if (err) w.reject(err); else w.resolve();
  }

  /** chunk takes the next request's operations from the head of the queue. */
  chunk() {
    const out = [];
    const first = this.queue[0];
    for (const op of this.queue) {
      if (out.length === MAX_OPS || op.locale !== first.locale || !ready(op)) break;
      out.push(op);
      // An insert's id is known only from the answer: whatever names the
      // new block waits for the next request.
      if (op.op === 'insert') break;
    }
    return out;
  }

  async run() {
    if (this.running || this.paused) return;
    this.running = true;
    try {
      while (this.queue.length && !this.paused) {
        const ops = this.chunk();
        if (!ops.length) break;
        // Still typing: wait for the pause, unless someone waits for the save.
        const last = Math.max(...ops.map((op) => op.at || 0));
        if (!this.waiters.length && ops.every((op) => op.op === 'set') && Date.now() - last < IDLE_MS) {
          this.kick(IDLE_MS - (Date.now() - last));
          break;
        }
        ops.forEach((op) => { op.sending = true; });
        this.report('saving');
        try {
          const res = await this.send(ops);
          this.failures = 0;
          this.done(ops, res);
        } catch (e) {
          ops.forEach((op) => { op.sending = false; });
          if (await this.failed(ops, e)) break;
        }
      }
    } finally {
      this.running = false;
    }
    if (!this.queue.length) {
      this.report('saved');
      this.settle(null);
    }
  }

  async send(ops) {
    const body = {
      operations: ops.map((op) => {
        const o = { op: op.op, path: joinPath(op.segs) };
        if (op.op === 'set') o.value = op.value;
        if (op.op === 'insert') o.value = op.value;
        if ('after' in op) o.after = op.after ? op.after.id : null;
        return o;
      }),
    };
    const locale = ops[0].locale || undefined;
    if (this.drafts) {
      return api.post(`/pages/${encodeURIComponent(this.pageID)}/draft/batch`, body, { query: { content_locale: locale } });
    }
    const res = await api.post(`/pages/${encodeURIComponent(this.pageID)}/batch`, body, {
      query: { content_locale: locale, atomic: 'true', include: 'result' }, ifMatch: this.etag,
    });
    return res;
  }

  done(ops, res) {
    const results = (res.data && res.data.results) || [];
    ops.forEach((op, i) => {
      const r = results[i];
      if (op.op === 'insert' && r && r.id) op.block.id = r.id;
    });
    if (!this.drafts && res.etag) this.etag = res.etag;
    this.queue = this.queue.filter((op) => !ops.includes(op));
    for (const op of ops) if (op.onSaved) op.onSaved(res);
    if (this.onSaved) this.onSaved(res, ops);
  }

  /** failed handles a request that did not go through; true stops the run. */
  async failed(ops, e) {
    if (e.status === 401) {
      this.paused = 'auth';
      this.report('error', 'Signed out: sign in again to save.');
      return true;
    }
    if (e.status === 412 && !this.drafts) {
      this.paused = 'conflict';
      this.report('conflict', 'Someone else changed this page.');
      const choice = this.onConflict ? await this.onConflict(e) : 'reload';
      if (choice === 'overwrite') {
        this.etag = `"${e.body.current_etag}"`;
        this.paused = false;
        return false;
      }
      this.queue = [];
      this.paused = 'closed';
      this.settle(e);
      return true;
    }
    const perOp = e.status === 422 && e.body && Array.isArray(e.body.results);
    if (perOp || (e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 409 && e.status !== 429 && e.code !== 'concurrent_modification')) {
      // The server refused: retrying the same would fail again. Drop the
      // operation it names (or the whole request) and go on with the rest.
      let bad = ops;
      if (perOp) {
        const failedIdx = e.body.results.filter((r) => r.status === 'error').map((r) => r.index);
        if (failedIdx.length) bad = failedIdx.map((i) => ops[i]).filter(Boolean);
      }
      this.queue = this.queue.filter((op) => !bad.includes(op));
      for (const op of bad) {
        const r = perOp ? e.body.results.find((x) => x.index === ops.indexOf(op)) : null;
        const err = r && r.error ? { message: r.error.message, code: r.error.code } : { message: e.message, code: e.code };
        if (this.onRejected) this.onRejected(op, err);
      }
      return false;
    }
    // Offline, busy, or a lock that timed out: the same request may go
    // through later. Whether a lost answer's request was applied is asked
    // first when it made blocks, so that they are not made twice.
    if (e.offline && ops.some((op) => op.op === 'insert') && this.reconcile) {
      try {
        if (await this.reconcile(ops)) {
          this.queue = this.queue.filter((op) => !ops.includes(op));
          return false;
        }
      } catch { /* still offline: retry below */ }
    }
    this.failures += 1;
    const wait = Math.min(30000, 1000 * 2 ** (this.failures - 1));
    this.report(e.offline ? 'offline' : 'error',
      `${e.offline ? 'Offline: not saved.' : `Not saved: ${e.message}`} Retrying in ${Math.round(wait / 1000)} s.`);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.run(); }, wait);
    return true;
  }

  /** retryNow retries a failed save at once. */
  retryNow() {
    this.failures = Math.max(0, this.failures - 1);
    this.kick(0);
  }
}
