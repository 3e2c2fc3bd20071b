// The editor's entry module: the session, the hash router, and the shell
// (top bar with the site switcher, the page tree beside the main screen).

import * as api from './api.js';
import { h, clear, toast, id } from './dom.js';
import * as auth from './auth.js';
import { Tree } from './tree.js';
import { PageEditor } from './page.js';
import { VersionsScreen } from './versions.js';
import { ChannelsScreen } from './channels.js';
import { ChannelFieldsScreen } from './channel.js';
import { EntriesScreen } from './entries.js';
import { EntryScreen } from './entry.js';
import { MediaScreen } from './media.js';

/** session is what the editor knows of the signed-in user and the site. */
export const session = {
  user: null,
  /** sites: [{id, short_id, name, role, default_locale, locales, drafts_enabled, ...}] */
  sites: [],
  site: null,
};

const app = () => document.getElementById('app');

let shell = null; // {siteID, main, tree, header, aside, workspace, nav}
let screen = null; // the current screen, with an optional leave() and canLeave()

/** go navigates to a route of the editor. */
export function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

/** signedIn takes a session answer ({user, csrf_token}) and loads the user's sites. */
export async function signedIn(sess) {
  api.setCSRF(sess.csrf_token);
  session.user = sess.user;
  await loadSites();
}

async function loadSites() {
  const [user, list] = await Promise.all([
    api.get('/user', { noSite: true }),
    api.get('/sites', { noSite: true, query: { per_page: 100 } }),
  ]);
  session.user = { ...session.user, ...user.data };
  const roles = new Map((user.data.sites || []).map((s) => [s.id, s.role]));
  session.sites = list.data.map((s) => ({ ...s, role: roles.get(s.id) || (user.data.sites ? 'editor' : 'admin') }));
}

/** isAdmin reports whether the user is an admin of the current site. */
export function isAdmin() { return session.site && session.site.role === 'admin'; }

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const [path, qs] = raw.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(qs || '') };
}

let routing = Promise.resolve();
function route() { routing = routing.then(routeNow, routeNow); return routing; }

async function routeNow() {
  const { parts, query } = parseHash();
  const [first] = parts;
  if (screen && screen.canLeave && !(await screen.canLeave())) return;
  if (first === 'setup') return showBare(auth.setupScreen());
  if (first === 'signin') return showBare(auth.signinScreen(query));
  if (first === 'reset') return showBare(query.get('token') ? auth.resetConfirmScreen(query.get('token')) : auth.resetRequestScreen());
  if (!session.user) {
    const next = location.hash && !location.hash.startsWith('#/signin') ? location.hash : '';
    return go('#/signin' + (next ? '?next=' + encodeURIComponent(next) : ''));
  }
  if (first === 'account') return showInShell(session.site, auth.accountScreen());
  if (first === 'site' && parts[1]) {
    const site = findSite(parts[1]);
    if (!site) return showInShell(null, notFound('This site does not exist, or you have no role on it.'));
    // Screens start reading as they are made: name the site first.
    session.site = site;
    api.setSite(site.id);
    if (parts[2] === 'page' && parts[3]) {
      if (parts[4] === 'versions') return showInShell(site, new VersionsScreen(site, parts[3], query));
      return showInShell(site, new PageEditor(site, parts[3], query));
    }
    if (parts[2] === 'channels') {
      const [, , , ch, sub, entryID] = parts;
      if (!ch) return showInShell(site, new ChannelsScreen(site), 'channels');
      if (sub === 'fields') return showInShell(site, new ChannelFieldsScreen(site, ch), 'channels');
      if (sub === 'entries' && entryID) return showInShell(site, new EntryScreen(site, ch, entryID, query), 'channels');
      return showInShell(site, new EntriesScreen(site, ch, query), 'channels');
    }
    if (parts[2] === 'media') return showInShell(site, new MediaScreen(site, query), 'media');
    return showInShell(site, welcome(site));
  }
  if (session.sites.length === 0) return showInShell(null, notFound('You have no role on any site yet. An admin can add you with tessera user grant.'));
  const remembered = findSite(localStorage.getItem('tessera.site') || '') || session.sites[0];
  return go(`#/site/${encodeURIComponent(remembered.short_id || remembered.id)}`);
}

function findSite(ref) {
  return session.sites.find((s) => s.id === ref || s.short_id === ref) || null;
}

function leaveScreen() {
  if (screen && screen.leave) screen.leave();
  screen = null;
}

function showBare(s) {
  leaveScreen();
  shell = null;
  screen = s;
  clear(app(), s.el);
  document.title = (s.title || 'Sign in') + ' · Tessera';
  focusMain(s.el);
}

function showInShell(site, s, section = 'pages') {
  leaveScreen();
  if (!shell || shell.siteID !== (site ? site.id : null)) buildShell(site);
  showSection(section);
  screen = s;
  clear(shell.main, s.el);
  document.title = (s.title || 'Tessera') + ' · Tessera';
  if (shell.tree) shell.tree.select(s.pageID || null);
  focusMain(s.el);
}

let marked = false;
/** ready marks, once, the moment the first screen can be used (docs/benchmarks.md reads it). */
function ready() {
  if (marked) return;
  marked = true;
  performance.mark('tessera-editor-ready');
}

function focusMain(el) {
  ready();
  const target = el.querySelector('h1');
  if (target) { target.tabIndex = -1; target.focus({ preventScroll: true }); }
}

function buildShell(site) {
  session.site = site;
  api.setSite(site ? site.id : '');
  if (site) localStorage.setItem('tessera.site', site.short_id || site.id);
  const switchID = id('site');
  const switcher = h('select', {
    id: switchID, class: 'select site-switch',
    onchange: (ev) => go(`#/site/${encodeURIComponent(ev.target.value)}`),
  }, site ? null : h('option', { value: '' }, 'Choose a site'),
  session.sites.map((s) => h('option', { value: s.short_id || s.id, selected: site && s.id === site.id }, `${s.name} · ${s.role}`)));
  const header = h('header', { class: 'topbar' },
    h('a', { class: 'brand', href: '#/' }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }), 'Tessera'),
    h('div', { class: 'site-picker' }, h('label', { for: switchID, class: 'topbar-label' }, 'Site'), switcher),
    h('nav', { class: 'topbar-nav', 'aria-label': 'Account' },
      h('span', { class: 'user-name' }, session.user.name || session.user.email),
      h('a', { href: '#/account', class: 'btn btn-ghost' }, 'Account'),
      h('button', { type: 'button', class: 'btn btn-ghost', id: 'sign-out', onclick: signOut }, 'Sign out')));
  const main = h('main', { id: 'main', class: 'main' });
  let tree = null;
  let body;
  let aside = null;
  let nav = null;
  if (site) {
    tree = new Tree(site);
    aside = h('aside', { class: 'sidebar', 'aria-label': 'Pages' }, tree.el);
    body = h('div', { class: 'workspace' }, aside, main);
    nav = sectionNav(site);
  } else {
    body = h('div', { class: 'workspace workspace-single' }, main);
  }
  if (nav) header.insertBefore(nav, header.querySelector('.topbar-nav'));
  clear(app(), header, body);
  shell = { siteID: site ? site.id : null, main, tree, aside, workspace: body, nav, section: 'pages' };
}

/** SECTIONS are the parts of a site the section navigation leads to. */
const SECTIONS = [
  { key: 'pages', label: 'Pages', tail: '' },
  { key: 'channels', label: 'Channels', tail: '/channels' },
  { key: 'media', label: 'Media', tail: '/media' },
];

function sectionNav(site) {
  const base = `#/site/${encodeURIComponent(site.short_id || site.id)}`;
  return h('nav', { class: 'sections', 'aria-label': 'Sections' },
    h('ul', { class: 'sections-list' }, SECTIONS.map((s) => h('li', null,
      h('a', { class: 'section-link', href: base + s.tail, 'data-section': s.key }, s.label)))));
}

/** showSection marks the current section; the page tree shows only beside pages. */
function showSection(section) {
  if (!shell || !shell.nav) return;
  shell.section = section;
  for (const a of shell.nav.querySelectorAll('.section-link')) {
    if (a.dataset.section === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const pages = section === 'pages';
  shell.aside.hidden = !pages;
  shell.workspace.classList.toggle('workspace-single', !pages);
}

/** treeChanged reads a page's node of the tree again (after a rename, say). */
export function treeChanged(pageID) {
  if (shell && shell.tree) shell.tree.refreshNode(pageID);
}

function welcome(site) {
  const el = h('section', { class: 'screen welcome' },
    h('h1', null, site.name),
    h('p', { class: 'muted' }, 'Choose a page in the tree to edit it, or add a page.'),
    h('dl', { class: 'facts' },
      h('dt', null, 'Your role'), h('dd', null, site.role),
      h('dt', null, 'Languages'), h('dd', null, (site.locales || []).join(', ')),
      h('dt', null, 'Drafts'), h('dd', null, site.drafts_enabled ? 'On: edits stay in a draft until you publish' : 'Off: edits go live as you save')));
  return { el, title: site.name };
}

function notFound(message) {
  return { el: h('section', { class: 'screen' }, h('h1', null, 'Not here'), h('p', null, message)), title: 'Not found' };
}

async function signOut() {
  if (screen && screen.canLeave && !(await screen.canLeave())) return;
  try {
    await api.del('/auth/session', { noSite: true, quiet401: true });
  } catch (e) {
    if (e.status !== 401) { toast(`Could not sign out: ${e.message}`, 'error'); return; }
  }
  leaveScreen();
  session.user = null; session.sites = []; session.site = null;
  api.setCSRF(''); api.setSite('');
  shell = null;
  go('#/signin?signed_out=1');
}

let reauth = null;
/**
 * onUnauthorized answers a 401 from any request: the session expired or
 * was revoked. The screen stays as it is (an editor keeps its unsaved
 * changes) under a sign-in dialog; after signing in, work goes on.
 */
function onUnauthorized() {
  if (!session.user || reauth) return;
  reauth = auth.reauthDialog(session.user.email).then(async (sess) => {
    reauth = null;
    if (!sess) {
      leaveScreen();
      session.user = null; shell = null; api.setCSRF('');
      go('#/signin?expired=1');
      return;
    }
    await signedIn(sess);
    window.dispatchEvent(new CustomEvent('tessera:reauthenticated'));
    // A screen with unsaved edits saves them now; any other is drawn
    // again, so that what failed while signed out is read again.
    if (!(screen && screen.dirty && screen.dirty())) {
      shell = null;
      route();
    }
  });
}

async function boot() {
  window.addEventListener('hashchange', route);
  window.addEventListener('tessera:unauthorized', onUnauthorized);
  window.addEventListener('beforeunload', (ev) => {
    if (screen && screen.dirty && screen.dirty()) { ev.preventDefault(); ev.returnValue = ''; }
  });
  try {
    const setup = await api.get('/setup', { noSite: true });
    if (setup.data && setup.data.needed) {
      if (!location.hash.startsWith('#/setup')) location.hash = '#/setup';
      return route();
    }
  } catch (e) {
    // An older server without first-run setup: go on to sign-in.
  }
  try {
    const sess = await api.get('/auth/session', { noSite: true, quiet401: true, retries: 1 });
    await signedIn(sess.data);
  } catch (e) {
    if (e.status !== 401) toast(`Could not reach the server: ${e.message}`, 'error');
  }
  route();
}

boot();
