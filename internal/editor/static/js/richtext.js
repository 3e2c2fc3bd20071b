// Rich text: a contenteditable region with a toolbar (bold, italic, links,
// lists) and a sanitizer of our own, so that what is saved is clean HTML
// of a few known elements, whatever was typed or pasted.

import { h, id, dialog } from './dom.js';

const KEEP = new Set(['P', 'BR', 'STRONG', 'EM', 'A', 'UL', 'OL', 'LI', 'H2', 'H3', 'H4', 'BLOCKQUOTE']);
const RENAME = { B: 'STRONG', I: 'EM', DIV: 'P', H1: 'H2', H5: 'H4', H6: 'H4' };
const DROP = new Set(['SCRIPT', 'STYLE', 'IFRAME', 'OBJECT', 'EMBED', 'TEMPLATE', 'NOSCRIPT', 'SVG', 'MATH',
  'HEAD', 'TITLE', 'META', 'LINK', 'IMG', 'VIDEO', 'AUDIO', 'CANVAS', 'FORM', 'INPUT', 'BUTTON', 'SELECT', 'TEXTAREA']);
const BLOCK = new Set(['P', 'UL', 'OL', 'H2', 'H3', 'H4', 'BLOCKQUOTE']);

/** safeHref returns href when it is a link a page may carry, else null. */
export function safeHref(href) {
  const v = String(href || '').trim();
  if (!v) return null;
  if (/^(https?:|mailto:|tel:)/i.test(v)) return v;
  if (/^[a-z][a-z0-9+.-]*:/i.test(v)) return null; // javascript:, data:, and any other scheme
  return v; // relative: /path, #anchor, page.html
}

/**
 * sanitize returns clean HTML for html: only the elements above, no
 * attributes but a safe href on links, text outside blocks put in
 * paragraphs, empty paragraphs dropped.
 */
export function sanitize(html) {
  // A document of its own, without a window: nothing in it loads or runs.
  // Attributes go before it parses them: the page's policy would report
  // each inline style and handler (blocked, but noisy) even there.
  const src = document.implementation.createHTMLDocument('');
  src.body.innerHTML = stripAttributes(html == null ? '' : String(html));
  const out = src.createElement('div');
  cleanInto(src.body, out, src);
  // Wrap runs of inline content at the top level in paragraphs.
  const wrapped = src.createElement('div');
  let para = null;
  for (const n of [...out.childNodes]) {
    if (n.nodeType === 1 && BLOCK.has(n.tagName)) {
      para = null;
      wrapped.append(n);
    } else {
      if (n.nodeType === 3 && !para && !n.textContent.trim()) continue;
      if (n.nodeType === 1 && n.tagName === 'BR' && !para) continue;
      if (!para) { para = src.createElement('p'); wrapped.append(para); }
      para.append(n);
    }
  }
  for (const p of [...wrapped.querySelectorAll('p, li, h2, h3, h4')]) {
    while (p.lastChild && p.lastChild.nodeType === 1 && p.lastChild.tagName === 'BR' && p.childNodes.length > 1) p.lastChild.remove();
    if (!p.textContent.trim() && !p.querySelector('br')) p.remove();
    else if (!p.textContent.trim() && p.tagName === 'P') p.remove();
  }
  for (const l of [...wrapped.querySelectorAll('ul, ol')]) if (!l.querySelector('li')) l.remove();
  return wrapped.innerHTML;
}

const TAG = /<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*(\/?)>/g;
const HREF = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;

/** stripAttributes drops every attribute of every tag but the href of links. */
function stripAttributes(html) {
  return html.replace(TAG, (_, tag, attrs, slash) => {
    let keep = '';
    const href = tag.toLowerCase() === 'a' && HREF.exec(attrs);
    if (href) keep = ` href="${(href[1] ?? href[2] ?? href[3]).replace(/"/g, '&quot;')}"`;
    return `<${tag}${keep}${slash ? ' /' : ''}>`;
  });
}

function cleanInto(from, to, doc) {
  for (const n of from.childNodes) {
    if (n.nodeType === 3) { to.append(doc.createTextNode(n.textContent)); continue; }
    if (n.nodeType !== 1) continue;
    let tag = n.tagName;
    if (DROP.has(tag)) continue;
    tag = RENAME[tag] || tag;
    if (!KEEP.has(tag)) { cleanInto(n, to, doc); continue; }
    if (tag === 'LI' && to.tagName !== 'UL' && to.tagName !== 'OL') {
      const list = doc.createElement('ul');
      to.append(list);
      const li = doc.createElement('li');
      list.append(li);
      cleanInto(n, li, doc);
      continue;
    }
    const el = doc.createElement(tag.toLowerCase());
    if (tag === 'A') {
      const href = safeHref(n.getAttribute('href'));
      if (!href) { cleanInto(n, to, doc); continue; }
      el.setAttribute('href', href);
    }
    // A block inside a paragraph (pasted markup) closes the paragraph.
    if (BLOCK.has(tag) && to.tagName === 'P') {
      cleanInto(n, to, doc);
      continue;
    }
    to.append(el);
    cleanInto(n, el, doc);
  }
}

const TOOLS = [
  { cmd: 'bold', label: 'Bold', text: 'B', key: 'b', tag: 'STRONG', cls: 'tool-bold' },
  { cmd: 'italic', label: 'Italic', text: 'I', key: 'i', tag: 'EM', cls: 'tool-italic' },
  { cmd: 'link', label: 'Link', text: 'Link', key: 'k' },
  { cmd: 'insertUnorderedList', label: 'Bulleted list', text: '• List', tag: 'UL' },
  { cmd: 'insertOrderedList', label: 'Numbered list', text: '1. List', tag: 'OL' },
  { cmd: 'removeFormat', label: 'Clear formatting', text: 'Clear' },
];

/**
 * richText makes the editor of one text item: {el, editable}. onInput gets
 * the sanitized HTML after each change.
 */
export function richText({ labelID, value, onInput }) {
  const editable = h('div', {
    class: 'rt-area', contenteditable: 'true', role: 'textbox', 'aria-multiline': 'true',
    'aria-labelledby': labelID, spellcheck: 'true',
  });
  setHTML(editable, value);
  let last = sanitize(editable.innerHTML);
  const emit = () => {
    const html = sanitize(editable.innerHTML);
    if (html !== last) { last = html; onInput(html); }
  };
  const buttons = TOOLS.map((t) => h('button', {
    type: 'button', class: `rt-tool ${t.cls || ''}`, 'aria-label': t.label, title: t.key ? `${t.label} (Ctrl+${t.key.toUpperCase()})` : t.label,
    'aria-pressed': t.tag ? 'false' : null, 'data-cmd': t.cmd,
    onmousedown: (ev) => ev.preventDefault(), // keep the selection in the text
    onclick: () => run(t.cmd),
  }, t.text));
  const toolbar = h('div', { class: 'rt-toolbar', role: 'toolbar', 'aria-label': 'Formatting', onkeydown: toolbarKeys }, buttons);
  buttons.forEach((b, i) => { b.tabIndex = i === 0 ? 0 : -1; });

  async function run(cmd) {
    editable.focus();
    if (cmd === 'link') await link();
    else document.execCommand(cmd, false, null);
    emit();
    state();
  }

  async function link() {
    const sel = window.getSelection();
    const range = sel.rangeCount ? sel.getRangeAt(0).cloneRange() : null;
    const current = sel.anchorNode && (sel.anchorNode.nodeType === 1 ? sel.anchorNode : sel.anchorNode.parentElement).closest('a');
    const urlID = id('url');
    const input = h('input', { id: urlID, class: 'input', type: 'text', value: current ? current.getAttribute('href') : 'https://', autofocus: true, required: true });
    const v = await dialog({
      title: current ? 'Edit link' : 'Add link',
      body: [h('label', { class: 'label', for: urlID }, 'Address (https://…, /path, mailto:…)'), input],
      buttons: [current ? { label: 'Remove link', value: 'unlink' } : null, { label: 'Cancel', value: null },
        { label: 'Apply', value: 'ok', kind: 'primary', submit: true }].filter(Boolean),
    });
    editable.focus();
    if (range) { sel.removeAllRanges(); sel.addRange(range); }
    if (v === 'unlink') {
      if (current) { const r = document.createRange(); r.selectNodeContents(current); sel.removeAllRanges(); sel.addRange(r); }
      document.execCommand('unlink', false, null);
    } else if (v === 'ok') {
      const href = safeHref(input.value);
      if (!href) return;
      if (current) current.setAttribute('href', href);
      else if (range && !range.collapsed) document.execCommand('createLink', false, href);
      else document.execCommand('insertHTML', false, `<a href="${href.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`)}">${href.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)}</a>`);
    }
  }

  function toolbarKeys(ev) {
    const i = buttons.indexOf(document.activeElement);
    if (i < 0) return;
    let j = -1;
    if (ev.key === 'ArrowRight') j = (i + 1) % buttons.length;
    if (ev.key === 'ArrowLeft') j = (i - 1 + buttons.length) % buttons.length;
    if (ev.key === 'Home') j = 0;
    if (ev.key === 'End') j = buttons.length - 1;
    if (j >= 0) {
      ev.preventDefault();
      buttons.forEach((b, k) => { b.tabIndex = k === j ? 0 : -1; });
      buttons[j].focus();
    }
  }

  function state() {
    const sel = window.getSelection();
    if (!sel.anchorNode || !editable.contains(sel.anchorNode)) return;
    let el = sel.anchorNode.nodeType === 1 ? sel.anchorNode : sel.anchorNode.parentElement;
    const tags = new Set();
    for (; el && el !== editable; el = el.parentElement) tags.add(RENAME[el.tagName] || el.tagName);
    TOOLS.forEach((t, i) => { if (t.tag) buttons[i].setAttribute('aria-pressed', tags.has(t.tag) ? 'true' : 'false'); });
  }

  editable.addEventListener('input', emit);
  editable.addEventListener('keyup', state);
  editable.addEventListener('mouseup', state);
  editable.addEventListener('keydown', (ev) => {
    if (!(ev.ctrlKey || ev.metaKey)) return;
    const t = TOOLS.find((x) => x.key === ev.key.toLowerCase());
    if (t) { ev.preventDefault(); run(t.cmd); }
  });
  editable.addEventListener('paste', (ev) => {
    const data = ev.clipboardData;
    if (!data) return;
    ev.preventDefault();
    const html = data.getData('text/html');
    const clean = html ? sanitize(html) : sanitize(textToHTML(data.getData('text/plain')));
    document.execCommand('insertHTML', false, clean);
    emit();
  });
  editable.addEventListener('drop', (ev) => ev.preventDefault());
  editable.addEventListener('blur', () => {
    // Show what is saved: the sanitized form of what was typed.
    const clean = sanitize(editable.innerHTML);
    if (clean !== editable.innerHTML) setHTML(editable, clean);
  });
  const el = h('div', { class: 'rt' }, toolbar, editable);
  return { el, editable, set: (html) => { setHTML(editable, html); last = sanitize(editable.innerHTML); } };
}

function textToHTML(text) {
  const esc = (s) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' }[c]));
  return String(text || '').split(/\n{2,}/).map((p) => `<p>${esc(p).replace(/\n/g, '<br>')}</p>`).join('');
}

/** setHTML puts clean HTML into el without running anything in it. */
function setHTML(el, html) {
  const tpl = document.createElement('template');
  tpl.innerHTML = sanitize(html || '');
  el.replaceChildren(document.importNode(tpl.content, true));
}
