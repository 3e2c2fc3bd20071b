package cms

// RefTarget is what a reference read shows of its target: for pages, Slug
// is the target's fullpath (with or without the leading slash; reads drop
// it), for entries the entry slug; Title is the target's title. Pages and
// entries both speak it, so it lives here rather than in either.
type RefTarget struct {
	Slug  string
	Title string
}
