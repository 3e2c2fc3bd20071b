// The search-and-pick combobox of reference controls (pages' references,
// entries' references and customers): an input that searches as one types,
// a list box of matches, arrow keys, Enter and Escape, as the ARIA
// combobox pattern has it.

import { h, id, clear, toast, debounce } from './dom.js';

/**
 * combobox returns {el, input, close}: el holds the input and its list.
 * opts: controlID and labelID (the input's id and its label's), label
 * (names the list of matches), placeholder, disabled, search(term) (a
 * promise of [{id, title, detail}]), pick(option), and browse: search
 * with an empty term too (on focus), to offer a first few to choose from.
 */
export function combobox(opts) {
  const listID = id('opts');
  const input = h('input', {
    id: opts.controlID, class: 'input', type: 'text', role: 'combobox', autocomplete: 'off', disabled: !!opts.disabled,
    'aria-expanded': 'false', 'aria-controls': listID, 'aria-autocomplete': 'list', 'aria-labelledby': opts.labelID,
    placeholder: opts.placeholder,
  });
  const list = h('ul', { id: listID, role: 'listbox', class: 'options', hidden: true, 'aria-label': `${opts.label}: matches` });
  let options = [];
  let active = -1;
  const close = () => { list.hidden = true; input.setAttribute('aria-expanded', 'false'); input.removeAttribute('aria-activedescendant'); active = -1; };
  const pick = (o) => {
    input.value = '';
    close();
    opts.pick(o);
  };
  const highlight = (i) => {
    active = i;
    [...list.children].forEach((li, k) => li.setAttribute('aria-selected', k === i ? 'true' : 'false'));
    if (list.children[i]) input.setAttribute('aria-activedescendant', list.children[i].id);
  };
  const search = debounce(async () => {
    const term = input.value.trim();
    if (!term && !opts.browse) { close(); return; }
    try {
      options = await opts.search(term);
    } catch (e) {
      options = [];
      toast(`Search failed: ${e.message}`, 'error');
    }
    clear(list, options.length ? options.map((o, i) => {
      const li = h('li', { id: `${listID}-${i}`, role: 'option', class: 'option', 'aria-selected': 'false' },
        h('span', null, o.title), o.detail ? h('span', { class: 'muted' }, ` ${o.detail}`) : null);
      li.addEventListener('mousedown', (ev) => { ev.preventDefault(); pick(o); });
      return li;
    }) : h('li', { class: 'option muted', role: 'option', 'aria-disabled': 'true' }, 'Nothing matches.'));
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    if (options.length) highlight(0);
  }, 200);
  input.addEventListener('input', search);
  if (opts.browse) input.addEventListener('focus', () => { if (!input.value) search(); });
  input.addEventListener('blur', () => setTimeout(close, 150));
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowDown' && options.length) { ev.preventDefault(); highlight((active + 1) % options.length); }
    if (ev.key === 'ArrowUp' && options.length) { ev.preventDefault(); highlight((active - 1 + options.length) % options.length); }
    if (ev.key === 'Enter' && !list.hidden && options[active]) { ev.preventDefault(); pick(options[active]); }
    if (ev.key === 'Escape') close();
  });
  return { el: h('div', { class: 'combo' }, input, list), input, close };
}
