// Form controls, one per item type. A control is a function from a field
// definition (model.js) and an item's value to DOM, reporting changes
// through ctx.change(path, value); canvases also insert, move and remove
// blocks through ctx.sync.
//
// ctx: {sync, path (segments of the item), change(segs, value, onSaved),
// untranslated(item) → bool, lookupFile(res, segs) → url, searchRefs(refType, term),
// titleOf(refType, id), siteLocale}

import { h, id, clear, confirm, bytes, toast, announce } from './dom.js';
import { richText } from './richtext.js';
import { combobox } from './combo.js';
import { newBlock, copyBlock } from './model.js';

const MAX_FILE = 25 * 1024 * 1024;

/** renderItem draws the control of one item with its label. */
export function renderItem(field, item, ctx) {
  const make = CONTROLS[field.type] || CONTROLS.field;
  const labelID = id('lbl');
  const controlID = id('ctl');
  const badge = h('span', { class: 'badge badge-warn', hidden: !ctx.untranslated(item) }, 'Not translated');
  const refresh = () => { badge.hidden = !ctx.untranslated(item); };
  const control = make(field, item, { ...ctx, labelID, controlID, refresh });
  const labelTag = field.type === 'text' || field.type === 'canvas' || field.type === 'reference' || field.type === 'file' ? 'span' : 'label';
  const label = h(labelTag, { class: 'label', id: labelID, for: labelTag === 'label' ? controlID : null }, field.label);
  if (field.type === 'switch') {
    return h('div', { class: `item item-${field.type}`, 'data-slug': field.slug }, control,
      field.hint ? h('p', { class: 'hint' }, field.hint) : null);
  }
  return h('div', { class: `item item-${field.type}`, 'data-slug': field.slug, role: field.type === 'canvas' ? 'group' : null, 'aria-labelledby': field.type === 'canvas' ? labelID : null },
    h('div', { class: 'field-head' }, label, badge, h('span', { class: 'type-tag' }, field.type)),
    field.hint ? h('p', { class: 'hint' }, field.hint) : null,
    control);
}

const CONTROLS = {
  field(field, item, ctx) {
    const input = h('input', { id: ctx.controlID, class: 'input', type: 'text', value: item.content ?? '' });
    input.addEventListener('input', () => {
      item.content = input.value;
      ctx.change(ctx.path, input.value);
      ctx.refresh();
    });
    return input;
  },

  text(field, item, ctx) {
    const rt = richText({
      labelID: ctx.labelID, value: item.content ?? '',
      onInput: (html) => { item.content = html; ctx.change(ctx.path, html); ctx.refresh(); },
    });
    rt.editable.id = ctx.controlID;
    return rt.el;
  },

  switch(field, item, ctx) {
    const input = h('input', { id: ctx.controlID, type: 'checkbox', role: 'switch', class: 'switch-input', checked: item.content === 'true' || item.content === true });
    input.addEventListener('change', () => {
      item.content = input.checked ? 'true' : 'false';
      ctx.change(ctx.path, input.checked);
    });
    return h('div', { class: 'switch-row' }, input,
      h('label', { for: ctx.controlID, id: ctx.labelID, class: 'switch-label' }, h('span', { class: 'switch-track', 'aria-hidden': 'true' }), field.label));
  },

  select(field, item, ctx) {
    const opts = field.options || [];
    const current = item.content ?? '';
    const sel = h('select', { id: ctx.controlID, class: 'select' },
      h('option', { value: '' }, '— None —'),
      opts.map((o) => h('option', { value: o.value, selected: o.value === current }, o.label)),
      current && !opts.some((o) => o.value === current) ? h('option', { value: current, selected: true }, `${current} (not an option)`) : null);
    sel.addEventListener('change', () => {
      item.content = sel.value;
      ctx.change(ctx.path, sel.value || null);
      ctx.refresh();
    });
    return sel;
  },

  file: fileControl,
  reference: referenceControl,
  canvas: canvasControl,
};

function isImage(item) {
  const ct = item.file && item.file.content_type;
  if (ct) return ct.startsWith('image/');
  return /\.(png|jpe?g|gif|webp|avif|bmp)(\?|$)/i.test(item.url || '');
}

function fileControl(field, item, ctx) {
  const box = h('div', { class: 'file' });
  const inputID = id('file');
  const input = h('input', { id: inputID, type: 'file', class: 'file-input', 'aria-labelledby': `${ctx.labelID} ${inputID}-l` });
  let local = null; // {url, name, size} of a file chosen here
  const draw = (status) => {
    const url = local ? local.url : item.url;
    const name = local ? local.name : (item.file && item.file.filename) || (url ? decodeURIComponent(url.split('/').pop().split('?')[0]) : '');
    const size = local ? local.size : item.file && item.file.size;
    const preview = url
      ? (isImage(item) || (local && local.image)
        ? h('img', { class: 'file-thumb', src: url, alt: `Preview of ${name}` })
        : h('span', { class: 'file-icon', 'aria-hidden': 'true' }, 'FILE'))
      : h('span', { class: 'file-empty', 'aria-hidden': 'true' }, 'No file');
    const dims = h('span', { class: 'file-dims' });
    if (item.file && item.file.width && !local) dims.textContent = `${item.file.width} × ${item.file.height}`;
    if (preview.tagName === 'IMG') {
      preview.addEventListener('load', () => {
        if (!dims.textContent && preview.naturalWidth) dims.textContent = `${preview.naturalWidth} × ${preview.naturalHeight}`;
      });
    }
    const info = url
      ? h('div', { class: 'file-info' },
        h('a', { href: item.url || url, target: '_blank', rel: 'noopener', class: 'file-name' }, name || 'file'),
        h('span', { class: 'file-meta' }, dims, size ? ` · ${bytes(size)}` : ''),
        status ? h('span', { class: 'file-status', role: 'status' }, status) : null)
      : h('div', { class: 'file-info' }, h('span', { class: 'muted' }, 'No file chosen.'), status ? h('span', { class: 'file-status', role: 'status' }, status) : null);
    const choose = h('label', { for: inputID, id: `${inputID}-l`, class: 'btn btn-small' }, url ? 'Replace…' : 'Upload…');
    const remove = url ? h('button', { type: 'button', class: 'btn btn-small btn-ghost', onclick: onRemove }, 'Remove') : null;
    clear(box, preview, info, h('div', { class: 'file-actions' }, choose, remove), input);
  };
  const onRemove = () => {
    item.url = null; item.file = null; local = null;
    ctx.change(ctx.path, null);
    draw('Removed; saving…');
    announce(`${field.label}: file removed`);
  };
  input.addEventListener('change', () => {
    const f = input.files && input.files[0];
    input.value = '';
    if (!f) return;
    if (f.size > MAX_FILE) { toast(`${f.name} is larger than 25 MB.`, 'error'); return; }
    const reader = new FileReader();
    reader.onload = () => {
      const data = String(reader.result).replace(/^data:[^,]*,/, '');
      local = { url: URL.createObjectURL(f), name: f.name, size: f.size, image: f.type.startsWith('image/') };
      draw('Uploading…');
      ctx.change(ctx.path, { data, filename: f.name, content_type: f.type || 'application/octet-stream' }, (res) => {
        const url = ctx.lookupFile(res, ctx.path);
        item.url = url || item.url;
        item.file = { filename: f.name, size: f.size, content_type: f.type, url: item.url };
        draw('Uploaded.');
      });
    };
    reader.onerror = () => toast(`Could not read ${f.name}.`, 'error');
    reader.readAsDataURL(f);
  });
  draw('');
  return box;
}

function referenceControl(field, item, ctx) {
  const refType = field.reference || item.refType || 'pages';
  const many = field.many || item.many;
  const chips = h('ul', { class: 'chips', 'aria-label': `${field.label}: chosen` });
  const save = () => ctx.change(ctx.path, many ? item.ids.slice() : (item.ids[0] || null));
  const drawChips = () => {
    clear(chips, item.ids.length ? item.ids.map((rid) => {
      const title = item.titles[rid];
      const chip = h('li', { class: 'chip' }, h('span', { class: 'chip-text' }, title || rid),
        h('button', {
          type: 'button', class: 'chip-x', 'aria-label': `Remove ${title || rid}`,
          onclick: () => { item.ids = item.ids.filter((x) => x !== rid); drawChips(); save(); input.focus(); },
        }, '×'));
      if (!title) {
        ctx.titleOf(refType, rid).then((t) => { if (t) { item.titles[rid] = t; chip.querySelector('.chip-text').textContent = t; } });
      }
      return chip;
    }) : h('li', { class: 'muted chip-none' }, 'None chosen'));
  };
  const combo = combobox({
    controlID: ctx.controlID, labelID: ctx.labelID, label: field.label,
    placeholder: many ? 'Search to add…' : 'Search to choose…',
    search: (term) => ctx.searchRefs(refType, term),
    pick: (o) => {
      item.titles[o.id] = o.title;
      if (many) { if (!item.ids.includes(o.id)) item.ids.push(o.id); } else item.ids = [o.id];
      drawChips();
      save();
      announce(`${o.title} chosen for ${field.label}`);
    },
  });
  const input = combo.input;
  drawChips();
  return h('div', { class: 'reference' }, chips, combo.el,
    h('p', { class: 'hint' }, `${many ? 'Several' : 'One'} of ${refType.replace(/^channels\./, '')}`));
}

function blockLabel(defs, bl) {
  const d = defs.find((x) => x.slug === bl.slug);
  return d ? d.label : bl.slug;
}

/** scalarValues lists a block's plain contents, for an insert. */
function scalarValues(bl) {
  const items = {};
  for (const [slug, it] of bl.items) {
    if (['field', 'text', 'select', 'switch'].includes(it.type) && it.content != null && it.content !== '') items[slug] = it.content;
  }
  return items;
}

function canvasControl(field, item, ctx) {
  const defs = field.blocks || [];
  const list = h('ol', { class: 'blocks' });
  const wrap = h('div', { class: 'canvas' });
  const addID = id('add');

  const draw = (focusKey, focusSel) => {
    clear(list, item.blocks.length ? item.blocks.map((bl, i) => drawBlock(bl, i)) : h('li', { class: 'muted blocks-empty' }, 'No blocks yet.'));
    if (focusKey) {
      const li = list.querySelector(`[data-key="${focusKey}"]`);
      const target = li && (li.querySelector(focusSel || '.block-title') || li);
      if (target) target.focus();
    }
  };

  const segsOf = (bl) => [...ctx.path, 'repeatables', bl];

  const move = (bl, to) => {
    const from = item.blocks.indexOf(bl);
    if (to < 0 || to >= item.blocks.length || to === from) return;
    item.blocks.splice(from, 1);
    item.blocks.splice(to, 0, bl);
    ctx.sync.move(segsOf(bl), to === 0 ? null : item.blocks[to - 1]);
    announce(`${blockLabel(defs, bl)} moved to position ${to + 1} of ${item.blocks.length}`);
  };

  const drawBlock = (bl, i) => {
    const def = defs.find((d) => d.slug === bl.slug) || { slug: bl.slug, label: bl.slug, fields: [] };
    const titleID = id('blk');
    const n = item.blocks.length;
    const btn = (label, text, onclick, disabled, cls = '') => h('button', {
      type: 'button', class: `btn btn-icon ${cls}`, 'aria-label': `${label} ${def.label} block ${i + 1}`, title: label, disabled, onclick,
    }, text);
    const handle = h('span', { class: 'block-handle', 'aria-hidden': 'true', title: 'Drag to reorder' }, '⠿');
    const head = h('div', { class: 'block-head' },
      handle,
      h('h4', { class: 'block-title', id: titleID, tabindex: '-1' }, def.label, h('span', { class: 'block-num' }, ` ${i + 1}/${n}`)),
      h('div', { class: 'block-tools' },
        btn('Move up', '↑', () => { move(bl, i - 1); draw(bl.key, '.btn-up'); }, i === 0, 'btn-up'),
        btn('Move down', '↓', () => { move(bl, i + 1); draw(bl.key, '.btn-down'); }, i === n - 1, 'btn-down'),
        btn('Duplicate', 'Copy', () => duplicate(bl), false, 'btn-dup btn-text'),
        btn('Remove', '✕', () => removeBlock(bl), false, 'btn-remove')));
    const body = h('div', { class: 'block-body' });
    const fields = def.fields.length ? def.fields : [...bl.items.values()].map((it) => ({ slug: it.slug, label: it.slug, type: it.type, blocks: [] }));
    for (const fd of fields) {
      let it = bl.items.get(fd.slug);
      if (!it) {
        it = newBlock({ fields: [fd] }).items.get(fd.slug);
        bl.items.set(fd.slug, it);
      }
      body.append(renderItem(fd, it, { ...ctx, path: [...segsOf(bl), 'items', fd.slug] }));
    }
    const li = h('li', { class: `block${bl.id ? '' : ' block-new'}`, 'data-key': bl.key, role: 'group', 'aria-labelledby': titleID }, head, body);
    // Drag and drop within this canvas, by the block's head.
    head.draggable = true;
    head.addEventListener('dragstart', (ev) => {
      ev.stopPropagation();
      wrap.dragging = bl;
      ev.dataTransfer.effectAllowed = 'move';
      ev.dataTransfer.setData('text/plain', bl.key);
      li.classList.add('dragging');
    });
    head.addEventListener('dragend', () => { li.classList.remove('dragging'); wrap.dragging = null; });
    li.addEventListener('dragover', (ev) => {
      if (!wrap.dragging || wrap.dragging === bl || !item.blocks.includes(wrap.dragging)) return;
      ev.preventDefault();
      ev.stopPropagation();
      const r = li.getBoundingClientRect();
      li.classList.toggle('drop-before', ev.clientY < r.top + r.height / 2);
      li.classList.toggle('drop-after', ev.clientY >= r.top + r.height / 2);
    });
    li.addEventListener('dragleave', () => li.classList.remove('drop-before', 'drop-after'));
    li.addEventListener('drop', (ev) => {
      const d = wrap.dragging;
      li.classList.remove('drop-before', 'drop-after');
      if (!d || d === bl || !item.blocks.includes(d)) return;
      ev.preventDefault();
      ev.stopPropagation();
      const r = li.getBoundingClientRect();
      const after = ev.clientY >= r.top + r.height / 2;
      const rest = item.blocks.filter((x) => x !== d);
      const to = rest.indexOf(bl) + (after ? 1 : 0);
      move(d, to);
      draw(d.key);
    });
    return li;
  };

  const duplicate = (bl) => {
    const copy = copyBlock(bl);
    const i = item.blocks.indexOf(bl);
    item.blocks.splice(i + 1, 0, copy);
    insertTree(copy, ctx.path, bl);
    draw(copy.key);
    announce(`${blockLabel(defs, bl)} duplicated`);
  };

  // insertTree inserts a block, then sets what an insert cannot carry:
  // references, files, and the blocks of nested canvases.
  const insertTree = (bl, canvasSegs, after) => {
    ctx.sync.insert(canvasSegs, bl, { items: scalarValues(bl) }, after);
    for (const [slug, it] of bl.items) {
      const segs = [...canvasSegs, 'repeatables', bl, 'items', slug];
      if (it.type === 'reference' && it.ids.length) ctx.change(segs, it.many ? it.ids.slice() : it.ids[0]);
      if (it.type === 'file' && it.url) ctx.change(segs, { url: it.url });
      // Appended one after the other, nested blocks keep their order.
      if (it.type === 'canvas') for (const child of it.blocks) insertTree(child, segs, undefined);
    }
  };

  const removeBlock = async (bl) => {
    const i = item.blocks.indexOf(bl);
    if (!(await confirm('Remove block', `Remove this ${blockLabel(defs, bl)} block and what it holds?`, 'Remove', true))) return;
    item.blocks.splice(i, 1);
    ctx.sync.remove(segsOf(bl), bl);
    draw();
    const next = item.blocks[Math.min(i, item.blocks.length - 1)];
    const target = next ? list.querySelector(`[data-key="${next.key}"] .block-title`) : wrap.querySelector('.add-select');
    if (target) target.focus();
    announce(`${blockLabel(defs, bl)} removed`);
  };

  const picker = h('select', { id: addID, class: 'select add-select' },
    defs.map((d) => h('option', { value: d.slug }, d.hint ? `${d.label} — ${d.hint}` : d.label)));
  const add = h('button', {
    type: 'button', class: 'btn btn-small', disabled: !defs.length,
    onclick: () => {
      const def = defs.find((d) => d.slug === picker.value);
      if (!def) return;
      const bl = newBlock(def);
      item.blocks.push(bl);
      ctx.sync.insert(ctx.path, bl, {}, undefined);
      draw(bl.key);
      announce(`${def.label} block added`);
    },
  }, 'Add block');
  clear(wrap, list, h('div', { class: 'add-block' },
    h('label', { for: addID, class: 'label-inline' }, `Add to ${field.label}`), picker, add));
  draw();
  return wrap;
}
