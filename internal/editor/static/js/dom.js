// Small DOM helpers shared by the screens: element building, dialogs,
// announcements for screen readers, dates.

/**
 * h builds an element: h('button', {class: 'x', onclick: fn, 'aria-label': 'y'}, 'text', child).
 * Keys starting with "on" are listeners; "class", "text", "for" and
 * boolean values are handled; null and false children are skipped.
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (k === 'for') el.htmlFor = v;
      else if (k === 'value') el.value = v;
      else if (k === 'checked' || k === 'disabled' || k === 'hidden' || k === 'selected' || k === 'multiple') el[k] = !!v;
      else if (v === true) el.setAttribute(k, '');
      else el.setAttribute(k, String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** clear removes every child of el and appends children. */
export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let uid = 0;
/** id returns a document-unique id with the given prefix. */
export function id(prefix = 'e') { return `${prefix}-${++uid}`; }

/** announce tells screen readers msg through the polite live region. */
export function announce(msg) {
  const live = document.getElementById('announce');
  if (!live) return;
  live.textContent = '';
  setTimeout(() => { live.textContent = msg; }, 30);
}

/** toast shows msg for a few seconds, and announces it. kind: info|error|success. */
export function toast(msg, kind = 'info') {
  let box = document.getElementById('toasts');
  if (!box) {
    box = h('div', { id: 'toasts', class: 'toasts', role: 'status', 'aria-live': 'polite' });
    document.body.append(box);
  }
  const t = h('div', { class: `toast toast-${kind}` }, msg);
  box.append(t);
  setTimeout(() => t.remove(), kind === 'error' ? 8000 : 4000);
}

/**
 * dialog opens a modal <dialog> with a title, a body (nodes) and buttons
 * ({label, value, kind: primary|danger|plain}); resolves with the value
 * of the button pressed, or null on Escape. Focus returns where it was.
 */
export function dialog({ title, body = [], buttons, className = '' }) {
  return new Promise((resolve) => {
    const before = document.activeElement;
    const titleID = id('dlg');
    const d = h('dialog', { class: `dialog ${className}`, 'aria-labelledby': titleID });
    const form = h('form', { method: 'dialog', class: 'dialog-form' });
    const footer = h('div', { class: 'dialog-buttons' });
    let result = null;
    for (const b of buttons) {
      footer.append(h('button', {
        type: b.submit ? 'submit' : 'button', class: `btn btn-${b.kind || 'plain'}`, value: b.value,
        onclick: (ev) => {
          if (b.submit && !form.reportValidity()) return;
          ev.preventDefault();
          result = b.value; d.close();
        },
      }, b.label));
    }
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const primary = buttons.find((b) => b.submit);
      if (primary && form.reportValidity()) { result = primary.value; d.close(); }
    });
    form.append(h('h2', { id: titleID, class: 'dialog-title' }, title), h('div', { class: 'dialog-body' }, body), footer);
    d.append(form);
    d.addEventListener('close', () => {
      d.remove();
      if (before && before.focus) before.focus();
      resolve(result);
    });
    document.body.append(d);
    d.showModal();
    const first = d.querySelector('[autofocus]') || d.querySelector('input, select, textarea') || footer.querySelector('.btn-primary, .btn-danger');
    if (first) first.focus();
  });
}

/** confirm asks a yes/no question; resolves true for yes. */
export async function confirm(title, message, yes = 'OK', danger = false) {
  const v = await dialog({
    title, body: [h('p', null, message)],
    buttons: [{ label: 'Cancel', value: 'no' }, { label: yes, value: 'yes', kind: danger ? 'danger' : 'primary' }],
  });
  return v === 'yes';
}

/** prompt asks for one line of text; resolves with it, or null. */
export async function prompt(title, label, value = '', okLabel = 'OK') {
  const inputID = id('prompt');
  const input = h('input', { id: inputID, type: 'text', class: 'input', value, required: true, autofocus: true });
  const v = await dialog({
    title, body: [h('label', { for: inputID, class: 'label' }, label), input],
    buttons: [{ label: 'Cancel', value: null }, { label: okLabel, value: 'ok', kind: 'primary', submit: true }],
  });
  return v === 'ok' ? input.value.trim() : null;
}

/** when formats an ISO date for people, in their locale. */
export function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** bytes formats a byte count. */
export function bytes(n) {
  if (n == null) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** debounce returns fn delayed until ms passed without a call. */
export function debounce(fn, ms) {
  let t = 0;
  const d = (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), ms); };
  d.cancel = () => clearTimeout(t);
  return d;
}

/** field wraps a control with its label and an optional hint. */
export function field(labelText, control, { hint, forID, badge } = {}) {
  const fid = forID || control.id || (control.id = id('f'));
  return h('div', { class: 'field' },
    h('div', { class: 'field-head' }, h('label', { class: 'label', for: fid }, labelText), badge || null),
    control,
    hint ? h('p', { class: 'hint' }, hint) : null);
}
