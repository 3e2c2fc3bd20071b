package apitest_test

// Conformance scenarios for the wire formats of entry custom fields
// (spec/entries-apps-login.md, "Entry localized fields" through "Time
// field", and docs/api.md "Channels" and "Entries"): every row of the
// spec's tables is a named scenario, run on every backend.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// efFull is the header that switches files to their full read shape.
var efFull = map[string]string{"X-Service-Client-Version": "1"}

// efOpMessage is the spec's 400 message for an unknown __op.
func efOpMessage(field string) string {
	return "Invalid type for '" + field + ".__op': expected one of AddReference, AddRelation, RemoveReference, RemoveRelation, Batch"
}

// efDo sends a request and fails the test unless it answers want.
func efDo(t testing.TB, env *apitest.Env, sc apitest.Scenario, want int) map[string]any {
	t.Helper()
	res := env.Do(t, sc)
	if res.Status != want {
		t.Fatalf("%s %s: got %d, want %d\n%s", sc.Method, sc.Path, res.Status, want, res.Raw)
	}
	m, _ := res.JSON.(map[string]any)
	return m
}

// efChannel creates a channel on the demo site.
func efChannel(t testing.TB, env *apitest.Env, name string, fields ...obj) map[string]any {
	t.Helper()
	return efDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": name, "customizations": fields}}, 201)
}

// efCreate creates an entry of channel ch.
func efCreate(t testing.TB, env *apitest.Env, ch string, body obj) map[string]any {
	t.Helper()
	return efDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels/" + ch + "/entries", Body: body}, 201)
}

// efGet reads an entry (path relative to /api, with any query).
func efGet(t testing.TB, env *apitest.Env, path string, headers map[string]string) map[string]any {
	t.Helper()
	return efDo(t, env, apitest.Scenario{Path: path, Headers: headers}, 200)
}

// efOptions maps the option names of a select field of a channel read to
// their ids.
func efOptions(t testing.TB, ch map[string]any, field string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range ch["customizations"].([]any) {
		fm := f.(map[string]any)
		if fm["name"] != field {
			continue
		}
		for _, o := range fm["select_options"].([]any) {
			om := o.(map[string]any)
			out[om["name"].(string)] = om["id"].(string)
		}
	}
	if len(out) == 0 {
		t.Fatalf("channel %v: no options for field %s", ch["slug"], field)
	}
	return out
}

// efDig walks decoded JSON by object keys (strings) and array indexes.
func efDig(v any, steps ...any) any {
	for _, s := range steps {
		switch k := s.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func efStr(v any, steps ...any) string {
	s, _ := efDig(v, steps...).(string)
	return s
}

func efShort(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

// efKeys checks that v is an object with exactly the given keys.
func efKeys(t *testing.T, what string, v any, keys ...string) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s: got %s, want an object", what, efShort(v))
		return
	}
	got := slices.Sorted(maps.Keys(m))
	want := slices.Sorted(slices.Values(keys))
	if !slices.Equal(got, want) {
		t.Errorf("%s: keys %v, want exactly %v", what, got, want)
	}
}

// efKeysAt returns a Check that the value at steps has exactly keys.
func efKeysAt(steps []any, keys ...string) func(t *testing.T, r *apitest.Response) {
	return func(t *testing.T, r *apitest.Response) {
		t.Helper()
		efKeys(t, fmt.Sprint(steps), efDig(r.JSON, steps...), keys...)
	}
}

// efChecks combines Checks.
func efChecks(fns ...func(t *testing.T, r *apitest.Response)) func(t *testing.T, r *apitest.Response) {
	return func(t *testing.T, r *apitest.Response) {
		t.Helper()
		for _, fn := range fns {
			fn(t, r)
		}
	}
}

// efEqualAt returns a Check that the string at steps is want (a pointer,
// read when the check runs).
func efEqualAt(want *string, steps ...any) func(t *testing.T, r *apitest.Response) {
	return func(t *testing.T, r *apitest.Response) {
		t.Helper()
		if got := efStr(r.JSON, steps...); got != *want || got == "" {
			t.Errorf("%v: got %q, want %q", steps, got, *want)
		}
	}
}

func efB64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// efUpload is the upload write form of a file.
func efUpload(name string, b []byte) obj {
	return obj{"__type": "File", "filename": name, "attachment": efB64(b)}
}

// efCompactFile is a file's compact read shape: exactly filename, url and
// content_type.
func efCompactFile(name, ctype string) obj {
	return obj{"filename": name, "url": apitest.Any, "content_type": ctype, "__type": apitest.Absent,
		"size": apitest.Absent, "width": apitest.Absent, "height": apitest.Absent, "version": apitest.Absent,
		"checksum": apitest.Absent, "private": apitest.Absent}
}

var efCompactKeys = []string{"filename", "url", "content_type"}
var efFullKeys = []string{"__type", "filename", "url", "content_type", "size", "width", "height", "version", "checksum"}
var efGalleryFileKeys = []string{"filename", "url", "content_type", "size", "width", "height", "version", "checksum"}

// efRef is a Reference pointer (read shape: no slug unless asked).
func efRef(class, id string) obj {
	return obj{"__type": "Reference", "className": class, "id": id, "slug": apitest.Absent}
}

// efRefW is a Reference pointer as written.
func efRefW(class, id string) obj { return obj{"__type": "Reference", "className": class, "id": id} }

// efRelation is a multi reference's read shape with references to ids.
func efRelation(class string, ids ...string) obj {
	objs := []obj{}
	for _, id := range ids {
		objs = append(objs, efRef(class, id))
	}
	return obj{"__type": "Relation", "className": class, "objects": objs}
}

// efInvalid is a 422 validation error naming field.
func efInvalid(field string) obj {
	return obj{"code": "validation_failed", "field": field, "message": apitest.Any}
}

// efFetch GETs a file URL and returns its status and bytes.
func efFetch(t *testing.T, env *apitest.Env, u string) (int, []byte, string) {
	t.Helper()
	res := fetch(t, env, u, nil)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b, res.Header.Get("Content-Type")
}

// efServes returns a Check that the file URL at steps serves want.
func efServes(env *apitest.Env, want []byte, steps ...any) func(t *testing.T, r *apitest.Response) {
	return func(t *testing.T, r *apitest.Response) {
		t.Helper()
		u := efStr(r.JSON, steps...)
		if u == "" {
			t.Fatalf("%v: no url in %s", steps, r.Raw)
		}
		status, b, _ := efFetch(t, env, u)
		if status != http.StatusOK || !slices.Equal(b, want) {
			t.Errorf("GET %s: got %d with %d bytes, want 200 with the %d uploaded bytes", u, status, len(b), len(want))
		}
	}
}

// efWithout returns a copy of a decoded object without keys.
func efWithout(m map[string]any, keys ...string) map[string]any {
	c := maps.Clone(m)
	for _, k := range keys {
		delete(c, k)
	}
	return c
}

// efSame reports the differences between two decoded documents.
func efSame(t *testing.T, what string, got, want any) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	diffs := apitest.Match(got, want)
	if len(diffs) == 0 {
		diffs = apitest.Match(want, got)
	}
	t.Errorf("%s differs:\n  %s\ngot:  %s\nwant: %s", what, strings.Join(diffs, "\n  "), efShort(got), efShort(want))
}

// --- 1. File field

func TestEntryFieldsFile(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		pic, pic2 := testPNG(t, 20, 10), testPNG(t, 7, 5)
		txt := []byte("plain notes, not an image\n")
		pdf := []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
		efChannel(t, env, "Docs", obj{"name": "title", "type": "string"}, obj{"name": "doc", "type": "file"},
			obj{"name": "secret", "type": "file", "private_storage": true})
		id := efCreate(t, env, "docs", obj{"title": "Doc"})["id"].(string)
		p := "/channels/docs/entries/" + id
		var url1 string
		var full1 map[string]any
		env.Run(t, []apitest.Scenario{
			{Name: "UploadOnCreate", Method: "POST", Path: "/channels/docs/entries",
				Body:       obj{"title": "Created", "doc": efUpload("new.png", pic)},
				WantStatus: 201, WantBody: obj{"doc": efCompactFile("new.png", "image/png")},
				Check: efChecks(efKeysAt([]any{"doc"}, efCompactKeys...), efServes(env, pic, "doc", "url"))},
			{Name: "Upload", Method: "PUT", Path: p, Body: obj{"doc": efUpload("photo.png", pic)},
				WantStatus: 200, WantBody: obj{"doc": efCompactFile("photo.png", "image/png")},
				Check: func(t *testing.T, r *apitest.Response) {
					efKeys(t, "doc", efDig(r.JSON, "doc"), efCompactKeys...)
					url1 = efStr(r.JSON, "doc", "url")
				}},
			{Name: "CompactReadShape", Path: p, WantStatus: 200, WantBody: obj{"doc": efCompactFile("photo.png", "image/png")},
				Check: efChecks(efKeysAt([]any{"doc"}, efCompactKeys...), efEqualAt(&url1, "doc", "url"))},
			{Name: "FullReadShape", Path: p, Headers: efFull, WantStatus: 200,
				WantBody: obj{"doc": obj{"__type": "File", "filename": "photo.png", "url": apitest.Any, "content_type": "image/png",
					"size": len(pic), "width": 20, "height": 10, "version": apitest.Any, "checksum": md5hex(pic), "private": apitest.Absent}},
				Check: func(t *testing.T, r *apitest.Response) {
					efKeys(t, "doc", efDig(r.JSON, "doc"), efFullKeys...)
					full1, _ = efDig(r.JSON, "doc").(map[string]any)
					if _, ok := efDig(r.JSON, "doc", "version").(float64); !ok {
						t.Errorf("doc.version: got %s, want a number", efShort(efDig(r.JSON, "doc", "version")))
					}
					if efStr(r.JSON, "doc", "url") != url1 {
						t.Errorf("doc.url: got %q, want the compact read's %q", efStr(r.JSON, "doc", "url"), url1)
					}
				}},
			{Name: "FullReadShapeAnyHeaderValue", Path: p, Headers: map[string]string{"X-Service-Client-Version": "whatever"},
				WantStatus: 200, WantBody: obj{"doc": obj{"__type": "File", "width": 20, "height": 10}}},
			{Name: "FullReadShapeInList", Path: "/channels/docs/entries?where=_slug:%22doc%22", Headers: efFull,
				WantStatus: 200, WantBody: []obj{{"doc": obj{"__type": "File", "checksum": md5hex(pic)}}}},
			{Name: "URLServesBytes", Path: p, WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				status, b, ctype := efFetch(t, env, efStr(r.JSON, "doc", "url"))
				if status != 200 || !slices.Equal(b, pic) || ctype != "image/png" {
					t.Errorf("GET doc url: got %d %q with %d bytes, want 200 image/png with the %d uploaded bytes", status, ctype, len(b), len(pic))
				}
			}},
		})

		page := efDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": "Target", "template": "home"}}, 201)["id"].(string)
		pageSet := func(name string, v any, want obj) apitest.Scenario {
			return apitest.Scenario{Name: name, Method: "POST", Path: "/pages/" + page + "/batch", Headers: map[string]string{"If-Match": "*"},
				Body: obj{"operations": []obj{{"op": "set", "path": "/items/Hero image", "value": v}}}, WantStatus: 200, WantBody: want}
		}
		fileRef := obj{"__type": "FileRef", "source": "service://demo/entries/" + id + "/doc"}
		sameFile := func(t *testing.T, r *apitest.Response) {
			t.Helper()
			if got := efStr(r.JSON, "doc", "url"); got != url1 {
				t.Errorf("doc.url: got %q, want the unchanged %q", got, url1)
			}
		}
		sameVersion := func(t *testing.T, r *apitest.Response) {
			t.Helper()
			if got, want := efDig(r.JSON, "doc", "version"), full1["version"]; got != want || got == nil {
				t.Errorf("doc.version: got %v, want the unchanged %v", got, want)
			}
		}
		// refused runs a file write that must fail on an entry of its own
		// and checks that nothing of the request was written.
		refused := func(name string, doc any, want obj) apitest.Scenario {
			v := efCreate(t, env, "docs", obj{"title": "Victim " + name, "doc": efUpload("keep.png", pic)})
			vp := "/channels/docs/entries/" + v["id"].(string)
			vurl := efStr(v, "doc", "url")
			return apitest.Scenario{Name: name, Method: "PUT", Path: vp, Body: obj{"title": "Changed", "doc": doc},
				WantStatus: 422, WantBody: want, Check: func(t *testing.T, _ *apitest.Response) {
					got := efGet(t, env, vp, nil)
					if efStr(got, "title") != "Victim "+name || efStr(got, "doc", "url") != vurl {
						t.Errorf("after a refused write: got title %q, file %q; want them unchanged (%q, %q)",
							efStr(got, "title"), efStr(got, "doc", "url"), "Victim "+name, vurl)
					}
				}}
		}
		html := []byte("<!DOCTYPE html><html><body><script>alert(1)</script></body></html>")
		svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>`)
		env.Run(t, []apitest.Scenario{
			{Name: "KeepByOmitting", Method: "PUT", Path: p, Body: obj{"title": "Doc 2"}, WantStatus: 200,
				WantBody: obj{"title": "Doc 2", "doc": efCompactFile("photo.png", "image/png")}, Check: sameFile},
			{Name: "KeepByOmittingSameVersion", Path: p, Headers: efFull, WantStatus: 200,
				WantBody: obj{"doc": obj{"checksum": md5hex(pic), "size": len(pic)}}, Check: efChecks(sameFile, sameVersion)},
			{Name: "KeepBySendingReadObject", Method: "PUT", Path: p,
				Body:       obj{"doc": obj{"filename": "photo.png", "url": url1, "content_type": "image/png"}},
				WantStatus: 200, WantBody: obj{"doc": efCompactFile("photo.png", "image/png")}, Check: sameFile},
			{Name: "KeepBySendingReadObjectSameVersion", Path: p, Headers: efFull, WantStatus: 200,
				WantBody: obj{"doc": obj{"checksum": md5hex(pic)}}, Check: efChecks(sameFile, sameVersion)},
			{Name: "KeepBySendingFullReadObject", Method: "PUT", Path: p, Headers: efFull, Body: obj{"doc": full1},
				WantStatus: 200, WantBody: obj{"doc": obj{"__type": "File", "checksum": md5hex(pic)}}, Check: efChecks(sameFile, sameVersion)},
			pageSet("FileRefIntoPageItem", fileRef, obj{"results": []obj{{"status": "ok"}}}),
			{Name: "PageItemHasCopy", Path: "/pages/" + page, WantStatus: 200,
				WantBody: obj{"items": obj{"Hero image": obj{"file": obj{"filename": "photo.png", "width": 20, "height": 10, "checksum": md5hex(pic)}}}},
				Check: func(t *testing.T, r *apitest.Response) {
					u := efStr(r.JSON, "items", "Hero image", "file", "url")
					if u == "" || u == url1 {
						t.Errorf("page copy url: got %q, want a url of its own (entry file is %q)", u, url1)
					}
					if status, b, _ := efFetch(t, env, u); status != 200 || !slices.Equal(b, pic) {
						t.Errorf("GET page copy: got %d with %d bytes, want 200 with the entry file's bytes", status, len(b))
					}
				}},
			pageSet("FileRefToFieldWithoutFile", obj{"__type": "FileRef", "source": "service://demo/entries/" + id + "/title"},
				obj{"results": []obj{{"status": "error", "error": obj{"code": "not_found"}}}}),
			{Name: "FileRefIntoEntry", Method: "POST", Path: "/channels/docs/entries", Headers: efFull,
				Body:       obj{"title": "Copy", "doc": fileRef},
				WantStatus: 201, WantBody: obj{"doc": obj{"__type": "File", "filename": "photo.png", "checksum": md5hex(pic), "width": 20}},
				Check: func(t *testing.T, r *apitest.Response) {
					if u := efStr(r.JSON, "doc", "url"); u == url1 || u == "" {
						t.Errorf("copied entry file url: got %q, want a url of its own", u)
					}
				}},
			refused("DataPrefixRefused", obj{"__type": "File", "filename": "x.png", "attachment": "data:image/png;base64," + efB64(pic2)},
				obj{"code": "invalid_file_format", "message": apitest.Any}),
			refused("BadBase64Refused", obj{"__type": "File", "filename": "x.png", "attachment": "%%%not base64"},
				obj{"code": "invalid_base64", "message": apitest.Any}),
			refused("HTMLRefused", efUpload("page.html", html), obj{"code": "invalid_content_type", "message": apitest.Any}),
			refused("SVGRefused", efUpload("logo.svg", svg), obj{"code": "invalid_content_type", "message": apitest.Any}),
			refused("FilenameWithoutExtensionRefused", efUpload("photo", pic2), obj{"code": apitest.Any, "message": apitest.Any}),
			refused("FilenameMissingRefused", obj{"__type": "File", "attachment": efB64(pic2)},
				obj{"code": "invalid_file_format", "message": apitest.Any}),
			refused("AttachmentMissingRefused", obj{"__type": "File", "filename": "x.png"}, obj{"code": apitest.Any, "message": apitest.Any}),
			{Name: "UploadTextIsNotAnImage", Method: "PUT", Path: p, Headers: efFull, Body: obj{"doc": efUpload("notes.txt", txt)},
				WantStatus: 200, WantBody: obj{"doc": obj{"__type": "File", "filename": "notes.txt", "content_type": "text/plain",
					"size": len(txt), "width": nil, "height": nil, "version": apitest.Any, "checksum": md5hex(txt)}},
				Check: efChecks(efKeysAt([]any{"doc"}, efFullKeys...), efServes(env, txt, "doc", "url"))},
			{Name: "UploadPDFIsNotAnImage", Method: "PUT", Path: p, Headers: efFull, Body: obj{"doc": efUpload("report.pdf", pdf)},
				WantStatus: 200, WantBody: obj{"doc": obj{"__type": "File", "filename": "report.pdf", "content_type": "application/pdf",
					"size": len(pdf), "width": nil, "height": nil, "checksum": md5hex(pdf)}},
				Check: efChecks(efKeysAt([]any{"doc"}, efFullKeys...), efServes(env, pdf, "doc", "url"))},
			{Name: "ReplacedFileHasNewURL", Path: p, WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				if u := efStr(r.JSON, "doc", "url"); u == url1 || u == "" {
					t.Errorf("doc.url after a new upload: got %q, want a new url", u)
				}
			}},
			{Name: "Remove", Method: "PUT", Path: p, Body: obj{"doc": obj{"__type": "File", "remove": true}},
				WantStatus: 200, WantBody: obj{"doc": nil, "title": "Doc 2"}},
			{Name: "RemovedReadsNull", Path: p, Headers: efFull, WantStatus: 200, WantBody: obj{"doc": nil}},
			{Name: "NullRemoves", Method: "PUT", Path: p, Body: obj{"doc": efUpload("again.png", pic2)}, WantStatus: 200,
				WantBody: obj{"doc": obj{"filename": "again.png"}}},
			{Name: "NullRemovesRead", Method: "PUT", Path: p, Body: obj{"doc": nil}, WantStatus: 200, WantBody: obj{"doc": nil}},
		})

		// Private storage.
		var secret map[string]any
		var secretKey string
		keyOf := func(u string) string { return strings.SplitN(u, "?", 2)[0] }
		env.Run(t, []apitest.Scenario{
			{Name: "PrivateUpload", Method: "PUT", Path: p, Body: obj{"secret": efUpload("private.png", pic2)}, WantStatus: 200,
				WantBody: obj{"secret": efCompactFile("private.png", "image/png")},
				Check: func(t *testing.T, r *apitest.Response) {
					efKeys(t, "secret", efDig(r.JSON, "secret"), efCompactKeys...)
					secret, _ = efDig(r.JSON, "secret").(map[string]any)
					u := efStr(r.JSON, "secret", "url")
					secretKey = keyOf(u)
					if !strings.Contains(u, "signature=") {
						t.Errorf("private url: got %q, want a signed url (signature=)", u)
					}
				}},
			{Name: "PrivateURLSignedOnRead", Path: p, WantStatus: 200, WantBody: obj{"secret": efCompactFile("private.png", "image/png")},
				Check: func(t *testing.T, r *apitest.Response) {
					if u := efStr(r.JSON, "secret", "url"); !strings.Contains(u, "signature=") {
						t.Errorf("private url: got %q, want a signed url (signature=)", u)
					}
				}},
			{Name: "PrivateFullShape", Path: p, Headers: efFull, WantStatus: 200,
				WantBody: obj{"secret": obj{"__type": "File", "filename": "private.png", "content_type": "image/png", "private": true,
					"size": len(pic2), "width": 7, "height": 5, "version": apitest.Any, "checksum": md5hex(pic2), "url": apitest.Any}},
				Check: efKeysAt([]any{"secret"}, append(slices.Clone(efFullKeys), "private")...)},
			{Name: "PrivateURLServesBytes", Path: p, WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				u := efStr(r.JSON, "secret", "url")
				if status, b, _ := efFetch(t, env, u); status != 200 || !slices.Equal(b, pic2) {
					t.Errorf("GET signed url: got %d with %d bytes, want 200 with the uploaded bytes", status, len(b))
				}
				if status, _, _ := efFetch(t, env, keyOf(u)); status != http.StatusForbidden {
					t.Errorf("GET private url without its signature: got %d, want 403", status)
				}
			}},
		})
		env.Run(t, []apitest.Scenario{
			{Name: "PrivateKeepBySendingReadObject", Method: "PUT", Path: p, Headers: efFull, Body: obj{"secret": secret},
				WantStatus: 200, WantBody: obj{"secret": obj{"private": true, "checksum": md5hex(pic2), "version": apitest.Any}},
				Check: func(t *testing.T, r *apitest.Response) {
					if got := keyOf(efStr(r.JSON, "secret", "url")); got != secretKey {
						t.Errorf("secret file: got %q, want the unchanged %q", got, secretKey)
					}
				}},
		})
	})
}

// --- 2. Single reference

func TestEntryFieldsSingleReference(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		efChannel(t, env, "Authors", obj{"name": "name", "type": "string", "required": true})
		efChannel(t, env, "Books", obj{"name": "title", "type": "string"}, obj{"name": "author", "type": "belongs_to", "reference": "authors"})
		ann := efCreate(t, env, "authors", obj{"name": "Ann"})["id"].(string)
		bob := efCreate(t, env, "authors", obj{"name": "Bob"})["id"].(string)
		book := efCreate(t, env, "books", obj{"title": "Book"})["id"].(string)
		p := "/channels/books/entries/" + book
		const missing = "0123456789abcdef01234567"
		refKeys := efKeysAt([]any{"author"}, "__type", "className", "id")
		env.Run(t, []apitest.Scenario{
			{Name: "WriteOnCreate", Method: "POST", Path: "/channels/books/entries", Body: obj{"title": "Other", "author": bob},
				WantStatus: 201, WantBody: obj{"author": efRef("authors", bob)}},
			{Name: "WriteByPlainID", Method: "PUT", Path: p, Body: obj{"author": ann}, WantStatus: 200,
				WantBody: obj{"author": efRef("authors", ann)}, Check: refKeys},
			{Name: "WriteByReferenceID", Method: "PUT", Path: p, Body: obj{"author": efRefW("authors", bob)}, WantStatus: 200,
				WantBody: obj{"author": efRef("authors", bob)}},
			{Name: "WriteByReferenceSlug", Method: "PUT", Path: p, Body: obj{"author": obj{"__type": "Reference", "className": "authors", "slug": "ann"}},
				WantStatus: 200, WantBody: obj{"author": efRef("authors", ann)}},
			{Name: "ReadDefault", Path: p, WantStatus: 200, WantBody: obj{"author": efRef("authors", ann)}, Check: refKeys},
			{Name: "ReadIncludeSlugs", Path: p + "?include_slugs=true", WantStatus: 200,
				WantBody: obj{"author": obj{"__type": "Reference", "className": "authors", "id": ann, "slug": "ann"}},
				Check:    efKeysAt([]any{"author"}, "__type", "className", "id", "slug")},
			{Name: "ReadResolve", Path: p + "?resolve=author", WantStatus: 200,
				WantBody: obj{"author": obj{"__type": "Object", "className": "authors", "id": ann, "slug": "ann", "name": "Ann"}}},
			{Name: "ReadResolveInList", Path: "/channels/books/entries?resolve=author&where=_slug:%22book%22", WantStatus: 200,
				WantBody: []obj{{"author": obj{"__type": "Object", "className": "authors", "id": ann, "name": "Ann"}}}},
			{Name: "ResolveNotAReferenceField", Path: p + "?resolve=title", WantStatus: 400},
			{Name: "MissingTargetByID", Method: "PUT", Path: p, Body: obj{"title": "Changed", "author": missing}, WantStatus: 422,
				WantBody: obj{"code": "reference_not_found", "field": "author", "message": apitest.Any}},
			{Name: "MissingTargetByReference", Method: "PUT", Path: p, Body: obj{"author": efRefW("authors", missing)}, WantStatus: 422,
				WantBody: obj{"code": "reference_not_found", "field": "author"}},
			{Name: "MissingTargetBySlug", Method: "PUT", Path: p, Body: obj{"author": obj{"__type": "Reference", "className": "authors", "slug": "nobody"}},
				WantStatus: 422, WantBody: obj{"code": "reference_not_found", "field": "author"}},
			{Name: "TargetInAnotherChannel", Method: "PUT", Path: p, Body: obj{"author": book}, WantStatus: 422,
				WantBody: obj{"code": "reference_not_found", "field": "author"}},
			{Name: "WrongClassName", Method: "PUT", Path: p, Body: obj{"author": efRefW("books", bob)}, WantStatus: 422,
				WantBody: efInvalid("author")},
			{Name: "RefusalsWriteNothing", Path: p, WantStatus: 200, WantBody: obj{"title": "Book", "author": efRef("authors", ann)}},
			{Name: "NullClears", Method: "PUT", Path: p, Body: obj{"author": nil}, WantStatus: 200, WantBody: obj{"author": nil}},
			{Name: "ClearedReadsNull", Path: p + "?include_slugs=true&resolve=author", WantStatus: 200, WantBody: obj{"author": nil}},
		})
	})
}

// --- 3. Multi reference

func TestEntryFieldsMultiReference(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		efChannel(t, env, "Authors", obj{"name": "name", "type": "string", "required": true})
		efChannel(t, env, "Books", obj{"name": "title", "type": "string"},
			obj{"name": "coauthors", "type": "belongs_to_many", "reference": "authors"})
		id := map[string]string{}
		for _, n := range []string{"Ann", "Bob", "Cat", "Dan"} {
			id[n] = efCreate(t, env, "authors", obj{"name": n})["id"].(string)
		}
		ann, bob, cat, dan := id["Ann"], id["Bob"], id["Cat"], id["Dan"]
		book := efCreate(t, env, "books", obj{"title": "Book"})["id"].(string)
		book2 := efCreate(t, env, "books", obj{"title": "Book 2"})["id"].(string)
		p := "/channels/books/entries/" + book
		r := func(n string) obj { return efRefW("authors", id[n]) }
		rel := func(ids ...string) obj { return obj{"coauthors": efRelation("authors", ids...)} }
		put := func(name string, v any, want ...string) apitest.Scenario {
			return apitest.Scenario{Name: name, Method: "PUT", Path: p, Body: obj{"coauthors": v}, WantStatus: 200, WantBody: rel(want...)}
		}
		opErr := func(name string, v any) apitest.Scenario {
			return apitest.Scenario{Name: name, Method: "PUT", Path: p, Body: obj{"title": "Changed", "coauthors": v}, WantStatus: 400,
				WantBody: obj{"message": efOpMessage("coauthors"), "code": apitest.Absent},
				Check: func(t *testing.T, _ *apitest.Response) {
					// Nothing of the request is written: neither the relation
					// nor the other field sent with it.
					got := efGet(t, env, p, nil)
					if diffs := apitest.Match(got, apitest.Normalize(obj{"title": "Book", "coauthors": efRelation("authors", bob, cat)})); len(diffs) > 0 {
						t.Errorf("after a refused __op: %s", strings.Join(diffs, "; "))
					}
				}}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "UnsetReadsEmptyRelation", Path: p, WantStatus: 200, WantBody: rel(),
				Check: efKeysAt([]any{"coauthors"}, "__type", "className", "objects")},
			{Name: "WriteOnCreate", Method: "POST", Path: "/channels/books/entries", Body: obj{"title": "Other", "coauthors": []string{dan, cat}},
				WantStatus: 201, WantBody: rel(dan, cat)},
			put("ArrayOfIDsReplaces", []string{ann, bob}, ann, bob),
			put("ArrayOfIDsReplacesAgain", []string{cat}, cat),
			put("ObjectsWithoutOpReplaces", obj{"objects": []obj{r("Ann"), r("Bob")}}, ann, bob),
			put("AddReferenceAdds", obj{"__op": "AddReference", "objects": []obj{r("Cat")}}, ann, bob, cat),
			put("AddRelationAdds", obj{"__op": "AddRelation", "objects": []obj{r("Dan")}}, ann, bob, cat, dan),
			put("AddExistingKeepsOneCopy", obj{"__op": "AddReference", "objects": []obj{r("Ann")}}, ann, bob, cat, dan),
			put("RemoveReferenceRemoves", obj{"__op": "RemoveReference", "objects": []obj{r("Ann")}}, bob, cat, dan),
			put("RemoveRelationRemoves", obj{"__op": "RemoveRelation", "objects": []obj{r("Dan")}}, bob, cat),
			// In order: +Ann, -Ann, +Dan, -Bob gives [Cat, Dan]; in reverse
			// order it would end with Ann present.
			put("BatchAppliesStepsInOrder", obj{"__op": "Batch", "changes": []obj{
				{"__op": "AddReference", "objects": []obj{r("Ann")}},
				{"__op": "RemoveReference", "objects": []obj{r("Ann")}},
				{"__op": "AddRelation", "objects": []obj{r("Dan")}},
				{"__op": "RemoveRelation", "objects": []obj{r("Bob")}},
			}}, cat, dan),
			put("HashWithoutObjectsChangesNothing", obj{"foo": "bar"}, cat, dan),
			put("OpWithoutObjectsChangesNothing", obj{"__op": "AddReference"}, cat, dan),
			put("WrongClassNameSkipped", obj{"__op": "AddReference", "objects": []obj{efRefW("books", ann), r("Bob")}}, cat, dan, bob),
			put("NonReferenceTypeSkipped", obj{"__op": "AddReference", "objects": []obj{
				{"__type": "File", "className": "authors", "id": ann}, {"className": "authors", "id": ann}}}, cat, dan, bob),
			{Name: "PointerTypeSkipped", Method: "PUT", Path: "/channels/books/entries/" + book2,
				Body:       obj{"coauthors": obj{"__op": "AddReference", "objects": []obj{{"__type": "Pointer", "className": "authors", "id": ann}}}},
				WantStatus: 200, WantBody: rel()},
			{Name: "ObjectTypeSkipped", Method: "PUT", Path: "/channels/books/entries/" + book2,
				Body:       obj{"coauthors": obj{"objects": []obj{{"__type": "Object", "className": "authors", "id": ann}}}},
				WantStatus: 200, WantBody: rel()},
			put("WrongClassNameSkippedOnRemove", obj{"__op": "RemoveReference", "objects": []obj{efRefW("books", bob)}}, cat, dan, bob),
			put("ReferenceBySlug", obj{"__op": "AddReference", "objects": []obj{{"__type": "Reference", "className": "authors", "slug": "ann"}}},
				cat, dan, bob, ann),
			put("RemoveBySlug", obj{"__op": "RemoveRelation", "objects": []obj{{"__type": "Reference", "className": "authors", "slug": "dan"}}},
				cat, bob, ann),
			put("ObjectsBySlugReplace", obj{"objects": []obj{{"__type": "Reference", "className": "authors", "slug": "bob"}, r("Cat")}}, bob, cat),
			{Name: "MissingTargetRefused", Method: "PUT", Path: p, Body: obj{"coauthors": []string{ann, "0123456789abcdef01234567"}},
				WantStatus: 422, WantBody: obj{"code": "reference_not_found", "field": "coauthors", "message": apitest.Any}},
			{Name: "ReadDefault", Path: p, WantStatus: 200, WantBody: rel(bob, cat),
				Check: efChecks(efKeysAt([]any{"coauthors"}, "__type", "className", "objects"),
					efKeysAt([]any{"coauthors", "objects", 0}, "__type", "className", "id"))},
			{Name: "ReadIncludeSlugs", Path: p + "?include_slugs=true", WantStatus: 200,
				WantBody: obj{"coauthors": obj{"__type": "Relation", "className": "authors", "objects": []obj{
					{"__type": "Reference", "className": "authors", "id": bob, "slug": "bob"},
					{"__type": "Reference", "className": "authors", "id": cat, "slug": "cat"}}}}},
			{Name: "ReadResolve", Path: p + "?resolve=coauthors", WantStatus: 200,
				WantBody: obj{"coauthors": obj{"__type": "Relation", "className": "authors", "objects": []obj{
					{"__type": "Object", "className": "authors", "id": bob, "slug": "bob", "name": "Bob"},
					{"__type": "Object", "className": "authors", "id": cat, "slug": "cat", "name": "Cat"}}}}},
			opErr("UnknownOpRefused", obj{"__op": "Set", "objects": []obj{r("Ann")}}),
			opErr("UnknownOpInBatchRefused", obj{"__op": "Batch", "changes": []obj{{"__op": "Replace", "objects": []obj{r("Ann")}}}}),
			opErr("UnknownOpAfterValidBatchStepsRefused", obj{"__op": "Batch", "changes": []obj{
				{"__op": "AddReference", "objects": []obj{r("Ann")}},
				{"__op": "RemoveReference", "objects": []obj{r("Bob")}},
				{"__op": "Nope", "objects": []obj{r("Dan")}}}}),
			opErr("NonStringOpRefused", obj{"__op": 1, "objects": []obj{r("Ann")}}),
			{Name: "UnknownOpsWroteNothing", Path: p, WantStatus: 200, WantBody: obj{"title": "Book", "coauthors": efRelation("authors", bob, cat)}},
			put("EmptyArrayClears", []string{}),
			put("SetBeforeNull", []string{ann}, ann),
			put("NullClears", nil),
		})
	})
}

// --- 4. Deleting a referenced entry

func TestEntryFieldsDeleteReferenced(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		efChannel(t, env, "Authors", obj{"name": "name", "type": "string", "required": true})
		efChannel(t, env, "Books", obj{"name": "title", "type": "string"},
			obj{"name": "author", "type": "belongs_to", "reference": "authors"},
			obj{"name": "coauthors", "type": "belongs_to_many", "reference": "authors"})
		ann := efCreate(t, env, "authors", obj{"name": "Ann"})["id"].(string)
		bob := efCreate(t, env, "authors", obj{"name": "Bob"})["id"].(string)
		b1 := efCreate(t, env, "books", obj{"title": "One", "author": ann, "coauthors": []string{bob, ann}})
		b2 := efCreate(t, env, "books", obj{"title": "Two", "author": bob, "coauthors": []string{bob}})
		p1, p2 := "/channels/books/entries/"+b1["id"].(string), "/channels/books/entries/"+b2["id"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "DeleteReferencedEntry", Method: "DELETE", Path: "/channels/authors/entries/" + ann, WantStatus: 204},
			{Name: "SingleReferenceReadsNull", Path: p1, WantStatus: 200, WantBody: obj{"author": nil}},
			{Name: "RelationDropsIt", Path: p1, WantStatus: 200, WantBody: obj{"coauthors": efRelation("authors", bob)}},
			{Name: "RelationDropsItWithSlugsAndResolve", Path: p1 + "?include_slugs=true&resolve=author,coauthors", WantStatus: 200,
				WantBody: obj{"author": nil, "coauthors": obj{"objects": []obj{{"__type": "Object", "id": bob, "name": "Bob"}}}}},
			{Name: "ReferrerUpdatedAtMoved", Path: p1, WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				got, was := efStr(r.JSON, "updated_at"), b1["updated_at"].(string)
				if got == "" || got <= was {
					t.Errorf("updated_at: got %q, want later than %q", got, was)
				}
			}},
			{Name: "UnrelatedEntryUntouched", Path: p2, WantStatus: 200,
				WantBody: obj{"updated_at": b2["updated_at"], "author": efRef("authors", bob), "coauthors": efRelation("authors", bob)}},
			{Name: "NoLongerFilterable", Path: "/channels/books/entries/count?where=author:" + ann, WantStatus: 200, WantBody: obj{"count": 0}},
			{Name: "ReferrerStillWritable", Method: "PUT", Path: p1, Body: obj{"coauthors": obj{"__op": "AddReference", "objects": []obj{efRefW("authors", bob)}}},
				WantStatus: 200, WantBody: obj{"coauthors": efRelation("authors", bob)}},
		})
	})
}

// --- 5. Gallery

func TestEntryFieldsGallery(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		picA, picB, picC, picD := testPNG(t, 10, 8), testPNG(t, 12, 9), testPNG(t, 14, 6), testPNG(t, 3, 2)
		efChannel(t, env, "Albums", obj{"name": "title", "type": "string"}, obj{"name": "photos", "type": "gallery"})
		img := func(m obj) obj { m["__type"] = "GalleryImage"; return m }
		gal := func(images ...obj) obj { return obj{"photos": obj{"__type": "Gallery", "images": images}} }
		created := efCreate(t, env, "albums", obj{"title": "Empty"})
		p := "/channels/albums/entries/" + created["id"].(string)
		var one, two, zero, three string
		urls := map[string]string{}
		idAt := func(i int, dst *string) func(t *testing.T, r *apitest.Response) {
			return func(t *testing.T, r *apitest.Response) { *dst = efStr(r.JSON, "photos", i, "id") }
		}
		env.Run(t, []apitest.Scenario{
			{Name: "UnsetReadsEmptyArray", Path: p, WantStatus: 200, WantBody: obj{"photos": []obj{}}},
			{Name: "NewImagesWithFileAndCaption", Method: "PUT", Path: p, Body: gal(
				img(obj{"caption": "one", "file": efUpload("a.png", picA)}),
				img(obj{"caption": "two", "file": efUpload("b.png", picB)})),
				WantStatus: 200, WantBody: obj{"photos": []obj{
					{"id": apitest.Any, "caption": "one", "position": 0, "file": efCompactFile("a.png", "image/png")},
					{"id": apitest.Any, "caption": "two", "position": 1, "file": efCompactFile("b.png", "image/png")}}},
				Check: efChecks(idAt(0, &one), idAt(1, &two), func(t *testing.T, r *apitest.Response) {
					urls["one"], urls["two"] = efStr(r.JSON, "photos", 0, "file", "url"), efStr(r.JSON, "photos", 1, "file", "url")
				}, efServes(env, picA, "photos", 0, "file", "url"))},
			{Name: "ReadShape", Path: p, WantStatus: 200, Check: efChecks(
				efKeysAt([]any{"photos", 0}, "id", "caption", "position", "file"),
				efKeysAt([]any{"photos", 0, "file"}, efCompactKeys...),
				efKeysAt([]any{"photos", 1, "file"}, efCompactKeys...))},
			{Name: "FullReadShape", Path: p, Headers: efFull, WantStatus: 200, WantBody: obj{"photos": []obj{
				{"caption": "one", "position": 0, "file": obj{"filename": "a.png", "url": apitest.Any, "content_type": "image/png",
					"size": len(picA), "width": 10, "height": 8, "version": apitest.Any, "checksum": md5hex(picA)}},
				{"caption": "two", "position": 1, "file": obj{"filename": "b.png", "size": len(picB), "width": 12, "height": 9, "checksum": md5hex(picB)}}}},
				Check: efChecks(efKeysAt([]any{"photos", 0}, "id", "caption", "position", "file"),
					efKeysAt([]any{"photos", 0, "file"}, efGalleryFileKeys...))},
		})
		env.Run(t, []apitest.Scenario{
			{Name: "ExplicitPositionGoesFirst", Method: "PUT", Path: p, Body: gal(img(obj{"caption": "zero", "position": 0, "file": efUpload("z.png", picC)})),
				WantStatus: 200, WantBody: obj{"photos": []obj{
					{"caption": "zero", "position": 0}, {"id": one, "caption": "one", "position": 1}, {"id": two, "caption": "two", "position": 2}}},
				Check: idAt(0, &zero)},
			{Name: "NewImageWithoutPositionGoesLast", Method: "PUT", Path: p, Body: gal(img(obj{"caption": "three", "file": efUpload("d.png", picD)})),
				WantStatus: 200, WantBody: obj{"photos": []obj{
					{"caption": "zero", "position": 0}, {"id": one, "position": 1}, {"id": two, "position": 2}, {"caption": "three", "position": 3}}},
				Check: idAt(3, &three)},
		})
		env.Run(t, []apitest.Scenario{
			{Name: "UpdateCaptionOnly", Method: "PUT", Path: p, Body: gal(img(obj{"id": one, "caption": "uno"})),
				WantStatus: 200, WantBody: obj{"photos": []obj{
					{"id": zero, "position": 0}, {"id": one, "caption": "uno", "position": 1, "file": obj{"filename": "a.png", "url": urls["one"]}},
					{"id": two, "caption": "two", "position": 2}, {"id": three, "position": 3}}}},
			{Name: "UpdateCaptionOnlyKeepsFile", Path: p, Headers: efFull, WantStatus: 200,
				WantBody: obj{"photos": []obj{{"id": zero}, {"id": one, "caption": "uno", "file": obj{"url": urls["one"], "checksum": md5hex(picA)}},
					{"id": two}, {"id": three}}}},
			{Name: "UpdatePosition", Method: "PUT", Path: p, Body: gal(img(obj{"id": three, "position": 0})),
				WantStatus: 200, WantBody: obj{"photos": []obj{
					{"id": three, "caption": "three", "position": 0}, {"id": zero, "position": 1}, {"id": one, "caption": "uno", "position": 2},
					{"id": two, "position": 3}}}},
			{Name: "RemoveByID", Method: "PUT", Path: p, Body: gal(img(obj{"id": zero, "remove": true})),
				WantStatus: 200, WantBody: obj{"photos": []obj{
					{"id": three, "position": 0}, {"id": one, "position": 1}, {"id": two, "position": 2}}}},
			{Name: "NewImageWithoutFileRefused", Method: "PUT", Path: p, Body: obj{"title": "Changed", "photos": obj{"__type": "Gallery",
				"images": []obj{img(obj{"caption": "ok", "file": efUpload("e.png", picD)}), img(obj{"caption": "no file"})}}},
				WantStatus: 422, WantBody: obj{"code": "validation_failed", "field": apitest.Any, "message": apitest.Any},
				Check: func(t *testing.T, r *apitest.Response) {
					if f := efStr(r.JSON, "field"); !strings.HasPrefix(f, "photos") {
						t.Errorf("field: got %q, want the photos field", f)
					}
				}},
			{Name: "UnknownImageIDRefused", Method: "PUT", Path: p, Body: gal(img(obj{"id": "0123456789abcdef01234567", "caption": "x"})),
				WantStatus: 422, WantBody: obj{"code": "validation_failed", "field": apitest.Any, "message": apitest.Any}},
			{Name: "FileNullOnImageRefused", Method: "PUT", Path: p, Body: gal(img(obj{"id": one, "file": nil})),
				WantStatus: 422, WantBody: obj{"code": "validation_failed"}},
			{Name: "RefusalsWroteNothing", Path: p, WantStatus: 200, WantBody: obj{"title": "Empty", "photos": []obj{
				{"id": three, "position": 0}, {"id": one, "caption": "uno", "position": 1, "file": obj{"url": urls["one"]}},
				{"id": two, "caption": "two", "position": 2, "file": obj{"url": urls["two"]}}}}},
		})

		// The read array sent back (compact and full shapes) changes nothing.
		before := efGet(t, env, p, nil)
		beforeFull := efGet(t, env, p, efFull)
		photosAgain := func(t *testing.T, r *apitest.Response) {
			got := efGet(t, env, p, nil)
			efSame(t, "photos", got["photos"], before["photos"])
		}
		env.Run(t, []apitest.Scenario{
			{Name: "SendingReadArrayBackChangesNothing", Method: "PUT", Path: p, Body: obj{"photos": before["photos"]},
				WantStatus: 200, WantBody: obj{"photos": before["photos"]}, Check: photosAgain},
			{Name: "SendingReadArrayAsImagesChangesNothing", Method: "PUT", Path: p,
				Body: obj{"photos": obj{"__type": "Gallery", "images": before["photos"]}}, WantStatus: 200, Check: photosAgain},
			{Name: "SendingFullReadArrayBackChangesNothing", Method: "PUT", Path: p, Headers: efFull, Body: obj{"photos": beforeFull["photos"]},
				WantStatus: 200, WantBody: obj{"photos": beforeFull["photos"]}, Check: photosAgain},
			{Name: "FileRefFromGalleryImage", Method: "POST", Path: "/channels/albums/entries", Headers: efFull,
				Body: gal(img(obj{"caption": "copied", "file": obj{"__type": "FileRef",
					"source": "service://demo/entries/" + created["id"].(string) + "/photos/" + one}})),
				WantStatus: 201, WantBody: obj{"photos": []obj{{"caption": "copied", "file": obj{"filename": "a.png", "checksum": md5hex(picA)}}}}},
			{Name: "ReplaceImageFile", Method: "PUT", Path: p, Headers: efFull, Body: gal(img(obj{"id": two, "file": efUpload("c.png", picC)})),
				WantStatus: 200, WantBody: obj{"photos": []obj{{"id": three}, {"id": one},
					{"id": two, "caption": "two", "position": 2, "file": obj{"filename": "c.png", "width": 14, "checksum": md5hex(picC)}}}}},
			{Name: "NullClears", Method: "PUT", Path: p, Body: obj{"photos": nil}, WantStatus: 200, WantBody: obj{"photos": []obj{}}},
		})
	})
}

// --- 6. Select and multi-select

func TestEntryFieldsSelect(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ch := efChannel(t, env, "Posts", obj{"name": "title", "type": "string"},
			obj{"name": "kind", "type": "select", "select_options": []obj{{"name": "News"}, {"name": "Blog"}}},
			obj{"name": "tags", "type": "multi_select", "select_options": []obj{{"name": "Red"}, {"name": "Green"}, {"name": "Blue"}}})
		kind, tags := efOptions(t, ch, "kind"), efOptions(t, ch, "tags")
		post := efCreate(t, env, "posts", obj{"title": "Post"})
		p := "/channels/posts/entries/" + post["id"].(string)
		put := func(name string, body, want obj) apitest.Scenario {
			return apitest.Scenario{Name: name, Method: "PUT", Path: p, Body: body, WantStatus: 200, WantBody: want}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "UnsetReadsNullAndEmptyArray", Path: p, WantStatus: 200, WantBody: obj{"kind": nil, "tags": []string{}}},
			{Name: "WriteOnCreate", Method: "POST", Path: "/channels/posts/entries",
				Body: obj{"title": "New", "kind": kind["Blog"], "tags": []string{tags["Blue"]}}, WantStatus: 201,
				WantBody: obj{"kind": kind["Blog"], "tags": []string{tags["Blue"]}}},
			put("SelectByOptionID", obj{"kind": kind["News"]}, obj{"kind": kind["News"]}),
			{Name: "SelectReadsOptionID", Path: p, WantStatus: 200, WantBody: obj{"kind": kind["News"]}},
			put("SelectBySlugReadsID", obj{"kind": "blog"}, obj{"kind": kind["Blog"]}),
			put("SelectByNameReadsID", obj{"kind": "News"}, obj{"kind": kind["News"]}),
			{Name: "SelectUnknownOptionRefused", Method: "PUT", Path: p, Body: obj{"title": "Changed", "kind": "0123456789abcdef01234567"},
				WantStatus: 422, WantBody: efInvalid("kind")},
			{Name: "SelectOtherFieldsOptionRefused", Method: "PUT", Path: p, Body: obj{"kind": tags["Red"]},
				WantStatus: 422, WantBody: efInvalid("kind")},
			{Name: "SelectNotAStringRefused", Method: "PUT", Path: p, Body: obj{"kind": 1}, WantStatus: 422, WantBody: efInvalid("kind")},
			put("MultiSelectArray", obj{"tags": []string{tags["Red"], tags["Blue"]}}, obj{"tags": []string{tags["Red"], tags["Blue"]}}),
			{Name: "MultiSelectReadsOptionIDs", Path: p, WantStatus: 200, WantBody: obj{"tags": []string{tags["Red"], tags["Blue"]}}},
			put("MultiSelectArrayReplaces", obj{"tags": []string{tags["Green"]}}, obj{"tags": []string{tags["Green"]}}),
			{Name: "MultiSelectUnknownOptionRefused", Method: "PUT", Path: p, Body: obj{"tags": []string{tags["Red"], "nope"}},
				WantStatus: 422, WantBody: efInvalid("tags")},
			{Name: "RefusalsWroteNothing", Path: p, WantStatus: 200,
				WantBody: obj{"title": "Post", "kind": kind["News"], "tags": []string{tags["Green"]}}},
			put("MultiSelectEmptyArrayClears", obj{"tags": []string{}}, obj{"tags": []string{}}),
			put("MultiSelectSetAgain", obj{"tags": []string{tags["Blue"]}}, obj{"tags": []string{tags["Blue"]}}),
			put("MultiSelectNullClears", obj{"tags": nil}, obj{"tags": []string{}}),
			put("SelectNullClears", obj{"kind": nil}, obj{"kind": nil}),
			{Name: "ClearedRead", Path: p, WantStatus: 200, WantBody: obj{"kind": nil, "tags": []string{}}},
		})
	})
}

// --- 7. Time

func TestEntryFieldsTime(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		efChannel(t, env, "Shops", obj{"name": "name", "type": "string"}, obj{"name": "opens", "type": "time"},
			obj{"name": "hours", "type": "time", "localized": true})
		shop := efCreate(t, env, "shops", obj{"name": "Shop"})
		p := "/channels/shops/entries/" + shop["id"].(string)
		at := func(hms string) string { return "2000-01-01T" + hms + ".000+01:00" }
		put := func(name string, v any, hms string) apitest.Scenario {
			return apitest.Scenario{Name: name, Method: "PUT", Path: p, Body: obj{"opens": v}, WantStatus: 200, WantBody: obj{"opens": at(hms)}}
		}
		bad := func(name string, v any) apitest.Scenario {
			return apitest.Scenario{Name: name, Method: "PUT", Path: p, Body: obj{"name": "Changed", "opens": v}, WantStatus: 422, WantBody: efInvalid("opens")}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "WriteOnCreate", Method: "POST", Path: "/channels/shops/entries", Body: obj{"name": "New", "opens": "07:15"},
				WantStatus: 201, WantBody: obj{"opens": at("07:15:00")}},
			put("HHMM", "09:30", "09:30:00"),
			{Name: "ReadAnchoredInSiteTimezone", Path: p, WantStatus: 200, WantBody: obj{"opens": "2000-01-01T09:30:00.000+01:00"}},
			put("HHMMSS", "18:45:15", "18:45:15"),
			put("TimestampZWinter", "2026-01-15T08:00:00Z", "09:00:00"),
			put("TimestampZSummer", "2026-07-01T08:00:00Z", "10:00:00"),
			put("TimestampOffsetWinter", "2026-01-15T08:00:00-03:00", "12:00:00"),
			put("TimestampOffsetSummer", "2026-07-01T08:00:00+05:00", "05:00:00"),
			put("TimestampWithFraction", "2026-01-15T08:00:00.250Z", "09:00:00"),
			put("DSTStartDayBeforeChange", "2026-03-29T00:30:00Z", "01:30:00"),
			put("DSTStartDayAfterChange", "2026-03-29T01:30:00Z", "03:30:00"),
			put("DSTStartDayMorning", "2026-03-29T08:00:00Z", "10:00:00"),
			put("DSTEndDayBeforeChange", "2026-10-25T00:30:00Z", "02:30:00"),
			put("DSTEndDayAfterChange", "2026-10-25T01:30:00Z", "02:30:00"),
			put("Midnight", "00:00", "00:00:00"),
			put("LastSecond", "23:59:59", "23:59:59"),
			bad("HourOutOfRange", "24:00"),
			bad("MinuteOutOfRange", "12:60"),
			bad("SingleDigitHour", "9:30"),
			bad("Word", "noon"),
			bad("Number", 930),
			bad("BadDate", "2026-13-01T08:00:00Z"),
			bad("HourOnly", "09"),
			{Name: "RefusalsWroteNothing", Path: p, WantStatus: 200, WantBody: obj{"name": "Shop", "opens": at("23:59:59")}},
			{Name: "NullClears", Method: "PUT", Path: p, Body: obj{"opens": nil}, WantStatus: 200, WantBody: obj{"opens": nil}},
			{Name: "LocalizedTimeDefault", Method: "PUT", Path: p, Body: obj{"hours": "08:00"}, WantStatus: 200,
				WantBody: obj{"hours": at("08:00:00"), "translations": obj{"en": obj{"hours": at("08:00:00")}, "nl": obj{"hours": at("08:00:00")}}}},
			{Name: "LocalizedTimeInTranslations", Method: "PUT", Path: p + "?content_locale=nl", Body: obj{"hours": "2026-07-01T16:00:00Z"},
				WantStatus: 200, WantBody: obj{"hours": at("08:00:00"), "translations": obj{"en": obj{"hours": at("08:00:00")}, "nl": obj{"hours": at("18:00:00")}}}},
		})
	})
}

// --- 8. Localized fields

func TestEntryFieldsLocalized(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		efChannel(t, env, "News", obj{"name": "title", "type": "string", "localized": true},
			obj{"name": "body", "type": "text", "localized": true}, obj{"name": "rank", "type": "integer"})
		var id string
		p := func() string { return "/channels/news/entries/" + id }
		notEnabled := obj{"message": "Invalid content_locale: fr is not enabled for this site."}
		env.Run(t, []apitest.Scenario{
			{Name: "CreateWithLocalizedField", Method: "POST", Path: "/channels/news/entries", Body: obj{"title": "Hello", "rank": 1},
				WantStatus: 201, WantBody: obj{"title": "Hello", "body": nil, "rank": 1,
					"translations": obj{"en": obj{"title": "Hello", "body": nil}, "nl": obj{"title": "Hello", "body": nil}}},
				Check: efChecks(efKeysAt([]any{"translations"}, "en", "nl"), efKeysAt([]any{"translations", "en"}, "title", "body"),
					efKeysAt([]any{"translations", "nl"}, "title", "body"),
					func(t *testing.T, r *apitest.Response) { id = efStr(r.JSON, "id") })},
		})
		env.Run(t, []apitest.Scenario{
			{Name: "WriteNLWithQuery", Method: "PUT", Path: p() + "?content_locale=nl", Body: obj{"title": "Hallo"}, WantStatus: 200,
				WantBody: obj{"title": "Hello", "translations": obj{"en": obj{"title": "Hello"}, "nl": obj{"title": "Hallo"}}}},
			{Name: "DefaultLocaleUntouched", Path: p(), WantStatus: 200,
				WantBody: obj{"title": "Hello", "translations": obj{"en": obj{"title": "Hello", "body": nil}, "nl": obj{"title": "Hallo", "body": nil}}}},
			{Name: "WriteDefaultLeavesNL", Method: "PUT", Path: p(), Body: obj{"title": "Hello again", "body": "Text"}, WantStatus: 200,
				WantBody: obj{"title": "Hello again", "body": "Text",
					"translations": obj{"en": obj{"title": "Hello again", "body": "Text"}, "nl": obj{"title": "Hallo", "body": "Text"}}}},
			{Name: "ListWithContentLocaleKeepsDefaultTopLevel", Path: "/channels/news/entries?content_locale=nl", WantStatus: 200,
				WantBody: []obj{{"title": "Hello again", "translations": obj{"nl": obj{"title": "Hallo"}}}}},
			{Name: "ContentLocaleBodyKeyOnPUT", Method: "PUT", Path: p(), Body: obj{"content_locale": "nl", "body": "Tekst"}, WantStatus: 200,
				WantBody: obj{"body": "Text", "content_locale": apitest.Absent,
					"translations": obj{"en": obj{"body": "Text"}, "nl": obj{"title": "Hallo", "body": "Tekst"}}}},
			{Name: "ContentLocaleBodyKeyOnPOST", Method: "POST", Path: "/channels/news/entries",
				Body: obj{"content_locale": "nl", "title": "Nieuws", "rank": 2}, WantStatus: 201,
				WantBody: obj{"title": nil, "rank": 2, "content_locale": apitest.Absent,
					"translations": obj{"en": obj{"title": nil}, "nl": obj{"title": "Nieuws"}}}},
			{Name: "NonLocalizedIgnoresContentLocale", Method: "PUT", Path: p() + "?content_locale=nl", Body: obj{"rank": 5}, WantStatus: 200,
				WantBody: obj{"rank": 5, "translations": obj{"en": obj{"rank": apitest.Absent}, "nl": obj{"rank": apitest.Absent, "title": "Hallo"}}}},
			{Name: "NonLocalizedSharedValue", Path: p(), WantStatus: 200, WantBody: obj{"rank": 5, "title": "Hello again"}},
			{Name: "NotEnabledLocaleQueryRefused", Method: "PUT", Path: p() + "?content_locale=fr", Body: obj{"title": "Bonjour", "rank": 9},
				WantStatus: 422, WantBody: notEnabled},
			{Name: "NotEnabledLocaleBodyKeyRefused", Method: "PUT", Path: p(), Body: obj{"content_locale": "fr", "title": "Bonjour", "rank": 9},
				WantStatus: 422, WantBody: notEnabled},
			{Name: "NotEnabledLocaleOnPOSTRefused", Method: "POST", Path: "/channels/news/entries?content_locale=fr", Body: obj{"title": "Bonjour"},
				WantStatus: 422, WantBody: notEnabled},
			{Name: "NotEnabledLocaleWroteNothing", Path: p(), WantStatus: 200,
				WantBody: obj{"title": "Hello again", "rank": 5, "translations": obj{"en": obj{"title": "Hello again"}, "nl": obj{"title": "Hallo"}}}},
			{Name: "TranslationsInBody", Method: "PUT", Path: p(), Body: obj{"translations": obj{"en": obj{"title": "Day"}, "nl": obj{"title": "Dag"}}},
				WantStatus: 200, WantBody: obj{"title": "Day", "translations": obj{"en": obj{"title": "Day"}, "nl": obj{"title": "Dag", "body": "Tekst"}}}},
			{Name: "TranslationsNotEnabledLocaleRefused", Method: "PUT", Path: p(), Body: obj{"translations": obj{"fr": obj{"title": "Jour"}}},
				WantStatus: 422, WantBody: obj{"code": "validation_failed"}},
			{Name: "TranslationsNonLocalizedFieldRefused", Method: "PUT", Path: p(), Body: obj{"translations": obj{"nl": obj{"rank": 7}}},
				WantStatus: 422, WantBody: obj{"code": "validation_failed"}},
			{Name: "TranslationRefusalsWroteNothing", Path: p(), WantStatus: 200,
				WantBody: obj{"title": "Day", "rank": 5, "translations": obj{"nl": obj{"title": "Dag"}}}},
			{Name: "ClearNLFallsBackToDefault", Method: "PUT", Path: p() + "?content_locale=nl", Body: obj{"title": nil}, WantStatus: 200,
				WantBody: obj{"title": "Day", "translations": obj{"nl": obj{"title": "Day"}}}},
		})

		// A site with one locale: entries have no translations key.
		env.Run(t, []apitest.Scenario{
			{Name: "OtherSiteChannel", Method: "POST", Path: "/channels", As: "other",
				Body: obj{"name": "Notes", "customizations": []obj{{"name": "title", "type": "string", "localized": true}}}, WantStatus: 201},
			{Name: "OtherSiteEntryHasNoTranslations", Method: "POST", Path: "/channels/notes/entries", As: "other", Body: obj{"title": "Single"},
				WantStatus: 201, WantBody: obj{"title": "Single", "translations": apitest.Absent}},
			{Name: "OtherSiteListHasNoTranslations", Path: "/channels/notes/entries", As: "other", WantStatus: 200,
				WantBody: []obj{{"title": "Single", "translations": apitest.Absent}}},
			{Name: "OtherSiteNLNotEnabled", Method: "POST", Path: "/channels/notes/entries?content_locale=nl", As: "other", Body: obj{"title": "X"},
				WantStatus: 422, WantBody: obj{"message": "Invalid content_locale: nl is not enabled for this site."}},
		})
	})
}

// --- 9. Round trip: one field of every type

func TestEntryFieldsRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		pic, pic2 := testPNG(t, 6, 4), testPNG(t, 9, 3)
		efChannel(t, env, "Authors", obj{"name": "name", "type": "string", "required": true})
		ch := efChannel(t, env, "Everything",
			obj{"name": "title", "type": "string", "localized": true},
			obj{"name": "body", "type": "text"},
			obj{"name": "email", "type": "email"},
			obj{"name": "flag", "type": "boolean"},
			obj{"name": "count", "type": "integer"},
			obj{"name": "price", "type": "float"},
			obj{"name": "day", "type": "date"},
			obj{"name": "at", "type": "date_time"},
			obj{"name": "opens", "type": "time"},
			obj{"name": "kind", "type": "select", "select_options": []obj{{"name": "News"}, {"name": "Blog"}}},
			obj{"name": "tags", "type": "multi_select", "select_options": []obj{{"name": "Red"}, {"name": "Green"}}},
			obj{"name": "author", "type": "belongs_to", "reference": "authors"},
			obj{"name": "coauthors", "type": "belongs_to_many", "reference": "authors"},
			obj{"name": "buyer", "type": "customer"},
			obj{"name": "cover", "type": "file"},
			obj{"name": "photos", "type": "gallery"},
			obj{"name": "meta", "type": "json"},
			obj{"name": "spot", "type": "geo"})
		kind, tags := efOptions(t, ch, "kind"), efOptions(t, ch, "tags")
		ann := efCreate(t, env, "authors", obj{"name": "Ann"})["id"].(string)
		bob := efCreate(t, env, "authors", obj{"name": "Bob"})["id"].(string)
		newCustomer := func(email string) string {
			return mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": email}}, 201).JSON.(obj)["id"].(string)
		}
		customer, customer2 := newCustomer("buyer@example.com"), newCustomer("buyer2@example.com")
		otherCustomer := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", As: "other",
			Body: obj{"email": "buyer@example.com"}}, 201).JSON.(obj)["id"].(string)
		var id string
		p := func() string { return "/channels/everything/entries/" + id }
		wantCreated := obj{
			"slug": "kitchen-sink", "title": "Kitchen sink", "body": "Long text\nwith lines", "email": "cook@example.com", "flag": true,
			"count": 3, "price": 1.5, "day": "2026-03-29", "at": "2026-03-29T08:00:00.000Z", "opens": "2000-01-01T09:30:00.000+01:00",
			"kind": kind["News"], "tags": []string{tags["Red"]}, "author": efRef("authors", ann),
			"coauthors": efRelation("authors", ann, bob), "buyer": efRef("customers", customer),
			"cover":  efCompactFile("cover.png", "image/png"),
			"photos": []obj{{"id": apitest.Any, "caption": "c", "position": 0, "file": efCompactFile("g.png", "image/png")}},
			"meta":   obj{"x": 1, "list": []any{1, "two"}}, "spot": obj{"latitude": 50.85, "longitude": 4.35},
			"translations": obj{"en": obj{"title": "Kitchen sink"}, "nl": obj{"title": "Kitchen sink"}},
		}
		var fields []string
		for _, f := range ch["customizations"].([]any) {
			fields = append(fields, f.(map[string]any)["name"].(string))
		}
		env.Run(t, []apitest.Scenario{
			{Name: "CreateWithEveryType", Method: "POST", Path: "/channels/everything/entries", Body: obj{
				"title": "Kitchen sink", "body": "Long text\nwith lines", "email": "cook@example.com", "flag": true, "count": 3, "price": 1.5,
				"day": "2026-03-29", "at": "2026-03-29T10:00:00+02:00", "opens": "09:30", "kind": kind["News"], "tags": []string{tags["Red"]},
				"author": ann, "coauthors": []string{ann, bob}, "buyer": customer, "cover": efUpload("cover.png", pic),
				"photos": obj{"__type": "Gallery", "images": []obj{{"__type": "GalleryImage", "caption": "c", "file": efUpload("g.png", pic2)}}},
				"meta":   obj{"x": 1, "list": []any{1, "two"}}, "spot": obj{"latitude": 50.85, "longitude": 4.35}},
				WantStatus: 201, WantBody: wantCreated,
				Check: func(t *testing.T, r *apitest.Response) {
					id = efStr(r.JSON, "id")
					efKeys(t, "entry", r.JSON, append([]string{"id", "slug", "created_at", "updated_at", "translations"}, fields...)...)
				}},
		})
		env.Run(t, []apitest.Scenario{
			{Name: "ReadCompact", Path: p(), WantStatus: 200, WantBody: wantCreated,
				Check: efChecks(efKeysAt([]any{"cover"}, efCompactKeys...), efKeysAt([]any{"photos", 0, "file"}, efCompactKeys...))},
			{Name: "ReadFull", Path: p(), Headers: efFull, WantStatus: 200, WantBody: obj{
				"cover": obj{"__type": "File", "filename": "cover.png", "content_type": "image/png", "size": len(pic), "width": 6, "height": 4,
					"version": apitest.Any, "checksum": md5hex(pic), "url": apitest.Any},
				"photos": []obj{{"caption": "c", "file": obj{"filename": "g.png", "size": len(pic2), "width": 9, "height": 3, "version": apitest.Any,
					"checksum": md5hex(pic2)}}},
				"title": "Kitchen sink", "count": 3, "kind": kind["News"], "author": efRef("authors", ann)},
				Check: efChecks(efKeysAt([]any{"cover"}, efFullKeys...), efKeysAt([]any{"photos", 0, "file"}, efGalleryFileKeys...))},
		})

		// Every field again, by each of its write forms.
		put := func(name string, body, want obj) apitest.Scenario {
			return apitest.Scenario{Name: "Update/" + name, Method: "PUT", Path: p(), Body: body, WantStatus: 200, WantBody: want}
		}
		var coverURL string
		env.Run(t, []apitest.Scenario{
			put("StringDefault", obj{"title": "Sink"}, obj{"title": "Sink", "translations": obj{"nl": obj{"title": "Sink"}}}),
			{Name: "Update/StringContentLocale", Method: "PUT", Path: p() + "?content_locale=nl", Body: obj{"title": "Gootsteen"}, WantStatus: 200,
				WantBody: obj{"title": "Sink", "translations": obj{"en": obj{"title": "Sink"}, "nl": obj{"title": "Gootsteen"}}}},
			put("StringTranslations", obj{"translations": obj{"nl": obj{"title": "Aanrecht"}}},
				obj{"title": "Sink", "translations": obj{"nl": obj{"title": "Aanrecht"}}}),
			put("Text", obj{"body": "Other text"}, obj{"body": "Other text"}),
			put("Email", obj{"email": "chef@example.com"}, obj{"email": "chef@example.com"}),
			put("BooleanFalse", obj{"flag": false}, obj{"flag": false}),
			put("BooleanString", obj{"flag": "true"}, obj{"flag": true}),
			put("Integer", obj{"count": 7}, obj{"count": 7}),
			put("IntegerNumericString", obj{"count": "8"}, obj{"count": 8}),
			put("Float", obj{"price": 2.25}, obj{"price": 2.25}),
			put("FloatNumericString", obj{"price": "3.5"}, obj{"price": 3.5}),
			put("Date", obj{"day": "2026-04-01"}, obj{"day": "2026-04-01"}),
			put("DateFromTimestamp", obj{"day": "2026-04-01T23:30:00Z"}, obj{"day": "2026-04-02"}),
			put("DateTimeZ", obj{"at": "2026-07-01T12:00:00Z"}, obj{"at": "2026-07-01T12:00:00.000Z"}),
			put("DateTimeOffset", obj{"at": "2026-01-15T12:00:00+01:00"}, obj{"at": "2026-01-15T11:00:00.000Z"}),
			put("DateTimeSiteWallClock", obj{"at": "2026-07-01T12:00:00"}, obj{"at": "2026-07-01T10:00:00.000Z"}),
			put("TimeHHMM", obj{"opens": "10:15"}, obj{"opens": "2000-01-01T10:15:00.000+01:00"}),
			put("TimeHHMMSS", obj{"opens": "10:15:30"}, obj{"opens": "2000-01-01T10:15:30.000+01:00"}),
			put("TimeTimestamp", obj{"opens": "2026-07-01T08:00:00Z"}, obj{"opens": "2000-01-01T10:00:00.000+01:00"}),
			put("SelectID", obj{"kind": kind["Blog"]}, obj{"kind": kind["Blog"]}),
			put("SelectNull", obj{"kind": nil}, obj{"kind": nil}),
			put("SelectAgain", obj{"kind": kind["News"]}, obj{"kind": kind["News"]}),
			put("MultiSelect", obj{"tags": []string{tags["Green"], tags["Red"]}}, obj{"tags": []string{tags["Green"], tags["Red"]}}),
			put("MultiSelectEmpty", obj{"tags": []string{}}, obj{"tags": []string{}}),
			put("MultiSelectAgain", obj{"tags": []string{tags["Green"]}}, obj{"tags": []string{tags["Green"]}}),
			put("ReferenceID", obj{"author": bob}, obj{"author": efRef("authors", bob)}),
			put("ReferenceObjectID", obj{"author": efRefW("authors", ann)}, obj{"author": efRef("authors", ann)}),
			put("ReferenceObjectSlug", obj{"author": obj{"__type": "Reference", "className": "authors", "slug": "bob"}}, obj{"author": efRef("authors", bob)}),
			put("ReferenceNull", obj{"author": nil}, obj{"author": nil}),
			put("ReferenceAgain", obj{"author": ann}, obj{"author": efRef("authors", ann)}),
			put("RelationArray", obj{"coauthors": []string{bob}}, obj{"coauthors": efRelation("authors", bob)}),
			put("RelationObjects", obj{"coauthors": obj{"objects": []obj{efRefW("authors", ann)}}}, obj{"coauthors": efRelation("authors", ann)}),
			put("RelationAddReference", obj{"coauthors": obj{"__op": "AddReference", "objects": []obj{efRefW("authors", bob)}}},
				obj{"coauthors": efRelation("authors", ann, bob)}),
			put("RelationRemoveReference", obj{"coauthors": obj{"__op": "RemoveReference", "objects": []obj{efRefW("authors", ann)}}},
				obj{"coauthors": efRelation("authors", bob)}),
			put("RelationAddRelation", obj{"coauthors": obj{"__op": "AddRelation", "objects": []obj{efRefW("authors", ann)}}},
				obj{"coauthors": efRelation("authors", bob, ann)}),
			put("RelationRemoveRelation", obj{"coauthors": obj{"__op": "RemoveRelation", "objects": []obj{efRefW("authors", bob)}}},
				obj{"coauthors": efRelation("authors", ann)}),
			put("RelationBatch", obj{"coauthors": obj{"__op": "Batch", "changes": []obj{
				{"__op": "RemoveReference", "objects": []obj{efRefW("authors", ann)}},
				{"__op": "AddReference", "objects": []obj{efRefW("authors", bob), efRefW("authors", ann)}}}}},
				obj{"coauthors": efRelation("authors", bob, ann)}),
			put("CustomerID", obj{"buyer": customer2}, obj{"buyer": efRef("customers", customer2)}),
			{Name: "Update/CustomerMissing", Method: "PUT", Path: p(), Body: obj{"buyer": "aabbccddeeff001122334455"},
				WantStatus: 422, WantBody: obj{"code": "reference_not_found", "field": "buyer"}},
			{Name: "Update/CustomerOfOtherSite", Method: "PUT", Path: p(), Body: obj{"buyer": otherCustomer},
				WantStatus: 422, WantBody: obj{"code": "reference_not_found", "field": "buyer"}},
			put("CustomerNull", obj{"buyer": nil}, obj{"buyer": nil}),
			put("CustomerAgain", obj{"buyer": customer}, obj{"buyer": efRef("customers", customer)}),
			{Name: "Update/FileUpload", Method: "PUT", Path: p(), Body: obj{"cover": efUpload("new.png", pic2)}, WantStatus: 200,
				WantBody: obj{"cover": efCompactFile("new.png", "image/png")},
				Check:    func(t *testing.T, r *apitest.Response) { coverURL = efStr(r.JSON, "cover", "url") }},
			put("FileRemove", obj{"cover": obj{"__type": "File", "remove": true}}, obj{"cover": nil}),
			put("FileUploadAgain", obj{"cover": efUpload("cover.png", pic)}, obj{"cover": efCompactFile("cover.png", "image/png")}),
			put("GalleryAddImage", obj{"photos": obj{"__type": "Gallery", "images": []obj{
				{"__type": "GalleryImage", "caption": "first", "position": 0, "file": efUpload("h.png", pic)}}}},
				obj{"photos": []obj{{"caption": "first", "position": 0}, {"caption": "c", "position": 1}}}),
			put("JSONObject", obj{"meta": obj{"a": obj{"b": []any{true, nil}}}}, obj{"meta": obj{"a": obj{"b": []any{true, nil}}}}),
			put("JSONArray", obj{"meta": []any{1, 2, 3}}, obj{"meta": []any{1, 2, 3}}),
			put("JSONNull", obj{"meta": nil}, obj{"meta": nil}),
			put("JSONAgain", obj{"meta": obj{"k": "v"}}, obj{"meta": obj{"k": "v"}}),
			put("Geo", obj{"spot": obj{"latitude": -33.9, "longitude": 151.2}}, obj{"spot": obj{"latitude": -33.9, "longitude": 151.2}}),
			{Name: "Update/GeoOutOfRangeRefused", Method: "PUT", Path: p(), Body: obj{"spot": obj{"latitude": 91, "longitude": 0}},
				WantStatus: 422, WantBody: efInvalid("spot")},
		})
		_ = coverURL

		// Read again, then PUT the read body back: the content stays.
		var gallery []any
		env.Run(t, []apitest.Scenario{
			{Name: "ReadAfterUpdates", Path: p(), WantStatus: 200, WantBody: obj{
				"title": "Sink", "body": "Other text", "email": "chef@example.com", "flag": true, "count": 8, "price": 3.5, "day": "2026-04-02",
				"at": "2026-07-01T10:00:00.000Z", "opens": "2000-01-01T10:00:00.000+01:00", "kind": kind["News"], "tags": []string{tags["Green"]},
				"author": efRef("authors", ann), "coauthors": efRelation("authors", bob, ann), "buyer": efRef("customers", customer),
				"cover":  efCompactFile("cover.png", "image/png"),
				"photos": []obj{{"caption": "first", "position": 0, "file": obj{"filename": "h.png"}}, {"caption": "c", "position": 1, "file": obj{"filename": "g.png"}}},
				"meta":   obj{"k": "v"}, "spot": obj{"latitude": -33.9, "longitude": 151.2},
				"translations": obj{"en": obj{"title": "Sink"}, "nl": obj{"title": "Aanrecht"}}},
				Check: func(t *testing.T, r *apitest.Response) { gallery, _ = efDig(r.JSON, "photos").([]any) }},
		})
		// roundTrip reads the entry (with query and headers), PUTs that body
		// back and checks that the PUT's answer and a new read show the same
		// content as before (updated_at aside).
		roundTrip := func(name string, headers map[string]string, query string) apitest.Scenario {
			return apitest.Scenario{Name: name, Path: p(), WantStatus: 200, Check: func(t *testing.T, _ *apitest.Response) {
				base := efGet(t, env, p(), headers)
				sent := efGet(t, env, p()+query, headers)
				res := env.Do(t, apitest.Scenario{Method: "PUT", Path: p(), Headers: headers, Body: sent})
				if res.Status != 200 {
					t.Fatalf("PUT the read body back: got %d %s", res.Status, res.Raw)
				}
				efSame(t, "PUT response", efWithout(res.JSON.(map[string]any), "updated_at"), efWithout(base, "updated_at"))
				efSame(t, "entry read after the PUT", efWithout(efGet(t, env, p()+query, headers), "updated_at"), efWithout(sent, "updated_at"))
			}}
		}
		env.Run(t, []apitest.Scenario{
			roundTrip("RoundTripCompact", nil, ""),
			roundTrip("RoundTripFull", efFull, ""),
			roundTrip("RoundTripWithSlugs", nil, "?include_slugs=true"),
			{Name: "RoundTripKeptGalleryIDs", Path: p(), WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				efSame(t, "photos", efDig(r.JSON, "photos"), any(gallery))
			}},
		})

		// The round trip sent translations.nl.title only because nl shows
		// it: a locale that only fell back to the default must still
		// follow the default afterwards.
		other := efCreate(t, env, "everything", obj{"title": "Fallback"})
		op := "/channels/everything/entries/" + other["id"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "RoundTripKeepsLocaleFallback", Path: op, WantStatus: 200, Check: func(t *testing.T, _ *apitest.Response) {
				before := efGet(t, env, op, nil)
				efDo(t, env, apitest.Scenario{Method: "PUT", Path: op, Body: before}, 200)
				after := efDo(t, env, apitest.Scenario{Method: "PUT", Path: op, Body: obj{"title": "Changed default"}}, 200)
				if got := efStr(after, "translations", "nl", "title"); got != "Changed default" {
					t.Errorf("translations.nl.title after a round trip and a default-locale change: got %q, want %q (nl was never set)",
						got, "Changed default")
				}
			}},
		})
	})
}
