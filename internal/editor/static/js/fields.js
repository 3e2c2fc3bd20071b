// Entry field controls, one per custom field type (docs/api.md,
// "Channels" and "Entries"). A control is a function from a field
// definition and the value an entry read holds to DOM; it reports each
// change as the wire value a write takes, through ctx.change(value).
//
// ctx: {controlID, labelID, change(wire), site, admin, searchRefs(field, term),
// readOnly}

import { h, id, clear, toast, announce, bytes } from './dom.js';
import { combobox } from './combo.js';

const MAX_FILE = 25 * 1024 * 1024;

/** TYPES names every field type for people, in the API's order. */
export const TYPES = [
  ['string', 'Text (one line)'], ['text', 'Text (several lines)'], ['email', 'Email address'],
  ['boolean', 'Yes or no'], ['integer', 'Whole number'], ['float', 'Number'], ['date', 'Date'],
  ['date_time', 'Date and time'], ['time', 'Time of day'], ['select', 'Choice of options'],
  ['multi_select', 'Several options'], ['belongs_to', 'Reference to an entry'],
  ['belongs_to_many', 'References to entries'], ['customer', 'Customer'], ['file', 'File'],
  ['gallery', 'Gallery of images'], ['json', 'JSON'], ['geo', 'Map location'],
];

/** typeName names a field type for people. */
export function typeName(t) {
  const e = TYPES.find(([k]) => k === t);
  return e ? e[1] : t;
}

/** FILTERABLE lists the types where= can compare. */
export const FILTERABLE = new Set(['string', 'email', 'boolean', 'integer', 'float', 'date', 'date_time', 'time',
  'select', 'multi_select', 'belongs_to', 'belongs_to_many', 'customer']);

/** SORTABLE lists the types sort= can order by. */
export const SORTABLE = new Set(['string', 'email', 'boolean', 'integer', 'float', 'date', 'date_time', 'time', 'select']);

/** readFile reads a File as raw base64 (no data: prefix). */
export function readBase64(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ''));
    r.onerror = () => reject(new Error(`Could not read ${file.name}.`));
    r.readAsDataURL(file);
  });
}

/** isImage reports whether a read file object (or File) is an image. */
export function isImage(f) {
  if (!f) return false;
  const ct = f.content_type || f.mime_type || f.type;
  if (ct) return ct.startsWith('image/');
  return /\.(png|jpe?g|gif|webp|avif|bmp)(\?|$)/i.test(f.url || f.name || '');
}

/** wallTime formats an ISO timestamp as the site's wall time "YYYY-MM-DDTHH:MM". */
export function wallTime(iso, tz) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  try {
    const parts = Object.fromEntries(new Intl.DateTimeFormat('en-CA', {
      timeZone: tz || undefined, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
    }).formatToParts(d).map((p) => [p.type, p.value]));
    return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
  } catch {
    return iso.slice(0, 16);
  }
}

/** timeOf takes the time digits of a time field's read value. */
export function timeOf(v) {
  if (!v) return '';
  const m = /T(\d\d:\d\d(?::\d\d)?)/.exec(v) || /^(\d\d:\d\d(?::\d\d)?)/.exec(v);
  if (!m) return '';
  return m[1].endsWith(':00') && m[1].length === 8 ? m[1].slice(0, 5) : m[1];
}

/** refIDs lists the ids a reference field's read value names. */
export function refIDs(v) {
  if (!v) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.map((o) => (typeof o === 'string' ? o : o.id)).filter(Boolean);
  if (Array.isArray(v.objects)) return v.objects.map((o) => o.id).filter(Boolean);
  return v.id ? [v.id] : [];
}

/** optionName names a select option by id. */
export function optionName(field, oid) {
  const o = (field.select_options || []).find((x) => x.id === oid || x.slug === oid || x.name === oid);
  return o ? o.name : oid;
}

/** renderField draws one field's control with its label and hint. */
export function renderField(field, value, ctx) {
  const make = CONTROLS[field.type] || CONTROLS.json;
  const labelID = id('lbl');
  const controlID = id('fld');
  const control = make(field, value, { ...ctx, labelID, controlID });
  const grouped = ['multi_select', 'belongs_to', 'belongs_to_many', 'customer', 'file', 'gallery', 'geo'].includes(field.type);
  const label = field.type === 'boolean' ? null : h(grouped ? 'span' : 'label', { class: 'label', id: labelID, for: grouped ? null : controlID },
    field.label || field.name, field.required ? h('span', { class: 'req', title: 'Required' }, ' *') : null);
  return h('div', {
    class: `item entry-field field-${field.type}`, 'data-field': field.name,
    role: grouped ? 'group' : null, 'aria-labelledby': grouped ? labelID : null,
  },
  label ? h('div', { class: 'field-head' }, label,
    field.localized && ctx.localeBadge ? h('span', { class: 'badge badge-muted' }, ctx.localeBadge) : null,
    h('span', { class: 'type-tag' }, field.type)) : null,
  control,
  field.hint ? h('p', { class: 'hint' }, field.hint) : null);
}

function input(type, ctx, value, extra = {}) {
  return h('input', { id: ctx.controlID, class: 'input', type, value: value ?? '', disabled: ctx.readOnly, ...extra });
}

const CONTROLS = {
  string(f, v, ctx) {
    const el = input('text', ctx, v, { maxlength: 1024 });
    el.addEventListener('input', () => ctx.change(el.value === '' ? null : el.value));
    return el;
  },

  email(f, v, ctx) {
    const el = input('email', ctx, v, { autocomplete: 'off' });
    el.addEventListener('input', () => ctx.change(el.value === '' ? null : el.value));
    return el;
  },

  text(f, v, ctx) {
    const el = h('textarea', { id: ctx.controlID, class: 'textarea', rows: 5, disabled: ctx.readOnly });
    el.value = v ?? '';
    el.addEventListener('input', () => ctx.change(el.value === '' ? null : el.value));
    return el;
  },

  boolean(f, v, ctx) {
    const el = h('input', { id: ctx.controlID, type: 'checkbox', role: 'switch', class: 'switch-input', checked: v === true || v === 'true', disabled: ctx.readOnly });
    el.addEventListener('change', () => ctx.change(el.checked));
    return h('div', { class: 'switch-row' }, el,
      h('label', { for: ctx.controlID, id: ctx.labelID, class: 'switch-label' }, h('span', { class: 'switch-track', 'aria-hidden': 'true' }), f.label || f.name));
  },

  integer(f, v, ctx) {
    const el = input('number', ctx, v, { step: 1, inputmode: 'numeric' });
    el.addEventListener('input', () => ctx.change(el.value === '' ? null : Number(el.value)));
    return el;
  },

  float(f, v, ctx) {
    const el = input('number', ctx, v, { step: 'any', inputmode: 'decimal' });
    el.addEventListener('input', () => ctx.change(el.value === '' ? null : Number(el.value)));
    return el;
  },

  date(f, v, ctx) {
    const el = input('date', ctx, v ? String(v).slice(0, 10) : '');
    el.addEventListener('input', () => ctx.change(el.value || null));
    return el;
  },

  date_time(f, v, ctx) {
    const el = input('datetime-local', ctx, wallTime(v, ctx.site && ctx.site.timezone));
    el.addEventListener('input', () => ctx.change(el.value || null));
    return h('div', { class: 'inline-row' }, el, h('span', { class: 'muted' }, (ctx.site && ctx.site.timezone) || ''));
  },

  time(f, v, ctx) {
    const el = input('time', ctx, timeOf(v), { step: 1 });
    el.addEventListener('input', () => ctx.change(el.value || null));
    return el;
  },

  select(f, v, ctx) {
    const opts = (f.select_options || []).slice().sort((a, b) => a.position - b.position);
    const el = h('select', { id: ctx.controlID, class: 'select', disabled: ctx.readOnly },
      h('option', { value: '' }, '— None —'),
      opts.map((o) => h('option', { value: o.id, selected: o.id === v }, o.name)));
    el.addEventListener('change', () => ctx.change(el.value || null));
    return el;
  },

  multi_select(f, v, ctx) {
    const chosen = new Set(Array.isArray(v) ? v : []);
    const opts = (f.select_options || []).slice().sort((a, b) => a.position - b.position);
    const box = h('div', { class: 'checks' }, opts.map((o) => {
      const cid = id('opt');
      const cb = h('input', { id: cid, type: 'checkbox', value: o.id, checked: chosen.has(o.id), disabled: ctx.readOnly });
      cb.addEventListener('change', () => {
        if (cb.checked) chosen.add(o.id); else chosen.delete(o.id);
        ctx.change(opts.filter((x) => chosen.has(x.id)).map((x) => x.id));
      });
      return h('label', { for: cid, class: 'check' }, cb, ' ', o.name);
    }));
    if (!opts.length) box.append(h('p', { class: 'muted' }, 'This field has no options yet.'));
    return box;
  },

  belongs_to: refControl,
  belongs_to_many: refControl,
  customer: refControl,
  file: fileControl,
  gallery: galleryControl,

  json(f, v, ctx) {
    const el = h('textarea', { id: ctx.controlID, class: 'textarea mono', rows: 4, spellcheck: 'false', disabled: ctx.readOnly });
    el.value = v == null ? '' : JSON.stringify(v, null, 2);
    const err = h('p', { class: 'field-error', role: 'alert', hidden: true });
    el.addEventListener('input', () => {
      if (el.value.trim() === '') { err.hidden = true; ctx.change(null); return; }
      try {
        const parsed = JSON.parse(el.value);
        err.hidden = true;
        el.removeAttribute('aria-invalid');
        ctx.change(parsed);
      } catch (e) {
        err.hidden = false;
        err.textContent = `Not valid JSON: ${e.message}`;
        el.setAttribute('aria-invalid', 'true');
        ctx.invalid(f.name, 'is not valid JSON');
      }
    });
    return h('div', null, el, err);
  },

  geo(f, v, ctx) {
    const latID = id('lat');
    const lngID = id('lng');
    const lat = h('input', { id: latID, class: 'input', type: 'number', step: 'any', min: -90, max: 90, value: v ? v.latitude : '', disabled: ctx.readOnly });
    const lng = h('input', { id: lngID, class: 'input', type: 'number', step: 'any', min: -180, max: 180, value: v ? v.longitude : '', disabled: ctx.readOnly });
    const send = () => {
      if (lat.value === '' && lng.value === '') ctx.change(null);
      else ctx.change({ latitude: Number(lat.value), longitude: Number(lng.value) });
    };
    lat.addEventListener('input', send);
    lng.addEventListener('input', send);
    return h('div', { class: 'geo' },
      h('div', null, h('label', { for: latID, class: 'label-inline' }, 'Latitude'), lat),
      h('div', null, h('label', { for: lngID, class: 'label-inline' }, 'Longitude'), lng));
  },
};

/** refControl picks one entry (belongs_to, customer) or several (belongs_to_many) by searching. */
function refControl(f, v, ctx) {
  const many = f.type === 'belongs_to_many';
  let ids = refIDs(v);
  const titles = {};
  if (v && typeof v === 'object') {
    for (const o of (Array.isArray(v.objects) ? v.objects : [v])) if (o && o.id && (o.slug || o.title)) titles[o.id] = o.title || o.slug;
  }
  const chips = h('ul', { class: 'chips', 'aria-label': `${f.label || f.name}: chosen` });
  const save = () => ctx.change(many ? ids.slice() : (ids[0] || null));
  const drawChips = () => {
    clear(chips, ids.length ? ids.map((rid, i) => {
      const name = titles[rid];
      const text = h('span', { class: 'chip-text' }, name || rid);
      const chip = h('li', { class: 'chip', 'data-id': rid }, text,
        many && i > 0 && !ctx.readOnly ? h('button', { type: 'button', class: 'chip-x', 'aria-label': `Move ${name || rid} earlier`, onclick: () => { ids.splice(i - 1, 0, ids.splice(i, 1)[0]); drawChips(); save(); } }, '‹') : null,
        ctx.readOnly ? null : h('button', {
          type: 'button', class: 'chip-x', 'aria-label': `Remove ${name || rid}`,
          onclick: () => { ids = ids.filter((x) => x !== rid); drawChips(); save(); inputEl.focus(); },
        }, '×'));
      if (!name) ctx.titleOf(f, rid).then((t) => { if (t) { titles[rid] = t; text.textContent = t; } });
      return chip;
    }) : h('li', { class: 'muted chip-none' }, 'None chosen'));
  };
  const combo = combobox({
    controlID: ctx.controlID, labelID: ctx.labelID, label: f.label || f.name, disabled: ctx.readOnly, browse: true,
    placeholder: many ? 'Search to add…' : 'Search to choose…',
    search: (term) => ctx.searchRefs(f, term),
    pick: (o) => {
      titles[o.id] = o.title;
      if (many) { if (!ids.includes(o.id)) ids.push(o.id); } else ids = [o.id];
      drawChips();
      save();
      announce(`${o.title} chosen for ${f.label || f.name}`);
    },
  });
  const inputEl = combo.input;
  drawChips();
  const target = f.type === 'customer' ? 'customers' : `entries of ${f.reference}`;
  return h('div', { class: 'reference' }, chips, combo.el,
    h('p', { class: 'hint' }, `${many ? 'Any number' : 'One'} of the ${target}`));
}

function thumb(file, name) {
  if (file && file.url && isImage(file)) return h('img', { class: 'file-thumb', src: file.url, alt: `Preview of ${name}` });
  return h('span', { class: file && file.url ? 'file-icon' : 'file-empty', 'aria-hidden': 'true' }, file && file.url ? (name.split('.').pop() || 'FILE').toUpperCase().slice(0, 4) : 'No file');
}

/** fileControl uploads, replaces, removes a file, or (admins) takes one from the media library. */
function fileControl(f, v, ctx) {
  const box = h('div', { class: 'file' });
  const inputID = id('file');
  const picker = h('input', { id: inputID, type: 'file', class: 'file-input', disabled: ctx.readOnly, 'aria-labelledby': `${ctx.labelID} ${inputID}-l` });
  let cur = v && v.url ? v : null;
  let status = '';
  const draw = () => {
    const name = cur ? cur.filename || decodeURIComponent((cur.url || '').split('/').pop().split('?')[0]) : '';
    const info = cur
      ? h('div', { class: 'file-info' },
        h('a', { href: cur.url, target: '_blank', rel: 'noopener', class: 'file-name' }, name || 'file'),
        h('span', { class: 'file-meta' }, [cur.width ? `${cur.width} × ${cur.height}` : '', cur.size ? bytes(cur.size) : ''].filter(Boolean).join(' · ')),
        status ? h('span', { class: 'file-status', role: 'status' }, status) : null)
      : h('div', { class: 'file-info' }, h('span', { class: 'muted' }, 'No file chosen.'), status ? h('span', { class: 'file-status', role: 'status' }, status) : null);
    const actions = ctx.readOnly ? null : h('div', { class: 'file-actions' },
      h('label', { for: inputID, id: `${inputID}-l`, class: 'btn btn-small' }, cur ? 'Replace…' : 'Upload…'),
      ctx.admin && ctx.pickUpload ? h('button', { type: 'button', class: 'btn btn-small btn-ghost', onclick: fromLibrary }, 'From media…') : null,
      cur ? h('button', { type: 'button', class: 'btn btn-small btn-ghost', onclick: remove }, 'Remove') : null);
    clear(box, thumb(cur, name), info, actions, picker);
  };
  const remove = () => {
    cur = null; status = 'Removed (save to apply).';
    ctx.change({ __type: 'File', remove: true });
    draw();
    announce(`${f.label || f.name}: file removed`);
  };
  const fromLibrary = async () => {
    const u = await ctx.pickUpload();
    if (!u) return;
    cur = { filename: u.name, url: u.url, content_type: u.mime_type, size: u.size, width: u.width, height: u.height };
    status = 'From the media library (save to apply).';
    ctx.change({ __type: 'FileRef', source: `service://${ctx.site.short_id}/uploads/${u.id}` });
    draw();
  };
  picker.addEventListener('change', async () => {
    const file = picker.files && picker.files[0];
    picker.value = '';
    if (!file) return;
    if (file.size > MAX_FILE) { toast(`${file.name} is larger than 25 MB.`, 'error'); return; }
    try {
      const attachment = await readBase64(file);
      cur = { filename: file.name, url: URL.createObjectURL(file), content_type: file.type, size: file.size };
      status = 'Chosen (save to upload).';
      ctx.change({ __type: 'File', filename: file.name, attachment });
      draw();
    } catch (e) {
      toast(e.message, 'error');
    }
  });
  draw();
  return box;
}

/**
 * galleryControl: images with captions, added several at once (or dropped),
 * reordered with buttons, the keyboard or drag and drop, removed. Every
 * change sends the whole gallery with explicit positions.
 */
function galleryControl(f, v, ctx) {
  let images = (Array.isArray(v) ? v : []).slice().sort((a, b) => a.position - b.position)
    .map((im) => ({ id: im.id, caption: im.caption || '', file: im.file || {}, upload: null }));
  const removed = [];
  const list = h('ol', { class: 'gallery', 'aria-label': `${f.label || f.name}: images` });
  const inputID = id('gal');
  const picker = h('input', { id: inputID, type: 'file', multiple: true, accept: 'image/*', class: 'file-input', disabled: ctx.readOnly });
  const wire = () => ({
    __type: 'Gallery',
    images: [
      ...images.map((im, i) => (im.id
        ? { __type: 'GalleryImage', id: im.id, caption: im.caption, position: i }
        : { __type: 'GalleryImage', file: im.upload, caption: im.caption, position: i })),
      ...removed.map((rid) => ({ __type: 'GalleryImage', id: rid, remove: true })),
    ],
  });
  const save = () => ctx.change(wire());
  const move = (im, to) => {
    const from = images.indexOf(im);
    if (to < 0 || to >= images.length || to === from) return;
    images.splice(from, 1);
    images.splice(to, 0, im);
    save();
    draw(im, to > from ? '.g-down' : '.g-up');
    announce(`Image moved to position ${to + 1} of ${images.length}`);
  };
  let dragging = null;
  const draw = (focusIm, focusSel) => {
    clear(list, images.length ? images.map((im, i) => {
      const name = im.file.filename || 'image';
      const capID = id('cap');
      const cap = h('input', { id: capID, class: 'input input-small', type: 'text', value: im.caption, disabled: ctx.readOnly, placeholder: 'Caption' });
      cap.addEventListener('input', () => { im.caption = cap.value; save(); });
      const btn = (label, text, cls, onclick, disabled) => h('button', {
        type: 'button', class: `btn btn-icon ${cls}`, 'aria-label': `${label} image ${i + 1} (${name})`, title: label, onclick, disabled: disabled || ctx.readOnly,
      }, text);
      const li = h('li', { class: 'gallery-item', 'data-index': String(i), 'data-name': name, draggable: ctx.readOnly ? null : 'true' },
        h('div', { class: 'gallery-thumb' }, thumb(im.file, name)),
        h('label', { for: capID, class: 'visually-hidden' }, `Caption of image ${i + 1}`), cap,
        h('div', { class: 'gallery-tools' },
          btn('Move earlier', '←', 'g-up', () => move(im, i - 1), i === 0),
          btn('Move later', '→', 'g-down', () => move(im, i + 1), i === images.length - 1),
          btn('Remove', '✕', 'g-remove', () => {
            images = images.filter((x) => x !== im);
            if (im.id) removed.push(im.id);
            save();
            draw();
            announce(`Image ${name} removed`);
          })));
      li.addEventListener('dragstart', (ev) => { dragging = im; ev.dataTransfer.effectAllowed = 'move'; ev.dataTransfer.setData('text/plain', String(i)); li.classList.add('dragging'); });
      li.addEventListener('dragend', () => { dragging = null; li.classList.remove('dragging'); });
      li.addEventListener('dragover', (ev) => { if (dragging && dragging !== im) { ev.preventDefault(); li.classList.add('drop-inside'); } });
      li.addEventListener('dragleave', () => li.classList.remove('drop-inside'));
      li.addEventListener('drop', (ev) => {
        li.classList.remove('drop-inside');
        if (!dragging || dragging === im) return;
        ev.preventDefault();
        move(dragging, images.indexOf(im));
      });
      return li;
    }) : h('li', { class: 'muted gallery-empty' }, 'No images yet.'));
    if (focusIm) {
      const li = list.children[images.indexOf(focusIm)];
      const target = li && (li.querySelector(`${focusSel}:not(:disabled)`) || li.querySelector('input'));
      if (target) target.focus();
    }
  };
  const add = async (fileList) => {
    const chosen = [...fileList].filter((file) => {
      if (file.size > MAX_FILE) { toast(`${file.name} is larger than 25 MB.`, 'error'); return false; }
      return true;
    });
    for (const file of chosen) {
      try {
        const attachment = await readBase64(file);
        images.push({ id: null, caption: '', file: { filename: file.name, url: URL.createObjectURL(file), content_type: file.type }, upload: { __type: 'File', filename: file.name, attachment } });
      } catch (e) {
        toast(e.message, 'error');
      }
    }
    if (chosen.length) {
      save();
      draw();
      announce(`${chosen.length} image${chosen.length === 1 ? '' : 's'} added`);
    }
  };
  picker.addEventListener('change', () => { add(picker.files || []); picker.value = ''; });
  const zone = h('div', { class: 'dropzone' },
    h('label', { for: inputID, class: 'btn btn-small' }, 'Add images…'),
    h('span', { class: 'muted' }, ' or drop images here'), picker);
  if (!ctx.readOnly) {
    zone.addEventListener('dragover', (ev) => { if (ev.dataTransfer.types.includes('Files')) { ev.preventDefault(); zone.classList.add('dropzone-over'); } });
    zone.addEventListener('dragleave', () => zone.classList.remove('dropzone-over'));
    zone.addEventListener('drop', (ev) => { ev.preventDefault(); zone.classList.remove('dropzone-over'); add(ev.dataTransfer.files); });
  }
  draw();
  return h('div', { class: 'gallery-field' }, list, ctx.readOnly ? null : zone);
}
