// The page editor: a form generated from the template's schema beside the
// live preview. Edits save to the draft (or, on a site without drafts, to
// the live page with If-Match) through the save queue of sync.js; the
// preview reloads after each save.

import * as api from './api.js';
import { h, clear, id, dialog, confirm, toast, announce, when, field as fieldRow } from './dom.js';
import { fromDocument, fromSnapshot, borrowDetails, topFields } from './model.js';
import { renderItem } from './controls.js';
import { Sync } from './sync.js';
import { diffModels, renderDiff } from './diff.js';
import { go, isAdmin, treeChanged } from './app.js';

const STATUS_TEXT = {
  saved: 'All changes saved',
  pending: 'Unsaved changes',
  saving: 'Saving…',
  offline: 'Offline',
  error: 'Not saved',
  conflict: 'Conflict',
};

/** localeName names a locale for people: "Dutch", "English (default)". */
function localeName(code, isDefault) {
  let name = code;
  try { name = new Intl.DisplayNames([navigator.language || 'en'], { type: 'language' }).of(code) || code; } catch { /* the code then */ }
  return isDefault ? `${name} (default)` : name;
}

export class PageEditor {
  constructor(site, pageID, query) {
    this.site = site;
    this.pageID = pageID;
    this.defaultLocale = site.default_locale || (site.locales || ['en'])[0];
    this.locale = query.get('locale') || this.defaultLocale;
    this.drafts = !!site.drafts_enabled;
    this.title = 'Page';
    this.el = h('section', { class: 'editor', 'aria-busy': 'true' }, h('h1', { class: 'visually-hidden' }, 'Loading page'), h('p', { class: 'loading' }, 'Loading…'));
    this.onPageChanged = (ev) => { if (ev.detail && ev.detail.id === this.pageID) this.refreshLive(); };
    window.addEventListener('tessera:page-changed', this.onPageChanged);
    this.load();
  }

  get localeQuery() { return this.locale !== this.defaultLocale ? { content_locale: this.locale } : {}; }

  dirty() { return this.sync && this.sync.pending > 0; }

  async canLeave() {
    if (!this.sync || !this.sync.pending) return true;
    try {
      await Promise.race([this.sync.flush(), new Promise((_, rej) => setTimeout(() => rej(new Error('timeout')), 5000))]);
      return true;
    } catch {
      return confirm('Unsaved changes', 'Some changes are not saved yet (the server cannot be reached). Leave and lose them?', 'Leave', true);
    }
  }

  leave() {
    window.removeEventListener('tessera:page-changed', this.onPageChanged);
    if (this.sync) this.sync.close();
  }

  async load() {
    try {
      const [pageRes, schemaRes] = await Promise.all([
        api.get(`/pages/${encodeURIComponent(this.pageID)}`, { query: this.localeQuery }),
        api.get(`/pages/${encodeURIComponent(this.pageID)}/schema`),
      ]);
      this.doc = pageRes.data;
      this.pageID = this.doc.id;
      this.etag = pageRes.etag;
      this.schema = schemaRes.data || {};
      this.live = fromDocument(this.doc, this.defaultLocale);
      this.draft = null;
      if (this.drafts) {
        try {
          const d = await api.get(`/pages/${encodeURIComponent(this.pageID)}/draft`, { query: this.localeQuery });
          this.draft = d.data;
        } catch (e) {
          if (e.status !== 404) throw e;
        }
      }
      this.build();
    } catch (e) {
      clear(this.el, h('h1', null, 'Could not open the page'), h('p', { class: 'form-error' }, e.message));
      this.el.removeAttribute('aria-busy');
    }
  }

  /** build makes the model and draws the whole editor. */
  build() {
    if (this.sync) this.sync.close();
    this.model = this.draft ? fromSnapshot(this.draft.content, this.defaultLocale) : fromDocument(this.doc, this.defaultLocale);
    if (this.draft) {
      borrowDetails(this.model, this.live);
      this.model.fields.slug = this.live.fields.slug;
    }
    this.hasDraft = !!this.draft;
    this.fields = topFields(this.schema, this.model);
    this.labels = {};
    const walk = (fs) => { for (const f of fs) { this.labels[f.slug] = f.label; for (const b of f.blocks) walk(b.fields); } };
    walk(this.fields);
    this.sync = new Sync({
      pageID: this.pageID, drafts: this.drafts, locale: this.locale !== this.defaultLocale ? this.locale : '', etag: this.etag,
      onState: (s) => this.showStatus(s),
      onSaved: (res, ops) => this.saved(res, ops),
      onConflict: (e) => this.conflict(e),
      onRejected: (op, err) => this.rejected(op, err),
      reconcile: (ops) => this.reconcile(ops),
    });
    this.title = this.model.fields.title.value || 'Page';
    document.title = `${this.title} · Tessera`;
    this.draw();
    this.refreshPreview();
  }

  untranslated(it) {
    if (this.locale === this.defaultLocale) return false;
    // Only words are translated: a select's value, a switch, a file or a
    // reference usually serve every language alike.
    if (it.type !== 'field' && it.type !== 'text') return false;
    const base = it.base;
    if (base == null || base === '') return false;
    return it.content === base;
  }

  draw() {
    const f = this.model.fields;
    this.statusEl = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
    this.retryBtn = h('button', { type: 'button', class: 'btn btn-link btn-small', hidden: true, onclick: () => this.sync.retryNow() }, 'Retry now');
    this.h1 = h('h1', { class: 'editor-h1' }, f.title.value || '(untitled)');
    this.pathEl = h('a', { class: 'editor-path', href: this.doc.public_url, target: '_blank', rel: 'noopener' }, this.doc.fullpath);
    const localeID = id('loc');
    const locales = this.site.locales || [];
    const localeSel = locales.length > 1 ? h('div', { class: 'locale-pick' },
      h('label', { for: localeID, class: 'visually-hidden' }, 'Language'),
      h('select', { id: localeID, class: 'select select-small', onchange: (ev) => this.switchLocale(ev.target.value) },
        locales.map((l) => h('option', { value: l, selected: l === this.locale }, localeName(l, l === this.defaultLocale))))) : null;
    const base = `#/site/${encodeURIComponent(this.site.short_id || this.site.id)}/page/${this.pageID}`;
    this.publishBtn = this.drafts ? h('button', { type: 'button', class: 'btn btn-primary', id: 'publish', onclick: () => this.publish() }, 'Publish') : null;
    this.discardBtn = this.drafts ? h('button', { type: 'button', class: 'btn btn-ghost', id: 'discard', onclick: () => this.discard() }, 'Discard draft') : null;
    this.narrowPreview = h('a', { class: 'btn btn-ghost preview-narrow', target: '_blank', rel: 'noopener', href: this.doc.public_url }, 'Preview ↗');
    const actions = h('div', { class: 'editor-actions' },
      localeSel, this.narrowPreview,
      this.drafts ? h('a', { class: 'btn btn-ghost', href: `${base}/versions${this.locale !== this.defaultLocale ? `?locale=${this.locale}` : ''}` }, 'Versions') : null,
      this.discardBtn, this.publishBtn);
    this.draftNote = h('span', { class: 'draft-note' });
    const head = h('header', { class: 'editor-head' },
      h('div', { class: 'editor-titles' }, this.h1, h('div', { class: 'editor-sub' }, this.pathEl, this.draftNote)),
      h('div', { class: 'editor-state' }, this.statusEl, this.retryBtn),
      actions);

    const form = h('form', { class: 'editor-form', 'aria-label': 'Page content', onsubmit: (ev) => ev.preventDefault() });
    form.append(this.pageSection(), this.contentSection(), this.seoSection());
    this.frame = h('iframe', { class: 'preview-frame', title: 'Preview of the page', referrerpolicy: 'no-referrer' });
    this.previewLink = h('a', { class: 'btn btn-ghost btn-small', target: '_blank', rel: 'noopener', href: this.doc.public_url }, 'Open ↗');
    const preview = h('aside', { class: 'preview', 'aria-label': 'Preview' },
      h('div', { class: 'preview-bar' }, h('span', { class: 'preview-title' }, this.drafts ? 'Preview of the draft' : 'Live page'),
        h('button', { type: 'button', class: 'btn btn-ghost btn-small', onclick: () => this.refreshPreview() }, 'Reload'), this.previewLink),
      this.frame);
    this.split = h('div', { class: 'editor-split' }, h('div', { class: 'editor-scroll' }, form), preview);
    clear(this.el, head, this.split);
    this.el.removeAttribute('aria-busy');
    this.showStatus({ state: 'saved', pending: 0 });
    this.h1.tabIndex = -1;
    // Keyboard users land on the page they opened, unless they went on
    // elsewhere (the tree) while it loaded.
    const active = document.activeElement;
    if (!active || active === document.body || this.el.contains(active) || !active.isConnected) this.h1.focus({ preventScroll: true });
  }

  pageSection() {
    const f = this.model.fields;
    const text = (key, label, opts = {}) => {
      const input = h(opts.multiline ? 'textarea' : 'input', { class: opts.multiline ? 'textarea' : 'input', type: opts.multiline ? null : 'text', id: id(key), name: key, rows: opts.multiline ? 3 : null });
      input.value = f[key].value ?? '';
      const badge = h('span', { class: 'badge badge-warn' }, 'Not translated');
      const mark = () => { badge.hidden = !(this.locale !== this.defaultLocale && f[key].base && f[key].value === f[key].base); };
      mark();
      input.addEventListener('input', () => {
        f[key].value = input.value;
        mark();
        if (key === 'title') { this.h1.textContent = input.value || '(untitled)'; }
        this.sync.set([key], input.value, key === 'slug' || key === 'title' ? () => this.liveFieldsChanged() : null);
      });
      return fieldRow(label, input, { hint: opts.hint, badge: key === 'slug' ? null : badge });
    };
    const rows = [text('title', 'Title'), text('slug', 'Slug', { hint: this.drafts ? 'The last part of the address. A new slug goes live at once, even with a draft.' : 'The last part of the address.' })];
    const pubID = id('pub');
    const pub = h('input', { id: pubID, type: 'checkbox', role: 'switch', class: 'switch-input', checked: this.doc.published !== false, disabled: !isAdmin() });
    pub.addEventListener('change', () => this.setPublished(pub));
    rows.push(h('div', { class: 'item item-switch' },
      h('div', { class: 'switch-row' }, pub, h('label', { for: pubID, class: 'switch-label' }, h('span', { class: 'switch-track', 'aria-hidden': 'true' }), 'Visible on the site')),
      h('p', { class: 'hint' }, isAdmin() ? 'Hidden pages are not shown to visitors; preview links still work.' : 'Only site admins can show or hide pages.')));
    return h('fieldset', { class: 'panel' }, h('legend', { class: 'panel-title' }, 'Page'), rows);
  }

  contentSection() {
    const ctx = {
      sync: this.sync,
      change: (segs, value, onSaved) => this.sync.set(segs, value, onSaved),
      untranslated: (it) => this.untranslated(it),
      lookupFile: (res, segs) => this.lookupFile(res, segs),
      searchRefs: (t, q) => this.searchRefs(t, q),
      titleOf: (t, rid) => this.titleOf(t, rid),
    };
    const body = this.fields.length
      ? this.fields.map((fd) => renderItem(fd, this.model.items.get(fd.slug) || { ...fd, content: null, ids: [], titles: {}, blocks: [] }, { ...ctx, path: ['items', fd.slug] }))
      : h('p', { class: 'muted' }, 'This page’s template has no editable content.');
    return h('fieldset', { class: 'panel' }, h('legend', { class: 'panel-title' }, 'Content'), body);
  }

  seoSection() {
    const f = this.model.fields;
    const rows = [['seo_title', 'SEO title'], ['seo_description', 'SEO description', true], ['seo_keywords', 'SEO keywords']].map(([key, label, multi]) => {
      const input = h(multi ? 'textarea' : 'input', { class: multi ? 'textarea' : 'input', id: id(key), rows: multi ? 3 : null });
      input.value = f[key].value ?? '';
      input.addEventListener('input', () => { f[key].value = input.value; this.sync.set([key], input.value); });
      return fieldRow(label, input);
    });
    return h('details', { class: 'panel panel-details' }, h('summary', { class: 'panel-title' }, 'Search engines'), h('div', { class: 'panel-body' }, rows));
  }

  showStatus(s) {
    if (!this.statusEl) return;
    let text = STATUS_TEXT[s.state] || s.state;
    if (s.state === 'saved' && this.drafts) text = this.hasDraft ? 'Draft saved' : 'No unpublished changes';
    if (s.state === 'saved' && !this.drafts) text = 'Saved live';
    if (s.message) text = s.message;
    this.statusEl.textContent = text;
    this.statusEl.className = `status status-${s.state}`;
    this.retryBtn.hidden = !(s.state === 'offline' || s.state === 'error');
    if (this.publishBtn) this.publishBtn.disabled = !this.hasDraft && s.state === 'saved';
    if (this.discardBtn) this.discardBtn.hidden = !this.hasDraft;
    if (this.draftNote) this.draftNote.textContent = !this.drafts ? '' : this.hasDraft ? 'Draft: not yet on the site' : s.pending ? 'Changes not saved yet' : 'Same as the live page';
  }

  saved(res, ops) {
    if (this.drafts) {
      this.hasDraft = true;
      this.draft = res.data.draft;
    } else if (res.data && res.data.page) {
      this.doc = res.data.page;
      this.live = fromDocument(this.doc, this.defaultLocale);
    }
    if (!this.sync.pending) this.refreshPreview();
    if (ops.some((op) => op.op === 'set' && (op.segs[0] === 'slug'))) this.liveFieldsChanged();
  }

  async liveFieldsChanged() {
    try {
      const res = await api.get(`/pages/${encodeURIComponent(this.pageID)}`, { query: { ...this.localeQuery, fields: 'fullpath,public_url,title,slug' } });
      this.doc.fullpath = res.data.fullpath;
      this.doc.public_url = res.data.public_url;
      this.pathEl.textContent = res.data.fullpath;
      this.pathEl.href = res.data.public_url;
      this.previewLink.href = res.data.public_url;
      treeChanged(this.pageID);
    } catch { /* the old path stays shown */ }
  }

  /** refreshLive follows a change made elsewhere (the tree): drawn again when nothing here is unsaved or drafted. */
  async refreshLive() {
    if (this.sync && this.sync.pending) return;
    if (!this.hasDraft) this.load(); else this.liveFieldsChanged();
  }

  rejected(op, err) {
    const where = op.segs.filter((s) => typeof s === 'string' && s !== 'items' && s !== 'repeatables').map((s) => this.labels[s] || s).join(' › ');
    toast(`Not saved (${where || op.op}): ${err.message}`, 'error');
  }

  /** reconcile tells whether a request whose answer was lost had made its blocks. */
  async reconcile(ops) {
    const known = new Set();
    const collect = (items) => { for (const it of items.values()) for (const bl of it.blocks || []) { if (bl.id) known.add(bl.id); collect(bl.items); } };
    collect(this.model.items);
    let fresh;
    if (this.drafts) {
      const d = await api.get(`/pages/${encodeURIComponent(this.pageID)}/draft`, { query: this.localeQuery, retries: 0 });
      fresh = fromSnapshot(d.data.content, this.defaultLocale);
    } else {
      const p = await api.get(`/pages/${encodeURIComponent(this.pageID)}`, { query: this.localeQuery, retries: 0 });
      fresh = fromDocument(p.data, this.defaultLocale);
      this.sync.etag = p.etag;
    }
    const unknown = [];
    const scan = (items) => { for (const it of items.values()) for (const bl of it.blocks || []) { if (!known.has(bl.id)) unknown.push(bl); scan(bl.items); } };
    scan(fresh.items);
    let all = true;
    for (const op of ops.filter((o) => o.op === 'insert')) {
      const match = unknown.find((bl) => bl.slug === op.block.slug);
      if (!match) { all = false; break; }
      op.block.id = match.id;
      unknown.splice(unknown.indexOf(match), 1);
    }
    return all;
  }

  lookupFile(res, segs) {
    let items;
    if (this.drafts) {
      const snap = res.data && res.data.draft && res.data.draft.content;
      if (!snap) return null;
      items = fromSnapshot(snap, this.defaultLocale).items;
    } else {
      const page = res.data && res.data.page;
      if (!page) return null;
      items = fromDocument(page, this.defaultLocale).items;
    }
    let it = null;
    for (let i = 1; i < segs.length; i += 1) {
      const s = segs[i];
      if (s === 'items' || s === 'repeatables') continue;
      if (typeof s === 'string') { it = items.get(s); if (!it) return null; } else {
        const bl = it.blocks.find((b) => b.id === s.id);
        if (!bl) return null;
        items = bl.items;
      }
    }
    return it ? it.url : null;
  }

  async searchRefs(refType, term) {
    if (refType === 'pages') {
      const res = await api.get('/pages', { query: { q: term, per_page: 10, fields: 'title,fullpath' } });
      return res.data.map((p) => ({ id: p.id, title: p.title, detail: p.fullpath }));
    }
    const channel = refType.replace(/^channels\./, '');
    const res = await api.get(`/channels/${encodeURIComponent(channel)}/entries`, { query: { search: term, per_page: 10 } });
    return res.data.map((e) => ({ id: e.id, title: e.title || e.name || e.slug || e.id, detail: e.slug }));
  }

  async titleOf(refType, rid) {
    try {
      if (refType === 'pages') return (await api.get(`/pages/${rid}`, { query: { fields: 'title' } })).data.title;
      const channel = refType.replace(/^channels\./, '');
      const e = (await api.get(`/channels/${encodeURIComponent(channel)}/entries/${rid}`)).data;
      return e.title || e.name || e.slug;
    } catch {
      return null;
    }
  }

  async refreshPreview() {
    if (!this.frame) return;
    try {
      const url = new URL(this.doc.public_url, location.href);
      if (this.drafts) {
        const res = await api.post(`/pages/${encodeURIComponent(this.pageID)}/draft/preview_token`, {});
        url.searchParams.set('preview', res.data.token);
      } else {
        url.searchParams.set('_', String(Date.now()));
      }
      this.frame.src = url.toString();
      this.previewLink.href = this.frame.src;
      this.narrowPreview.href = this.frame.src;
    } catch (e) {
      toast(`Could not load the preview: ${e.message}`, 'error');
    }
  }

  async switchLocale(locale) {
    try { await this.sync.flush(); } catch { /* canLeave asks */ }
    const base = `#/site/${encodeURIComponent(this.site.short_id || this.site.id)}/page/${this.pageID}`;
    go(locale === this.defaultLocale ? base : `${base}?locale=${encodeURIComponent(locale)}`);
  }

  async setPublished(input) {
    const want = input.checked;
    input.disabled = true;
    try {
      await api.post(`/pages/${encodeURIComponent(this.pageID)}/${want ? 'publish' : 'unpublish'}`, {});
      this.doc.published = want;
      toast(want ? 'The page is visible on the site.' : 'The page is hidden from visitors.', 'success');
      treeChanged(this.pageID);
      if (!this.drafts) {
        const p = await api.get(`/pages/${encodeURIComponent(this.pageID)}`, { query: { ...this.localeQuery, fields: 'title' } });
        this.sync.etag = p.etag;
      }
    } catch (e) {
      input.checked = !want;
      toast(`Could not ${want ? 'show' : 'hide'} the page: ${e.message}`, 'error');
    } finally {
      input.disabled = !isAdmin();
    }
  }

  async publish(confirmed = false) {
    this.publishBtn.disabled = true;
    try {
      await this.sync.flush();
      const res = await api.post(`/pages/${encodeURIComponent(this.pageID)}/draft/publish`, confirmed ? { confirm: true } : {});
      this.doc = res.data;
      this.live = fromDocument(this.doc, this.defaultLocale);
      this.hasDraft = false;
      this.draft = null;
      this.showStatus({ state: 'saved' });
      toast('Published: the draft is now the live page.', 'success');
      announce('Published');
      this.refreshPreview();
    } catch (e) {
      if (e.code === 'draft_base_changed') return this.baseChanged();
      toast(`Could not publish: ${e.message}`, 'error');
    } finally {
      this.publishBtn.disabled = !this.hasDraft;
    }
  }

  /** baseChanged offers the choice after a 409: the live page changed since the draft began. */
  async baseChanged() {
    let live;
    try {
      const res = await api.get(`/pages/${encodeURIComponent(this.pageID)}`, { query: this.localeQuery });
      this.doc = res.data;
      live = fromDocument(this.doc, this.defaultLocale);
    } catch (e) {
      toast(e.message, 'error');
      return;
    }
    const review = h('div', { class: 'diff-review', hidden: true }, h('h3', null, 'The live page compared with your draft'),
      renderDiff(diffModels(live, this.model, this.labels), 'Live', 'Your draft'));
    const v = await dialog({
      title: 'The live page changed',
      className: 'dialog-wide',
      body: [h('p', null, `Someone changed the live page (last at ${when(this.doc.updated_at)}) after this draft was started. Publishing replaces the live page with your draft, including their changes to the same content.`),
        h('button', { type: 'button', class: 'btn btn-link', onclick: (ev) => { review.hidden = !review.hidden; ev.target.textContent = review.hidden ? 'Review the live changes' : 'Hide the live changes'; } }, 'Review the live changes'),
        review],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Publish anyway', value: 'publish', kind: 'danger' }],
    });
    if (v === 'publish') await this.publish(true);
  }

  async discard() {
    if (!(await confirm('Discard draft', 'Throw away every change of the draft and go back to the live page?', 'Discard', true))) return;
    try {
      await this.sync.flush().catch(() => {});
      await api.del(`/pages/${encodeURIComponent(this.pageID)}/draft`);
      toast('Draft discarded.', 'success');
      this.draft = null;
      this.build();
    } catch (e) {
      if (e.status === 404) { this.draft = null; this.build(); return; }
      toast(`Could not discard: ${e.message}`, 'error');
    }
  }

  /** conflict explains a 412 on a site without drafts and asks what to do. */
  async conflict(e) {
    let theirs = null;
    let current = null;
    try {
      const res = await api.get(`/pages/${encodeURIComponent(this.pageID)}`, { query: this.localeQuery });
      current = res.data;
      theirs = fromDocument(current, this.defaultLocale);
    } catch { /* shown without details */ }
    const changes = theirs ? diffModels(this.live, theirs, this.labels) : [];
    const v = await dialog({
      title: 'Someone else changed this page',
      className: 'dialog-wide',
      body: [h('p', null, `While you were editing, the page was saved by someone else${current ? ` at ${when(current.updated_at)}` : ''}. Your last changes are not saved yet.`),
        h('h3', null, 'What they changed'),
        renderDiff(changes, 'Before', 'Now'),
        h('p', { class: 'hint' }, 'Keeping your changes applies them on top of theirs: only the fields you edited are written.')],
      buttons: [{ label: 'Discard mine and reload', value: 'reload' }, { label: 'Keep my changes', value: 'overwrite', kind: 'primary' }],
    });
    if (v === 'overwrite') {
      if (current) { this.doc = current; this.live = theirs; }
      return 'overwrite';
    }
    setTimeout(() => this.load(), 0);
    return 'reload';
  }
}
