package delta_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/delta"
)

// doc returns a JSON-like document of about n bytes, the same for a seed.
func doc(seed int64, n int) []byte {
	r := rand.New(rand.NewSource(seed))
	var b bytes.Buffer
	b.WriteString(`{"id":"5f0c","title":{"en":"Home","de":"Startseite"},"items":[`)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `{"slug":"Text%d","type":"text","content":{"en":"`, i)
		for range 30 {
			b.WriteString([]string{"lorem", "ipsum", "dolor", "sit", "amet", "tessera"}[r.Intn(6)])
			fmt.Fprintf(&b, "%d ", r.Intn(1000))
		}
		b.WriteString(`"}},`)
	}
	b.WriteString(`{}]}`)
	return b.Bytes()
}

func roundTrip(t *testing.T, base, target []byte) []byte {
	t.Helper()
	d := delta.Diff(base, target)
	got, err := delta.Apply(base, d)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if !bytes.Equal(got, target) {
		t.Fatalf("Apply: got %d bytes, want the %d of the target", len(got), len(target))
	}
	return d
}

// TestDiffSizes checks that a delta costs about what was edited: small
// edits anywhere in a ~60 KB document give deltas of tens of bytes.
func TestDiffSizes(t *testing.T) {
	base := doc(1, 60000)
	replace := func(old, new string, n int) []byte {
		return []byte(strings.Replace(string(base), old, new, n))
	}
	mid := len(base) / 2
	for _, c := range []struct {
		name   string
		target []byte
		max    int
	}{
		{"Same", base, 16},
		{"OneField", replace(`"en":"Home"`, `"en":"Home, saved 12 times"`, 1), 48},
		{"TwoPlaces", replace(`"Text10"`, `"Text10b"`, 1), 40},
		{"Deleted", append(bytes.Clone(base[:mid]), base[mid+500:]...), 32},
		{"Inserted", append(append(bytes.Clone(base[:mid]), "a new paragraph"...), base[mid:]...), 48},
		{"EveryTenthItem", replace(`"type":"text"`, `"type":"texts"`, -1), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := roundTrip(t, base, c.target)
			if c.max > 0 && len(d) > c.max {
				t.Errorf("delta of %d bytes, want at most %d", len(d), c.max)
			}
			if len(d) > len(c.target)/4 {
				t.Errorf("delta of %d bytes for a %d-byte target", len(d), len(c.target))
			}
		})
	}
	// Two separate edits, as a save makes (the title and updated_at).
	two := bytes.Clone(base)
	copy(two[100:], "XXXX")
	copy(two[len(two)-100:], "YYYY")
	if d := roundTrip(t, base, two); len(d) > 48 {
		t.Errorf("two edits: delta of %d bytes, want at most 48", len(d))
	}
}

func TestRoundTripEdges(t *testing.T) {
	big := doc(2, 5000)
	for _, c := range []struct{ name, base, target string }{
		{"Empty", "", ""},
		{"FromEmpty", "", "abc"},
		{"ToEmpty", "abc", ""},
		{"Short", "abc", "abd"},
		{"Unrelated", string(doc(3, 3000)), string(big)},
		{"Reversed", string(big[2500:]) + string(big[:2500]), string(big)},
		{"Repeated", strings.Repeat("abcdefgh", 100), strings.Repeat("abcdefgh", 130)},
		{"Doubled", string(big), string(big) + string(big)},
	} {
		t.Run(c.name, func(t *testing.T) { roundTrip(t, []byte(c.base), []byte(c.target)) })
	}
}

// TestApplyRefuses checks that a delta applied to another base, or
// damaged, is refused rather than turned into wrong bytes.
func TestApplyRefuses(t *testing.T) {
	base := doc(4, 4000)
	target := bytes.Replace(base, []byte("lorem"), []byte("LOREM"), 3)
	d := delta.Diff(base, target)
	other := bytes.Clone(base)
	other[2000] ^= 1
	if _, err := delta.Apply(other, d); !errors.Is(err, delta.ErrWrongBase) {
		t.Errorf("Apply to a base with one byte changed: got %v, want ErrWrongBase", err)
	}
	if _, err := delta.Apply(base[1:], d); !errors.Is(err, delta.ErrWrongBase) {
		t.Errorf("Apply to a shorter base: got %v, want ErrWrongBase", err)
	}
	for i := range d {
		bad := bytes.Clone(d)
		bad[i] ^= 0x41
		if got, err := delta.Apply(base, bad); err == nil && !bytes.Equal(got, target) {
			t.Errorf("byte %d flipped: got %d bytes and no error", i, len(got))
		}
	}
	for n := range len(d) {
		if _, err := delta.Apply(base, d[:n]); err == nil {
			t.Errorf("delta cut to %d of %d bytes: no error", n, len(d))
		}
	}
}

// FuzzDiffApply: Apply(base, Diff(base, target)) is target, and Apply of
// any bytes fails or succeeds without panicking.
func FuzzDiffApply(f *testing.F) {
	base := doc(5, 2000)
	f.Add(base, bytes.Replace(base, []byte("amet"), []byte("AMET!"), 2))
	f.Add([]byte("abc"), []byte("abcabcabc"))
	f.Add([]byte{}, []byte{0x01, 0x02})
	f.Add(base, delta.Diff(base, base[100:]))
	f.Fuzz(func(t *testing.T, base, target []byte) {
		d := delta.Diff(base, target)
		got, err := delta.Apply(base, d)
		if err != nil || !bytes.Equal(got, target) {
			t.Fatalf("round trip: got %d bytes, %v; want %d bytes", len(got), err, len(target))
		}
		_, _ = delta.Apply(base, target)
		_, _ = delta.Apply(target, base)
	})
}

func BenchmarkDiff(b *testing.B) {
	base := doc(6, 70000)
	target := bytes.Replace(base, []byte(`"en":"Home"`), []byte(`"en":"Home 2"`), 1)
	b.SetBytes(int64(len(target)))
	for b.Loop() {
		delta.Diff(base, target)
	}
}

func BenchmarkApply(b *testing.B) {
	base := doc(6, 70000)
	target := bytes.Replace(base, []byte(`"en":"Home"`), []byte(`"en":"Home 2"`), 1)
	d := delta.Diff(base, target)
	b.SetBytes(int64(len(target)))
	for b.Loop() {
		if _, err := delta.Apply(base, d); err != nil {
			b.Fatal(err)
		}
	}
}
