package doc_test

import (
	"encoding/json"
	"testing"

	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
)

// BenchmarkStoreRoundTrip measures what a load and a save of the stored
// document cost: one JSON unmarshal and one marshal.
func BenchmarkStoreRoundTrip(b *testing.B) {
	p, _ := pagetest.LargePage()
	blob, err := json.Marshal(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		var q doc.Page
		if err := json.Unmarshal(blob, &q); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(&q); err != nil {
			b.Fatal(err)
		}
	}
}
