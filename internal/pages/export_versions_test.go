package pages

// The stored form of version snapshots, for tests of the format.
var (
	EncodeVersionDoc   = encodeVersionDoc
	DecodeVersionDoc   = decodeVersionDoc
	EncodeVersionDelta = encodeVersionDelta
	ChainDoc           = chainDoc
)

// VersionChainMax is the most versions a chain holds.
const VersionChainMax = versionChainMax

// VersionDocsHeld reports how many version documents s holds for the next
// archive (see versionDocs).
func VersionDocsHeld(s *Service) int {
	s.versionDocs.mu.Lock()
	defer s.versionDocs.mu.Unlock()
	return len(s.versionDocs.docs)
}
