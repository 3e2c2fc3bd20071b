package auth

// Scopes are what a token may do, named as the original service's clients
// check them: read_X and write_X per resource, where write_X also grants
// read_X. docs/api.md lists the routes each covers. User and site tokens
// hold every scope; tokens scoped to less come with apps as OAuth
// applications.
var Scopes = []string{
	"read_channels", "write_channels", // channels and their entries
	"read_cloudcode", "write_cloudcode", // apps, their code and logs, functions, jobs
	"read_content", "write_content", // pages, drafts, versions, uploads
	"read_customers", "write_customers", // customers and their custom fields
	"read_sites", "write_sites", // the sites and their settings
	"read_themes", "write_themes", // themes and their files
}

// Scopes returns the scopes of the principal's token, in Scopes' order.
// Callers must not change the slice.
func (p *Principal) Scopes() []string { return Scopes }
