// The tokens that reach the site (settings, admins only): API tokens made
// and revoked, their secret shown once; sign-ins listed beside them
// (/sites/{site}/tokens).

import * as api from './api.js';
import { h, clear, id, toast, confirm, dialog, when } from './dom.js';
import { session } from './app.js';

/** TokensPanel lists the site's tokens and makes new ones. */
export class TokensPanel {
  constructor(site) {
    this.site = site;
    this.path = `/sites/${encodeURIComponent(site.id)}/tokens`;
    this.apiList = h('div', { class: 'table-wrap' }, h('p', { class: 'loading' }, 'Loading…'));
    this.signIns = h('div', { class: 'table-wrap' });
    this.el = h('div', { class: 'tokens' },
      h('div', { class: 'section-head' },
        h('p', { class: 'muted' }, 'A token lets a program use the API: a site token acts as an admin of this site alone; a personal token acts as you.'),
        h('button', { type: 'button', class: 'btn btn-primary', id: 'new-token', onclick: () => this.create() }, 'New token')),
      h('h2', null, 'API tokens'), this.apiList,
      h('h2', null, 'Signed in'),
      h('p', { class: 'muted' }, 'Editor sessions and command-line sign-ins of this site\'s people.'),
      this.signIns);
    this.load();
  }

  async load() {
    try {
      const res = await api.get(this.path, { noSite: true });
      this.draw(res.data);
    } catch (e) {
      clear(this.apiList, h('p', { class: 'form-error', role: 'alert' }, `The tokens could not be read: ${e.message}`));
    }
  }

  draw(tokens) {
    const mine = (t) => t.kind === 'site' || (session.user && t.user === session.user.email);
    const table = (list, empty) => list.length === 0 ? h('p', { class: 'muted' }, empty) : h('table', { class: 'table' },
      h('thead', null, h('tr', null, ['Name', 'Kind', 'Created', 'Expires', ''].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, list.map((t) => h('tr', { 'data-token': t.id },
        h('td', null, h('div', { class: 'cell-main' }, t.name || (t.sign_in ? 'Sign-in' : 'Unnamed'))),
        h('td', null, t.kind === 'site' ? 'site' : h('span', null, 'user ', h('span', { class: 'muted' }, t.user))),
        h('td', { class: 'muted' }, when(t.created_at)),
        h('td', { class: 'muted' }, t.expires_at ? when(t.expires_at) : 'never'),
        h('td', { class: 'cell-actions' }, mine(t)
          ? h('button', { type: 'button', class: 'btn btn-small btn-ghost', 'aria-label': `Revoke ${t.name || t.id}`, onclick: () => this.revoke(t) }, 'Revoke')
          : h('span', { class: 'muted', title: 'Another person\'s token: theirs to revoke. Removing them from the site ends its reach here.' }, '—'))))));
    clear(this.apiList, table(tokens.filter((t) => !t.sign_in), 'No API token yet.'));
    clear(this.signIns, table(tokens.filter((t) => t.sign_in), 'Nobody is signed in.'));
  }

  async create() {
    const nameID = id('name');
    const name = h('input', { id: nameID, type: 'text', class: 'input', name: 'token_name', required: true, autofocus: true, maxlength: 200, placeholder: 'Deploys from CI' });
    const kindName = id('kind');
    const radio = (value, label, hint, checked) => {
      const rid = id('k');
      return h('div', { class: 'radio-row' }, h('input', { type: 'radio', id: rid, name: kindName, value, checked }),
        h('label', { for: rid }, h('strong', null, label), h('span', { class: 'hint' }, hint)));
    };
    const kinds = h('fieldset', { class: 'radios' }, h('legend', { class: 'label' }, 'Kind'),
      radio('site', 'Site token', 'Acts as an admin of this site alone, whoever holds it.', true),
      session.user ? radio('user', 'Personal token', 'Acts as you, on every site you have a role on.', false) : null);
    const v = await dialog({
      title: 'New token',
      body: [h('div', { class: 'field' }, h('label', { class: 'label', for: nameID }, 'Name'), name), kinds],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Create token', value: 'ok', kind: 'primary', submit: true }],
    });
    if (v !== 'ok') return;
    const kind = kinds.querySelector('input:checked').value;
    let res;
    try {
      res = await api.post(this.path, { name: name.value.trim(), kind }, { noSite: true });
    } catch (e) {
      toast(`Could not create the token: ${e.message}`, 'error');
      return;
    }
    this.load();
    await this.showSecret(res.data);
  }

  /** showSecret shows a new token's secret: this once, never again. */
  async showSecret(tok) {
    const secretID = id('secret');
    const secret = h('input', { id: secretID, class: 'input input-mono', name: 'secret', readonly: true, value: tok.token, onfocus: (ev) => ev.target.select() });
    const copy = h('button', { type: 'button', class: 'btn btn-small', onclick: async () => {
      try { await navigator.clipboard.writeText(tok.token); toast('Copied.', 'success'); } catch { secret.select(); toast('Press Ctrl+C to copy.'); }
    } }, 'Copy');
    await dialog({
      title: `Token "${tok.name}" created`,
      body: [
        h('p', { class: 'notice' }, 'Copy the token now: it is shown this once and cannot be shown again. Only its fingerprint is stored.'),
        h('label', { class: 'label', for: secretID }, 'Token'), h('div', { class: 'inline-add' }, secret, copy),
        h('p', { class: 'hint' }, 'Send it as Authorization: Bearer <token>.'),
      ],
      buttons: [{ label: 'Done', value: 'ok', kind: 'primary' }],
    });
  }

  async revoke(t) {
    const ok = await confirm(`Revoke "${t.name || t.id}"?`, 'Programs that use this token stop working at once. This cannot be undone.', 'Revoke', true);
    if (!ok) return;
    try {
      await api.del(`${this.path}/${encodeURIComponent(t.id)}`, { noSite: true });
      toast('Token revoked.', 'success');
    } catch (e) {
      toast(`Could not revoke: ${e.message}`, 'error');
    }
    this.load();
  }
}
