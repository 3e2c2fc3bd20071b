// Screens of the account: first-run setup, sign-in, password reset by
// mail, password change, and the sign-in dialog shown when a session
// expires in the middle of work.

import * as api from './api.js';
import { h, id, dialog, toast } from './dom.js';
import { go, signedIn, session } from './app.js';

function input(label, attrs) {
  const iid = id('in');
  const el = h('input', { id: iid, class: 'input', ...attrs });
  return { el, row: h('div', { class: 'field' }, h('label', { class: 'label', for: iid }, label), el) };
}

function card(title, intro, form, footer) {
  return h('section', { class: 'auth' },
    h('div', { class: 'auth-card' },
      h('div', { class: 'auth-brand' }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }), 'Tessera'),
      h('h1', null, title),
      intro ? h('p', { class: 'muted' }, intro) : null,
      form,
      footer || null));
}

function errorBox() {
  return h('p', { class: 'form-error', role: 'alert', hidden: true });
}

function showError(box, msg) {
  box.textContent = msg;
  box.hidden = !msg;
}

/** busy disables a form's controls while fn runs. */
async function busy(form, fn) {
  const controls = [...form.querySelectorAll('input, button, select')];
  controls.forEach((c) => { c.disabled = true; });
  form.setAttribute('aria-busy', 'true');
  try { return await fn(); } finally {
    controls.forEach((c) => { c.disabled = false; });
    form.removeAttribute('aria-busy');
  }
}

/** setupScreen creates the first admin of an empty server. */
export function setupScreen() {
  const name = input('Your name', { type: 'text', autocomplete: 'name', required: true, name: 'name' });
  const email = input('Email', { type: 'email', autocomplete: 'email', required: true, name: 'email' });
  const pw = input('Password (at least 8 characters)', { type: 'password', autocomplete: 'new-password', required: true, minlength: 8, name: 'password' });
  const siteName = input('Site name', { type: 'text', name: 'site_name', placeholder: 'My site' });
  const token = input('Setup token (printed by tessera serve --setup-token)', { type: 'password', name: 'setup_token', autocomplete: 'off' });
  token.row.hidden = true;
  api.get('/setup', { noSite: true }).then((res) => {
    token.row.hidden = !res.data.token_required;
    token.el.required = !!res.data.token_required;
    if (!res.data.needed) go('#/signin');
  }).catch(() => { token.row.hidden = false; });
  const err = errorBox();
  const form = h('form', { class: 'form', novalidate: false },
    name.row, email.row, pw.row, siteName.row, token.row, err,
    h('button', { type: 'submit', class: 'btn btn-primary btn-wide' }, 'Create admin account'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busy(form, async () => {
      showError(err, '');
      const body = { name: name.el.value.trim(), email: email.el.value.trim(), password: pw.el.value };
      if (siteName.el.value.trim()) body.site_name = siteName.el.value.trim();
      if (token.el.value) body.setup_token = token.el.value;
      try {
        const res = await api.post('/setup', body, { noSite: true, quiet401: true });
        await signedIn(res.data);
        toast('Welcome! Your admin account is ready.', 'success');
        go('#/');
      } catch (e) {
        showError(err, e.message);
      }
    });
  });
  return {
    title: 'Set up',
    el: card('Set up Tessera', 'No account exists yet. Create the first admin; you will be signed in at once.', form),
  };
}

/** signinScreen signs in with email and password. */
export function signinScreen(query) {
  const email = input('Email', { type: 'email', autocomplete: 'username', required: true, name: 'email', autofocus: true });
  const pw = input('Password', { type: 'password', autocomplete: 'current-password', required: true, name: 'password' });
  const err = errorBox();
  let note = null;
  if (query.get('expired')) note = 'Your session has ended. Sign in again to go on.';
  if (query.get('signed_out')) note = 'You are signed out.';
  if (query.get('reset')) note = 'Your password was changed. Sign in with the new one.';
  const form = h('form', { class: 'form' },
    note ? h('p', { class: 'notice', role: 'status' }, note) : null,
    email.row, pw.row, err,
    h('button', { type: 'submit', class: 'btn btn-primary btn-wide' }, 'Sign in'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busy(form, async () => {
      showError(err, '');
      try {
        const res = await api.post('/auth/session', { email: email.el.value.trim(), password: pw.el.value }, { noSite: true, quiet401: true });
        await signedIn(res.data);
        const next = query.get('next');
        go(next && next.startsWith('#/') ? next : '#/');
      } catch (e) {
        showError(err, e.status === 401 ? 'Wrong email or password.' : e.message);
        pw.el.value = '';
        pw.el.focus();
      }
    });
  });
  return {
    title: 'Sign in',
    el: card('Sign in', null, form, h('p', { class: 'auth-foot' }, h('a', { href: '#/reset' }, 'Forgot your password?'))),
  };
}

/** resetRequestScreen asks for a reset link by mail. */
export function resetRequestScreen() {
  const email = input('Email', { type: 'email', autocomplete: 'email', required: true, autofocus: true });
  const err = errorBox();
  const done = h('p', { class: 'notice', role: 'status', hidden: true });
  const form = h('form', { class: 'form' }, email.row, err, done,
    h('button', { type: 'submit', class: 'btn btn-primary btn-wide' }, 'Send reset link'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busy(form, async () => {
      showError(err, '');
      try {
        await api.post('/auth/password_reset', { email: email.el.value.trim() }, { noSite: true, quiet401: true });
        done.textContent = 'If an account has this address, a link to choose a new password is on its way. It works for an hour.';
        done.hidden = false;
      } catch (e) {
        showError(err, e.message);
      }
    });
  });
  return {
    title: 'Reset password',
    el: card('Reset your password', 'Enter the email you sign in with.', form,
      h('p', { class: 'auth-foot' }, h('a', { href: '#/signin' }, 'Back to sign in'))),
  };
}

/** resetConfirmScreen sets a new password with the token of a reset link. */
export function resetConfirmScreen(token) {
  const pw = input('New password (at least 8 characters)', { type: 'password', autocomplete: 'new-password', required: true, minlength: 8, autofocus: true });
  const err = errorBox();
  const form = h('form', { class: 'form' }, pw.row, err,
    h('button', { type: 'submit', class: 'btn btn-primary btn-wide' }, 'Set password'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busy(form, async () => {
      showError(err, '');
      try {
        await api.post('/auth/password_reset/confirm', { token, password: pw.el.value }, { noSite: true, quiet401: true });
        go('#/signin?reset=1');
      } catch (e) {
        showError(err, e.status === 422 && !e.data ? `${e.message} Ask for a new link if this one was used or is over an hour old.` : e.message);
      }
    });
  });
  return {
    title: 'New password',
    el: card('Choose a new password', null, form,
      h('p', { class: 'auth-foot' }, h('a', { href: '#/reset' }, 'Ask for a new link'))),
  };
}

/** accountScreen changes the signed-in user's password. */
export function accountScreen() {
  const current = input('Current password', { type: 'password', autocomplete: 'current-password', required: true });
  const pw = input('New password (at least 8 characters)', { type: 'password', autocomplete: 'new-password', required: true, minlength: 8 });
  const again = input('New password again', { type: 'password', autocomplete: 'new-password', required: true, minlength: 8 });
  const err = errorBox();
  const done = h('p', { class: 'notice', role: 'status', hidden: true });
  const form = h('form', { class: 'form form-narrow' }, current.row, pw.row, again.row, err, done,
    h('button', { type: 'submit', class: 'btn btn-primary' }, 'Change password'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    showError(err, '');
    done.hidden = true;
    if (pw.el.value !== again.el.value) { showError(err, 'The new passwords differ.'); again.el.focus(); return; }
    busy(form, async () => {
      try {
        await api.post('/user/password', { current_password: current.el.value, password: pw.el.value }, { noSite: true, quiet401: true });
        form.reset();
        done.textContent = 'Your password was changed. Your other sign-ins were ended; this one goes on.';
        done.hidden = false;
      } catch (e) {
        showError(err, e.status === 401 ? 'The current password is wrong.' : e.message);
      }
    });
  });
  const u = session.user;
  const el = h('section', { class: 'screen screen-narrow' },
    h('h1', null, 'Your account'),
    h('dl', { class: 'facts' }, h('dt', null, 'Name'), h('dd', null, u.name || '—'), h('dt', null, 'Email'), h('dd', null, u.email)),
    h('h2', null, 'Change password'), form);
  return { el, title: 'Account' };
}

/**
 * reauthDialog asks for the password again after the session ended, over
 * whatever screen is open. Resolves with the new session, or null when
 * the user chose to leave.
 */
export async function reauthDialog(email) {
  for (;;) {
    const pwID = id('pw');
    const pw = h('input', { id: pwID, type: 'password', class: 'input', required: true, autocomplete: 'current-password', autofocus: true });
    const v = await dialog({
      title: 'Sign in again',
      className: 'dialog-reauth',
      body: [h('p', null, `Your session has ended. Sign in as ${email} to go on; your unsaved changes are kept.`),
        h('label', { class: 'label', for: pwID }, 'Password'), pw],
      buttons: [{ label: 'Sign out', value: 'leave' }, { label: 'Sign in', value: 'ok', kind: 'primary', submit: true }],
    });
    if (v !== 'ok') return null;
    try {
      const res = await api.post('/auth/session', { email, password: pw.value }, { noSite: true, quiet401: true });
      return res.data;
    } catch (e) {
      toast(e.status === 401 ? 'Wrong password.' : e.message, 'error');
    }
  }
}
