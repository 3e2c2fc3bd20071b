// The page editor's model of a page, made from either of the API's two
// shapes: the page document (items as a map) and the draft or version
// snapshot (page_items as an array); and the field definitions made from
// the template schema.

let nextKey = 0;

/** Block is one repeatable of a canvas; id is null until the server made it. */
export class Block {
  constructor(id, slug, items) {
    this.id = id;
    this.slug = slug;
    this.items = items; // Map slug -> Item
    this.key = `b${++nextKey}`;
  }
}

/**
 * Item is one editable's value in the locale being edited: content for
 * scalars, url (and file, when known) for files, ids for references,
 * blocks for canvases; base is the default locale's content, to mark
 * what is not translated.
 */
export function item(slug, type) {
  return { slug, type, content: null, base: null, url: null, file: null, refType: null, many: false, ids: [], titles: {}, blocks: [] };
}

/** fromDocument reads a page document's items (map shape). */
export function fromDocument(doc, defaultLocale) {
  return {
    fields: pageFields(doc, defaultLocale),
    items: itemsFromMap(doc.items || {}, defaultLocale),
  };
}

function pageFields(doc, defaultLocale) {
  const base = (doc.translations && doc.translations[defaultLocale]) || {};
  const out = {};
  for (const k of ['title', 'slug', 'seo_title', 'seo_description', 'seo_keywords']) {
    out[k] = { value: doc[k] ?? '', base: base[k] ?? null };
  }
  return out;
}

function itemsFromMap(map, defaultLocale) {
  const out = new Map();
  for (const [slug, it] of Object.entries(map)) {
    const m = item(slug, it.type);
    fillScalar(m, it, defaultLocale);
    if (it.type === 'file') {
      m.file = it.file || null;
      m.url = (it.file && it.file.url) || it.content || null;
    }
    if (it.type === 'reference') fillReference(m, it, true);
    if (it.type === 'canvas') {
      m.blocks = (it.repeatables || []).slice().sort((a, b) => a.position - b.position)
        .map((r) => new Block(r.id, r.slug, itemsFromMap(r.items || {}, defaultLocale)));
    }
    out.set(slug, m);
  }
  return out;
}

function fillScalar(m, it, defaultLocale) {
  m.content = it.content ?? null;
  const tr = it.translations && it.translations[defaultLocale];
  m.base = tr ? tr.content ?? null : null;
}

function fillReference(m, it, withTitles) {
  m.refType = it.reference_type || null;
  if ('reference_ids' in it) {
    m.many = true;
    m.ids = (it.reference_ids || []).slice();
    if (withTitles) (it.reference_titles || []).forEach((t, i) => { if (t != null) m.titles[m.ids[i]] = t; });
  } else {
    m.ids = it.reference_id ? [it.reference_id] : [];
    if (withTitles && it.reference_id && it.reference_title != null) m.titles[it.reference_id] = it.reference_title;
  }
}

/** fromSnapshot reads a draft's or version's content (array shape). */
export function fromSnapshot(content, defaultLocale) {
  const base = (content.translations && content.translations[defaultLocale]) || {};
  const fields = {};
  for (const k of ['title', 'seo_title', 'seo_description', 'seo_keywords']) {
    fields[k] = { value: content[k] ?? '', base: base[k] ?? null };
  }
  return { fields, items: itemsFromArray(content.page_items || [], defaultLocale) };
}

function itemsFromArray(list, defaultLocale) {
  const out = new Map();
  for (const it of list) {
    const m = item(it.slug, it.type);
    fillScalar(m, it, defaultLocale);
    if (it.type === 'file') m.url = it.content || null;
    if (it.type === 'reference') fillReference(m, it, false);
    if (it.type === 'canvas') {
      m.blocks = (it.repeatables || []).slice().sort((a, b) => a.position - b.position)
        .map((r) => new Block(r.id, r.slug, itemsFromArray(r.page_items || [], defaultLocale)));
    }
    out.set(it.slug, m);
  }
  return out;
}

/** borrowDetails copies what a snapshot lacks (file details, reference titles) from the live model. */
export function borrowDetails(target, live) {
  const walk = (a, b) => {
    for (const [slug, it] of a) {
      const other = b && b.get(slug);
      if (!other) continue;
      if (it.type === 'file' && other.url === it.url) it.file = other.file;
      if (it.type === 'reference') {
        if (!it.refType) it.refType = other.refType;
        Object.assign(it.titles, other.titles);
      }
      if (it.type === 'canvas') {
        const byID = new Map(other.blocks.map((bl) => [bl.id, bl]));
        for (const bl of it.blocks) walk(bl.items, byID.get(bl.id) ? byID.get(bl.id).items : null);
      }
    }
  };
  walk(target.items, live.items);
}

/**
 * Field definitions: {slug, label, type, hint, options: [{label, value}],
 * reference, many, blocks: [{slug, label, hint, fields: [Field]}]}.
 * topFields lists the page's top-level editables in the template's order.
 */
export function topFields(schema, model) {
  const out = [];
  const structure = (schema && schema.current_structure) || {};
  const selects = (schema && schema.select_options) || {};
  const blocks = (schema && schema.available_blocks) || {};
  const seen = new Set();
  for (const [slug, def] of Object.entries(structure)) {
    seen.add(slug);
    out.push(makeField(slug, slug, def.type, {
      options: selects[slug], blocks: blocks[slug], selectKey: slug, item: model.items.get(slug),
    }, selects));
  }
  // Items the template no longer lists are still shown, read from the page.
  for (const [slug, it] of model.items) if (!seen.has(slug)) out.push(makeField(slug, slug, it.type, { item: it }, selects));
  return out;
}

function makeField(slug, label, type, { options, blocks, hint, reference, many, item: it, selectKey }, selects) {
  const f = { slug, label: label || slug, type, hint: hint || null, options: null, reference: reference || null, many: !!many, blocks: [], selectKey };
  if (type === 'select') {
    f.options = (options || []).map((o) => (typeof o === 'string' ? { label: o, value: o } : o));
  }
  if (type === 'reference' && it) {
    f.reference = f.reference || it.refType;
    if (it.many) f.many = true;
  }
  if (type === 'canvas') f.blocks = (blocks || []).map((b) => blockDef(b, selectKey || slug, selects));
  return f;
}

function blockDef(b, canvasKey, selects) {
  return {
    slug: b.slug, label: b.label || b.slug, hint: b.hint || null,
    fields: (b.fields || []).map((fd) => {
      const key = `${canvasKey}.${b.slug}.${fd.slug}`;
      return makeField(fd.slug, fd.label, fd.type, {
        options: selects[key] || fd.options, blocks: fd.available_blocks, hint: fd.hint,
        reference: fd.reference, many: fd.references_many, selectKey: key,
      }, selects);
    }),
  };
}

/** newBlock makes an unsaved block of a definition, with its defaults. */
export function newBlock(def) {
  const items = new Map();
  for (const fd of def.fields) {
    const it = item(fd.slug, fd.type);
    if (fd.type === 'reference') { it.refType = fd.reference; it.many = fd.many; }
    items.set(fd.slug, it);
  }
  return new Block(null, def.slug, items);
}

/** copyBlock deep-copies a block as a new, unsaved one. */
export function copyBlock(bl) {
  const items = new Map();
  for (const [slug, it] of bl.items) {
    const c = { ...it, ids: it.ids.slice(), titles: { ...it.titles }, blocks: it.blocks.map(copyBlock) };
    items.set(slug, c);
  }
  return new Block(null, bl.slug, items);
}

/** plain reads HTML as text (for diffs and summaries). */
export function plain(html) {
  if (html == null) return '';
  const tpl = document.createElement('template');
  tpl.innerHTML = String(html);
  return (tpl.content.textContent || '').replace(/\s+/g, ' ').trim();
}
