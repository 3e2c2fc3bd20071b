// The site's people (settings, admins only): who has which role, an
// invitation by email, a role changed, a member removed
// (/sites/{site}/members).

import * as api from './api.js';
import { h, clear, id, toast, confirm, dialog, when } from './dom.js';
import { session } from './app.js';

const roleHint = {
  admin: 'Admins also publish, change settings, people, tokens, apps and channels.',
  editor: 'Editors write pages, entries, media and customers.',
};

/** PeoplePanel lists the site's members and invites new ones. */
export class PeoplePanel {
  constructor(site) {
    this.site = site;
    this.path = `/sites/${encodeURIComponent(site.id)}/members`;
    this.list = h('div', { class: 'table-wrap' }, h('p', { class: 'loading' }, 'Loading…'));
    this.el = h('div', { class: 'people' },
      h('div', { class: 'section-head' },
        h('p', { class: 'muted' }, 'People sign in to this editor with their email and password. An invitation mails them a link to choose their password.'),
        h('button', { type: 'button', class: 'btn btn-primary', id: 'invite', onclick: () => this.invite() }, 'Invite someone')),
      this.list);
    this.load();
  }

  async load() {
    try {
      const res = await api.get(this.path, { noSite: true });
      this.draw(res.data);
    } catch (e) {
      clear(this.list, h('p', { class: 'form-error', role: 'alert' }, `The people could not be read: ${e.message}`));
    }
  }

  draw(members) {
    const admins = members.filter((m) => m.role === 'admin').length;
    const rows = members.map((m) => {
      const selID = id('role');
      const last = m.role === 'admin' && admins === 1;
      const me = session.user && m.id === session.user.id;
      const sel = h('select', { id: selID, class: 'select select-small', name: 'role', disabled: last, 'aria-label': `Role of ${m.email}`,
        title: last ? 'The site keeps at least one admin.' : null,
        onchange: () => this.setRole(m, sel) },
      ['admin', 'editor'].map((r) => h('option', { value: r, selected: r === m.role }, r)));
      return h('tr', { 'data-email': m.email },
        h('td', null, h('div', { class: 'cell-main' }, m.name || m.email, me ? h('span', { class: 'badge badge-muted' }, 'you') : null),
          h('div', { class: 'cell-sub' }, m.email)),
        h('td', null, sel),
        h('td', null, m.invited ? h('span', { class: 'badge badge-warn' }, 'invited') : h('span', { class: 'muted' }, 'active')),
        h('td', { class: 'muted' }, when(m.created_at)),
        h('td', { class: 'cell-actions' },
          m.invited ? h('button', { type: 'button', class: 'btn btn-small btn-ghost', 'aria-label': `Resend the invitation to ${m.email}`,
            onclick: () => this.resend(m) }, 'Resend invitation') : null,
          h('button', { type: 'button', class: 'btn btn-small btn-ghost', disabled: last,
          'aria-label': `Remove ${m.email}`, onclick: () => this.remove(m) }, 'Remove')));
    });
    clear(this.list, h('table', { class: 'table' },
      h('caption', { class: 'visually-hidden' }, 'People with a role on this site'),
      h('thead', null, h('tr', null, ['Person', 'Role', 'Status', 'Since', ''].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, rows)));
  }

  async invite() {
    const emailID = id('email');
    const nameID = id('name');
    const roleID = id('role');
    const email = h('input', { id: emailID, type: 'email', class: 'input', name: 'email', required: true, autofocus: true, autocomplete: 'off' });
    const name = h('input', { id: nameID, type: 'text', class: 'input', name: 'name', maxlength: 200 });
    const hint = h('p', { class: 'hint' }, roleHint.editor);
    const role = h('select', { id: roleID, class: 'select', name: 'role', onchange: () => { hint.textContent = roleHint[role.value]; } },
      h('option', { value: 'editor' }, 'editor'), h('option', { value: 'admin' }, 'admin'));
    const v = await dialog({
      title: 'Invite someone',
      body: [
        h('div', { class: 'field' }, h('label', { class: 'label', for: emailID }, 'Email'), email),
        h('div', { class: 'field' }, h('label', { class: 'label', for: nameID }, 'Name (optional)'), name),
        h('div', { class: 'field' }, h('label', { class: 'label', for: roleID }, 'Role'), role, hint),
      ],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Send invitation', value: 'ok', kind: 'primary', submit: true }],
    });
    if (v !== 'ok') return;
    try {
      const res = await api.post(this.path, { email: email.value.trim(), name: name.value.trim(), role: role.value }, { noSite: true });
      toast(res.data.invited ? `Invitation mailed to ${res.data.email}.` : `${res.data.email} can now sign in here as ${res.data.role}.`, 'success');
      this.load();
    } catch (e) {
      toast(`Could not invite: ${e.message}`, 'error');
    }
  }

  async setRole(m, sel) {
    const role = sel.value;
    try {
      await api.request('PATCH', `${this.path}/${encodeURIComponent(m.id)}`, { body: { role }, noSite: true });
      toast(`${m.email} is now ${role}.`, 'success');
      if (session.user && m.id === session.user.id && role !== 'admin') {
        // Stepping down: the settings are no longer this user's to see.
        location.reload();
        return;
      }
    } catch (e) {
      toast(`Could not change the role: ${e.message}`, 'error');
    }
    this.load();
  }

  async resend(m) {
    try {
      const res = await api.post(`${this.path}/${encodeURIComponent(m.id)}/invitation`, {}, { noSite: true });
      toast(res.data.message, 'success');
    } catch (e) {
      toast(`Could not send the invitation: ${e.message}`, 'error');
    }
  }

  async remove(m) {
    const ok = await confirm(`Remove ${m.email}?`,
      `${m.email} can no longer sign in to this site, and their tokens stop working here. Their account and their roles on other sites stay.`,
      'Remove', true);
    if (!ok) return;
    try {
      await api.del(`${this.path}/${encodeURIComponent(m.id)}`, { noSite: true });
      toast(`${m.email} was removed.`, 'success');
      if (session.user && m.id === session.user.id) {
        // Leaving the site: it is no longer this user's to open.
        location.reload();
        return;
      }
    } catch (e) {
      toast(`Could not remove: ${e.message}`, 'error');
    }
    this.load();
  }
}
