// The page tree: children loaded when a page is opened, a hundred at a
// time, so a parent with 20,000 children stays quick; create, rename,
// move and reorder (drag and drop, and the keyboard), delete, and search
// by title and path. It follows the ARIA tree pattern: one row in the tab
// order, arrows to move, Enter to open.

import * as api from './api.js';
import { h, clear, id, dialog, confirm, toast, announce, debounce } from './dom.js';
import { go } from './app.js';

const PER_PAGE = 100;
const FIELDS = 'title,slug,fullpath,parent,position,published,template';

/** Node is one page of the tree, with what is loaded of its children. */
class Node {
  constructor(page, parent) {
    this.page = page;
    this.parent = parent; // Node or null (a top-level page)
    this.children = null; // [Node] once loaded
    this.total = page.children_count ?? null; // null: not known yet
    this.expanded = false;
    this.row = null;
    this.group = null;
  }

  get depth() { return this.parent ? this.parent.depth + 1 : 1; }
}

export class Tree {
  constructor(site) {
    this.site = site;
    this.root = new Node({ id: null, title: site.name }, null);
    this.root.expanded = true;
    this.byID = new Map();
    this.selected = null;
    this.expandedIDs = new Set(JSON.parse(sessionStorage.getItem(`tessera.tree.${site.id}`) || '[]'));
    this.searchInput = h('input', {
      type: 'search', class: 'input input-search', id: id('search'), placeholder: 'Search by title or path',
      'aria-label': 'Search pages by title or path', oninput: debounce(() => this.search(), 250),
    });
    this.results = h('div', { class: 'search-results', hidden: true });
    this.list = h('ul', { class: 'tree', role: 'tree', 'aria-label': 'Pages', onkeydown: (ev) => this.onKey(ev) });
    this.el = h('div', { class: 'tree-pane' },
      h('div', { class: 'tree-tools' },
        this.searchInput,
        h('div', { class: 'tree-tools-row' },
          h('span', { class: 'tree-heading' }, 'Pages'),
          h('button', { type: 'button', class: 'btn btn-small', id: 'new-page', onclick: () => this.create(null) }, '+ New page'))),
      this.results,
      h('div', { class: 'tree-scroll' }, this.list),
      h('p', { class: 'tree-help hint' }, 'Keys: arrows move, Enter opens, Alt+arrows reorder and indent, F2 renames, Delete deletes.'));
    this.root.group = this.list;
    this.load(this.root).then(() => this.restoreExpanded(this.root));
  }

  saveExpanded() {
    sessionStorage.setItem(`tessera.tree.${this.site.id}`, JSON.stringify([...this.expandedIDs]));
  }

  async restoreExpanded(node) {
    for (const child of node.children || []) {
      if (this.expandedIDs.has(child.page.id)) {
        await this.expand(child, false);
        await this.restoreExpanded(child);
      }
    }
  }

  /** fetchChildren reads one page of node's children. */
  async fetchChildren(node, page) {
    const res = await api.get('/pages', {
      query: { parent: node.page.id ?? 'null', page, per_page: PER_PAGE, fields: FIELDS, include: 'children_count' },
    });
    const total = Number(res.headers.get('X-Total-Count') ?? res.data.length);
    return { pages: res.data, total };
  }

  /** load reads node's first hundred children (again) and draws them. */
  async load(node, pages = 1) {
    node.group.setAttribute('aria-busy', 'true');
    try {
      const all = [];
      let total = 0;
      for (let p = 1; p <= pages; p++) {
        const r = await this.fetchChildren(node, p);
        all.push(...r.pages);
        total = r.total;
        if (all.length >= total) break;
      }
      node.children = all.map((pg) => this.nodeFor(pg, node));
      node.total = total;
      this.drawChildren(node);
      if (node === this.root && !performance.getEntriesByName('tessera-tree-ready').length) {
        performance.mark('tessera-tree-ready'); // docs/benchmarks.md reads it
      }
    } catch (e) {
      clear(node.group, h('li', { class: 'tree-error', role: 'none' }, `Could not load pages: ${e.message}`));
    } finally {
      node.group.removeAttribute('aria-busy');
    }
  }

  nodeFor(page, parent) {
    let n = this.byID.get(page.id);
    if (n) {
      n.page = { ...n.page, ...page };
      n.parent = parent;
      if (page.children_count !== undefined) n.total = page.children_count;
    } else {
      n = new Node(page, parent);
      this.byID.set(page.id, n);
    }
    return n;
  }

  async loadMore(node) {
    const next = Math.floor(node.children.length / PER_PAGE) + 1;
    try {
      const r = await this.fetchChildren(node, next);
      const known = new Set(node.children.map((c) => c.page.id));
      for (const pg of r.pages) if (!known.has(pg.id)) node.children.push(this.nodeFor(pg, node));
      node.total = r.total;
      this.drawChildren(node);
      announce(`${node.children.length} of ${node.total} pages shown`);
    } catch (e) {
      toast(`Could not load more pages: ${e.message}`, 'error');
    }
  }

  drawChildren(node) {
    const items = node.children.map((c) => this.drawNode(c));
    const rest = node.total - node.children.length;
    if (rest > 0) {
      const more = h('button', { type: 'button', class: 'btn btn-link tree-more', onclick: () => this.loadMore(node) },
        `Show ${Math.min(rest, PER_PAGE)} more (${rest} not shown)`);
      items.push(h('li', { role: 'none', class: 'tree-more-row' }, more));
    }
    if (node === this.root && node.children.length === 0) {
      items.push(h('li', { role: 'none', class: 'muted tree-empty' }, 'No pages yet.'));
    }
    clear(node.group, items);
    this.fixTabStop();
  }

  drawNode(node) {
    const pg = node.page;
    const hasKids = node.total === null || node.total > 0 || (node.children && node.children.length > 0);
    const toggle = h('span', { class: `tree-toggle${hasKids ? '' : ' tree-toggle-none'}`, 'aria-hidden': 'true', onclick: (ev) => { ev.stopPropagation(); this.toggle(node); } });
    const label = h('span', { class: 'tree-title' }, pg.title || pg.slug || '(untitled)');
    const badge = pg.published === false ? h('span', { class: 'badge badge-muted' }, 'hidden') : null;
    const menu = h('button', {
      type: 'button', class: 'tree-menu-btn', tabindex: '-1', 'aria-label': `Actions for ${pg.title}`,
      onclick: (ev) => { ev.stopPropagation(); this.menu(node, ev.currentTarget); },
    }, '⋯');
    const row = h('div', { class: 'tree-row', draggable: 'true' }, toggle, label, badge, menu);
    const li = h('li', {
      role: 'treeitem', class: 'tree-item', tabindex: '-1', 'aria-level': node.depth, 'data-id': pg.id,
      'aria-selected': this.selected === pg.id ? 'true' : 'false',
    }, row);
    if (hasKids) li.setAttribute('aria-expanded', node.expanded ? 'true' : 'false');
    row.addEventListener('click', () => this.open(node));
    this.dragHandlers(node, li, row);
    node.row = li;
    node.group = h('ul', { role: 'group', class: 'tree-group', hidden: !node.expanded });
    li.append(node.group);
    if (node.expanded && node.children) this.drawChildren(node);
    return li;
  }

  open(node) {
    this.focusNode(node);
    go(`#/site/${encodeURIComponent(this.site.short_id || this.site.id)}/page/${node.page.id}`);
  }

  /** select marks the page being edited. */
  select(pageID) {
    this.selected = pageID;
    for (const li of this.list.querySelectorAll('[role="treeitem"]')) {
      li.setAttribute('aria-selected', li.dataset.id === pageID ? 'true' : 'false');
    }
    this.fixTabStop();
  }

  async toggle(node) {
    if (node.expanded) this.collapse(node); else await this.expand(node);
  }

  async expand(node, focus = true) {
    if (node.expanded || node.total === 0) return;
    node.expanded = true;
    this.expandedIDs.add(node.page.id);
    this.saveExpanded();
    node.row.setAttribute('aria-expanded', 'true');
    node.group.hidden = false;
    if (!node.children) await this.load(node);
    else this.drawChildren(node);
    if (node.total === 0) {
      node.row.removeAttribute('aria-expanded');
      node.row.querySelector('.tree-toggle').classList.add('tree-toggle-none');
    }
    if (focus) this.fixTabStop();
  }

  collapse(node) {
    if (!node.expanded) return;
    node.expanded = false;
    this.expandedIDs.delete(node.page.id);
    this.saveExpanded();
    node.row.setAttribute('aria-expanded', 'false');
    node.group.hidden = true;
  }

  /** visibleRows lists the tree items a user can see, in order. */
  visibleRows() {
    return [...this.list.querySelectorAll('[role="treeitem"]')].filter((li) => !li.closest('[role="group"][hidden]'));
  }

  fixTabStop() {
    const rows = this.visibleRows();
    const current = rows.find((r) => r.tabIndex === 0) || rows.find((r) => r.dataset.id === this.selected) || rows[0];
    for (const r of rows) r.tabIndex = r === current ? 0 : -1;
  }

  focusNode(node) {
    if (!node || !node.row) return;
    for (const r of this.list.querySelectorAll('[role="treeitem"]')) r.tabIndex = -1;
    node.row.tabIndex = 0;
    node.row.focus();
  }

  nodeOf(el) {
    const li = el && el.closest('[role="treeitem"]');
    return li ? this.byID.get(li.dataset.id) : null;
  }

  async onKey(ev) {
    const node = this.nodeOf(ev.target);
    if (!node || ev.target.closest('input')) return;
    const rows = this.visibleRows();
    const i = rows.indexOf(node.row);
    const key = ev.key;
    const handled = () => { ev.preventDefault(); ev.stopPropagation(); };
    if (ev.altKey) {
      if (key === 'ArrowUp') { handled(); return this.moveBy(node, -1); }
      if (key === 'ArrowDown') { handled(); return this.moveBy(node, 1); }
      if (key === 'ArrowRight') { handled(); return this.indent(node); }
      if (key === 'ArrowLeft') { handled(); return this.outdent(node); }
      return;
    }
    switch (key) {
      case 'ArrowDown': handled(); if (rows[i + 1]) this.focusNode(this.nodeOf(rows[i + 1])); break;
      case 'ArrowUp': handled(); if (rows[i - 1]) this.focusNode(this.nodeOf(rows[i - 1])); break;
      case 'Home': handled(); this.focusNode(this.nodeOf(rows[0])); break;
      case 'End': handled(); this.focusNode(this.nodeOf(rows[rows.length - 1])); break;
      case 'ArrowRight':
        handled();
        if (!node.expanded) await this.expand(node);
        else if (node.children && node.children[0]) this.focusNode(node.children[0]);
        break;
      case 'ArrowLeft':
        handled();
        if (node.expanded) this.collapse(node);
        else if (node.parent && node.parent !== this.root) this.focusNode(node.parent);
        break;
      case 'Enter': handled(); this.open(node); break;
      case 'F2': handled(); this.rename(node); break;
      case 'Delete': handled(); this.remove(node); break;
      case 'ContextMenu': handled(); this.menu(node, node.row.querySelector('.tree-menu-btn')); break;
      default:
    }
  }

  /** menu shows a page's actions in a small dialog. */
  async menu(node) {
    const v = await dialog({
      title: node.page.title,
      className: 'dialog-menu',
      body: [h('p', { class: 'muted' }, node.page.fullpath || '')],
      buttons: [
        { label: 'Add subpage', value: 'add' },
        { label: 'Rename', value: 'rename' },
        { label: 'Move…', value: 'move' },
        { label: 'Delete', value: 'delete', kind: 'danger' },
        { label: 'Close', value: null },
      ],
    });
    if (v === 'add') this.create(node);
    else if (v === 'rename') this.rename(node);
    else if (v === 'move') this.moveDialog(node);
    else if (v === 'delete') this.remove(node);
    else this.focusNode(node);
  }

  async templates() {
    if (this._templates) return this._templates;
    try {
      const res = await api.get(`/themes/${encodeURIComponent(this.site.theme || 'default')}/templates`, { query: { per_page: 100 } });
      this._templates = res.data.map((t) => (t.path || t.name).replace(/^templates\//, '').replace(/\.liquid$/, ''))
        .filter((n) => n !== '404' && !n.startsWith('customers/'));
    } catch {
      this._templates = [];
    }
    return this._templates;
  }

  /** create adds a page under parent (null: top level). */
  async create(parent) {
    const titleID = id('t');
    const tplID = id('tpl');
    const templates = await this.templates();
    const parentTpl = parent && parent.page.template;
    const want = parentTpl && templates.includes(parentTpl) ? parentTpl : (templates.includes('page') ? 'page' : templates[0]);
    const title = h('input', { id: titleID, class: 'input', required: true, autofocus: true, autocomplete: 'off' });
    const tpl = h('select', { id: tplID, class: 'select' }, templates.map((t) => h('option', { value: t, selected: t === want }, t)));
    const v = await dialog({
      title: parent ? `New page under “${parent.page.title}”` : 'New top-level page',
      body: [h('label', { class: 'label', for: titleID }, 'Title'), title,
        templates.length ? [h('label', { class: 'label', for: tplID }, 'Template'), tpl] : null],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Create page', value: 'ok', kind: 'primary', submit: true }],
    });
    if (v !== 'ok') return;
    const body = { title: title.value.trim(), parent: parent ? parent.page.id : null, published: false };
    if (templates.length) body.template = tpl.value;
    try {
      const res = await api.post('/pages', body);
      toast(`Created “${res.data.title}”.`, 'success');
      const holder = parent || this.root;
      if (parent) { parent.total = (parent.total || 0) + 1; parent.expanded = false; await this.expand(parent); }
      await this.reload(holder);
      const n = this.byID.get(res.data.id);
      if (n) this.open(n);
      else go(`#/site/${encodeURIComponent(this.site.short_id || this.site.id)}/page/${res.data.id}`);
    } catch (e) {
      toast(`Could not create the page: ${e.message}`, 'error');
    }
  }

  /** reload reads a node's children again, as many as were shown. */
  async reload(node) {
    const shown = node.children ? Math.max(1, Math.ceil(node.children.length / PER_PAGE)) : 1;
    await this.load(node, shown);
    await this.restoreExpanded(node);
  }

  /** refreshNode reads one page's title and path again. */
  async refreshNode(pageID) {
    const node = this.byID.get(pageID);
    if (!node || !node.row) return;
    try {
      const res = await api.get(`/pages/${pageID}`, { query: { fields: FIELDS } });
      node.page = { ...node.page, ...res.data };
      node.row.querySelector('.tree-title').textContent = node.page.title;
      const badge = node.row.querySelector('.badge');
      if (badge) badge.remove();
      if (node.page.published === false) {
        node.row.querySelector('.tree-title').after(h('span', { class: 'badge badge-muted' }, 'hidden'));
      }
    } catch { /* the tree shows what it had */ }
  }

  async rename(node) {
    const tID = id('t');
    const sID = id('s');
    const title = h('input', { id: tID, class: 'input', value: node.page.title, required: true, autofocus: true });
    const slug = h('input', { id: sID, class: 'input', value: node.page.slug || '', required: true, pattern: '[^\\/]+' });
    const v = await dialog({
      title: 'Rename page',
      body: [h('label', { class: 'label', for: tID }, 'Title'), title,
        h('label', { class: 'label', for: sID }, 'Slug (the last part of its address)'), slug],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Rename', value: 'ok', kind: 'primary', submit: true }],
    });
    if (v !== 'ok') { this.focusNode(node); return; }
    const body = {};
    if (title.value.trim() !== node.page.title) body.title = title.value.trim();
    if (slug.value.trim() !== node.page.slug) body.slug = slug.value.trim();
    if (!Object.keys(body).length) return;
    try {
      const res = await api.put(`/pages/${node.page.id}`, body);
      node.page = { ...node.page, title: res.data.title, slug: res.data.slug, fullpath: res.data.fullpath };
      node.row.querySelector('.tree-title').textContent = res.data.title;
      toast('Renamed.', 'success');
      window.dispatchEvent(new CustomEvent('tessera:page-changed', { detail: { id: node.page.id } }));
      this.focusNode(node);
    } catch (e) {
      toast(`Could not rename: ${e.message}`, 'error');
    }
  }

  async remove(node) {
    const n = node.total;
    const what = n ? ` and its ${n} subpage${n === 1 ? '' : 's'}` : '';
    if (!(await confirm('Delete page', `Delete “${node.page.title}”${what}? Its drafts and versions go too. This cannot be undone.`, 'Delete', true))) {
      this.focusNode(node);
      return;
    }
    try {
      await api.del(`/pages/${node.page.id}`);
      const parent = node.parent;
      parent.children = parent.children.filter((c) => c !== node);
      parent.total = Math.max(0, (parent.total || 1) - 1);
      this.byID.delete(node.page.id);
      if (parent === this.root) this.drawChildren(parent); else this.redrawNode(parent);
      toast(`Deleted “${node.page.title}”.`, 'success');
      if (this.selected === node.page.id) go(`#/site/${encodeURIComponent(this.site.short_id || this.site.id)}`);
    } catch (e) {
      toast(`Could not delete: ${e.message}`, 'error');
    }
  }

  redrawNode(node) {
    if (node === this.root) { this.drawChildren(node); return; }
    const old = node.row;
    const fresh = this.drawNode(node);
    old.replaceWith(fresh);
  }

  /**
   * moveTo puts node under parent (root for the top level) at index among
   * the parent's other children. Positions are plain numbers ordered with
   * ties broken by id, so the page gets a number between its new
   * neighbours; when they leave no room, the neighbours on the shorter
   * side are renumbered too.
   */
  async moveTo(node, parent, index) {
    const siblings = (parent.children || []).filter((c) => c !== node);
    index = Math.max(0, Math.min(index, siblings.length));
    const prev = siblings[index - 1];
    const next = siblings[index];
    const pos = (n) => Number(n.page.position) || 0;
    const writes = []; // [node, position]
    let mine;
    if (!prev && !next) mine = 0;
    else if (!prev) mine = pos(next) - 1;
    else if (!next) mine = pos(prev) + 1;
    else if (pos(next) - pos(prev) >= 2) mine = Math.floor((pos(prev) + pos(next)) / 2);
    else {
      // No room: renumber the siblings before (downwards) or after (upwards),
      // whichever run is shorter and fully loaded.
      const up = [];
      let p = pos(prev) + 1;
      for (let j = index; j < siblings.length && pos(siblings[j]) <= p; j++) { p += 1; up.push([siblings[j], p]); }
      const upReachesEnd = index + up.length >= siblings.length && siblings.length < (parent.total ?? siblings.length + 1);
      const down = [];
      let q = pos(next) - 1;
      for (let j = index - 1; j >= 0 && pos(siblings[j]) >= q; j--) { q -= 1; down.push([siblings[j], q]); }
      if (up.length <= down.length && !upReachesEnd) { mine = pos(prev) + 1; writes.push(...up); } else { mine = pos(next) - 1; writes.push(...down); }
    }
    const oldParent = node.parent;
    const body = { position: mine };
    if (oldParent !== parent) body.parent = parent.page.id;
    try {
      for (const [n, p] of writes) {
        await api.put(`/pages/${n.page.id}`, { position: p });
        n.page.position = p;
      }
      const res = await api.put(`/pages/${node.page.id}`, body);
      node.page = { ...node.page, position: res.data.position, parent: res.data.parent, fullpath: res.data.fullpath };
    } catch (e) {
      toast(`Could not move the page: ${e.message}`, 'error');
      await this.reload(oldParent);
      return;
    }
    oldParent.children = oldParent.children.filter((c) => c !== node);
    if (oldParent !== parent) {
      oldParent.total = Math.max(0, (oldParent.total || 1) - 1);
      parent.total = (parent.total || 0) + 1;
    }
    siblings.splice(index, 0, node);
    node.parent = parent;
    if (parent.children || parent === this.root) parent.children = siblings;
    if (oldParent !== parent) this.redrawNode(oldParent);
    if (parent !== this.root && !parent.expanded) {
      await this.expand(parent, false);
    }
    this.redrawNode(parent);
    const where = parent === this.root ? 'top level' : `under “${parent.page.title}”`;
    announce(`Moved “${node.page.title}” to position ${index + 1} ${where}.`);
    this.focusNode(this.byID.get(node.page.id));
    window.dispatchEvent(new CustomEvent('tessera:page-changed', { detail: { id: node.page.id } }));
  }

  async moveBy(node, delta) {
    const parent = node.parent;
    const i = parent.children.indexOf(node);
    const j = i + delta;
    if (j < 0 || j >= parent.children.length) return;
    await this.moveTo(node, parent, j);
  }

  /** indent makes node the last child of the sibling above it. */
  async indent(node) {
    const parent = node.parent;
    const i = parent.children.indexOf(node);
    if (i <= 0) return;
    const newParent = parent.children[i - 1];
    if (!newParent.children) await this.load(newParent);
    await this.moveTo(node, newParent, newParent.children.length);
  }

  /** outdent puts node after its parent, one level up. */
  async outdent(node) {
    const parent = node.parent;
    if (parent === this.root) return;
    const grand = parent.parent;
    await this.moveTo(node, grand, grand.children.indexOf(parent) + 1);
  }

  /** moveDialog moves a page under a parent chosen by search. */
  async moveDialog(node) {
    const qID = id('q');
    const q = h('input', { id: qID, type: 'search', class: 'input', autofocus: true, placeholder: 'Title or path; empty for the top level' });
    const list = h('ul', { class: 'pick-list', role: 'listbox', 'aria-label': 'New parent' });
    let chosen = null;
    const choose = (pg, li) => {
      chosen = pg;
      for (const o of list.children) o.setAttribute('aria-selected', o === li ? 'true' : 'false');
    };
    const top = h('li', { role: 'option', 'aria-selected': 'true', tabindex: '0', class: 'pick' }, 'Top level');
    top.addEventListener('click', () => choose(null, top));
    const find = debounce(async () => {
      const term = q.value.trim();
      const items = [top];
      if (term) {
        try {
          const res = await api.get('/pages', { query: { q: term, per_page: 10, fields: FIELDS } });
          for (const pg of res.data) {
            if (pg.id === node.page.id) continue;
            const li = h('li', { role: 'option', 'aria-selected': 'false', tabindex: '0', class: 'pick' },
              h('span', null, pg.title), h('span', { class: 'muted' }, ` ${pg.fullpath}`));
            li.addEventListener('click', () => choose(pg, li));
            li.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); choose(pg, li); } });
            items.push(li);
          }
        } catch (e) { items.push(h('li', { class: 'muted' }, e.message)); }
      }
      clear(list, items);
    }, 250);
    q.addEventListener('input', find);
    clear(list, top);
    const v = await dialog({
      title: `Move “${node.page.title}”`,
      body: [h('label', { class: 'label', for: qID }, 'Find the new parent page'), q, list],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Move here', value: 'ok', kind: 'primary' }],
    });
    if (v !== 'ok') return;
    let parent = this.root;
    if (chosen) {
      parent = this.byID.get(chosen.id);
      if (!parent) {
        // Not drawn: move by the API alone, then show the page where it went.
        try {
          await api.put(`/pages/${node.page.id}`, { parent: chosen.id });
          toast(`Moved under “${chosen.title}”.`, 'success');
          await this.reload(node.parent);
        } catch (e) { toast(`Could not move the page: ${e.message}`, 'error'); }
        return;
      }
      if (!parent.children) await this.load(parent);
    }
    await this.moveTo(node, parent, parent.total ?? (parent.children || []).length);
  }

  dragHandlers(node, li, row) {
    row.addEventListener('dragstart', (ev) => {
      ev.stopPropagation();
      this.dragging = node;
      ev.dataTransfer.effectAllowed = 'move';
      ev.dataTransfer.setData('text/plain', node.page.id);
      li.classList.add('dragging');
    });
    row.addEventListener('dragend', () => {
      li.classList.remove('dragging');
      this.dragging = null;
      for (const el of this.list.querySelectorAll('.drop-before, .drop-after, .drop-inside')) el.classList.remove('drop-before', 'drop-after', 'drop-inside');
    });
    const zone = (ev) => {
      const r = row.getBoundingClientRect();
      const y = (ev.clientY - r.top) / r.height;
      return y < 0.3 ? 'before' : y > 0.7 ? 'after' : 'inside';
    };
    row.addEventListener('dragover', (ev) => {
      const d = this.dragging;
      if (!d || d === node || this.isAncestor(d, node)) return;
      ev.preventDefault();
      ev.dataTransfer.dropEffect = 'move';
      row.classList.remove('drop-before', 'drop-after', 'drop-inside');
      row.classList.add(`drop-${zone(ev)}`);
    });
    row.addEventListener('dragleave', () => row.classList.remove('drop-before', 'drop-after', 'drop-inside'));
    row.addEventListener('drop', async (ev) => {
      const d = this.dragging;
      row.classList.remove('drop-before', 'drop-after', 'drop-inside');
      if (!d || d === node || this.isAncestor(d, node)) return;
      ev.preventDefault();
      const z = zone(ev);
      if (z === 'inside') {
        if (!node.children) await this.load(node);
        await this.moveTo(d, node, node.children.length);
      } else {
        const siblings = node.parent.children.filter((c) => c !== d);
        const i = siblings.indexOf(node);
        await this.moveTo(d, node.parent, z === 'before' ? i : i + 1);
      }
    });
  }

  /** isAncestor reports whether a is an ancestor of b. */
  isAncestor(a, b) {
    for (let n = b.parent; n; n = n.parent) if (n === a) return true;
    return false;
  }

  async search() {
    const term = this.searchInput.value.trim();
    if (!term) {
      this.results.hidden = true;
      this.list.parentElement.hidden = false;
      return;
    }
    try {
      const res = await api.get('/pages', { query: { q: term, per_page: 25, fields: FIELDS } });
      const total = Number(res.headers.get('X-Total-Count') ?? res.data.length);
      const base = `#/site/${encodeURIComponent(this.site.short_id || this.site.id)}/page/`;
      clear(this.results,
        h('p', { class: 'hint', role: 'status' }, `${total} page${total === 1 ? '' : 's'} match “${term}”`),
        h('ul', { class: 'result-list' }, res.data.map((pg) => h('li', null,
          h('a', { href: base + pg.id, class: 'result' }, h('span', { class: 'result-title' }, pg.title), h('span', { class: 'result-path' }, pg.fullpath))))));
      this.results.hidden = false;
      this.list.parentElement.hidden = true;
    } catch (e) {
      clear(this.results, h('p', { class: 'form-error' }, e.message));
      this.results.hidden = false;
    }
  }
}
