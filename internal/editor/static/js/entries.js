// A channel's entries as a table: search, where= filters, sort by a
// column, paging, a choice of columns, selection and bulk delete. Every
// read is one page of the API's list (with X-Total-Count), so a channel
// of any size answers as fast as its first page; the state lives in the
// URL, so a reload or a link shows the same view.

import * as api from './api.js';
import { h, clear, id, confirm, toast, announce, debounce, when, dialog } from './dom.js';
import { FILTERABLE, SORTABLE, typeName, optionName, refIDs, isImage, timeOf } from './fields.js';
import { entryTitle } from './entry.js';
import { isAdmin } from './app.js';

const PER_PAGES = [25, 50, 100];

/** cellText is a read value as a short text for the table. */
function cellText(f, v, tz) {
  if (v == null || v === '') return '';
  switch (f.type) {
    case 'boolean': return v ? 'Yes' : 'No';
    case 'select': return optionName(f, v);
    case 'multi_select': return (v || []).map((o) => optionName(f, o)).join(', ');
    case 'belongs_to': case 'customer': return (v && (v.slug || v.id)) || '';
    case 'belongs_to_many': return (v.objects || []).map((o) => o.slug || o.id).join(', ');
    case 'date_time': return new Date(v).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: tz || undefined });
    case 'time': return timeOf(v);
    case 'file': return v.filename || '';
    case 'gallery': return `${v.length} image${v.length === 1 ? '' : 's'}`;
    case 'geo': return `${v.latitude}, ${v.longitude}`;
    case 'json': return JSON.stringify(v).slice(0, 80);
    case 'text': return String(v).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 120);
    default: return String(v).slice(0, 120);
  }
}

function cell(f, v, tz) {
  if (f.type === 'file' && v && v.url && isImage(v)) return h('img', { class: 'cell-thumb', src: v.url, alt: '', loading: 'lazy' });
  if (f.type === 'gallery' && Array.isArray(v) && v.length && isImage(v[0].file)) {
    return h('span', { class: 'cell-gallery' }, h('img', { class: 'cell-thumb', src: v[0].file.url, alt: '', loading: 'lazy' }), ` ${v.length}`);
  }
  return cellText(f, v, tz);
}

/** quote writes a where= value as a JSON string. */
function quote(v) { return JSON.stringify(String(v)); }

export class EntriesScreen {
  constructor(site, channel, query) {
    this.site = site;
    this.channelRef = channel;
    this.q = query.get('q') || '';
    this.where = query.getAll('where');
    this.sort = query.get('sort') || '';
    this.page = Math.max(1, Number(query.get('page')) || 1);
    this.perPage = PER_PAGES.includes(Number(query.get('per_page'))) ? Number(query.get('per_page')) : 25;
    this.selected = new Set();
    this.seq = 0;
    this.title = 'Entries';
    this.el = h('section', { class: 'screen screen-wide entries-screen', 'aria-busy': 'true' }, h('h1', null, 'Entries'), h('p', { class: 'loading' }, 'Loading…'));
    this.load();
  }

  get base() { return `#/site/${encodeURIComponent(this.site.short_id || this.site.id)}/channels/${encodeURIComponent(this.channelRef)}`; }

  async load() {
    try {
      this.channel = (await api.get(api.channelPath(this.channelRef))).data;
      const saved = JSON.parse(localStorage.getItem(this.columnsKey) || 'null');
      const names = this.channel.customizations.map((f) => f.name);
      this.columns = Array.isArray(saved) ? saved.filter((n) => names.includes(n) || n === 'slug' || n === 'updated_at') : this.defaultColumns();
      this.draw();
      await this.fetch();
    } catch (e) {
      clear(this.el, h('h1', null, 'Could not open the channel'), h('p', { class: 'form-error' }, e.message));
      this.el.removeAttribute('aria-busy');
    }
  }

  get columnsKey() { return `tessera.columns.${this.site.id}.${this.channelRef}`; }

  defaultColumns() {
    const title = this.channel.title_field;
    const fs = this.channel.customizations.filter((f) => !['text', 'json'].includes(f.type) && f.name !== title).slice(0, 4).map((f) => f.name);
    return [...fs, 'updated_at'];
  }

  field(name) { return this.channel.customizations.find((f) => f.name === name); }

  draw() {
    const ch = this.channel;
    this.title = ch.name;
    document.title = `${ch.name} · Tessera`;
    const searchID = id('search');
    this.search = h('input', { id: searchID, class: 'input input-search', type: 'search', value: this.q, placeholder: 'Search words in text fields', autocomplete: 'off' });
    const onSearch = debounce(() => { this.q = this.search.value.trim(); this.page = 1; this.fetch(); }, 250);
    this.search.addEventListener('input', onSearch);
    this.filters = h('ul', { class: 'chips filters', 'aria-label': 'Filters' });
    this.bulk = h('div', { class: 'bulk', hidden: true },
      h('span', { class: 'bulk-count', role: 'status' }),
      h('button', { type: 'button', class: 'btn btn-small btn-danger', id: 'bulk-delete', onclick: () => this.bulkDelete() }, 'Delete selected'),
      h('button', { type: 'button', class: 'btn btn-small btn-ghost', onclick: () => { this.selected.clear(); this.drawRows(); } }, 'Clear selection'));
    const perID = id('per');
    this.perSel = h('select', { id: perID, class: 'select select-small', onchange: () => { this.perPage = Number(this.perSel.value); this.page = 1; this.fetch(); } },
      PER_PAGES.map((n) => h('option', { value: n, selected: n === this.perPage }, String(n))));
    this.table = h('table', { class: 'table entries-table' });
    this.pager = h('nav', { class: 'pager', 'aria-label': 'Pages of entries' });
    this.summary = h('p', { class: 'muted table-summary', role: 'status', 'aria-live': 'polite' });
    const head = h('header', { class: 'screen-head' },
      h('div', null,
        h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: `#/site/${encodeURIComponent(this.site.short_id)}/channels` }, 'Channels')),
        h('h1', null, ch.name),
        ch.description ? h('p', { class: 'muted' }, ch.description) : null),
      h('div', { class: 'editor-actions' },
        h('a', { class: 'btn btn-ghost', href: `${this.base}/fields` }, isAdmin() ? 'Edit fields' : 'Fields'),
        h('a', { class: 'btn btn-primary', id: 'new-entry', href: `${this.base}/entries/new` }, 'New entry')));
    const tools = h('div', { class: 'table-tools' },
      h('div', { class: 'table-search' }, h('label', { for: searchID, class: 'visually-hidden' }, 'Search entries'), this.search),
      h('button', { type: 'button', class: 'btn btn-small', id: 'add-filter', onclick: () => this.addFilter() }, 'Filter…'),
      h('button', { type: 'button', class: 'btn btn-small', id: 'choose-columns', onclick: () => this.chooseColumns() }, 'Columns…'),
      h('span', { class: 'spacer' }),
      h('label', { for: perID, class: 'label-inline' }, 'Per page'), this.perSel);
    clear(this.el, head, tools, this.filters, this.bulk, h('div', { class: 'table-wrap' }, this.table), h('div', { class: 'table-foot' }, this.summary, this.pager));
    this.el.removeAttribute('aria-busy');
    this.drawFilters();
  }

  /** syncURL keeps the view in the address without drawing the screen again. */
  syncURL() {
    const q = new URLSearchParams();
    if (this.q) q.set('q', this.q);
    for (const w of this.where) q.append('where', w);
    if (this.sort) q.set('sort', this.sort);
    if (this.page > 1) q.set('page', String(this.page));
    if (this.perPage !== 25) q.set('per_page', String(this.perPage));
    const s = q.toString();
    history.replaceState(null, '', this.base + (s ? `?${s}` : ''));
  }

  async fetch() {
    const seq = ++this.seq;
    this.syncURL();
    this.table.setAttribute('aria-busy', 'true');
    const query = { page: this.page, per_page: this.perPage, include_slugs: 'true' };
    if (this.q) query.search = this.q;
    if (this.sort) query.sort = this.sort;
    let path = api.channelPath(this.channelRef, '/entries');
    if (this.where.length) path += '?' + this.where.map((w) => `where=${encodeURIComponent(w)}`).join('&');
    const t0 = performance.now();
    try {
      const res = await api.get(path, { query, headers: api.FULL });
      if (seq !== this.seq) return; // a newer request answers the screen
      this.rows = res.data;
      this.total = api.total(res);
      this.lastMS = Math.round(performance.now() - t0);
      this.drawRows();
      this.drawPager();
    } catch (e) {
      if (seq !== this.seq) return;
      clear(this.table, h('tbody', null, h('tr', null, h('td', { class: 'form-error' }, `Could not read the entries: ${e.message}`))));
      if (e.status === 400 || e.status === 422) toast(e.message, 'error');
    } finally {
      if (seq === this.seq) this.table.removeAttribute('aria-busy');
    }
  }

  sortOf(name) {
    if (this.sort === name) return 'ascending';
    if (this.sort === `-${name}`) return 'descending';
    return null;
  }

  drawRows() {
    const tz = this.site.timezone;
    const cols = this.columns.map((n) => (n === 'slug' ? { name: 'slug', label: 'Slug', type: 'slug' } : n === 'updated_at' ? { name: 'updated_at', label: 'Updated', type: 'updated_at' } : this.field(n))).filter(Boolean);
    const allOnPage = this.rows.length > 0 && this.rows.every((e) => this.selected.has(e.id));
    const selAll = h('input', { type: 'checkbox', 'aria-label': 'Select every entry on this page', checked: allOnPage });
    selAll.addEventListener('change', () => {
      for (const e of this.rows) if (selAll.checked) this.selected.add(e.id); else this.selected.delete(e.id);
      this.drawRows();
    });
    const th = (c) => {
      const sortable = c.type === 'slug' || c.type === 'updated_at' || SORTABLE.has(c.type);
      const state = this.sortOf(c.name);
      const label = c.label || c.name;
      return h('th', { scope: 'col', 'aria-sort': state || null, 'data-col': c.name },
        sortable ? h('button', {
          type: 'button', class: 'th-sort', onclick: () => {
            this.sort = state === 'ascending' ? `-${c.name}` : state === 'descending' ? '' : c.name;
            this.page = 1;
            this.fetch();
          },
        }, label, h('span', { class: 'sort-mark', 'aria-hidden': 'true' }, state === 'ascending' ? ' ▲' : state === 'descending' ? ' ▼' : '')) : label);
    };
    const titleCol = h('th', { scope: 'col' }, 'Entry');
    const body = this.rows.length ? this.rows.map((e) => {
      const cb = h('input', { type: 'checkbox', 'aria-label': `Select ${entryTitle(this.channel, e)}`, checked: this.selected.has(e.id) });
      cb.addEventListener('change', () => { if (cb.checked) this.selected.add(e.id); else this.selected.delete(e.id); this.drawBulk(); selAll.checked = this.rows.every((x) => this.selected.has(x.id)); });
      return h('tr', { 'data-id': e.id, class: this.selected.has(e.id) ? 'row-selected' : null },
        h('td', { class: 'cell-check' }, cb),
        h('th', { scope: 'row', class: 'cell-title' }, h('a', { href: `${this.base}/entries/${encodeURIComponent(e.id)}` }, entryTitle(this.channel, e))),
        cols.map((c) => h('td', { 'data-col': c.name }, c.type === 'slug' ? e.slug : c.type === 'updated_at' ? when(e.updated_at) : cell(c, e[c.name], tz))));
    }) : [h('tr', null, h('td', { colspan: cols.length + 2, class: 'muted table-empty' }, this.q || this.where.length ? 'No entry matches.' : 'No entries yet.'))];
    clear(this.table,
      h('caption', { class: 'visually-hidden' }, `Entries of ${this.channel.name}`),
      h('thead', null, h('tr', null, h('th', { class: 'cell-check', scope: 'col' }, selAll), titleCol, cols.map(th))),
      h('tbody', null, body));
    this.drawBulk();
  }

  drawBulk() {
    const n = this.selected.size;
    this.bulk.hidden = n === 0;
    this.bulk.querySelector('.bulk-count').textContent = `${n} selected`;
    for (const tr of this.table.querySelectorAll('tbody tr[data-id]')) tr.classList.toggle('row-selected', this.selected.has(tr.dataset.id));
  }

  drawPager() {
    const pages = Math.max(1, Math.ceil(this.total / this.perPage));
    const from = this.total ? (this.page - 1) * this.perPage + 1 : 0;
    const to = Math.min(this.total, this.page * this.perPage);
    this.summary.textContent = `${from.toLocaleString()}–${to.toLocaleString()} of ${this.total.toLocaleString()} entries`;
    this.summary.dataset.ms = String(this.lastMS);
    const to_ = (p) => () => { this.page = p; this.fetch(); };
    const pageID = id('pg');
    const jump = h('input', { id: pageID, class: 'input input-page', type: 'number', min: 1, max: pages, value: this.page });
    jump.addEventListener('change', () => { const p = Math.min(pages, Math.max(1, Number(jump.value) || 1)); this.page = p; this.fetch(); });
    clear(this.pager,
      h('button', { type: 'button', class: 'btn btn-small', onclick: to_(1), disabled: this.page <= 1, 'aria-label': 'First page' }, '«'),
      h('button', { type: 'button', class: 'btn btn-small', id: 'prev-page', onclick: to_(this.page - 1), disabled: this.page <= 1 }, 'Previous'),
      h('label', { for: pageID, class: 'label-inline' }, 'Page'), jump, h('span', { class: 'muted' }, `of ${pages.toLocaleString()}`),
      h('button', { type: 'button', class: 'btn btn-small', id: 'next-page', onclick: to_(this.page + 1), disabled: this.page >= pages }, 'Next'),
      h('button', { type: 'button', class: 'btn btn-small', onclick: to_(pages), disabled: this.page >= pages, 'aria-label': 'Last page' }, '»'));
  }

  /** filterText says a where= condition for people: "Colour is Red". */
  filterText(w) {
    const m = /^([A-Za-z_][\w]*):("(?:[^"\\]|\\.)*"|\S+)$/.exec(w.trim());
    if (!m) return w;
    const f = this.field(m[1]);
    let v = m[2];
    try { if (v.startsWith('"')) v = JSON.parse(v); } catch { return w; }
    if (f && (f.type === 'select' || f.type === 'multi_select')) v = optionName(f, v);
    if (f && f.type === 'boolean') v = v === 'true' ? 'yes' : 'no';
    return `${f ? f.label || f.name : m[1]} is ${v}`;
  }

  drawFilters() {
    clear(this.filters, this.where.map((w, i) => h('li', { class: 'chip', title: w }, h('span', { class: 'chip-text' }, this.filterText(w)),
      h('button', { type: 'button', class: 'chip-x', 'aria-label': `Remove filter ${w}`, onclick: () => { this.where.splice(i, 1); this.page = 1; this.drawFilters(); this.fetch(); } }, '×'))));
    this.filters.hidden = !this.where.length;
  }

  /** addFilter asks for a field and a value and adds field:"value" to where=. */
  async addFilter() {
    const fields = this.channel.customizations.filter((f) => FILTERABLE.has(f.type));
    const fieldID = id('ff');
    const valueID = id('fv');
    const fieldSel = h('select', { id: fieldID, class: 'select' },
      h('option', { value: 'slug' }, 'Slug'),
      fields.map((f) => h('option', { value: f.name }, `${f.label || f.name} (${typeName(f.type)})`)));
    const valueBox = h('div');
    let valueEl;
    const drawValue = () => {
      const f = this.field(fieldSel.value);
      if (f && (f.type === 'select' || f.type === 'multi_select')) {
        valueEl = h('select', { id: valueID, class: 'select' }, (f.select_options || []).map((o) => h('option', { value: o.id }, o.name)));
      } else if (f && f.type === 'boolean') {
        valueEl = h('select', { id: valueID, class: 'select' }, h('option', { value: 'true' }, 'Yes'), h('option', { value: 'false' }, 'No'));
      } else {
        const type = f && (f.type === 'integer' || f.type === 'float') ? 'number' : f && f.type === 'date' ? 'date' : f && f.type === 'time' ? 'time' : 'text';
        valueEl = h('input', { id: valueID, class: 'input', type, required: true, placeholder: f && ['belongs_to', 'belongs_to_many', 'customer'].includes(f.type) ? 'The id of the entry' : '' });
      }
      clear(valueBox, h('label', { for: valueID, class: 'label' }, 'Is'), valueEl);
    };
    fieldSel.addEventListener('change', drawValue);
    drawValue();
    const v = await dialog({
      title: 'Filter entries',
      body: [h('label', { for: fieldID, class: 'label' }, 'Field'), fieldSel, valueBox,
        h('p', { class: 'hint' }, 'Shows the entries whose field holds exactly this value. Filters add up: every one must hold.')],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Add filter', value: 'ok', kind: 'primary', submit: true }],
    });
    if (v !== 'ok') return;
    const f = this.field(fieldSel.value);
    const raw = valueEl.value;
    const val = f && ['integer', 'float', 'boolean'].includes(f.type) ? raw : quote(raw);
    this.where.push(`${fieldSel.value}:${val}`);
    this.page = 1;
    this.drawFilters();
    this.fetch();
  }

  async chooseColumns() {
    const all = [...this.channel.customizations.map((f) => ({ name: f.name, label: f.label || f.name })), { name: 'slug', label: 'Slug' }, { name: 'updated_at', label: 'Updated' }];
    const boxes = all.map((c) => {
      const cid = id('col');
      const cb = h('input', { id: cid, type: 'checkbox', value: c.name, checked: this.columns.includes(c.name) });
      return h('label', { for: cid, class: 'check' }, cb, ' ', c.label);
    });
    const v = await dialog({
      title: 'Columns',
      body: [h('p', { class: 'hint' }, 'The entry’s title is always shown.'), h('div', { class: 'checks' }, boxes)],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Show these', value: 'ok', kind: 'primary' }],
    });
    if (v !== 'ok') return;
    this.columns = boxes.map((l) => l.querySelector('input')).filter((cb) => cb.checked).map((cb) => cb.value);
    localStorage.setItem(this.columnsKey, JSON.stringify(this.columns));
    this.drawRows();
  }

  async bulkDelete() {
    const ids = [...this.selected];
    if (!(await confirm('Delete entries', `Delete ${ids.length} entr${ids.length === 1 ? 'y' : 'ies'}? References to them are removed too. This cannot be undone.`, 'Delete', true))) return;
    // One request, one transaction: all of them are deleted or none is.
    this.bulk.querySelector('.bulk-count').textContent = `Deleting ${ids.length}…`;
    try {
      const res = await api.post(api.channelPath(this.channelRef, '/entries/delete'), { ids });
      const n = res.data.deleted.length;
      this.selected.clear();
      toast(`${n} entr${n === 1 ? 'y' : 'ies'} deleted.`, 'success');
      announce(`${n} deleted`);
    } catch (e) {
      toast(`Nothing was deleted: ${e.message}`, 'error');
      this.drawBulk();
    }
    await this.fetch();
    if (!this.rows.length && this.page > 1) { this.page -= 1; await this.fetch(); }
  }
}
