package httpapi

import (
	"bytes"
	"net/http"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/scopes"
)

// absent lists resources of the original service that this server does
// not keep. Tools that copy a whole site (the original client's `sites
// copy`) read each one's list and stop when that read fails, before the
// resources the server does keep. So the list answers what is true — the
// site has none: an empty list — and everything else answers 404: nothing
// is accepted that would not be kept, and no record is made up. A path
// leaves this list when its resource is built (menus, translations,
// redirects, notifications and roles are issue 32's). docs/api.md,
// "Resources this server does not keep", says the same.
var absent = []struct {
	path, name string
	// emptyWrite accepts a POST of an empty list, which keeps nothing:
	// a copy writes a schema however empty its source's is.
	emptyWrite bool
}{
	{"/api/products", "products", false},
	{"/api/products/customizations", "product custom fields", true},
	{"/api/collections", "collections", false},
	{"/api/blogs", "blogs", false},
}

// absentResources registers the absent resources' paths, for every
// method, outside the route table.
func (s *Server) absentResources() {
	for _, a := range absent {
		s.serve(a.path, needSite, scopes.None, s.MaxBodyBytes, func(w http.ResponseWriter, r *http.Request) error {
			switch r.Method {
			case http.MethodGet:
				page, perPage, err := pageParams(r)
				if err != nil {
					return err
				}
				writeList(w, r, []any{}, 0, page, perPage)
				return nil
			case http.MethodPost:
				if a.emptyWrite {
					body, err := readBody(r)
					if err != nil {
						return err
					}
					if b := bytes.TrimSpace(body); bytes.Equal(b, []byte("[]")) {
						writeJSON(w, http.StatusOK, []any{})
						return nil
					}
				}
			}
			return cms.Errorf(cms.ENotFound, "This server keeps no %s.", a.name)
		})
	}
}
