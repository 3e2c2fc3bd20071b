// A channel's settings and fields. Saving sends what changed the way the
// original command-line client does (docs/api.md, "Channels"): a PATCH
// whose customizations list only the fields touched (by id), _destroy for
// removed fields and options; fields not listed stay as they are, so a
// change made meanwhile elsewhere to another field survives. Only a new
// order of the fields sends the whole list (?replace=1).

import * as api from './api.js';
import { h, clear, id, confirm, toast, announce, field as fieldRow } from './dom.js';
import { TYPES, typeName } from './fields.js';
import { go, isAdmin } from './app.js';

const ATTRS = ['name', 'label', 'type', 'required', 'unique', 'localized', 'hint', 'reference', 'private_storage'];
const UNIQUE = new Set(['string', 'email', 'integer', 'float', 'date', 'date_time', 'select', 'belongs_to', 'customer']);
const NOT_LOCALIZED = new Set(['belongs_to', 'belongs_to_many', 'customer', 'geo']);
const PRIVATE = new Set(['file', 'gallery']);
const REFERENCE = new Set(['belongs_to', 'belongs_to_many']);
const CHOICES = new Set(['select', 'multi_select']);

let nextKey = 0;
function draft(f) {
  return {
    key: `f${++nextKey}`, id: f.id || null, orig: f.id ? f : null,
    name: f.name || '', label: f.label || '', type: f.type || 'string', required: !!f.required, unique: !!f.unique,
    localized: !!f.localized, hint: f.hint || '', reference: f.reference || null, private_storage: !!f.private_storage,
    options: (f.select_options || []).slice().sort((a, b) => a.position - b.position).map((o) => ({ key: `o${++nextKey}`, id: o.id, name: o.name, slug: o.slug })),
    removedOptions: [],
  };
}

/** slugify makes a field name from a label: lower-case letters, digits and _. */
function slugify(s) {
  const n = s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return /^[a-z]/.test(n) ? n : n ? `f_${n}` : '';
}

export class ChannelFieldsScreen {
  constructor(site, channel) {
    this.site = site;
    this.channelRef = channel;
    this.title = 'Fields';
    this.el = h('section', { class: 'screen channel-screen', 'aria-busy': 'true' }, h('h1', null, 'Fields'), h('p', { class: 'loading' }, 'Loading…'));
    this.changed = false;
    this.load();
  }

  get base() { return `#/site/${encodeURIComponent(this.site.short_id || this.site.id)}/channels`; }

  dirty() { return this.changed; }

  async canLeave() {
    if (!this.changed) return true;
    return confirm('Unsaved changes', 'The channel has changes that are not saved. Leave and lose them?', 'Leave', true);
  }

  async load() {
    try {
      const [ch, all] = await Promise.all([api.get(api.channelPath(this.channelRef)), api.get('/channels', { query: { per_page: 100 } })]);
      this.setChannel(ch.data);
      this.others = all.data;
      this.draw();
    } catch (e) {
      clear(this.el, h('h1', null, 'Could not open the channel'), h('p', { class: 'form-error' }, e.message));
      this.el.removeAttribute('aria-busy');
    }
  }

  setChannel(c) {
    this.channel = c;
    this.settings = { name: c.name, slug: c.slug, description: c.description || '', title_field: c.title_field || '', label_field: c.label_field || '', order_by: c.order_by || '', order_direction: c.order_direction || '' };
    this.fields = c.customizations.map(draft);
    this.removed = [];
    this.changed = false;
  }

  touch() {
    this.changed = true;
    if (this.statusEl) { this.statusEl.textContent = 'Unsaved changes'; this.statusEl.className = 'status status-pending'; }
  }

  draw(focusKey, focusSel) {
    const admin = isAdmin();
    const c = this.channel;
    this.title = `${c.name}: fields`;
    document.title = `${this.title} · Tessera`;
    this.statusEl = h('p', { class: `status status-${this.changed ? 'pending' : 'saved'}`, role: 'status', 'aria-live': 'polite' }, this.changed ? 'Unsaved changes' : 'Saved');
    const head = h('header', { class: 'screen-head' },
      h('div', null,
        h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: this.base }, 'Channels'), ' › ', h('a', { href: `${this.base}/${encodeURIComponent(c.slug)}` }, c.name)),
        h('h1', null, `${c.name}: fields`)),
      h('div', { class: 'editor-state' }, this.statusEl));
    const ro = !admin;
    const s = this.settings;
    const text = (key, label, hint) => {
      const el = h('input', { class: 'input', type: 'text', id: id(key), name: key, value: s[key], disabled: ro });
      el.addEventListener('input', () => { s[key] = el.value; this.touch(); });
      return fieldRow(label, el, { hint });
    };
    const names = this.fields.filter((f) => f.name).map((f) => f.name);
    const pick = (key, label, choices, hint) => {
      const el = h('select', { class: 'select', id: id(key), name: key, disabled: ro },
        choices.map(([v, t]) => h('option', { value: v, selected: s[key] === v }, t)));
      el.addEventListener('change', () => { s[key] = el.value; this.touch(); });
      return fieldRow(label, el, { hint });
    };
    const stringNames = this.fields.filter((f) => f.name && f.type === 'string').map((f) => [f.name, f.label || f.name]);
    const settings = h('fieldset', { class: 'panel' }, h('legend', { class: 'panel-title' }, 'Channel'),
      h('div', { class: 'grid-2' },
        text('name', 'Name'), text('slug', 'Slug', 'In the API path; references to the channel follow a change.')),
      text('description', 'Description'),
      h('div', { class: 'grid-2' },
        pick('title_field', 'Title field', [['', 'The first text field'], ...stringNames], 'Names entries and makes their slugs.'),
        pick('label_field', 'Label field', [['', 'The title field'], ...stringNames])),
      h('div', { class: 'grid-2' },
        pick('order_by', 'Order entries by', [['', 'Newest first'], ['created_at', 'Created'], ['updated_at', 'Updated'], ['slug', 'Slug'], ...names.map((n) => [n, n])]),
        pick('order_direction', 'Direction', [['', 'Default'], ['asc', 'Ascending'], ['desc', 'Descending']])));
    this.list = h('ol', { class: 'field-defs' }, this.fields.map((f, i) => this.drawField(f, i, ro)));
    const foot = admin ? h('div', { class: 'form-actions' },
      h('button', { type: 'button', class: 'btn', id: 'add-field', onclick: () => this.addField() }, 'Add field'),
      h('span', { class: 'spacer' }),
      h('button', { type: 'button', class: 'btn btn-ghost btn-danger-text', onclick: () => this.deleteChannel() }, 'Delete channel'),
      h('button', { type: 'submit', class: 'btn btn-primary', id: 'save-channel' }, 'Save')) : h('p', { class: 'hint' }, 'Only site admins change a channel’s fields.');
    const form = h('form', { class: 'editor-form channel-form', 'aria-label': 'Channel fields', novalidate: true }, settings,
      h('fieldset', { class: 'panel' }, h('legend', { class: 'panel-title' }, `Fields (${this.fields.length})`),
        this.fields.length ? this.list : h('p', { class: 'muted' }, 'No fields yet.')),
      foot);
    form.addEventListener('submit', (ev) => { ev.preventDefault(); this.save(); });
    clear(this.el, head, form);
    this.el.removeAttribute('aria-busy');
    if (focusKey) {
      const li = this.list.querySelector(`[data-key="${focusKey}"]`);
      const t = li && (li.querySelector(focusSel || 'input') || li);
      if (t) t.focus();
    }
  }

  drawField(f, i, ro) {
    const n = this.fields.length;
    const set = (k, v, redraw) => { f[k] = v; this.touch(); if (redraw) this.draw(f.key, `[name="${k}"]`); };
    const labelID = id('fl');
    const label = h('input', { id: labelID, class: 'input', type: 'text', name: 'label', value: f.label, disabled: ro, required: true });
    const nameID = id('fn');
    const name = h('input', { id: nameID, class: 'input mono', type: 'text', name: 'name', value: f.name, disabled: ro, pattern: '[a-z][a-z0-9_]*', required: true });
    let autoName = !f.id && !f.name;
    label.addEventListener('input', () => {
      f.label = label.value;
      if (autoName) { f.name = slugify(label.value); name.value = f.name; }
      this.touch();
      title.textContent = f.label || f.name || 'New field';
    });
    name.addEventListener('input', () => { autoName = false; f.name = name.value; this.touch(); });
    const typeID = id('ft');
    const type = h('select', { id: typeID, class: 'select', name: 'type', disabled: ro }, TYPES.map(([v, t]) => h('option', { value: v, selected: v === f.type }, t)));
    type.addEventListener('change', () => {
      set('type', type.value, false);
      if (!UNIQUE.has(f.type)) f.unique = false;
      if (NOT_LOCALIZED.has(f.type)) f.localized = false;
      if (!PRIVATE.has(f.type)) f.private_storage = false;
      if (REFERENCE.has(f.type) && !f.reference) f.reference = this.channel.slug;
      if (!REFERENCE.has(f.type)) f.reference = null;
      this.draw(f.key, '[name="type"]');
    });
    const check = (k, text, show) => {
      if (!show) return null;
      const cid = id('fc');
      const cb = h('input', { id: cid, type: 'checkbox', name: k, checked: f[k], disabled: ro });
      cb.addEventListener('change', () => set(k, cb.checked, false));
      return h('label', { for: cid, class: 'check' }, cb, ' ', text);
    };
    const hintID = id('fh');
    const hint = h('input', { id: hintID, class: 'input', type: 'text', name: 'hint', value: f.hint, disabled: ro });
    hint.addEventListener('input', () => set('hint', hint.value, false));
    let extra = null;
    if (REFERENCE.has(f.type)) {
      const refID = id('fr');
      const ref = h('select', { id: refID, class: 'select', name: 'reference', disabled: ro },
        this.others.map((c) => h('option', { value: c.slug, selected: c.slug === f.reference }, c.slug === this.channel.slug ? `${c.name} (this channel)` : c.name)));
      ref.addEventListener('change', () => set('reference', ref.value, false));
      extra = fieldRow('Entries of', ref);
    }
    if (CHOICES.has(f.type)) extra = this.drawOptions(f, ro);
    const btn = (label, text, cls, onclick, disabled) => h('button', {
      type: 'button', class: `btn btn-icon ${cls}`, 'aria-label': `${label} field ${f.label || f.name || i + 1}`, title: label, disabled: disabled || ro, onclick,
    }, text);
    const title = h('span', null, f.label || f.name || 'New field');
    return h('li', { class: `field-def${f.id ? '' : ' field-def-new'}`, 'data-key': f.key, 'data-name': f.name },
      h('div', { class: 'block-head' },
        h('h3', { class: 'block-title' }, title, h('span', { class: 'block-num' }, ` ${typeName(f.type)}`)),
        h('div', { class: 'block-tools' },
          btn('Move up', '↑', 'btn-up', () => this.moveField(f, i - 1), i === 0),
          btn('Move down', '↓', 'btn-down', () => this.moveField(f, i + 1), i === n - 1),
          btn('Remove', '✕', 'btn-remove', () => this.removeField(f)))),
      h('div', { class: 'block-body' },
        h('div', { class: 'grid-3' }, fieldRow('Label', label), fieldRow('Name', name, { hint: f.id ? 'Renaming keeps the stored values.' : null }), fieldRow('Type', type)),
        h('div', { class: 'checks checks-row' },
          check('required', 'Required', true),
          check('unique', 'Unique', UNIQUE.has(f.type)),
          check('localized', 'Per language', !NOT_LOCALIZED.has(f.type)),
          check('private_storage', 'Private files', PRIVATE.has(f.type))),
        extra,
        fieldRow('Hint', hint)));
  }

  drawOptions(f, ro) {
    const list = h('ol', { class: 'options-list' }, f.options.map((o, i) => {
      const oid = id('opt');
      const inp = h('input', { id: oid, class: 'input', type: 'text', value: o.name, disabled: ro, name: 'option' });
      inp.addEventListener('input', () => { o.name = inp.value; this.touch(); });
      const move = (to) => {
        if (to < 0 || to >= f.options.length) return;
        f.options.splice(i, 1);
        f.options.splice(to, 0, o);
        this.touch();
        this.draw(f.key, `[data-okey="${o.key}"] input`);
      };
      return h('li', { class: 'option-row', 'data-okey': o.key },
        h('label', { for: oid, class: 'visually-hidden' }, `Option ${i + 1}`), inp,
        h('button', { type: 'button', class: 'btn btn-icon', 'aria-label': `Move option ${o.name} up`, disabled: ro || i === 0, onclick: () => move(i - 1) }, '↑'),
        h('button', { type: 'button', class: 'btn btn-icon', 'aria-label': `Move option ${o.name} down`, disabled: ro || i === f.options.length - 1, onclick: () => move(i + 1) }, '↓'),
        h('button', {
          type: 'button', class: 'btn btn-icon btn-remove', 'aria-label': `Remove option ${o.name}`, disabled: ro,
          onclick: () => { f.options.splice(i, 1); if (o.id) f.removedOptions.push(o.id); this.touch(); this.draw(f.key, '.add-option'); },
        }, '✕'));
    }));
    const add = h('button', {
      type: 'button', class: 'btn btn-small add-option', disabled: ro,
      onclick: () => { const o = { key: `o${++nextKey}`, id: null, name: '' }; f.options.push(o); this.touch(); this.draw(f.key, `[data-okey="${o.key}"] input`); },
    }, 'Add option');
    return h('div', { class: 'field' }, h('span', { class: 'label' }, 'Options'), list, add);
  }

  addField() {
    const f = draft({ type: 'string' });
    this.fields.push(f);
    this.touch();
    this.draw(f.key, '[name="label"]');
    announce('Field added');
  }

  moveField(f, to) {
    const from = this.fields.indexOf(f);
    if (to < 0 || to >= this.fields.length) return;
    this.fields.splice(from, 1);
    this.fields.splice(to, 0, f);
    this.touch();
    this.draw(f.key, to > from ? '.btn-down' : '.btn-up');
    announce(`${f.label || f.name} moved to position ${to + 1}`);
  }

  async removeField(f) {
    if (f.id && !(await confirm('Remove field', `Remove the field “${f.label || f.name}”? Entries keep its values stored, hidden, until a field with its id is added again.`, 'Remove', true))) return;
    this.fields = this.fields.filter((x) => x !== f);
    if (f.id) this.removed.push(f.id);
    this.touch();
    this.draw();
  }

  /** fieldBody is one field's part of a PATCH: all of a new field, the changed attributes of another. */
  fieldBody(f, full) {
    const o = f.orig;
    const out = f.id ? { id: f.id } : {};
    const val = { name: f.name, label: f.label || f.name, type: f.type, required: f.required, unique: f.unique, localized: f.localized, hint: f.hint, reference: f.reference, private_storage: f.private_storage };
    for (const k of ATTRS) {
      if (full || !o || (o[k] ?? null) !== (val[k] ?? null) && !(k === 'hint' && !o[k] && !val[k])) out[k] = val[k];
    }
    if (CHOICES.has(f.type)) {
      const opts = f.options.map((x, i) => {
        const w = x.id ? { id: x.id, name: x.name, position: i } : { name: x.name, position: i };
        return w;
      });
      const before = o ? (o.select_options || []).slice().sort((a, b) => a.position - b.position).map((x) => `${x.id}:${x.name}`).join('|') : '';
      const after = f.options.map((x) => `${x.id}:${x.name}`).join('|');
      if (full || before !== after || f.removedOptions.length) {
        out.select_options = [...opts, ...(full ? [] : f.removedOptions.map((rid) => ({ id: rid, _destroy: true })))];
      }
    }
    return out;
  }

  async save() {
    for (const f of this.fields) {
      if (!f.name || !/^[a-z][a-z0-9_]*$/.test(f.name)) {
        toast(`The field “${f.label || '(no label)'}” needs a name of lower-case letters, digits and _, starting with a letter.`, 'error');
        const li = this.list.querySelector(`[data-key="${f.key}"] [name="name"]`);
        if (li) li.focus();
        return;
      }
      if (CHOICES.has(f.type) && f.options.some((o) => !o.name.trim())) { toast(`An option of “${f.label || f.name}” has no name.`, 'error'); return; }
    }
    const c = this.channel;
    const body = {};
    for (const k of ['name', 'slug', 'description', 'title_field', 'label_field', 'order_by', 'order_direction']) {
      const was = (c[k] ?? '') || '';
      if (this.settings[k] !== was) body[k] = this.settings[k] === '' && k !== 'description' ? null : this.settings[k];
    }
    const origOrder = c.customizations.map((f) => f.id).filter((fid) => this.fields.some((f) => f.id === fid));
    const nowOrder = this.fields.filter((f) => f.id).map((f) => f.id);
    const reordered = origOrder.join() !== nowOrder.join();
    let replace = false;
    if (reordered) {
      // The merge keeps fields where they are: a new order is a new list.
      replace = true;
      body.customizations = this.fields.map((f) => this.fieldBody(f, true));
    } else {
      const list = this.fields.map((f) => this.fieldBody(f, false)).filter((x) => Object.keys(x).length > 1 || !x.id);
      list.push(...this.removed.map((rid) => ({ id: rid, _destroy: true })));
      if (list.length) body.customizations = list;
    }
    if (!Object.keys(body).length) { toast('Nothing to save.', 'info'); this.changed = false; this.draw(); return; }
    const btn = this.el.querySelector('#save-channel');
    if (btn) btn.disabled = true;
    this.statusEl.textContent = 'Saving…';
    this.statusEl.className = 'status status-saving';
    try {
      const res = await api.patch(api.channelPath(c.slug), body, { query: replace ? { replace: '1' } : undefined });
      const slugChanged = res.data.slug !== c.slug;
      this.setChannel(res.data);
      toast('Channel saved.', 'success');
      announce('Channel saved');
      if (slugChanged) { go(`${this.base}/${encodeURIComponent(res.data.slug)}/fields`); return; }
      this.draw();
    } catch (e) {
      if (btn) btn.disabled = false;
      this.statusEl.textContent = 'Not saved';
      this.statusEl.className = 'status status-error';
      toast(`Not saved${e.body && e.body.field ? ` (${e.body.field})` : ''}: ${e.message}`, 'error');
    }
  }

  async deleteChannel() {
    const c = this.channel;
    if (!(await confirm('Delete channel', `Delete the channel “${c.name}” and every one of its entries? This cannot be undone.`, 'Delete', true))) return;
    try {
      await api.del(api.channelPath(c.slug));
      this.changed = false;
      toast(`Channel ${c.name} deleted.`, 'success');
      go(this.base);
    } catch (e) {
      toast(`Could not delete: ${e.message}`, 'error');
    }
  }
}
