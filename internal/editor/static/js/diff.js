// Readable differences between two models of a page (model.js): per page
// field and per item, blocks matched by id, text compared as text.

import { h } from './dom.js';
import { plain } from './model.js';

const PAGE_FIELDS = [['title', 'Title'], ['slug', 'Slug'], ['seo_title', 'SEO title'], ['seo_description', 'SEO description'], ['seo_keywords', 'SEO keywords']];

function show(it) {
  switch (it.type) {
    case 'text': return plain(it.content);
    case 'file': return it.url ? decodeURIComponent(it.url.split('/').pop()) : '';
    case 'reference': return it.ids.map((x) => it.titles[x] || x).join(', ');
    case 'switch': return it.content === 'true' ? 'on' : it.content === 'false' ? 'off' : '';
    default: return it.content == null ? '' : String(it.content);
  }
}

function same(a, b) {
  if (a.type === 'reference') return a.ids.join() === b.ids.join();
  if (a.type === 'file') return (a.url || '') === (b.url || '');
  if (a.type === 'text') return (a.content || '') === (b.content || '');
  return (a.content ?? '') === (b.content ?? '');
}

/**
 * diffModels lists what differs from a (before) to b (after):
 * [{label, kind: changed|added|removed|moved, before, after, children}].
 */
export function diffModels(a, b, labels = {}) {
  const out = [];
  for (const [k, label] of PAGE_FIELDS) {
    const x = a.fields[k];
    const y = b.fields[k];
    if (!x || !y) continue;
    if ((x.value ?? '') !== (y.value ?? '')) out.push({ label, kind: 'changed', before: x.value, after: y.value });
  }
  out.push(...diffItems(a.items, b.items, labels));
  return out;
}

function diffItems(a, b, labels) {
  const out = [];
  const slugs = [...new Set([...a.keys(), ...b.keys()])];
  for (const slug of slugs) {
    const x = a.get(slug);
    const y = b.get(slug);
    const label = labels[slug] || slug;
    if (!x || !y) {
      out.push({ label, kind: x ? 'removed' : 'added', before: x ? show(x) : '', after: y ? show(y) : '' });
      continue;
    }
    if (x.type === 'canvas') {
      const children = diffBlocks(x.blocks, y.blocks, labels);
      if (children.length) out.push({ label, kind: 'changed', children });
      continue;
    }
    if (!same(x, y)) out.push({ label, kind: 'changed', before: show(x), after: show(y) });
  }
  return out;
}

function diffBlocks(a, b, labels) {
  const out = [];
  const inA = new Map(a.map((bl, i) => [bl.id, i]));
  const inB = new Map(b.map((bl, i) => [bl.id, i]));
  for (const bl of a) {
    if (!inB.has(bl.id)) out.push({ label: `${bl.slug} block`, kind: 'removed', before: summary(bl), after: '' });
  }
  const kept = b.filter((bl) => inA.has(bl.id));
  const orderA = a.filter((bl) => inB.has(bl.id)).map((bl) => bl.id);
  b.forEach((bl, i) => {
    if (!inA.has(bl.id)) {
      out.push({ label: `${bl.slug} block`, kind: 'added', before: '', after: summary(bl), position: i + 1 });
      return;
    }
    const old = a[inA.get(bl.id)];
    const children = diffItems(old.items, bl.items, labels);
    const moved = orderA.indexOf(bl.id) !== kept.indexOf(bl);
    if (children.length || moved) {
      out.push({ label: `${bl.slug} block ${i + 1}`, kind: moved && !children.length ? 'moved' : 'changed', children, moved });
    }
  });
  return out;
}

function summary(bl) {
  const parts = [];
  for (const it of bl.items.values()) {
    if (it.type === 'canvas') { if (it.blocks.length) parts.push(`${it.blocks.length} block${it.blocks.length === 1 ? '' : 's'}`); continue; }
    const s = show(it);
    if (s) parts.push(s);
  }
  const text = parts.join(' · ');
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

const KIND = { changed: 'Changed', added: 'Added', removed: 'Removed', moved: 'Moved' };

/** renderDiff draws a diff list, with beforeLabel and afterLabel naming the two sides. */
export function renderDiff(entries, beforeLabel, afterLabel) {
  if (!entries.length) return h('p', { class: 'muted diff-none' }, 'No differences.');
  const row = (e) => h('li', { class: `diff-entry diff-${e.kind}` },
    h('div', { class: 'diff-head' }, h('span', { class: `diff-kind diff-kind-${e.kind}` }, KIND[e.kind]), h('span', { class: 'diff-label' }, e.label),
      e.moved && e.children && e.children.length ? h('span', { class: 'muted' }, ' (also moved)') : null),
    e.children && e.children.length ? h('ul', { class: 'diff-children' }, e.children.map(row))
      : e.kind === 'moved' ? null
        : h('dl', { class: 'diff-values' },
          e.kind !== 'added' ? [h('dt', null, beforeLabel), h('dd', { class: 'diff-before' }, e.before || h('em', null, 'empty'))] : null,
          e.kind !== 'removed' ? [h('dt', null, afterLabel), h('dd', { class: 'diff-after' }, e.after || h('em', null, 'empty'))] : null));
  return h('ul', { class: 'diff' }, entries.map(row));
}

