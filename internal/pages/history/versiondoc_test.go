package history_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tessera-cms/tessera/internal/pages/history"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestVersionDocFormats checks the stored forms of a version snapshot: a
// compressed one decodes to the archived JSON byte for byte, is much
// smaller than it, and a row stored before compression (the JSON itself)
// still reads as it is.
func TestVersionDocFormats(t *testing.T) {
	p, _ := pagetest.LargePage()
	doc, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	stored := history.EncodeDoc(doc)
	if len(stored) >= len(doc)/2 {
		t.Errorf("stored %d bytes for a %d-byte document", len(stored), len(doc))
	}
	for _, c := range []struct {
		name   string
		stored []byte
	}{{"Compressed", stored}, {"Old", doc}, {"OldIndented", append([]byte("\n "), doc...)}} {
		t.Run(c.name, func(t *testing.T) {
			got, err := history.DecodeDoc(c.stored)
			if err != nil {
				t.Fatal(err)
			}
			if want := bytes.TrimLeft(c.stored, "\n "); c.name != "Compressed" && !bytes.Equal(bytes.TrimLeft(got, "\n "), want) {
				t.Errorf("got %q, want the stored bytes", got)
			} else if c.name == "Compressed" && !bytes.Equal(got, doc) {
				t.Errorf("got %d bytes, want the %d archived", len(got), len(doc))
			}
		})
	}
	for _, bad := range [][]byte{nil, {}, {0x02}, {0x01}, stored[:len(stored)/2], []byte("[1]")} {
		if got, err := history.DecodeDoc(bad); err == nil {
			t.Errorf("DecodeVersionDoc(%q) = %q, want an error", bad, got)
		}
	}
}

// chain returns the versions a store would return for reading the last
// of docs: the newest first, each stored against the one after it, the
// oldest on its own.
func chain(docs ...[]byte) []*store.Version {
	var out []*store.Version
	for i, doc := range docs {
		v := &store.Version{ID: fmt.Sprintf("v%d", i)}
		if i == 0 {
			v.Snapshot = history.EncodeDoc(doc)
		} else {
			v.Snapshot, v.BaseID = history.EncodeDelta(docs[i-1], doc), out[0].ID
		}
		out = append([]*store.Version{v}, out...)
	}
	return out
}

// TestVersionChainDoc checks reading a version stored as deltas on top of
// a document stored on its own: exact, small, and refused rather than
// wrong when a link is damaged or missing.
func TestVersionChainDoc(t *testing.T) {
	p, _ := pagetest.LargePage()
	var docs [][]byte
	for i := range 5 {
		p.Title["en"] = fmt.Sprintf("Saved %d times", i)
		doc, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
	c := chain(docs...)
	for i := range c {
		got, err := history.ChainDoc(c[i:])
		if err != nil {
			t.Fatalf("version %s: %v", c[i].ID, err)
		}
		if want := docs[len(docs)-1-i]; !bytes.Equal(got, want) {
			t.Errorf("version %s: got %d bytes, want the %d archived", c[i].ID, len(got), len(want))
		}
		if i < len(c)-1 && len(c[i].Snapshot) > len(docs[0])/100 {
			t.Errorf("version %s: stored %d bytes of a %d-byte document", c[i].ID, len(c[i].Snapshot), len(docs[0]))
		}
	}
	// An old row, stored before compression, is a base like any other.
	old := chain(docs[:2]...)
	old[1].Snapshot = docs[0]
	if got, err := history.ChainDoc(old); err != nil || !bytes.Equal(got, docs[1]) {
		t.Errorf("a delta on an uncompressed row: got %d bytes, %v", len(got), err)
	}

	damaged := func(mutate func(c []*store.Version)) []*store.Version {
		c := chain(docs...)
		mutate(c)
		return c
	}
	for name, bad := range map[string][]*store.Version{
		"None":        nil,
		"BaseMissing": c[:2],
		"WrongBase":   append(chain(docs[0], docs[2]), c[len(c)-1]),
		"DeltaAsBase": damaged(func(c []*store.Version) { c[len(c)-1].Snapshot = c[0].Snapshot }),
		"DocAsDelta":  damaged(func(c []*store.Version) { c[0].Snapshot = c[len(c)-1].Snapshot }),
		"Flipped":     damaged(func(c []*store.Version) { c[1].Snapshot[len(c[1].Snapshot)-1] ^= 1 }),
		"Cut":         damaged(func(c []*store.Version) { c[1].Snapshot = c[1].Snapshot[:len(c[1].Snapshot)/2] }),
	} {
		if got, err := history.ChainDoc(bad); err == nil {
			t.Errorf("%s: got %d bytes, want an error", name, len(got))
		}
	}
}

// FuzzDecodeVersionDoc: stored bytes never panic the decoder, and what
// the encoders write decodes to the input exactly, on its own and as a
// delta against another document.
func FuzzDecodeVersionDoc(f *testing.F) {
	f.Add([]byte(`{"id":"x"}`), []byte(`{"id":"y"}`))
	f.Add(history.EncodeDoc([]byte(`{"id":"x","title":{"en":"Home"}}`)), []byte{})
	f.Add([]byte{0x01, 0xff, 0x00}, []byte{0x02, 0x00})
	f.Add([]byte{0x03, 0xff, 0x00}, history.EncodeDelta([]byte(`{"id":"x"}`), []byte(`{"id":"xy"}`)))
	f.Fuzz(func(t *testing.T, b, other []byte) {
		_, _ = history.DecodeDoc(b)
		_, _ = history.ChainDoc([]*store.Version{{ID: "b", BaseID: "a", Snapshot: b}, {ID: "a", Snapshot: other}})
		got, err := history.DecodeDoc(history.EncodeDoc(b))
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("round trip of %q: got %q, %v", b, got, err)
		}
		got, err = history.ChainDoc(chain(other, b))
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("round trip of %q against %q: got %q, %v", b, other, got, err)
		}
	})
}
