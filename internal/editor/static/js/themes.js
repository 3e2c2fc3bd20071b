// Themes, read only: the site's themes, a theme's files with their code
// in the code view, and which pages use which template. Themes are
// written with the developers' tools (tessera theme push), not here.

import * as api from './api.js';
import { h, clear, when } from './dom.js';
import { codeEditor, langOf } from './code.js';

const sitePath = (site) => `#/site/${encodeURIComponent(site.short_id || site.id)}`;
const kinds = ['layouts', 'templates', 'snippets', 'assets'];
// The template usage reads at most this many pages (tree order).
const maxPages = 1000;

/** ThemesScreen shows a theme's files, one file's code, and template usage. */
export class ThemesScreen {
  constructor(site, themeID, kind, name) {
    this.site = site;
    this.themeID = themeID || '';
    this.kind = kinds.includes(kind) ? kind : '';
    this.name = name || '';
    this.title = `Themes · ${site.name}`;
    this.body = h('div', null, h('p', { class: 'loading' }, 'Loading…'));
    this.el = h('section', { class: 'screen screen-wide themes' },
      h('div', { class: 'screen-head' }, h('h1', null, 'Themes')),
      h('p', { class: 'muted' }, 'Themes are read here; developers change them with their tools (tessera theme push).'),
      this.body);
    this.load();
  }

  base(theme) { return `${sitePath(this.site)}/themes/${encodeURIComponent(theme.id)}`; }

  async load() {
    try {
      const list = (await api.get('/themes', { query: { per_page: 100 } })).data;
      if (list.length === 0) { clear(this.body, h('p', { class: 'muted' }, 'The site has no theme.')); return; }
      const theme = list.find((t) => t.id === this.themeID || t.name === this.themeID) || list.find((t) => t.active) || list[0];
      const detail = (await api.get(`/themes/${encodeURIComponent(theme.id)}`)).data;
      const picker = list.length > 1 ? h('nav', { class: 'tabs', 'aria-label': 'Themes' }, list.map((t) => h('a', {
        class: 'tab', href: `${sitePath(this.site)}/themes/${encodeURIComponent(t.id)}`, 'aria-current': t.id === theme.id ? 'page' : null,
      }, t.name, t.active ? h('span', { class: 'badge' }, 'active') : null))) : null;
      const files = h('div', null, kinds.map((k) => {
        const entries = k === 'assets' ? (detail.assets || []).map((a) => a.path) : (detail[k] || []).map((f) => f.name);
        return [h('div', { class: 'file-group' }, `${k} (${entries.length})`),
          h('ul', { class: 'file-list', 'aria-label': k }, entries.map((n) => h('li', null, h('a', {
            href: `${this.base(theme)}/${k}/${n.split('/').map(encodeURIComponent).join('/')}`,
            'aria-current': k === this.kind && n === this.name ? 'page' : null,
          }, n))))];
      }));
      this.view = h('div', null);
      clear(this.body, picker, h('div', { class: 'split' }, files, this.view));
      if (this.kind && this.name) await this.showFile(theme, detail);
      else await this.showUsage(theme, detail);
    } catch (e) {
      clear(this.body, h('p', { class: 'form-error', role: 'alert' }, `The themes could not be read: ${e.message}`));
    }
  }

  async showFile(theme) {
    const path = `/themes/${encodeURIComponent(theme.id)}/${this.kind}/${this.name.split('/').map(encodeURIComponent).join('/')}`;
    const f = (await api.get(path)).data;
    const head = h('div', { class: 'toolbar' }, h('strong', { class: 'input-mono' }, `${this.kind}/${this.name}`),
      f.updated_at ? h('span', { class: 'muted' }, `changed ${when(f.updated_at)}`) : null,
      f.public_url ? h('a', { href: f.public_url, target: '_blank', rel: 'noopener' }, 'Open') : null);
    if (typeof f.code === 'string') {
      const ed = codeEditor({ value: f.code, lang: langOf(this.name), readOnly: true, label: `Code of ${this.name}` });
      clear(this.view, head, ed.el);
      return;
    }
    clear(this.view, head, /\.(png|jpe?g|gif|webp|svg|ico)$/i.test(this.name) && f.public_url
      ? h('img', { src: f.public_url, alt: this.name, class: 'asset-preview' })
      : h('p', { class: 'muted' }, 'A binary file: open it to see it.'));
  }

  async showUsage(theme, detail) {
    const usage = new Map((detail.templates || []).map((t) => [t.name.replace(/\.liquid$/, ''), []]));
    let pages = [];
    let total = 0;
    for (let page = 1; pages.length < maxPages; page++) {
      const res = await api.get('/pages', { query: { page, per_page: 100, fields: 'title,template,fullpath' } });
      pages = pages.concat(res.data);
      total = Number(res.headers.get('X-Total-Count') || pages.length);
      if (res.data.length < 100 || pages.length >= total) break;
    }
    for (const p of pages) {
      const key = (p.template || 'page').replace(/\.liquid$/, '');
      if (!usage.has(key)) usage.set(key, []);
      usage.get(key).push(p);
    }
    const rows = [...usage.entries()].sort((a, b) => a[0].localeCompare(b[0]));
    clear(this.view,
      h('h2', null, `Templates of ${theme.name} and the pages on them`),
      theme.active ? null : h('p', { class: 'notice' }, 'This theme is not the active one: the pages render with the active theme.'),
      total > pages.length ? h('p', { class: 'muted' }, `The first ${pages.length} of ${total} pages, in tree order.`) : null,
      h('table', { class: 'table template-usage' },
        h('thead', null, h('tr', null, ['Template', 'Pages'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', null, rows.map(([tpl, list]) => h('tr', { 'data-template': tpl },
          h('td', { class: 'input-mono' }, tpl),
          h('td', null, list.length === 0 ? h('span', { class: 'muted' }, 'no page') : h('ul', { class: 'rows' }, list.map((p) => h('li', null,
            h('a', { href: `${sitePath(this.site)}/page/${encodeURIComponent(p.id)}` }, p.title || p.fullpath || p.id),
            h('span', { class: 'muted' }, ` /${(p.fullpath || '').replace(/^\//, '')}`))))))))));
  }
}
