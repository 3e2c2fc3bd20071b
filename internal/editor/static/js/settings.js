// Site settings, for the site's admins: the site's name, languages, time
// zone, domains and switches (PATCH /sites/{site}), with the people and
// tokens tabs beside them (people.js, tokens.js).

import * as api from './api.js';
import { h, clear, id, toast, confirm, field, announce } from './dom.js';
import { session } from './app.js';
import { PeoplePanel } from './people.js';
import { TokensPanel } from './tokens.js';

const tabs = [
  { key: 'general', label: 'General', tail: '' },
  { key: 'people', label: 'People', tail: '/people' },
  { key: 'tokens', label: 'Tokens', tail: '/tokens' },
];

/** settingsTabs is the row of links between the settings' tabs. */
function settingsTabs(site, current) {
  const base = `#/site/${encodeURIComponent(site.short_id || site.id)}/settings`;
  return h('nav', { class: 'tabs', 'aria-label': 'Settings' },
    tabs.map((t) => h('a', { href: base + t.tail, class: 'tab', 'aria-current': t.key === current ? 'page' : null }, t.label)));
}

/** SettingsScreen is one tab of the site's settings. */
export class SettingsScreen {
  constructor(site, tab) {
    this.site = site;
    this.tab = tabs.some((t) => t.key === tab) ? tab : 'general';
    this.title = `Settings · ${site.name}`;
    this.body = h('div', { class: 'settings-body' }, h('p', { class: 'loading' }, 'Loading…'));
    this.el = h('section', { class: 'screen screen-wide settings' },
      h('div', { class: 'screen-head' }, h('h1', null, 'Settings')),
      settingsTabs(site, this.tab), this.body);
    this.panel = null;
    this.load();
  }

  async load() {
    try {
      if (this.tab === 'people') this.panel = new PeoplePanel(this.site);
      else if (this.tab === 'tokens') this.panel = new TokensPanel(this.site);
      else this.panel = new GeneralPanel(this.site, await api.get(`/sites/${encodeURIComponent(this.site.id)}`, { noSite: true }));
      clear(this.body, this.panel.el);
    } catch (e) {
      clear(this.body, h('p', { class: 'form-error', role: 'alert' }, `The settings could not be read: ${e.message}`));
    }
  }

  dirty() { return !!(this.panel && this.panel.dirty && this.panel.dirty()); }

  async canLeave() {
    if (!this.dirty()) return true;
    return confirm('Leave without saving?', 'The settings you changed are not saved yet.', 'Leave', true);
  }
}

/** timeZones lists the zones the browser knows, with the site's own. */
function timeZones(current) {
  let zones = [];
  try { zones = Intl.supportedValuesOf('timeZone'); } catch { zones = ['UTC']; }
  if (!zones.includes('UTC')) zones.unshift('UTC');
  if (current && !zones.includes(current)) zones.unshift(current);
  return zones;
}

const localeName = (code) => {
  try { return new Intl.DisplayNames([navigator.language || 'en'], { type: 'language' }).of(code) || code; } catch { return code; }
};

/** GeneralPanel is the form of the site's own settings. */
class GeneralPanel {
  constructor(site, res) {
    this.site = site;
    this.data = res.data;
    this.saved = this.snapshot(res.data);
    this.locales = [...res.data.locales];
    this.domains = [...(res.data.domains || [])];
    this.error = h('p', { class: 'form-error', role: 'alert', hidden: true });
    this.name = h('input', { class: 'input', type: 'text', name: 'name', value: res.data.name, required: true, maxlength: 200, oninput: () => this.changed() });
    this.tz = h('select', { class: 'select', name: 'timezone', onchange: () => this.changed() },
      timeZones(res.data.timezone).map((z) => h('option', { value: z, selected: z === res.data.timezone }, z)));
    this.drafts = this.switch('drafts_enabled', 'Drafts', res.data.drafts_enabled);
    this.confirmation = this.switch('customer_confirmation', 'Customers confirm their email', res.data.customer_confirmation);
    this.localeList = h('ul', { class: 'chips', 'aria-label': 'Languages' });
    this.domainList = h('ul', { class: 'rows', 'aria-label': 'Domains' });
    const newLocale = h('input', { class: 'input input-inline', type: 'text', name: 'new_locale', placeholder: 'nl, fr-BE…', 'aria-label': 'Language code to add', maxlength: 20 });
    const newDomain = h('input', { class: 'input input-inline', type: 'text', name: 'new_domain', placeholder: 'www.example.com', 'aria-label': 'Domain to add', maxlength: 253 });
    const add = (input, fn) => (ev) => { ev.preventDefault(); const v = input.value.trim(); if (v && fn(v)) { input.value = ''; input.focus(); } };
    this.saveBtn = h('button', { type: 'submit', class: 'btn btn-primary', disabled: true }, 'Save settings');
    const form = h('form', { class: 'form settings-form', novalidate: true, onsubmit: (ev) => { ev.preventDefault(); this.save(); } },
      this.error,
      field('Site name', this.name),
      h('fieldset', { class: 'panel' }, h('legend', { class: 'panel-title' }, 'Languages'),
        h('p', { class: 'hint' }, `Content is written in ${localeName(res.data.default_locale)} (${res.data.default_locale}) first; the other languages are translations.`),
        this.localeList,
        h('div', { class: 'inline-add' }, newLocale, h('button', { type: 'button', class: 'btn btn-small', onclick: add(newLocale, (v) => this.addLocale(v)) }, 'Add language'))),
      field('Time zone', this.tz, { hint: 'Schedules of cloud code and dates on the site use it.' }),
      h('fieldset', { class: 'panel' }, h('legend', { class: 'panel-title' }, 'Domains'),
        h('p', { class: 'hint' }, `The site also answers at ${res.data.short_id}.localhost. Its links use the first domain.`),
        this.domainList,
        h('div', { class: 'inline-add' }, newDomain, h('button', { type: 'button', class: 'btn btn-small', onclick: add(newDomain, (v) => this.addDomain(v)) }, 'Add domain'))),
      h('fieldset', { class: 'panel' }, h('legend', { class: 'panel-title' }, 'Switches'),
        this.drafts, h('p', { class: 'hint' }, 'On: edits stay in a draft until someone publishes them. Off: edits go live as they are saved.'),
        this.confirmation, h('p', { class: 'hint' }, 'On: new customers get a mail and confirm their address before they can log in.')),
      h('div', { class: 'form-actions' }, this.saveBtn));
    newLocale.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') add(newLocale, (v) => this.addLocale(v))(ev); });
    newDomain.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') add(newDomain, (v) => this.addDomain(v))(ev); });
    this.el = h('div', { class: 'form-narrow-wide' }, form);
    this.drawLocales();
    this.drawDomains();
  }

  switch(name, label, checked) {
    const inputID = id('sw');
    const input = h('input', { type: 'checkbox', id: inputID, name, class: 'switch-input', role: 'switch', checked, onchange: () => this.changed() });
    return h('div', { class: 'switch-row' }, input,
      h('label', { for: inputID, class: 'switch-label' }, h('span', { class: 'switch-track', 'aria-hidden': 'true' }), label));
  }

  snapshot(d) {
    return JSON.stringify([d.name, d.locales, d.timezone, d.domains || [], d.drafts_enabled, d.customer_confirmation]);
  }

  current() {
    return {
      name: this.name.value.trim(), locales: this.locales, timezone: this.tz.value, domains: this.domains,
      drafts_enabled: this.drafts.querySelector('input').checked,
      customer_confirmation: this.confirmation.querySelector('input').checked,
    };
  }

  dirty() { const c = this.current(); return this.snapshot(c) !== this.saved; }

  changed() { this.saveBtn.disabled = !this.dirty(); }

  drawLocales() {
    clear(this.localeList, this.locales.map((l, i) => h('li', { class: 'chip' },
      h('span', null, `${localeName(l)} (${l})`),
      i === 0 ? h('span', { class: 'badge badge-muted' }, 'default')
        : h('button', { type: 'button', class: 'chip-x', 'aria-label': `Remove ${localeName(l)} (${l})`, onclick: () => this.removeLocale(l) }, '×'))));
    this.changed();
  }

  addLocale(v) {
    const code = v.toLowerCase();
    if (!/^[a-z]{2,3}(-[a-z0-9]{2,8})*$/.test(code)) { toast(`"${v}" is not a language code (as nl, or fr-be).`, 'error'); return false; }
    if (this.locales.includes(code)) { toast(`${code} is one of the site's languages already.`, 'error'); return false; }
    this.locales.push(code);
    this.drawLocales();
    announce(`${localeName(code)} added; save to keep it.`);
    return true;
  }

  async removeLocale(code) {
    const ok = await confirm(`Remove ${localeName(code)}?`,
      `Pages, entries and menus keep their ${code} translations, but once you save they are hidden: ` +
      `the public site no longer answers in ${code}, the editor no longer shows ${code} fields, and ${code} links of the site stop working. ` +
      `Adding ${code} again brings them back.`, 'Remove language', true);
    if (!ok) return;
    this.locales = this.locales.filter((l) => l !== code);
    this.drawLocales();
    announce(`${code} removed; save to apply.`);
  }

  drawDomains() {
    clear(this.domainList, this.domains.length === 0 ? h('li', { class: 'muted' }, 'No domain yet.') : this.domains.map((d, i) =>
      h('li', { class: 'row' }, h('span', { class: 'row-main' }, d), i === 0 ? h('span', { class: 'badge' }, 'primary') : null,
        h('button', { type: 'button', class: 'btn btn-small btn-ghost', 'aria-label': `Remove ${d}`, onclick: () => { this.domains = this.domains.filter((x) => x !== d); this.drawDomains(); } }, 'Remove'))));
    this.changed();
  }

  addDomain(v) {
    const d = v.toLowerCase().replace(/^https?:\/\//, '').replace(/\/.*$/, '');
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+(:\d+)?$/.test(d)) { toast(`"${v}" is not a domain (as www.example.com).`, 'error'); return false; }
    if (this.domains.includes(d)) { toast(`${d} is listed already.`, 'error'); return false; }
    this.domains.push(d);
    this.drawDomains();
    return true;
  }

  async save() {
    this.error.hidden = true;
    const body = this.current();
    if (!body.name) { this.showError('The site needs a name.'); this.name.focus(); return; }
    this.saveBtn.disabled = true;
    try {
      const res = await api.request('PATCH', `/sites/${encodeURIComponent(this.site.id)}`, { body, noSite: true });
      this.saved = this.snapshot(res.data);
      const mine = session.sites.find((s) => s.id === this.site.id);
      for (const target of [this.site, mine]) if (target) Object.assign(target, res.data, { role: target.role });
      const label = document.querySelector(`.site-switch option[value="${CSS.escape(this.site.short_id || this.site.id)}"]`);
      if (label) label.textContent = `${res.data.name} · ${this.site.role}`;
      toast('Settings saved.', 'success');
    } catch (e) {
      this.showError(e.message);
    }
    this.changed();
  }

  showError(msg) {
    this.error.textContent = msg;
    this.error.hidden = false;
  }
}
