// A code editor without a build step: a textarea (which keeps the
// browser's own editing, undo, selection and accessibility) over a
// highlighted copy of its text, with line numbers and compile problems
// marked at their lines. The highlighter is a small scanner for
// JavaScript (comments, strings, keywords, numbers), Liquid and CSS.

import { h, clear, id } from './dom.js';

const jsKeywords = new Set(('await break case catch class const continue debugger default delete do else export extends ' +
  'false finally for function if import in instanceof let new null of return static super switch this throw true try ' +
  'typeof undefined var void while with yield async').split(' '));

/**
 * tokens splits code into [kind, text] pairs; kind is '' for plain text,
 * or comment, string, keyword, number, tag. lang: js, liquid, css, text.
 */
export function tokens(code, lang) {
  const out = [];
  let plain = '';
  const flush = () => { if (plain) { out.push(['', plain]); plain = ''; } };
  const push = (kind, text) => { flush(); out.push([kind, text]); };
  const n = code.length;
  let i = 0;
  const until = (end, from) => { const j = code.indexOf(end, from); return j < 0 ? n : j + end.length; };
  while (i < n) {
    const c = code[i];
    const two = code.slice(i, i + 2);
    if (lang === 'text') { plain += code.slice(i); break; }
    if ((lang === 'js') && two === '//') { const j = code.indexOf('\n', i); const e = j < 0 ? n : j; push('comment', code.slice(i, e)); i = e; continue; }
    if ((lang === 'js' || lang === 'css') && two === '/*') { const e = until('*/', i + 2); push('comment', code.slice(i, e)); i = e; continue; }
    if (lang === 'liquid' && code.startsWith('<!--', i)) { const e = until('-->', i + 4); push('comment', code.slice(i, e)); i = e; continue; }
    if (lang === 'liquid' && (two === '{%' || two === '{{')) {
      const e = until(two === '{%' ? '%}' : '}}', i + 2);
      const inner = code.slice(i, e);
      push(/^\{%-?\s*comment\b/.test(inner) ? 'comment' : 'tag', inner); i = e; continue;
    }
    if (lang !== 'liquid' && (c === '"' || c === "'" || (c === '`' && lang === 'js'))) {
      let j = i + 1;
      while (j < n && code[j] !== c) {
        if (code[j] === '\\') j++;
        else if (code[j] === '\n' && c !== '`') break;
        j++;
      }
      const e = Math.min(n, j + 1);
      push('string', code.slice(i, e)); i = e; continue;
    }
    if (lang !== 'liquid' && /[0-9]/.test(c) && !/[\w$]/.test(code[i - 1] || '')) {
      const m = /^(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(\.\d*)?([eE][+-]?\d+)?n?)/.exec(code.slice(i, i + 64));
      push('number', m[0]); i += m[0].length; continue;
    }
    if (lang === 'js' && /[A-Za-z_$]/.test(c) && !/[\w$]/.test(code[i - 1] || '')) {
      const m = /^[A-Za-z_$][\w$]*/.exec(code.slice(i, i + 128));
      if (jsKeywords.has(m[0]) && code[i - 1] !== '.') push('keyword', m[0]);
      else plain += m[0];
      i += m[0].length; continue;
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

/** highlight renders tokens as spans, into el. */
function highlight(el, code, lang) {
  const frag = document.createDocumentFragment();
  for (const [kind, text] of tokens(code, lang)) {
    frag.append(kind ? h('span', { class: `tok-${kind}` }, text) : document.createTextNode(text));
  }
  // A final newline would be a line the <pre> does not show.
  frag.append(document.createTextNode('\n '));
  clear(el, frag);
}

/** langOf names the highlighter for a file name. */
export function langOf(name) {
  if (/\.(m?js|cjs)$/i.test(name)) return 'js';
  if (/\.liquid$/i.test(name) || /\.html?$/i.test(name)) return 'liquid';
  if (/\.(s?css)$/i.test(name)) return 'css';
  return 'text';
}

/**
 * codeEditor returns {el, input, value(), setValue(code), mark(problems),
 * goTo(line, column)}. Options: value, lang, readOnly, label (its
 * accessible name), onInput, onSave (Ctrl+S / Cmd+S).
 */
export function codeEditor({ value = '', lang = 'js', readOnly = false, label = 'Code', onInput, onSave } = {}) {
  const hintID = id('codehint');
  const gutter = h('pre', { class: 'code-gutter', 'aria-hidden': 'true' });
  const view = h('pre', { class: 'code-view', 'aria-hidden': 'true' });
  const code = h('code', null);
  view.append(code);
  const marks = h('div', { class: 'code-marks' });
  view.append(marks);
  const input = h('textarea', {
    class: 'code-input', spellcheck: 'false', autocapitalize: 'off', autocomplete: 'off', wrap: 'off',
    'aria-label': label, 'aria-describedby': hintID, readonly: readOnly, name: 'code',
  });
  input.value = value;
  const area = h('div', { class: 'code-area' }, view, input);
  const el = h('div', { class: 'code-wrap' },
    h('div', { class: 'code', 'data-lang': lang }, gutter, area),
    h('p', { class: 'hint', id: hintID }, readOnly ? 'Read only.' : 'Tab indents; press Escape, then Tab, to leave the editor. Ctrl+S saves.'));
  let problems = [];
  let escaped = false;

  const lineHeight = () => parseFloat(getComputedStyle(input).lineHeight) || 19.5;
  const padTop = () => parseFloat(getComputedStyle(input).paddingTop) || 8;

  function drawGutter() {
    const lines = input.value.split('\n').length;
    const bad = new Set(problems.map((p) => p.line));
    const frag = document.createDocumentFragment();
    for (let n = 1; n <= lines; n++) {
      frag.append(bad.has(n) ? h('span', { class: 'code-error-line' }, String(n)) : document.createTextNode(String(n)), '\n');
    }
    frag.append(' \n');
    clear(gutter, frag);
  }

  function drawMarks() {
    const lh = lineHeight();
    const top = padTop();
    // Positions are set through the CSSOM: the editor's CSP refuses
    // style attributes.
    clear(marks, problems.map((p) => {
      const m = h('div', { class: 'code-mark', title: p.message, 'data-line': p.line },
        h('span', { class: 'code-mark-msg' }, p.message.split('\n')[0]));
      m.style.top = `${top + (p.line - 1) * lh}px`;
      return m;
    }));
  }

  let pending = 0;
  function redraw() {
    pending = 0;
    highlight(code, input.value, lang);
    drawGutter();
    drawMarks();
    sync();
  }
  function sync() {
    view.scrollTop = input.scrollTop;
    view.scrollLeft = input.scrollLeft;
    gutter.scrollTop = input.scrollTop;
  }

  input.addEventListener('input', () => {
    if (!pending) pending = requestAnimationFrame(redraw);
    if (onInput) onInput(input.value);
  });
  input.addEventListener('scroll', sync);
  input.addEventListener('keydown', (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && ev.key === 's') {
      ev.preventDefault();
      if (onSave) onSave();
      return;
    }
    if (ev.key === 'Escape') { escaped = true; return; }
    if (ev.key === 'Tab' && !readOnly && !escaped && !ev.ctrlKey && !ev.altKey && !ev.metaKey) {
      ev.preventDefault();
      const { selectionStart: s, selectionEnd: e } = input;
      if (ev.shiftKey) {
        const lineStart = input.value.lastIndexOf('\n', s - 1) + 1;
        if (input.value.startsWith('  ', lineStart)) {
          input.setRangeText('', lineStart, lineStart + 2, 'preserve');
        }
      } else {
        input.setRangeText('  ', s, e, 'end');
      }
      input.dispatchEvent(new Event('input'));
      return;
    }
    escaped = false;
  });
  // Fonts can load after the first draw and change the line height.
  requestAnimationFrame(redraw);

  return {
    el, input,
    value: () => input.value,
    setValue(v) { input.value = v; redraw(); },
    /** mark shows problems ([{line, column, message}]) at their lines. */
    mark(list) { problems = (list || []).filter((p) => p.line > 0); redraw(); },
    /** goTo puts the caret at a line and column (from 1) and scrolls it into view. */
    goTo(line, column = 1) {
      const lines = input.value.split('\n');
      let pos = 0;
      for (let i = 0; i < Math.min(line - 1, lines.length); i++) pos += lines[i].length + 1;
      pos += Math.max(0, Math.min(column - 1, (lines[line - 1] || '').length));
      input.focus();
      input.setSelectionRange(pos, pos);
      input.scrollTop = Math.max(0, (line - 3) * lineHeight());
      sync();
    },
  };
}
