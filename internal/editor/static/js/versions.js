// Versions of a page: the list, what any version differs from the current
// page (per item, readable), and restoring one into the draft.

import * as api from './api.js';
import { h, clear, confirm, toast, when } from './dom.js';

const exact = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
import { fromDocument, fromSnapshot, borrowDetails, topFields } from './model.js';
import { diffModels, renderDiff } from './diff.js';
import { go } from './app.js';

const ACTIONS = { live_save: 'Saved live', draft_publish: 'Published from a draft', restore_publish: 'Restored' };

export class VersionsScreen {
  constructor(site, pageID, query) {
    this.site = site;
    this.pageID = pageID;
    this.defaultLocale = site.default_locale || 'en';
    this.locale = query.get('locale') || this.defaultLocale;
    this.title = 'Versions';
    this.list = h('ol', { class: 'versions', 'aria-label': 'Versions, newest first' });
    this.detail = h('div', { class: 'version-detail', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Choose a version to see how it differs from the current page.'));
    this.h1 = h('h1', null, 'Versions');
    this.el = h('section', { class: 'screen screen-wide' },
      h('div', { class: 'screen-head' }, this.h1,
        h('a', { class: 'btn btn-ghost', href: this.editorHash() }, '← Back to the editor')),
      h('div', { class: 'versions-split' }, h('div', { class: 'versions-col' }, this.list), this.detail));
    this.load();
  }

  editorHash() {
    const base = `#/site/${encodeURIComponent(this.site.short_id || this.site.id)}/page/${this.pageID}`;
    return this.locale !== this.defaultLocale ? `${base}?locale=${this.locale}` : base;
  }


  async load() {
    const q = this.locale !== this.defaultLocale ? { content_locale: this.locale } : {};
    try {
      const [page, schema, versions] = await Promise.all([
        api.get(`/pages/${encodeURIComponent(this.pageID)}`, { query: q }),
        api.get(`/pages/${encodeURIComponent(this.pageID)}/schema`),
        api.get(`/pages/${encodeURIComponent(this.pageID)}/versions`, { query: { limit: 100 } }),
      ]);
      this.doc = page.data;
      this.current = fromDocument(page.data, this.defaultLocale);
      this.labels = {};
      const walk = (fs) => { for (const f of fs) { this.labels[f.slug] = f.label; for (const b of f.blocks) walk(b.fields); } };
      walk(topFields(schema.data, this.current));
      this.h1.textContent = `Versions of “${page.data.title}”`;
      this.title = `Versions of ${page.data.title}`;
      document.title = `${this.title} · Tessera`;
      if (!versions.data.length) {
        clear(this.list, h('li', { class: 'muted' }, 'No versions yet: one is kept each time the page is saved live or a draft is published.'));
        return;
      }
      clear(this.list, versions.data.map((v, i) => {
        const btn = h('button', { type: 'button', class: 'version', 'aria-pressed': 'false', 'data-id': v.id, onclick: () => this.show(v, btn) },
          h('span', { class: 'version-when' }, exact(v.created_at)),
          h('span', { class: 'version-what' }, ACTIONS[v.source_action] || v.source_action, i === 0 ? h('span', { class: 'badge' }, 'latest') : null));
        return h('li', null, btn);
      }));
    } catch (e) {
      clear(this.detail, h('p', { class: 'form-error' }, e.message));
    }
  }

  async show(v, btn) {
    for (const b of this.list.querySelectorAll('.version')) b.setAttribute('aria-pressed', b === btn ? 'true' : 'false');
    clear(this.detail, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const res = await api.get(`/pages/${encodeURIComponent(this.pageID)}/versions/${v.id}`);
      const snap = res.data.snapshot || {};
      const localized = localizeSnapshot(snap, this.locale, this.defaultLocale);
      const old = fromSnapshot(localized, this.defaultLocale);
      borrowDetails(old, this.current);
      const changes = diffModels(old, this.current, this.labels);
      const restore = h('button', { type: 'button', class: 'btn btn-primary', id: 'restore', onclick: () => this.restore(v) }, 'Restore this version');
      clear(this.detail,
        h('div', { class: 'version-head' },
          h('div', null, h('h2', null, exact(v.created_at)), h('p', { class: 'muted' }, `${ACTIONS[v.source_action] || v.source_action} · compared with the current live page`)),
          restore),
        renderDiff(changes, 'This version', 'Current page'));
    } catch (e) {
      clear(this.detail, h('p', { class: 'form-error' }, e.message));
    }
  }

  async restore(v) {
    if (!(await confirm('Restore version', `Put the content of ${when(v.created_at)} into the draft? The live page changes only when you publish.`, 'Restore'))) return;
    try {
      await api.post(`/pages/${encodeURIComponent(this.pageID)}/versions/${v.id}/restore`, {});
      toast('Restored into the draft. Review it and publish.', 'success');
      go(this.editorHash());
    } catch (e) {
      toast(`Could not restore: ${e.message}`, 'error');
    }
  }
}

/**
 * localizeSnapshot returns the snapshot with the locale's values at the top
 * (a version is archived in the default locale, the others in translations).
 */
function localizeSnapshot(snap, locale, defaultLocale) {
  if (locale === defaultLocale) return snap;
  const pick = (obj) => {
    const tr = obj.translations && obj.translations[locale];
    const out = { ...obj };
    if (tr) for (const [k, val] of Object.entries(tr)) if (val !== undefined) out[k] = val;
    if (obj.page_items) out.page_items = obj.page_items.map(pick);
    if (obj.repeatables) out.repeatables = obj.repeatables.map(pick);
    return out;
  };
  return pick(snap);
}
