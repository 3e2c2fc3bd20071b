// Uploads with progress: each file is read as base64 and sent as its own
// POST /api/uploads (or PUT /api/uploads/{id} to replace one) through
// XMLHttpRequest, whose upload events report progress (fetch has none).
// A few go at once; the rest wait their turn.

import * as api from './api.js';
import { readBase64 } from './fields.js';

export const MAX_UPLOAD = 25 * 1024 * 1024;
const PARALLEL = 3;

/** send makes one request with progress; resolves with the answer's JSON. */
function send(method, path, body, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, '/api' + path);
    xhr.setRequestHeader('Content-Type', 'application/json');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('X-Service-Client-Version', api.FULL['X-Service-Client-Version']);
    if (api.csrf()) xhr.setRequestHeader('X-CSRF-Token', api.csrf());
    if (api.currentSite()) xhr.setRequestHeader('X-Service-Site', api.currentSite());
    xhr.withCredentials = true;
    xhr.upload.onprogress = (ev) => { if (ev.lengthComputable) onProgress(ev.loaded / ev.total); };
    xhr.onload = () => {
      let data = null;
      try { data = xhr.responseText ? JSON.parse(xhr.responseText) : null; } catch { data = { message: xhr.responseText.slice(0, 200) }; }
      if (xhr.status >= 200 && xhr.status < 300) { onProgress(1); resolve(data); return; }
      const err = new api.ApiError(xhr.status, data, null);
      if (xhr.status === 401) window.dispatchEvent(new CustomEvent('tessera:unauthorized', { detail: err }));
      reject(err);
    };
    xhr.onerror = () => reject(new api.ApiError(0, null, null));
    xhr.send(JSON.stringify(body));
  });
}

/** uploadOne stores file as a new upload, or as the new bytes of upload replaceID. */
export async function uploadOne(file, onProgress = () => {}, replaceID = null) {
  if (file.size > MAX_UPLOAD) throw new Error(`${file.name} is larger than 25 MB.`);
  const attachment = await readBase64(file);
  const body = { source: { __type: 'File', filename: file.name, attachment } };
  return replaceID ? send('PUT', `/uploads/${encodeURIComponent(replaceID)}`, body, onProgress) : send('POST', '/uploads', body, onProgress);
}

/**
 * uploadMany uploads files, PARALLEL at a time. hooks: start(i), progress(i, fraction),
 * done(i, upload), failed(i, error). Resolves when every file is settled.
 */
export async function uploadMany(files, hooks) {
  const queue = [...files].map((f, i) => [f, i]);
  const worker = async () => {
    while (queue.length) {
      const [f, i] = queue.shift();
      hooks.start && hooks.start(i);
      try {
        const u = await uploadOne(f, (p) => hooks.progress && hooks.progress(i, p));
        hooks.done && hooks.done(i, u);
      } catch (e) {
        hooks.failed && hooks.failed(i, e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, worker));
}
