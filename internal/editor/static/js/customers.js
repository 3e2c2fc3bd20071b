// Customers: the table with search and pages, a new customer, and one
// customer's form (their fields and custom fields) with what the site's
// staff do for them: a password reset mail, a new confirmation mail, a
// sign-out everywhere (/customers...).

import * as api from './api.js';
import { h, clear, id, toast, confirm, dialog, when, debounce, field } from './dom.js';
import { go, isAdmin } from './app.js';
import { renderField } from './fields.js';
import { searchRefs, titleOf } from './entry.js';
import { pickUpload } from './media.js';

const perPage = 25;
const statuses = ['active', 'pending', 'disabled'];

const sitePath = (site) => `#/site/${encodeURIComponent(site.short_id || site.id)}`;

/** CustomersScreen is the table of the site's customers. */
export class CustomersScreen {
  constructor(site, query) {
    this.site = site;
    this.title = `Customers · ${site.name}`;
    this.page = 1;
    this.search = h('input', { type: 'search', class: 'input input-search', name: 'search', placeholder: 'Search names and emails',
      'aria-label': 'Search customers', value: query.get('search') || '', oninput: debounce(() => { this.page = 1; this.load(); }, 250) });
    this.count = h('span', { class: 'muted', role: 'status' });
    this.table = h('div', { class: 'table-wrap' }, h('p', { class: 'loading' }, 'Loading…'));
    this.pager = h('div', { class: 'pager' });
    this.el = h('section', { class: 'screen screen-wide customers' },
      h('div', { class: 'screen-head' }, h('h1', null, 'Customers'),
        h('button', { type: 'button', class: 'btn btn-primary', id: 'new-customer', onclick: () => this.create() }, 'New customer')),
      h('div', { class: 'toolbar' }, this.search, this.count),
      this.table, this.pager);
    this.load();
  }

  async load() {
    const seq = (this.seq = (this.seq || 0) + 1);
    try {
      const res = await api.get('/customers', { query: { page: this.page, per_page: perPage, search: this.search.value.trim() || undefined } });
      if (seq !== this.seq) return;
      const total = Number(res.headers.get('X-Total-Count') || res.data.length);
      this.draw(res.data, total);
    } catch (e) {
      if (seq === this.seq) clear(this.table, h('p', { class: 'form-error', role: 'alert' }, `The customers could not be read: ${e.message}`));
    }
  }

  draw(list, total) {
    this.count.textContent = total === 1 ? '1 customer' : `${total} customers`;
    if (list.length === 0) {
      clear(this.table, h('p', { class: 'muted' }, this.search.value ? 'No customer matches.' : 'No customer yet.'));
    } else {
      clear(this.table, h('table', { class: 'table' },
        h('caption', { class: 'visually-hidden' }, 'Customers'),
        h('thead', null, h('tr', null, ['#', 'Customer', 'Status', 'Language', 'Last active', 'Since'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', null, list.map((c) => h('tr', { 'data-email': c.email },
          h('td', { class: 'muted' }, c.number),
          h('td', null, h('a', { class: 'row-link', href: `${sitePath(this.site)}/customers/${encodeURIComponent(c.id)}` }, c.name || c.email),
            h('div', { class: 'cell-sub' }, c.email)),
          h('td', null, statusBadge(c.status)),
          h('td', null, c.language),
          h('td', { class: 'muted' }, c.last_activity_at ? when(c.last_activity_at) : 'never'),
          h('td', { class: 'muted' }, when(c.created_at)))))));
    }
    const pages = Math.max(1, Math.ceil(total / perPage));
    clear(this.pager, pages <= 1 ? null : [
      h('button', { type: 'button', class: 'btn btn-small', disabled: this.page <= 1, onclick: () => { this.page--; this.load(); } }, 'Previous'),
      h('span', { class: 'muted' }, `Page ${this.page} of ${pages}`),
      h('button', { type: 'button', class: 'btn btn-small', disabled: this.page >= pages, onclick: () => { this.page++; this.load(); } }, 'Next'),
    ]);
  }

  async create() {
    const inputs = {
      email: h('input', { type: 'email', class: 'input', name: 'email', required: true, autofocus: true, autocomplete: 'off' }),
      firstname: h('input', { type: 'text', class: 'input', name: 'firstname' }),
      lastname: h('input', { type: 'text', class: 'input', name: 'lastname' }),
      password: h('input', { type: 'password', class: 'input', name: 'password', minlength: 8, autocomplete: 'new-password' }),
    };
    const v = await dialog({
      title: 'New customer',
      body: [
        field('Email', inputs.email),
        field('First name', inputs.firstname),
        field('Last name', inputs.lastname),
        field('Password (optional)', inputs.password, { hint: 'At least 8 characters. Leave empty and send a password reset mail instead.' }),
      ],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Create customer', value: 'ok', kind: 'primary', submit: true }],
    });
    if (v !== 'ok') return;
    const body = {};
    for (const [k, el] of Object.entries(inputs)) if (el.value.trim()) body[k] = k === 'password' ? el.value : el.value.trim();
    try {
      const res = await api.post('/customers', body);
      toast(`${res.data.email} was created.`, 'success');
      go(`${sitePath(this.site)}/customers/${encodeURIComponent(res.data.id)}`);
    } catch (e) {
      toast(`Could not create the customer: ${e.message}`, 'error');
    }
  }
}

function statusBadge(status) {
  return h('span', { class: `badge ${status === 'active' ? '' : status === 'pending' ? 'badge-warn' : 'badge-muted'}` }, status);
}

/** CustomerScreen is one customer's form and actions. */
export class CustomerScreen {
  constructor(site, ref) {
    this.site = site;
    this.ref = ref;
    this.title = `Customer · ${site.name}`;
    this.body = h('div', null, h('p', { class: 'loading' }, 'Loading…'));
    this.el = h('section', { class: 'screen customer' },
      h('p', null, h('a', { href: `${sitePath(site)}/customers` }, '← Customers')),
      this.body);
    this.controls = [];
    this.saved = '';
    this.load();
  }

  async load() {
    try {
      const [res, fields] = await Promise.all([
        api.get(`/customers/${encodeURIComponent(this.ref)}`),
        api.get('/customers/customizations'),
      ]);
      this.draw(res.data, fields.data || []);
    } catch (e) {
      clear(this.body, h('h1', null, 'Customer'), h('p', { class: 'form-error', role: 'alert' }, `The customer could not be read: ${e.message}`));
    }
  }

  draw(c, fields) {
    this.customer = c;
    this.title = `${c.name || c.email} · Customers`;
    document.title = this.title + ' · Tessera';
    this.error = h('p', { class: 'form-error', role: 'alert', hidden: true });
    this.controls = [
      textControl('email', 'Email', c.email, 'email'),
      textControl('firstname', 'First name', c.firstname),
      textControl('lastname', 'Last name', c.lastname),
      selectControl('language', 'Language', c.language, this.site.locales || [c.language]),
      selectControl('status', 'Status', c.status, statuses),
      ...fields.map((f) => customControl(f, c[f.name], this.site)),
    ];
    for (const ctl of this.controls) ctl.onChange(() => this.changed());
    this.saveBtn = h('button', { type: 'submit', class: 'btn btn-primary', disabled: true }, 'Save customer');
    const actions = h('div', { class: 'panel customer-actions' },
      h('h2', { class: 'panel-title' }, 'Account'),
      h('dl', { class: 'kv' },
        h('dt', null, 'Number'), h('dd', null, c.number),
        h('dt', null, 'Status'), h('dd', null, statusBadge(c.status)),
        h('dt', null, 'Last active'), h('dd', null, c.last_activity_at ? when(c.last_activity_at) : 'never'),
        h('dt', null, 'Since'), h('dd', null, when(c.created_at))),
      h('div', { class: 'form-actions' },
        h('button', { type: 'button', class: 'btn btn-small', id: 'send-reset', onclick: () => this.action('reset_password') }, 'Send password reset'),
        c.status === 'pending' ? h('button', { type: 'button', class: 'btn btn-small', id: 'resend-confirmation', onclick: () => this.action('resend_confirmation') }, 'Resend confirmation') : null,
        h('button', { type: 'button', class: 'btn btn-small', id: 'revoke-sessions', onclick: () => this.revokeSessions() }, 'Sign out everywhere'),
        h('button', { type: 'button', class: 'btn btn-small btn-ghost', id: 'delete-customer', onclick: () => this.remove() }, 'Delete')));
    const form = h('form', { class: 'form customer-form', novalidate: true, onsubmit: (ev) => { ev.preventDefault(); this.save(); } },
      this.error,
      this.controls.slice(0, 5).map((ctl) => ctl.el),
      fields.length ? h('fieldset', { class: 'panel' }, h('legend', { class: 'panel-title' }, 'Custom fields'), this.controls.slice(5).map((ctl) => ctl.el)) : null,
      h('div', { class: 'form-actions' }, this.saveBtn));
    clear(this.body, h('div', { class: 'screen-head' }, h('h1', null, c.name || c.email), statusBadge(c.status)), actions, form);
    this.saved = JSON.stringify(this.values());
  }

  values() {
    const out = {};
    for (const ctl of this.controls) out[ctl.name] = ctl.value();
    return out;
  }

  dirty() { return !!this.customer && JSON.stringify(this.values()) !== this.saved; }

  async canLeave() {
    if (!this.dirty()) return true;
    return confirm('Leave without saving?', 'The changes to this customer are not saved yet.', 'Leave', true);
  }

  changed() { this.saveBtn.disabled = !this.dirty(); }

  async save() {
    this.error.hidden = true;
    const before = JSON.parse(this.saved);
    const body = {};
    try {
      for (const ctl of this.controls) {
        const v = ctl.value();
        if (JSON.stringify(v) !== JSON.stringify(before[ctl.name])) body[ctl.name] = ctl.wire ? ctl.wire(v) : v;
      }
    } catch (e) {
      this.showError(e.message);
      return;
    }
    this.saveBtn.disabled = true;
    try {
      const res = await api.request('PATCH', `/customers/${encodeURIComponent(this.customer.id)}`, { body });
      toast('Customer saved.', 'success');
      const fields = await api.get('/customers/customizations');
      this.draw(res.data, fields.data || []);
    } catch (e) {
      this.showError(e.message + (e.body && e.body.field ? ` (${e.body.field})` : ''));
      this.changed();
    }
  }

  showError(msg) {
    this.error.textContent = msg;
    this.error.hidden = false;
    this.error.scrollIntoView({ block: 'nearest' });
  }

  async action(what) {
    try {
      const res = await api.post(`/customers/${encodeURIComponent(this.customer.id)}/${what}`, {});
      toast(res.data.message, 'success');
    } catch (e) {
      toast(e.message, 'error');
    }
  }

  async revokeSessions() {
    const ok = await confirm('Sign out everywhere?', `${this.customer.email} is signed out of every browser and app, and must log in again.`, 'Sign out everywhere', true);
    if (!ok) return;
    try {
      const res = await api.del(`/customers/${encodeURIComponent(this.customer.id)}/sessions`);
      toast(res.data.message, 'success');
    } catch (e) {
      toast(`Could not sign out: ${e.message}`, 'error');
    }
  }

  async remove() {
    const ok = await confirm(`Delete ${this.customer.email}?`, 'The customer, their sessions and their custom fields are deleted. This cannot be undone.', 'Delete', true);
    if (!ok) return;
    try {
      await api.del(`/customers/${encodeURIComponent(this.customer.id)}`);
      this.customer = null;
      toast('Customer deleted.', 'success');
      go(`${sitePath(this.site)}/customers`);
    } catch (e) {
      toast(`Could not delete: ${e.message}`, 'error');
    }
  }
}

// Controls: each {name, el, value(), onChange(fn), wire?(v)}.

function textControl(name, label, value, type = 'text') {
  const input = h('input', { type, class: 'input', name, value: value ?? '' });
  return { name, el: field(label, input), value: () => input.value.trim(), onChange: (fn) => input.addEventListener('input', fn) };
}

function selectControl(name, label, value, options) {
  const opts = options.includes(value) || value == null ? options : [value, ...options];
  const sel = h('select', { class: 'select', name }, opts.map((o) => h('option', { value: o, selected: o === value }, o)));
  return { name, el: field(label, sel), value: () => sel.value, onChange: (fn) => sel.addEventListener('change', fn) };
}

/**
 * widgetControl is a custom field drawn by the entry form's control for its
 * type (fields.js): references and customers searched and picked, files and
 * galleries uploaded, reordered and captioned, multi-selects, geo points.
 * It holds the value the control last sent (its wire form) once changed.
 */
function widgetControl(f, value, site) {
  let sent = null;
  const listeners = [];
  const el = renderField(f, value, {
    site, admin: isAdmin(), readOnly: false,
    change: (wire) => { sent = { wire }; for (const fn of listeners) fn(); },
    invalid: () => {},
    searchRefs, titleOf, pickUpload: () => pickUpload(site),
  });
  return { name: f.name, el, value: () => sent, onChange: (fn) => listeners.push(fn), wire: (v) => v.wire };
}

/** customControl is a custom field's control, by its type; the other types take the entry form's. */
function customControl(f, value, site) {
  const label = f.label || f.name;
  const hint = f.hint || null;
  const name = f.name;
  switch (f.type) {
    case 'string': case 'email': {
      const input = h('input', { type: f.type === 'email' ? 'email' : 'text', class: 'input', name, value: value ?? '', required: f.required });
      return { name, el: field(label, input, { hint }), value: () => input.value, onChange: (fn) => input.addEventListener('input', fn), wire: (v) => v === '' ? null : v };
    }
    case 'text': {
      const ta = h('textarea', { class: 'textarea', name, rows: 4 });
      ta.value = value ?? '';
      return { name, el: field(label, ta, { hint }), value: () => ta.value, onChange: (fn) => ta.addEventListener('input', fn), wire: (v) => v === '' ? null : v };
    }
    case 'integer': case 'float': {
      const input = h('input', { type: 'number', class: 'input', name, step: f.type === 'integer' ? '1' : 'any', value: value ?? '' });
      return { name, el: field(label, input, { hint }), value: () => input.value, onChange: (fn) => input.addEventListener('input', fn),
        wire: (v) => v === '' ? null : Number(v) };
    }
    case 'boolean': {
      const inputID = id('cf');
      const input = h('input', { type: 'checkbox', id: inputID, name, class: 'switch-input', role: 'switch', checked: !!value });
      const el = h('div', { class: 'field' }, h('div', { class: 'switch-row' }, input,
        h('label', { for: inputID, class: 'switch-label' }, h('span', { class: 'switch-track', 'aria-hidden': 'true' }), label)), hint ? h('p', { class: 'hint' }, hint) : null);
      return { name, el, value: () => input.checked, onChange: (fn) => input.addEventListener('change', fn) };
    }
    case 'date': case 'time': {
      const input = h('input', { type: f.type, class: 'input', name, value: value ?? '' });
      return { name, el: field(label, input, { hint }), value: () => input.value, onChange: (fn) => input.addEventListener('input', fn), wire: (v) => v === '' ? null : v };
    }
    case 'select': {
      const current = value && typeof value === 'object' ? value.id : value;
      const options = f.select_options || [];
      const sel = h('select', { class: 'select', name }, h('option', { value: '' }, '—'),
        options.map((o) => h('option', { value: o.id, selected: o.id === current || o.slug === current || o.name === current }, o.name)));
      return { name, el: field(label, sel, { hint }), value: () => sel.value, onChange: (fn) => sel.addEventListener('change', fn), wire: (v) => v === '' ? null : v };
    }
    default:
      return widgetControl(f, value, site);
  }
}
