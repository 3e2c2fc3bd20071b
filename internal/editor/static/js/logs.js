// An app's log (GET /apps/{key}/logs): filters by level, job and text,
// and a live tail. The tail polls every two seconds with since= set to
// the newest line's time; since is inclusive, so lines already shown are
// told apart by id (docs/api.md, Apps).

import * as api from './api.js';
import { h, clear, id, debounce } from './dom.js';

const levels = ['', 'debug', 'info', 'warn', 'error'];
const tailEvery = 2000;
const keep = 1000;

/** LogViewer shows an app's log lines, newest first. */
export class LogViewer {
  constructor(site, key, { job = '' } = {}) {
    this.key = key;
    this.lines = [];
    this.ids = new Set();
    const levelID = id('level');
    const jobID = id('job');
    const qID = id('q');
    this.level = h('select', { id: levelID, class: 'select select-small', name: 'level', onchange: () => this.reload() },
      levels.map((l) => h('option', { value: l }, l || 'every level')));
    this.job = h('input', { id: jobID, class: 'input input-search', name: 'job', placeholder: 'job id', value: job, oninput: debounce(() => this.reload(), 300) });
    this.q = h('input', { id: qID, type: 'search', class: 'input input-search', name: 'q', placeholder: 'text', oninput: debounce(() => this.reload(), 300) });
    this.tailBox = h('input', { type: 'checkbox', id: id('tail'), name: 'tail', onchange: () => this.setTail(this.tailBox.checked) });
    this.status = h('span', { class: 'muted', role: 'status' });
    this.list = h('div', { class: 'logs', role: 'log', 'aria-live': 'off', 'aria-label': 'Log lines, newest first' });
    this.el = h('div', { class: 'log-viewer' },
      h('div', { class: 'toolbar' },
        h('label', { class: 'label-inline', for: levelID }, 'Level'), this.level,
        h('label', { class: 'label-inline', for: jobID }, 'Job'), this.job,
        h('label', { class: 'label-inline', for: qID }, 'Text'), this.q,
        h('span', { class: 'tail-toggle' }, this.tailBox, h('label', { class: 'label-inline', for: this.tailBox.id }, ' Live tail')),
        h('button', { type: 'button', class: 'btn btn-small', onclick: () => this.reload() }, 'Refresh'),
        this.status),
      this.list);
    this.timer = 0;
    this.reload();
  }

  query(extra) {
    return { level: this.level.value || undefined, job: this.job.value.trim() || undefined, q: this.q.value.trim() || undefined, ...extra };
  }

  async reload() {
    const seq = (this.seq = (this.seq || 0) + 1);
    try {
      const res = await api.get(`/apps/${encodeURIComponent(this.key)}/logs`, { query: this.query({ limit: 200 }) });
      if (seq !== this.seq) return;
      this.lines = res.data;
      this.ids = new Set(res.data.map((l) => l.id));
      this.draw();
    } catch (e) {
      if (seq === this.seq) clear(this.list, h('p', { class: 'form-error', role: 'alert' }, `The log could not be read: ${e.message}`));
    }
  }

  /** poll fetches the lines since the newest one shown. */
  async poll() {
    const seq = this.seq;
    const newest = this.lines[0];
    try {
      const res = await api.get(`/apps/${encodeURIComponent(this.key)}/logs`, { query: this.query({ since: newest ? newest.time : undefined, limit: 200 }) });
      if (seq !== this.seq) return;
      const fresh = res.data.filter((l) => !this.ids.has(l.id));
      if (fresh.length) {
        for (const l of fresh) this.ids.add(l.id);
        this.lines = fresh.concat(this.lines).slice(0, keep);
        this.draw();
      }
      this.status.textContent = `Live · ${new Date().toLocaleTimeString()}`;
    } catch (e) {
      this.status.textContent = e.offline ? 'Live · offline, retrying' : `Live · ${e.message}`;
    }
  }

  setTail(on) {
    clearInterval(this.timer);
    this.timer = 0;
    this.status.textContent = '';
    if (on) {
      this.timer = setInterval(() => this.poll(), tailEvery);
      this.poll();
    }
  }

  draw() {
    if (this.lines.length === 0) {
      clear(this.list, h('p', { class: 'muted log-empty' }, 'No log line matches.'));
      return;
    }
    clear(this.list, this.lines.map((l) => {
      const jid = l.context && l.context.jid;
      return h('div', { class: 'log-line', 'data-id': l.id },
        h('time', { class: 'log-time', datetime: l.created_at }, new Date(l.created_at).toLocaleString()),
        h('span', { class: `log-level log-level-${l.level}` }, l.level),
        h('span', { class: 'log-data' }, l.data, jid ? h('span', { class: 'log-job' }, `  job ${jid}`) : null));
    }));
  }

  leave() { this.setTail(false); }
}
