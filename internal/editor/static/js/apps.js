// Apps: the site's apps, and one app's code files in the code editor
// (compile problems at their lines), what its code registers, its log and
// a function or job run with parameters (/apps..., /functions, /jobs).
// Changing code is for admins; editors read it.

import * as api from './api.js';
import { h, clear, id, toast, confirm, dialog, prompt, when, field } from './dom.js';
import { go, isAdmin } from './app.js';
import { codeEditor, langOf } from './code.js';
import { LogViewer } from './logs.js';

const sitePath = (site) => `#/site/${encodeURIComponent(site.short_id || site.id)}`;
const appPath = (site, key) => `${sitePath(site)}/apps/${encodeURIComponent(key)}`;

/** AppsScreen lists the site's apps. */
export class AppsScreen {
  constructor(site) {
    this.site = site;
    this.title = `Apps · ${site.name}`;
    this.list = h('div', { class: 'table-wrap' }, h('p', { class: 'loading' }, 'Loading…'));
    this.el = h('section', { class: 'screen screen-wide apps' },
      h('div', { class: 'screen-head' }, h('h1', null, 'Apps'),
        isAdmin() ? h('button', { type: 'button', class: 'btn btn-primary', id: 'new-app', onclick: () => this.create() }, 'New app') : null),
      h('p', { class: 'muted' }, 'An app holds cloud code: functions, routes, callbacks and jobs that run on this server.'),
      this.list,
      h('h2', null, 'Installed apps'),
      h('p', { class: 'muted' }, 'Apps an admin installed on this site, and what they may do here. Revoking one ends its tokens at once.'),
      this.installed = h('div', { class: 'table-wrap', id: 'installed-apps' }, h('p', { class: 'loading' }, 'Loading…')));
    this.load();
    this.loadInstalled();
  }

  async loadInstalled() {
    try {
      const res = await api.get('/installations');
      clear(this.installed, res.data.length === 0 ? h('p', { class: 'muted' }, 'No app is installed.') : h('table', { class: 'table' },
        h('thead', null, h('tr', null, ['App', 'Scopes', 'Installed', ''].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', null, res.data.map((i) => h('tr', { 'data-installation': i.id },
          h('td', null, i.name || i.app, i.domain ? h('span', { class: 'muted' }, ` (${i.domain})`) : null),
          h('td', { class: 'input-mono' }, i.scopes.join(' ')),
          h('td', { class: 'muted' }, when(i.created_at)),
          h('td', null, isAdmin() ? h('button', { type: 'button', class: 'btn btn-danger', onclick: () => this.revoke(i) }, 'Revoke') : null))))));
    } catch (e) {
      clear(this.installed, h('p', { class: 'form-error', role: 'alert' }, `The installed apps could not be read: ${e.message}`));
    }
  }

  async revoke(i) {
    const ok = await confirm(`Revoke ${i.name || i.app}?`, 'Its tokens for this site stop working at once. An admin can install it again.', 'Revoke', true);
    if (!ok) return;
    try {
      await api.del(`/installations/${encodeURIComponent(i.id)}`);
      toast(`${i.name || i.app} revoked.`, 'success');
    } catch (e) {
      toast(`Could not revoke: ${e.message}`, 'error');
    }
    this.loadInstalled();
  }

  async load() {
    try {
      const res = await api.get('/apps', { query: { per_page: 100 } });
      clear(this.list, res.data.length === 0 ? h('p', { class: 'muted' }, 'No app yet.') : h('table', { class: 'table' },
        h('thead', null, h('tr', null, ['App', 'Key', 'Changed'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', null, res.data.map((a) => h('tr', { 'data-key': a.key },
          h('td', null, h('a', { class: 'row-link', href: appPath(this.site, a.key) }, a.name)),
          h('td', { class: 'input-mono' }, a.key),
          h('td', { class: 'muted' }, when(a.updated_at)))))));
    } catch (e) {
      clear(this.list, h('p', { class: 'form-error', role: 'alert' }, `The apps could not be read: ${e.message}`));
    }
  }

  async create() {
    const name = h('input', { type: 'text', class: 'input', name: 'app_name', required: true, autofocus: true, maxlength: 200 });
    const key = h('input', { type: 'text', class: 'input input-mono', name: 'app_key', pattern: '[a-z0-9_-]{1,64}', placeholder: 'from the name' });
    const v = await dialog({
      title: 'New app',
      body: [field('Name', name), field('Key (optional)', key, { hint: 'Lowercase letters, digits, - and _. Clients name the app by it.' })],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Create app', value: 'ok', kind: 'primary', submit: true }],
    });
    if (v !== 'ok') return;
    try {
      const body = { name: name.value.trim() };
      if (key.value.trim()) body.key = key.value.trim();
      const res = await api.post('/apps', body);
      toast(`App ${res.data.name} created.`, 'success');
      go(appPath(this.site, res.data.key));
    } catch (e) {
      toast(`Could not create the app: ${e.message}`, 'error');
    }
  }
}

const appTabs = [
  { key: 'code', label: 'Code' },
  { key: 'registrations', label: 'Registrations' },
  { key: 'logs', label: 'Logs' },
  { key: 'run', label: 'Run' },
];

/** AppScreen is one app, on one of its tabs. */
export class AppScreen {
  constructor(site, key, tab, file, query) {
    this.site = site;
    this.key = key;
    this.tab = appTabs.some((t) => t.key === tab) ? tab : 'code';
    this.fileName = file || '';
    this.query = query;
    this.title = `${key} · Apps`;
    this.head = h('div', { class: 'screen-head' }, h('h1', null, key));
    this.body = h('div', null, h('p', { class: 'loading' }, 'Loading…'));
    this.el = h('section', { class: 'screen screen-wide app' },
      h('p', null, h('a', { href: `${sitePath(site)}/apps` }, '← Apps')),
      this.head,
      h('nav', { class: 'tabs', 'aria-label': 'App' }, appTabs.map((t) => h('a', {
        class: 'tab', href: `${appPath(site, key)}/${t.key}`, 'aria-current': t.key === this.tab ? 'page' : null,
      }, t.label))),
      this.body);
    this.load();
  }

  async load() {
    try {
      const res = await api.get(`/apps/${encodeURIComponent(this.key)}`);
      this.app = res.data;
      clear(this.head, h('div', null, h('h1', null, this.app.name), h('p', { class: 'muted input-mono' }, this.app.key)),
        this.app.compile_errors.length ? h('span', { class: 'badge badge-warn' }, 'does not compile') : h('span', { class: 'badge' }, 'compiled'));
      this.title = `${this.app.name} · Apps`;
      document.title = this.title + ' · Tessera';
      if (this.tab === 'code') await this.showCode();
      else if (this.tab === 'registrations') this.showRegistrations();
      else if (this.tab === 'logs') { this.logs = new LogViewer(this.site, this.key, { job: this.query.get('job') || '' }); clear(this.body, this.logs.el); }
      else this.showRun();
    } catch (e) {
      clear(this.body, h('p', { class: 'form-error', role: 'alert' }, `The app could not be read: ${e.message}`));
    }
  }

  // Code

  async showCode() {
    const res = await api.get(`/apps/${encodeURIComponent(this.key)}/code`);
    this.files = res.data || [];
    const file = this.files.find((f) => f.name === this.fileName) || this.files[0];
    this.fileName = file ? file.name : '';
    const admin = isAdmin();
    const list = h('ul', { class: 'file-list', 'aria-label': 'Code files' }, this.files.map((f) => h('li', null,
      h('a', { href: `${appPath(this.site, this.key)}/code/${f.name.split('/').map(encodeURIComponent).join('/')}`, 'aria-current': f.name === this.fileName ? 'page' : null }, f.name))));
    const side = h('div', null, list, admin ? h('p', null, h('button', { type: 'button', class: 'btn btn-small', id: 'new-file', onclick: () => this.newFile() }, 'New file')) : null);
    this.problemList = h('ul', { class: 'problems', 'aria-live': 'polite' });
    this.state = h('span', { class: 'muted', role: 'status' });
    if (!file) {
      clear(this.body, h('div', { class: 'split' }, side, h('p', { class: 'muted' }, admin ? 'No code yet: add a file.' : 'No code yet.')));
      return;
    }
    this.saved = file.code || '';
    this.editor = codeEditor({
      value: this.saved, lang: langOf(file.name), readOnly: !admin, label: `Code of ${file.name}`,
      onInput: () => this.changed(), onSave: () => this.save(),
    });
    this.saveBtn = admin ? h('button', { type: 'button', class: 'btn btn-primary', id: 'save-code', disabled: true, onclick: () => this.save() }, 'Save') : null;
    const tools = h('div', { class: 'toolbar' },
      h('strong', { class: 'input-mono' }, file.name), this.saveBtn,
      admin ? h('button', { type: 'button', class: 'btn btn-small btn-ghost', onclick: () => this.deleteFile() }, 'Delete file') : null,
      this.state);
    clear(this.body, h('div', { class: 'split' }, side, h('div', null, tools, this.problemList, this.editor.el)));
    this.showProblems(this.app.compile_problems || (this.app.compile_errors || []).map((message) => ({ message })));
  }

  changed() {
    if (!this.saveBtn) return;
    const dirty = this.dirty();
    this.saveBtn.disabled = !dirty || !!this.saving;
    if (dirty) this.state.textContent = 'Not saved';
    else if (this.state.textContent === 'Not saved') this.state.textContent = '';
  }

  dirty() { return !!(this.editor && this.saveBtn && this.editor.value() !== this.saved); }

  async canLeave() {
    if (!this.dirty()) return true;
    return confirm('Leave without saving?', `Your changes to ${this.fileName} are not saved yet.`, 'Leave', true);
  }

  leave() { if (this.logs) this.logs.leave(); }

  /** showProblems lists compile problems and marks this file's at their lines. */
  showProblems(problems) {
    const here = problems.filter((p) => p.file === this.fileName);
    this.editor.mark(here);
    clear(this.problemList, problems.map((p) => {
      const where = p.file ? `${p.file}:${p.line}:${p.column}` : '';
      const text = where ? `${where} — ${p.message}` : p.message;
      if (p.file === this.fileName) {
        return h('li', null, h('button', { type: 'button', onclick: () => this.editor.goTo(p.line, p.column) }, text));
      }
      if (p.file) {
        return h('li', null, h('a', { href: `${appPath(this.site, this.key)}/code/${p.file.split('/').map(encodeURIComponent).join('/')}` }, text));
      }
      return h('li', null, text);
    }));
  }

  async save() {
    if (!this.saveBtn || this.saving) return;
    this.saving = true;
    this.saveBtn.disabled = true;
    this.state.textContent = 'Saving…';
    const code = this.editor.value();
    const path = `/apps/${encodeURIComponent(this.key)}/code/${this.fileName.split('/').map(encodeURIComponent).join('/')}`;
    try {
      const res = await api.put(path, { code });
      this.saved = code;
      this.showProblems((res.data.compilation && res.data.compilation.problems) || []);
      this.state.textContent = 'Saved; it compiles';
      toast(`${this.fileName} saved.`, 'success');
      this.refreshHead(true);
    } catch (e) {
      const comp = e.body && e.body.compilation;
      if (e.status === 422 && comp) {
        // Stored all the same: the app keeps its last good registrations.
        this.saved = code;
        const problems = comp.problems || comp.errors.map((message) => ({ message }));
        this.showProblems(problems);
        const first = problems.find((p) => p.file === this.fileName);
        this.state.textContent = first ? `Saved, but it does not compile (line ${first.line})` : 'Saved, but it does not compile';
        toast('The code does not compile: the app keeps running its last working code.', 'error');
        this.refreshHead(false);
      } else {
        this.state.textContent = 'Not saved';
        toast(`Could not save: ${e.message}`, 'error');
      }
    }
    this.saving = false;
    this.changed();
  }

  refreshHead(ok) {
    const badge = this.head.querySelector('.badge');
    if (badge) {
      badge.className = ok ? 'badge' : 'badge badge-warn';
      badge.textContent = ok ? 'compiled' : 'does not compile';
    }
  }

  async newFile() {
    const name = await prompt('New code file', 'File name (as functions.js or lib/util.js)', '', 'Create');
    if (!name) return;
    try {
      await api.post(`/apps/${encodeURIComponent(this.key)}/code`, { name, code: '' });
      go(`${appPath(this.site, this.key)}/code/${name.split('/').map(encodeURIComponent).join('/')}`);
    } catch (e) {
      toast(`Could not create the file: ${e.message}`, 'error');
    }
  }

  async deleteFile() {
    const ok = await confirm(`Delete ${this.fileName}?`, 'The file is deleted and the app compiles without it.', 'Delete', true);
    if (!ok) return;
    try {
      await api.del(`/apps/${encodeURIComponent(this.key)}/code/${this.fileName.split('/').map(encodeURIComponent).join('/')}`);
      this.saved = this.editor.value();
      toast(`${this.fileName} deleted.`, 'success');
      go(`${appPath(this.site, this.key)}/code`);
    } catch (e) {
      toast(`Could not delete: ${e.message}`, 'error');
    }
  }

  // Registrations

  showRegistrations() {
    const a = this.app;
    const group = (title, items, line) => h('div', { class: 'reg' }, h('h3', null, `${title} (${items.length})`),
      items.length ? h('ul', null, items.map((x) => h('li', null, line(x)))) : h('p', { class: 'muted' }, 'None.'));
    clear(this.body,
      a.compile_errors.length ? h('p', { class: 'form-error' }, 'The code does not compile: these are the registrations of its last working version.') : null,
      h('p', { class: 'muted' }, a.compiled_at ? `Compiled ${when(a.compiled_at)}.` : 'Not compiled yet.'),
      h('div', { class: 'reg-list' },
        group('Functions', a.functions, (f) => f.name),
        group('Routes', a.routes, (r) => `${r.verb.toUpperCase()} ${r.path}`),
        group('Callbacks', a.callbacks, (c) => `${c.type} ${c.event}`),
        group('Jobs', a.jobs, (j) => j.every ? `${j.name} (every ${j.every})` : j.name),
        group('Schedules', a.schedules, (s) => `${s.name}: ${s.timing}`)));
  }

  // Run

  showRun() {
    const a = this.app;
    const fnSel = h('select', { class: 'select', name: 'function', id: id('fn') }, a.functions.map((f) => h('option', { value: f.name }, f.name)));
    const fnParams = h('textarea', { class: 'textarea input-mono', name: 'function_params', rows: 5 });
    fnParams.value = '{}';
    const fnOut = h('pre', { class: 'result-box', 'aria-live': 'polite', hidden: true });
    const jobSel = h('select', { class: 'select', name: 'job', id: id('job') }, a.jobs.map((j) => h('option', { value: j.name }, j.name)));
    const jobParams = h('textarea', { class: 'textarea input-mono', name: 'job_params', rows: 5 });
    jobParams.value = '{}';
    const jobOut = h('div', { 'aria-live': 'polite' });
    const parse = (ta) => {
      try { return JSON.parse(ta.value || '{}'); } catch (e) { throw new Error(`The parameters are not valid JSON: ${e.message}`); }
    };
    const runFn = async () => {
      fnOut.hidden = false;
      let params;
      try { params = parse(fnParams); } catch (e) { fnOut.textContent = e.message; return; }
      fnOut.textContent = 'Running…';
      try {
        const res = await api.post(`/functions/${encodeURIComponent(fnSel.value)}`, params);
        fnOut.textContent = `${res.status}\n${JSON.stringify(res.data, null, 2)}`;
      } catch (e) {
        fnOut.textContent = `${e.status || 'offline'}: ${e.message}${e.body ? '\n' + JSON.stringify(e.body, null, 2) : ''}`;
      }
    };
    const runJob = async () => {
      let params;
      try { params = parse(jobParams); } catch (e) { clear(jobOut, h('p', { class: 'form-error' }, e.message)); return; }
      try {
        const res = await api.post(`/jobs/${encodeURIComponent(jobSel.value)}`, params);
        clear(jobOut, h('p', { class: 'notice' }, `Job ${jobSel.value} queued as ${res.data.jid}. `,
          h('a', { href: `${appPath(this.site, this.key)}/logs?job=${encodeURIComponent(res.data.jid)}` }, 'See its log lines')));
      } catch (e) {
        clear(jobOut, h('p', { class: 'form-error' }, e.message));
      }
    };
    clear(this.body, h('div', { class: 'run-grid' },
      h('div', { class: 'panel' }, h('h2', null, 'Run a function'),
        a.functions.length === 0 ? h('p', { class: 'muted' }, 'The app defines no function.') : [
          field('Function', fnSel), field('Parameters (JSON)', fnParams, { hint: 'Sent as the request body; the function reads them as its params.' }),
          h('p', null, h('button', { type: 'button', class: 'btn btn-primary', id: 'run-function', onclick: runFn }, 'Run function')), fnOut]),
      h('div', { class: 'panel' }, h('h2', null, 'Queue a job'),
        a.jobs.length === 0 ? h('p', { class: 'muted' }, 'The app defines no job.') : [
          field('Job', jobSel), field('Parameters (JSON)', jobParams),
          h('p', null, h('button', { type: 'button', class: 'btn btn-primary', id: 'run-job', onclick: runJob }, 'Queue job')), jobOut])));
  }
}
