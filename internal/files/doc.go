// Package files stores file bytes in a gocloud.dev/blob bucket (a local
// directory or any S3-compatible service), works out the metadata a record
// keeps per file (display name, content type, size, md5 checksum, image
// width and height) and serves the bytes over HTTP. It holds no records of
// its own: the services keep the returned Meta in their documents and call
// Copy and Delete as records change.
//
// Decisions where the spec is silent:
//
//   - Blob keys are sites/<site id>/files/<24 random hex> for public files
//     and sites/<site id>/private/<24 random hex> for private-storage files.
//     Nothing of the user's filename reaches a key; the filename is kept only
//     as a display name (CleanFilename) and as blob metadata. Keys are
//     random (not time-ordered ids), so a public URL cannot be guessed.
//   - A key's bytes never change: a replacement is a new Put under a new
//     key. So the handler serves every public file with
//     "Cache-Control: public, max-age=31536000, immutable".
//   - Copies are real copies under a new key, never shared references.
//     Deleting or replacing one record's file therefore never removes bytes
//     another record still points to, and no reference counting is needed;
//     the cost is storage for duplicated bytes.
//   - Content type: the filename extension decides, from a fixed table (not
//     the host's mime.types, so every machine answers alike). Without a known
//     extension the declared type is used, else the sniffed one, else
//     application/octet-stream. Types carry no parameters ("text/plain").
//   - html, js, svg, xml and css are refused (invalid_content_type) when the
//     declared type, the extension or the sniffed first 512 bytes say so:
//     a ".txt" holding "<html>" is refused.
//   - The bytes win over an image extension: when the extension (or the
//     declared type) names an image format the sniffer knows (png, jpeg, gif,
//     webp, bmp, ico) and the bytes are another such image, the sniffed type
//     is stored (a ".png" holding a JPEG is image/jpeg; the display name is
//     kept). When the bytes are not an image at all the upload is refused
//     (invalid_content_type): it is broken or it is pretending.
//   - An empty upload is invalid_file_format.
//   - Width and height come from the image header only (png, jpeg, gif,
//     webp), read from at most the first MiB as it streams past; an image
//     whose header cannot be read there is stored with width and height 0.
//   - Put streams: it holds the first 512 bytes, a 64 KiB copy buffer and
//     at most 1 MiB of image header. On S3 the AWS upload manager adds its
//     part buffers: files below 5 MiB go up in one request, larger ones in
//     5 MiB parts, two at a time (about 20 MiB for any larger file). A
//     refused or failed multipart upload is aborted.
//   - The handler's ETag is the hex md5 of the bytes where the backend
//     records it (local directories always; AWS S3 for objects uploaded in
//     one part, below 5 MiB), else the backend's own strong ETag (S3
//     multipart uploads). Both are strong, and stable because a key's bytes
//     never change.
//   - Copy and Put take the destination's visibility (PutOptions.Private):
//     a FileRef copy takes the storage of the field it is copied into.
//   - Private files are served only with ?expires=<unix seconds>&signature=
//     <hex HMAC-SHA256 over the key and expiry>. A missing, malformed,
//     tampered or expired signature is 403, checked before the key is looked
//     up, so an unsigned request cannot probe which private keys exist.
//     Signed responses are cached privately until the expiry at most.
//   - Every served file has X-Content-Type-Options: nosniff, so a browser
//     never reinterprets stored bytes as something the upload rules refused.
package files
