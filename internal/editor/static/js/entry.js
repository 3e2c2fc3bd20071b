// The entry form: generated from the channel's fields, one control per
// field (fields.js). Saving sends only the fields that changed, with
// If-Match, so that someone else's change is never overwritten unseen;
// localized fields are edited per locale (content_locale).

import * as api from './api.js';
import { h, clear, id, dialog, confirm, toast, announce, when } from './dom.js';
import { renderField, refIDs } from './fields.js';
import { go, isAdmin } from './app.js';
import { pickUpload } from './media.js';

/** localeName names a locale for people. */
function localeName(code, isDefault) {
  let name = code;
  try { name = new Intl.DisplayNames([navigator.language || 'en'], { type: 'language' }).of(code) || code; } catch { /* the code */ }
  return isDefault ? `${name} (default)` : name;
}

/** entryTitle is what people call an entry: its title field, else its slug. */
export function entryTitle(ch, e) {
  const t = ch && ch.title_field && e[ch.title_field];
  return (typeof t === 'string' && t) || e.title || e.name || e.slug || e.id;
}

/** searchRefs finds entries (or customers) a reference field may name. */
export async function searchRefs(f, term) {
  if (f.type === 'customer') {
    const res = await api.get('/customers', { query: { search: term || undefined, per_page: 10 } });
    return res.data.map((c) => ({ id: c.id, title: c.name || [c.firstname, c.lastname].filter(Boolean).join(' ') || c.email, detail: c.email }));
  }
  const [ch, res] = await Promise.all([
    channelCache(f.reference),
    api.get(api.channelPath(f.reference, '/entries'), { query: { search: term || undefined, per_page: 10 } }),
  ]);
  return res.data.map((e) => ({ id: e.id, title: entryTitle(ch, e), detail: e.slug }));
}

const channels = new Map();
/** channelCache reads a channel once per screen visit. */
export function channelCache(ref) {
  if (!channels.has(ref)) channels.set(ref, api.get(api.channelPath(ref)).then((r) => r.data).catch(() => null));
  return channels.get(ref);
}

/** titleOf names an entry (or customer) a reference holds. */
export async function titleOf(f, rid) {
  try {
    if (f.type === 'customer') {
      const c = (await api.get(`/customers/${encodeURIComponent(rid)}`)).data;
      return c.name || c.email;
    }
    const [ch, e] = await Promise.all([channelCache(f.reference), api.get(api.entryPath(f.reference, rid))]);
    return entryTitle(ch, e.data);
  } catch {
    return null;
  }
}

export class EntryScreen {
  constructor(site, channel, entryID, query) {
    this.site = site;
    this.channelRef = channel;
    this.entryID = entryID === 'new' ? null : entryID;
    this.defaultLocale = site.default_locale || (site.locales || ['en'])[0];
    this.locale = query.get('locale') || this.defaultLocale;
    this.copyOf = query.get('copy');
    this.title = 'Entry';
    this.changes = {};
    this.bad = {};
    channels.clear();
    this.el = h('section', { class: 'screen screen-wide entry-screen', 'aria-busy': 'true' }, h('h1', null, 'Loading entry'), h('p', { class: 'loading' }, 'Loading…'));
    this.load();
  }

  get base() { return `#/site/${encodeURIComponent(this.site.short_id || this.site.id)}/channels/${encodeURIComponent(this.channelRef)}`; }

  dirty() { return Object.keys(this.changes).length > 0; }

  async canLeave() {
    if (!this.dirty()) return true;
    return confirm('Unsaved changes', 'This entry has changes that are not saved. Leave and lose them?', 'Leave', true);
  }

  async load() {
    try {
      const chRes = await api.get(api.channelPath(this.channelRef));
      this.channel = chRes.data;
      this.entry = null;
      this.etag = null;
      if (this.entryID) {
        const res = await api.get(api.entryPath(this.channelRef, this.entryID), { headers: api.FULL, query: { include_slugs: 'true' } });
        this.entry = res.data;
        this.etag = res.etag;
        this.entryID = this.entry.id;
      } else if (this.copyOf) {
        const res = await api.get(api.entryPath(this.channelRef, this.copyOf), { headers: api.FULL, query: { include_slugs: 'true' } });
        this.changes = this.copyBody(res.data);
        this.source = res.data;
      }
      this.draw();
    } catch (e) {
      clear(this.el, h('h1', null, 'Could not open the entry'), h('p', { class: 'form-error' }, e.message),
        h('a', { href: this.base, class: 'btn' }, 'Back to the entries'));
      this.el.removeAttribute('aria-busy');
    }
  }

  /** copyBody is the write that makes a copy of entry e: every value, files copied by FileRef. */
  copyBody(e) {
    const out = {};
    const short = this.site.short_id;
    // Copying a file (a FileRef) needs an admin, as the API says: an
    // editor's copy leaves files out, and says so.
    const files = isAdmin();
    this.filesLeft = false;
    for (const f of this.channel.customizations) {
      const v = e[f.name];
      if (v == null || (Array.isArray(v) && !v.length)) continue;
      switch (f.type) {
        case 'file':
          if (!files) { this.filesLeft = true; break; }
          if (v.url) out[f.name] = { __type: 'FileRef', source: `service://${short}/entries/${e.id}/${f.name}` };
          break;
        case 'gallery':
          if (!files) { this.filesLeft = true; break; }
          out[f.name] = { __type: 'Gallery', images: v.map((im, i) => ({ __type: 'GalleryImage', caption: im.caption, position: i, file: { __type: 'FileRef', source: `service://${short}/entries/${e.id}/${f.name}/${im.id}` } })) };
          break;
        case 'belongs_to': case 'customer':
          out[f.name] = refIDs(v)[0] || null;
          break;
        case 'belongs_to_many':
          out[f.name] = refIDs(v);
          break;
        case 'time':
          out[f.name] = String(v).slice(11, 19);
          break;
        default:
          if (f.unique) continue; // a copy would collide: left for the person to fill in
          out[f.name] = v;
      }
    }
    const tr = {};
    for (const [loc, vals] of Object.entries(e.translations || {})) {
      if (loc === this.defaultLocale) continue;
      const own = {};
      for (const f of this.channel.customizations) if (f.localized && vals[f.name] != null && JSON.stringify(vals[f.name]) !== JSON.stringify(e[f.name]) && !['file', 'gallery'].includes(f.type)) own[f.name] = f.type === 'time' ? String(vals[f.name]).slice(11, 19) : vals[f.name];
      if (Object.keys(own).length) tr[loc] = own;
    }
    if (Object.keys(tr).length) out.translations = tr;
    return out;
  }

  /** valueOf is what the form shows for field f in the locale being edited. */
  valueOf(f) {
    const e = this.entry || this.source;
    if (!e) return null;
    if (f.localized && this.locale !== this.defaultLocale && e.translations && e.translations[this.locale]) {
      return e.translations[this.locale][f.name];
    }
    return e[f.name];
  }

  draw() {
    const ch = this.channel;
    const isNew = !this.entry;
    const name = isNew ? `New ${ch.name} entry` : entryTitle(ch, this.entry);
    this.title = name;
    document.title = `${name} · Tessera`;
    const locales = this.site.locales || [];
    const localized = ch.customizations.some((f) => f.localized);
    const localeID = id('loc');
    const localeSel = !isNew && localized && locales.length > 1 ? h('div', { class: 'locale-pick' },
      h('label', { for: localeID, class: 'label-inline' }, 'Language'),
      h('select', { id: localeID, class: 'select select-small', onchange: (ev) => this.switchLocale(ev.target.value) },
        locales.map((l) => h('option', { value: l, selected: l === this.locale }, localeName(l, l === this.defaultLocale))))) : null;
    this.status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' }, isNew ? 'Not saved yet' : `Saved ${when(this.entry.updated_at)}`);
    this.saveBtn = h('button', { type: 'submit', class: 'btn btn-primary', id: 'save-entry' }, isNew ? 'Create entry' : 'Save');
    const actions = h('div', { class: 'editor-actions' },
      isNew ? null : h('button', { type: 'button', class: 'btn btn-ghost', id: 'duplicate-entry', onclick: () => this.duplicate() }, 'Duplicate'),
      isNew ? null : h('button', { type: 'button', class: 'btn btn-ghost btn-danger-text', id: 'delete-entry', onclick: () => this.remove() }, 'Delete'),
      this.saveBtn);
    const head = h('header', { class: 'screen-head' },
      h('div', null,
        h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: `#/site/${encodeURIComponent(this.site.short_id)}/channels` }, 'Channels'), ' › ',
          h('a', { href: this.base }, ch.name)),
        h('h1', { class: 'entry-h1' }, name),
        isNew ? null : h('p', { class: 'muted entry-meta' }, `Slug ${this.entry.slug} · created ${when(this.entry.created_at)}`)),
      h('div', { class: 'editor-state' }, localeSel, this.status));
    const editingOther = this.locale !== this.defaultLocale;
    const slugID = id('slug');
    const slug = h('input', { id: slugID, class: 'input', type: 'text', name: 'slug', value: this.entry ? this.entry.slug : '', disabled: editingOther, placeholder: isNew ? 'Made from the title when left empty' : '' });
    slug.addEventListener('input', () => { this.changes.slug = slug.value; this.markDirty(); });
    const rows = ch.customizations.map((f) => {
      const readOnly = editingOther && !f.localized;
      return renderField(f, this.valueOf(f), {
        site: this.site, admin: isAdmin(), readOnly,
        localeBadge: f.localized ? (editingOther ? this.locale : 'per language') : null,
        change: (wire) => { this.changes[f.name] = wire; delete this.bad[f.name]; this.markDirty(); },
        invalid: (name, why) => { this.bad[name] = why; },
        searchRefs, titleOf, pickUpload: () => pickUpload(this.site),
      });
    });
    const copyNote = this.copyOf ? h('p', { class: 'notice' }, `A copy of “${entryTitle(ch, this.source)}”: nothing is stored until you create it.${this.filesLeft ? ' Its files are not copied: copying files needs a site admin.' : ''}`) : null;
    const note = editingOther ? h('p', { class: 'notice' }, `Editing the ${localeName(this.locale)} values. Fields that are the same in every language are shown but not editable here.`) : null;
    this.form = h('form', { class: 'editor-form entry-form', 'aria-label': 'Entry', novalidate: true },
      copyNote, note,
      h('fieldset', { class: 'panel' }, h('legend', { class: 'panel-title' }, 'Fields'), rows.length ? rows : h('p', { class: 'muted' }, 'This channel has no fields yet.')),
      h('fieldset', { class: 'panel' }, h('legend', { class: 'panel-title' }, 'Address'), h('div', { class: 'field' }, h('label', { class: 'label', for: slugID }, 'Slug'), slug)),
      h('div', { class: 'form-actions' }, actions));
    this.form.addEventListener('submit', (ev) => { ev.preventDefault(); this.save(); });
    clear(this.el, head, this.form);
    this.el.removeAttribute('aria-busy');
    if (this.copyOf) this.markDirty();
  }

  markDirty() {
    this.status.textContent = this.entry ? 'Unsaved changes' : 'Not saved yet';
    this.status.className = 'status status-pending';
  }

  async switchLocale(loc) {
    if (!(await this.canLeave())) { this.draw(); return; }
    this.changes = {};
    const base = `${this.base}/entries/${encodeURIComponent(this.entryID)}`;
    go(loc === this.defaultLocale ? base : `${base}?locale=${encodeURIComponent(loc)}`);
  }

  async save(ifMatch = this.etag) {
    const bad = Object.entries(this.bad);
    if (bad.length) { toast(`${bad[0][0]} ${bad[0][1]}.`, 'error'); return; }
    const body = { ...this.changes };
    if (!this.entry) {
      // Required fields are checked by the server; empty values are left out.
      for (const [k, v] of Object.entries(body)) if (v === null) delete body[k];
      if (body.slug === '') delete body.slug;
    } else if (!Object.keys(body).length) {
      toast('Nothing to save.', 'info');
      return;
    }
    this.saveBtn.disabled = true;
    this.status.textContent = 'Saving…';
    this.status.className = 'status status-saving';
    const query = this.locale !== this.defaultLocale ? { content_locale: this.locale, include_slugs: 'true' } : { include_slugs: 'true' };
    try {
      let res;
      if (this.entry) {
        res = await api.put(api.entryPath(this.channelRef, this.entryID), body, { query, ifMatch, headers: api.FULL });
      } else {
        res = await api.post(api.channelPath(this.channelRef, '/entries'), body, { query, headers: api.FULL });
      }
      const created = !this.entry;
      this.changes = {};
      toast(created ? 'Entry created.' : 'Entry saved.', 'success');
      announce(created ? 'Entry created' : 'Entry saved');
      if (created) {
        go(`${this.base}/entries/${encodeURIComponent(res.data.id)}`);
        return;
      }
      this.entry = res.data;
      this.etag = res.etag;
      if (this.locale !== this.defaultLocale) {
        // The answer shows the default locale at the top level: read this locale again.
        const r = await api.get(api.entryPath(this.channelRef, this.entryID), { headers: api.FULL, query: { include_slugs: 'true' } });
        this.entry = r.data; this.etag = r.etag;
      }
      this.draw();
      this.status.className = 'status status-saved';
    } catch (e) {
      this.saveBtn.disabled = false;
      if (e.status === 412) return this.conflict(e);
      this.status.textContent = 'Not saved';
      this.status.className = 'status status-error';
      const where = e.body && e.body.field ? ` (${e.body.field})` : '';
      toast(`Not saved${where}: ${e.message}`, 'error');
      if (e.body && e.body.field) {
        const el = this.form.querySelector(`[data-field="${CSS.escape(String(e.body.field).split(/[.[]/)[0])}"]`);
        if (el) { el.classList.add('field-invalid'); const c = el.querySelector('input, textarea, select'); if (c) c.focus(); }
      }
    }
  }

  /** conflict: someone saved the entry since it was read (412). */
  async conflict(e) {
    let theirs = null;
    try { theirs = (await api.get(api.entryPath(this.channelRef, this.entryID))).data; } catch { /* shown without */ }
    const changedFields = Object.keys(this.changes).join(', ');
    const v = await dialog({
      title: 'Someone else changed this entry',
      body: [h('p', null, `The entry was saved by someone else${theirs ? ` at ${when(theirs.updated_at)}` : ''} after you opened it.`),
        h('p', null, `Keeping your changes writes only what you changed (${changedFields}) over their version; the rest stays theirs.`)],
      buttons: [{ label: 'Discard mine and reload', value: 'reload' }, { label: 'Keep my changes', value: 'keep', kind: 'primary' }],
    });
    if (v === 'keep') return this.save(`"${e.body.current_etag}"`);
    if (v === 'reload') { this.changes = {}; this.load(); return undefined; }
    this.status.textContent = 'Not saved: someone else changed the entry';
    this.status.className = 'status status-conflict';
    return undefined;
  }

  async duplicate() {
    if (!(await this.canLeave())) return;
    this.changes = {};
    go(`${this.base}/entries/new?copy=${encodeURIComponent(this.entryID)}`);
  }

  async remove() {
    if (!(await confirm('Delete entry', `Delete “${this.title}”? References to it from other entries are removed too. This cannot be undone.`, 'Delete', true))) return;
    try {
      await api.del(api.entryPath(this.channelRef, this.entryID), { ifMatch: this.etag });
      this.changes = {};
      toast('Entry deleted.', 'success');
      go(this.base);
    } catch (e) {
      if (e.status === 412) { toast('Not deleted: someone changed the entry meanwhile. It is shown again as it is now.', 'error'); this.load(); return; }
      toast(`Could not delete: ${e.message}`, 'error');
    }
  }
}
