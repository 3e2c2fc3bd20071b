package storetest_test

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/store/storetest"
)

func TestStores(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { storetest.Run(t, b) })
	}
}
