// The site's channels: a list with each one's fields and entry count;
// admins create channels here (a channel is the site's schema).

import * as api from './api.js';
import { h, clear, id, dialog, toast } from './dom.js';
import { go, isAdmin } from './app.js';

export class ChannelsScreen {
  constructor(site) {
    this.site = site;
    this.title = 'Channels';
    this.el = h('section', { class: 'screen channels-screen', 'aria-busy': 'true' }, h('h1', null, 'Channels'), h('p', { class: 'loading' }, 'Loading…'));
    this.load();
  }

  get base() { return `#/site/${encodeURIComponent(this.site.short_id || this.site.id)}/channels`; }

  async load() {
    try {
      const res = await api.get('/channels', { query: { per_page: 100 } });
      this.channels = res.data;
      this.draw();
      // Counts come after: the list is usable at once.
      await Promise.all(this.channels.map(async (c) => {
        try {
          const n = (await api.get(api.channelPath(c.slug, '/entries/count'))).data.count;
          const el = this.el.querySelector(`[data-count="${CSS.escape(c.slug)}"]`);
          if (el) el.textContent = n.toLocaleString();
        } catch { /* the count stays blank */ }
      }));
    } catch (e) {
      clear(this.el, h('h1', null, 'Channels'), h('p', { class: 'form-error' }, `Could not read the channels: ${e.message}`));
    } finally {
      this.el.removeAttribute('aria-busy');
    }
  }

  draw() {
    const admin = isAdmin();
    const rows = this.channels.map((c) => h('tr', { 'data-slug': c.slug },
      h('th', { scope: 'row' }, h('a', { href: `${this.base}/${encodeURIComponent(c.slug)}` }, c.name),
        c.description ? h('div', { class: 'muted small' }, c.description) : null),
      h('td', { class: 'mono' }, c.slug),
      h('td', null, String(c.customizations.length)),
      h('td', { 'data-count': c.slug, class: 'num' }, ''),
      h('td', { class: 'cell-actions' },
        h('a', { class: 'btn btn-small', href: `${this.base}/${encodeURIComponent(c.slug)}` }, 'Entries'),
        h('a', { class: 'btn btn-small btn-ghost', href: `${this.base}/${encodeURIComponent(c.slug)}/fields` }, admin ? 'Edit fields' : 'Fields'))));
    clear(this.el,
      h('header', { class: 'screen-head' }, h('h1', null, 'Channels'),
        admin ? h('button', { type: 'button', class: 'btn btn-primary', id: 'new-channel', onclick: () => this.create() }, 'New channel') : null),
      this.channels.length
        ? h('div', { class: 'table-wrap' }, h('table', { class: 'table' },
          h('caption', { class: 'visually-hidden' }, 'Channels of the site'),
          h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Channel'), h('th', { scope: 'col' }, 'Slug'), h('th', { scope: 'col' }, 'Fields'),
            h('th', { scope: 'col', class: 'num' }, 'Entries'), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))),
          h('tbody', null, rows)))
        : h('p', { class: 'muted' }, admin ? 'No channels yet. A channel holds entries of one kind: articles, products, events.' : 'No channels yet. An admin of the site can make them.'),
      admin ? null : h('p', { class: 'hint' }, 'Only site admins change channels and their fields; you can write their entries.'));
  }

  async create() {
    const nameID = id('cn');
    const slugID = id('cs');
    const descID = id('cd');
    const name = h('input', { id: nameID, class: 'input', type: 'text', required: true, autofocus: true });
    const slug = h('input', { id: slugID, class: 'input', type: 'text', pattern: '[a-z0-9_-]+', placeholder: 'Made from the name when left empty' });
    const desc = h('input', { id: descID, class: 'input', type: 'text' });
    const v = await dialog({
      title: 'New channel',
      body: [h('label', { for: nameID, class: 'label' }, 'Name'), name,
        h('label', { for: slugID, class: 'label' }, 'Slug'), slug,
        h('label', { for: descID, class: 'label' }, 'Description'), desc],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Create', value: 'ok', kind: 'primary', submit: true }],
    });
    if (v !== 'ok') return;
    const body = { name: name.value.trim(), customizations: [] };
    if (slug.value.trim()) body.slug = slug.value.trim();
    if (desc.value.trim()) body.description = desc.value.trim();
    try {
      const res = await api.post('/channels', body);
      toast(`Channel ${res.data.name} created. Add its fields now.`, 'success');
      go(`${this.base}/${encodeURIComponent(res.data.slug)}/fields`);
    } catch (e) {
      toast(`Could not create the channel: ${e.message}`, 'error');
    }
  }
}
