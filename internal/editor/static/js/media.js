// The media library: every file of the site, searchable by name and kind,
// with thumbnails, type and size: the uploads, newest first, then the files
// entries, pages and customers hold, each linked to its holder
// (GET /api/files). Files are uploaded by
// choosing or dropping several at once, each with its progress; an upload
// is replaced in place (same id) or deleted, once nothing holds its file
// (GET /api/uploads/{id}/usage says what does).

import * as api from './api.js';
import { h, clear, id, dialog, toast, announce, debounce, bytes, when } from './dom.js';
import { isImage } from './fields.js';
import { uploadMany, uploadOne, MAX_UPLOAD } from './upload.js';

const PER_PAGE = 48;

/** fileKey tells files of the library apart: an upload by id, a held file by holder and URL. */
function fileKey(u) {
  return u.kind === 'held' ? `${u.holder.resource}/${u.holder.id}/${u.holder.field}/${u.url}` : u.upload_id || u.id;
}

function preview(u) {
  if (isImage(u)) return h('img', { class: 'media-img', src: u.url, alt: '', loading: 'lazy' });
  const ext = (u.name.split('.').pop() || '').toUpperCase().slice(0, 4);
  return h('span', { class: 'media-icon', 'aria-hidden': 'true' }, ext || 'FILE');
}

/** typeLabel is a short name of a content type: "PNG image", "PDF". */
function typeLabel(ct) {
  if (!ct) return '';
  const [kind, sub] = ct.split('/');
  const s = (sub || '').replace(/^x-/, '').replace(/\+.*$/, '').toUpperCase();
  if (kind === 'image') return `${s} image`;
  if (kind === 'video') return `${s} video`;
  if (kind === 'audio') return `${s} audio`;
  return s || ct;
}

export class MediaScreen {
  constructor(site, query) {
    this.site = site;
    this.q = query.get('q') || '';
    this.kind = query.get('type') || '';
    this.items = [];
    this.total = 0;
    this.seq = 0;
    this.title = 'Media';
    this.el = h('section', { class: 'screen screen-wide media-screen' });
    this.draw();
    this.fetch(false);
  }

  get base() { return `#/site/${encodeURIComponent(this.site.short_id || this.site.id)}/media`; }

  draw() {
    const searchID = id('ms');
    const kindID = id('mk');
    const inputID = id('mf');
    this.search = h('input', { id: searchID, class: 'input input-search', type: 'search', value: this.q, placeholder: 'Search by file name', autocomplete: 'off' });
    this.search.addEventListener('input', debounce(() => { this.q = this.search.value.trim(); this.fetch(false); }, 250));
    const kind = h('select', { id: kindID, class: 'select select-small' },
      [['', 'All files'], ['image', 'Images'], ['other', 'Other files']].map(([v, t]) => h('option', { value: v, selected: v === this.kind }, t)));
    kind.addEventListener('change', () => { this.kind = kind.value; this.fetch(false); });
    this.picker = h('input', { id: inputID, type: 'file', multiple: true, class: 'file-input' });
    this.picker.addEventListener('change', () => { const fs = [...this.picker.files]; this.picker.value = ''; this.upload(fs); });
    this.zone = h('div', { class: 'dropzone media-drop', id: 'media-drop' },
      h('p', null, h('strong', null, 'Drop files here'), ' to upload them, or ',
        h('label', { for: inputID, class: 'btn btn-small' }, 'Choose files…'), this.picker),
      h('p', { class: 'hint' }, 'Several at once; up to 25 MB each. HTML, JavaScript, SVG, XML and CSS files are refused.'));
    this.zone.addEventListener('dragover', (ev) => { if (ev.dataTransfer.types.includes('Files')) { ev.preventDefault(); this.zone.classList.add('dropzone-over'); } });
    this.zone.addEventListener('dragleave', () => this.zone.classList.remove('dropzone-over'));
    this.zone.addEventListener('drop', (ev) => { ev.preventDefault(); this.zone.classList.remove('dropzone-over'); this.upload([...ev.dataTransfer.files]); });
    this.progress = h('ul', { class: 'upload-list', 'aria-label': 'Uploads in progress', hidden: true });
    this.grid = h('ul', { class: 'media-grid', 'aria-label': 'Files' });
    this.summary = h('p', { class: 'muted', role: 'status', 'aria-live': 'polite' });
    this.more = h('button', { type: 'button', class: 'btn', hidden: true, onclick: () => this.fetch(true) }, 'Show more');
    clear(this.el,
      h('header', { class: 'screen-head' }, h('h1', null, 'Media')),
      this.zone, this.progress,
      h('div', { class: 'table-tools' },
        h('div', { class: 'table-search' }, h('label', { for: searchID, class: 'visually-hidden' }, 'Search files'), this.search),
        h('label', { for: kindID, class: 'visually-hidden' }, 'Kind of file'), kind,
        h('span', { class: 'spacer' }), this.summary),
      this.grid, h('div', { class: 'media-more' }, this.more));
  }

  syncURL() {
    const q = new URLSearchParams();
    if (this.q) q.set('q', this.q);
    if (this.kind) q.set('type', this.kind);
    const s = q.toString();
    history.replaceState(null, '', this.base + (s ? `?${s}` : ''));
  }

  async fetch(more) {
    const seq = ++this.seq;
    this.syncURL();
    const page = more ? Math.floor(this.items.length / PER_PAGE) + 1 : 1;
    try {
      const res = await api.get('/files', { headers: api.FULL, query: { page, per_page: PER_PAGE, q: this.q || undefined, type: this.kind || undefined } });
      if (seq !== this.seq) return;
      this.total = api.total(res);
      if (more) {
        const known = new Set(this.items.map(fileKey));
        this.items.push(...res.data.filter((u) => !known.has(fileKey(u))));
      } else {
        this.items = res.data;
      }
      this.drawGrid();
    } catch (e) {
      if (seq === this.seq) clear(this.grid, h('li', { class: 'form-error' }, `Could not read the files: ${e.message}`));
    }
  }

  drawGrid() {
    clear(this.grid, this.items.length ? this.items.map((u) => this.card(u)) : h('li', { class: 'muted media-empty' }, this.q || this.kind ? 'No file matches.' : 'No files yet. Drop some above.'));
    this.summary.textContent = `${this.items.length.toLocaleString()} of ${this.total.toLocaleString()} files`;
    this.more.hidden = this.items.length >= this.total;
  }

  /** holderLink links a held file's record in the editor. */
  holderLink(hd) {
    const base = `#/site/${encodeURIComponent(this.site.short_id || this.site.id)}`;
    const field = hd.field ? ` · ${hd.field}` : '';
    switch (hd.resource) {
      case 'pages':
        return h('a', { class: 'media-holder', href: `${base}/page/${encodeURIComponent(hd.id)}` }, `Page ${hd.title || hd.id}${field}`);
      case 'entries':
        return h('a', { class: 'media-holder', href: `${base}/channels/${encodeURIComponent(hd.channel)}/entries/${encodeURIComponent(hd.id)}` }, `${hd.channel} entry ${hd.title || hd.id}${field}`);
      case 'customers':
        return h('a', { class: 'media-holder', href: `${base}/customers/${encodeURIComponent(hd.id)}` }, `Customer ${hd.title || hd.id}${field}`);
      default:
        return h('span', { class: 'media-holder' }, `${hd.resource} ${hd.title || hd.id}${field}`);
    }
  }

  card(u) {
    const dims = u.width ? `${u.width} × ${u.height}` : '';
    const held = u.kind === 'held';
    const uid = u.upload_id || u.id;
    return h('li', { class: 'media-card', 'data-id': held ? '' : uid, 'data-kind': held ? 'held' : 'upload', 'data-name': u.name },
      h('a', { class: 'media-thumb', href: u.url, target: '_blank', rel: 'noopener', 'aria-label': `Open ${u.name}` }, preview(u)),
      h('div', { class: 'media-info' },
        h('span', { class: 'media-name', title: u.name }, u.name),
        h('span', { class: 'media-meta' }, [typeLabel(u.mime_type), bytes(u.size), dims].filter(Boolean).join(' · ')),
        held ? h('span', { class: 'media-meta' }, 'Held by ', this.holderLink(u.holder)) : h('span', { class: 'media-meta' }, `Upload · ${when(u.created_at)}`)),
      held ? null : h('div', { class: 'media-actions' },
        h('button', { type: 'button', class: 'btn btn-small btn-ghost', 'aria-label': `Replace ${u.name}`, onclick: () => this.replace({ ...u, id: uid }) }, 'Replace'),
        h('button', { type: 'button', class: 'btn btn-small btn-ghost btn-danger-text', 'aria-label': `Delete ${u.name}`, onclick: () => this.remove(u) }, 'Delete')));
  }

  /** upload sends files with a progress bar each, then shows them first in the grid. */
  async upload(files) {
    if (!files.length) return;
    this.progress.hidden = false;
    const rows = files.map((f) => {
      const bar = h('progress', { max: 100, value: 0, 'aria-label': `Uploading ${f.name}` });
      const state = h('span', { class: 'upload-state' }, f.size > MAX_UPLOAD ? 'Too large' : 'Waiting');
      const li = h('li', { class: 'upload-row' }, h('span', { class: 'upload-name' }, f.name), h('span', { class: 'muted' }, bytes(f.size)), bar, state);
      this.progress.prepend(li);
      return { li, bar, state };
    });
    let ok = 0;
    let bad = 0;
    const made = [];
    announce(`Uploading ${files.length} file${files.length === 1 ? '' : 's'}`);
    await uploadMany(files, {
      start: (i) => { rows[i].state.textContent = 'Uploading'; },
      progress: (i, p) => { rows[i].bar.value = Math.round(p * 100); },
      done: (i, u) => { ok++; made.push(u); rows[i].state.textContent = 'Done'; rows[i].li.classList.add('upload-done'); },
      failed: (i, e) => { bad++; rows[i].state.textContent = e.message; rows[i].li.classList.add('upload-failed'); },
    });
    this.progress.dataset.done = String(ok);
    toast(bad ? `${ok} uploaded, ${bad} not: see the list.` : `${ok} file${ok === 1 ? '' : 's'} uploaded.`, bad ? 'error' : 'success');
    announce(`${ok} uploaded${bad ? `, ${bad} failed` : ''}`);
    // Rows that went well leave the list after a moment; failures stay to be read.
    setTimeout(() => {
      for (const r of rows) if (r.li.classList.contains('upload-done')) r.li.remove();
      if (!this.progress.children.length) this.progress.hidden = true;
    }, 4000);
    await this.fetch(false);
  }

  async replace(u) {
    const inputID = id('rf');
    const picker = h('input', { id: inputID, type: 'file', class: 'input' });
    const v = await dialog({
      title: `Replace ${u.name}`,
      body: [h('p', null, 'The upload keeps its id; its URL, bytes and name become the new file’s. Records that copied this file keep their copy.'),
        h('label', { for: inputID, class: 'label' }, 'New file'), picker],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Replace', value: 'ok', kind: 'primary' }],
    });
    const f = picker.files && picker.files[0];
    if (v !== 'ok' || !f) return;
    try {
      await uploadOne(f, () => {}, u.id);
      toast(`${u.name} replaced by ${f.name}.`, 'success');
      await this.fetch(false);
    } catch (e) {
      toast(`Could not replace: ${e.message}`, 'error');
    }
  }

  async remove(u) {
    let usage;
    try {
      usage = (await api.get(`/uploads/${encodeURIComponent(u.upload_id || u.id)}/usage`)).data;
    } catch (e) {
      toast(`Could not check where ${u.name} is used: ${e.message}`, 'error');
      return;
    }
    if (usage.used) {
      const base = `#/site/${encodeURIComponent(this.site.short_id || this.site.id)}`;
      await dialog({
        title: `${u.name} is in use`,
        className: 'dialog-wide',
        body: [h('p', null, 'This file is used here; remove it there first, then delete it.'),
          h('ul', { class: 'usage-list' }, usage.records.map((r) => h('li', null,
            r.resource === 'pages'
              ? h('a', { href: `${base}/page/${encodeURIComponent(r.id)}` }, `Page ${r.title || r.id}`)
              : r.resource === 'entries'
                ? h('a', { href: `${base}/channels/${encodeURIComponent(r.channel)}/entries/${encodeURIComponent(r.id)}` }, `${r.channel} entry ${r.title || r.id}`)
                : `${r.resource} ${r.title || r.id}`))),
          usage.more ? h('p', { class: 'hint' }, 'And more.') : null],
        buttons: [{ label: 'Close', value: null, kind: 'primary' }],
      });
      return;
    }
    const v = await dialog({
      title: 'Delete file',
      body: [h('p', null, `Delete ${u.name}? Nothing on the site uses it. This cannot be undone.`)],
      buttons: [{ label: 'Cancel', value: null }, { label: 'Delete', value: 'yes', kind: 'danger' }],
    });
    if (v !== 'yes') return;
    try {
      await api.del(`/uploads/${encodeURIComponent(u.upload_id || u.id)}`);
      toast(`${u.name} deleted.`, 'success');
      this.items = this.items.filter((x) => x !== u);
      this.total -= 1;
      this.drawGrid();
    } catch (e) {
      toast(`Could not delete: ${e.message}`, 'error');
    }
  }
}

/**
 * pickUpload opens the library in a dialog and resolves with the upload
 * chosen (or null): a file field then copies it (a FileRef, admins only).
 */
export async function pickUpload() {
  const searchID = id('ps');
  const search = h('input', { id: searchID, class: 'input', type: 'search', placeholder: 'Search by file name', autofocus: true });
  const list = h('ul', { class: 'media-grid media-grid-pick', role: 'listbox', 'aria-label': 'Files' });
  let chosen = null;
  let done = null;
  const load = async () => {
    try {
      const res = await api.get('/uploads', { headers: api.FULL, query: { per_page: 24, q: search.value.trim() || undefined } });
      clear(list, res.data.length ? res.data.map((u) => h('li', { class: 'media-card', role: 'option', 'aria-selected': 'false', 'data-name': u.name },
        h('button', { type: 'button', class: 'media-pick', onclick: () => { chosen = u; done(); } },
          h('span', { class: 'media-thumb' }, preview(u)), h('span', { class: 'media-name' }, u.name)))) : h('li', { class: 'muted' }, 'No file matches.'));
    } catch (e) {
      clear(list, h('li', { class: 'form-error' }, e.message));
    }
  };
  search.addEventListener('input', debounce(load, 250));
  load();
  const p = dialog({
    title: 'Choose a file', className: 'dialog-wide',
    body: [h('label', { for: searchID, class: 'visually-hidden' }, 'Search files'), search, list],
    buttons: [{ label: 'Cancel', value: null }],
  });
  done = () => { const d = list.closest('dialog'); if (d) d.close(); };
  await p;
  return chosen;
}
